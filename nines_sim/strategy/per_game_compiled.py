"""Strategies written as one compiled function over one game's arrays (the fastest plug-in form).

Subclass :class:`CompiledStrategy` and set ``decide`` to a plain Python function
of the form ``decide(kind, g, hand, hand_sizes, totals, drew_on) -> int`` written in
the subset of Python that numba compiles:

``kind``
    The decision: ``PLAY`` (answer a face in ``g[G_LEGAL]``, or ``PAIR`` where
    ``g[G_PAIR_LEGAL]``), ``DECLARE`` or ``DEALER_DECLARE`` (a suit 0-3), ``PLAY_DRAWN``
    (1 to play the legal card ``g[G_CARD]`` just drawn, 0 to keep it).
``g``
    int64 (NG,): the game as the deciding player sees it, by the ``G_*`` indices
    (seat, legal set, top, active suit, stock size, dealer, direction, played set,
    drawn card, players, nine penalty, turn, random key, seats in the hand, decks).
``hand``
    uint64 (2,): the own hand, count-coded (word 1 is 0 with one deck).
``hand_sizes``, ``totals``, ``drew_on``
    int64 (P,): per seat, as in :class:`~nines_sim.strategy.base.Observation`.

The compiled engine calls it from inside its turn loop (no return to Python); the
numpy engine calls the same function compiled, game by game, so both engines
agree.  :func:`random_word` and :func:`random_below` give the decision's own
counter-based random stream, as ``Observation.random`` does.
"""

from __future__ import annotations

import hashlib
import pickle
import sys
import types
import warnings
from typing import Any, ClassVar

import numpy as np
from numba import cfunc, njit
from numba.core import sigutils
from numba.core.caching import FunctionCache, IndexDataCacheFile
from numba.core.ccallback import CFunc
from numba.core.errors import NumbaExperimentalFeatureWarning

from nines_sim.engine import turn_loop as K
from nines_sim.engine.turn_loop import (  # noqa: F401 - the names a user strategy needs, from one place
    G_ACTIVE,
    G_CARD,
    G_DEALER,
    G_DECKS,
    G_DIRECTION,
    G_IN_HAND,
    G_KEY,
    G_LEGAL,
    G_NINE_PENALTY,
    G_PAIR_LEGAL,
    G_PLAYED,
    G_PLAYERS,
    G_SEAT,
    G_STOCK,
    G_TOP,
    G_TURN,
    NG,
    PAIR,
    pick_card,
    popcount,
)
from nines_sim.strategy.base import DecisionKind, Observation, Strategy

PLAY, DECLARE, PLAY_DRAWN, DEALER_DECLARE = K.K_PLAY, K.K_DECLARE, K.K_PLAY_DRAWN, K.K_DEALER_DECLARE
NATURALS = K.I_NATURALS
NINES = K.I_NINES

warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)


@njit(cache=True)
def random_word(g: np.ndarray, kind: int, salt: int) -> np.uint64:
    """The decision's random word for ``salt`` (the same as ``Observation.random(salt)``)."""
    return K.stream(np.uint64(g[G_KEY]), K.U_DECISION[kind], g[G_TURN] * 64 + salt)


@njit(cache=True)
def random_below(g: np.ndarray, kind: int, n: int, salt: int) -> int:
    """A uniform integer in ``[0, n)`` from the decision's stream (as ``Observation.random_below``)."""
    return K.below(random_word(g, kind, salt), n)


class CompiledStrategy(Strategy):
    """Base class of a strategy given as one compiled function, ``decide`` (see the module docs).

    Set ``name``, ``classifier`` and ``decide`` (a plain function; it is compiled on first use
    and cached on disk beside its source file).
    """

    decide: ClassVar[Any] = None

    # --- the numpy engine's path: the same function, compiled, one game at a time
    def _ask(self, obs: Observation, kind: int, card: np.ndarray | None = None) -> np.ndarray:
        fn = jitted(type(self))
        g = np.zeros(NG, dtype=np.int64)
        hand = np.zeros(2, dtype=np.uint64)
        legal = obs.legal.astype(np.int64)
        pair = obs.pair_legal if kind == PLAY else np.zeros(obs.n, dtype=bool)
        # the decision stream's key and counter, as Observation.random reads them
        dkey = obs.public("dkey").view(np.int64)
        turn = obs.public("turn")
        in_hand = (obs.in_hand * (1 << np.arange(obs.players))).sum(axis=1)
        out = np.empty(obs.n, dtype=np.int64)
        for j in range(obs.n):
            g[:] = (
                obs.seat[j], legal[j], pair[j], obs.top[j], obs.active_suit[j], obs.stock_size[j], obs.dealer[j],
                obs.direction[j], np.int64(obs.played[j]), -1 if card is None else card[j], obs.players,
                obs.nine_penalty, turn[j], dkey[j], in_hand[j], len(obs.hand),
            )  # fmt: skip
            hand[0] = obs.hand[0][j]
            hand[1] = obs.hand[1][j] if len(obs.hand) == 2 else 0
            out[j] = fn(
                kind,
                g,
                hand,
                np.ascontiguousarray(obs.hand_sizes[j]),
                np.ascontiguousarray(obs.totals[j]),
                np.ascontiguousarray(obs.drew_on[j]),
            )
        return out

    def play(self, obs: Observation) -> np.ndarray:
        return self._ask(obs, PLAY)

    def declare(self, obs: Observation) -> np.ndarray:
        return self._ask(obs, int(obs.kind))

    def play_drawn(self, obs: Observation, card: np.ndarray) -> np.ndarray:
        return self._ask(obs, PLAY_DRAWN, card) != 0


_JITTED: dict[type, Any] = {}
_CFUNCS: dict[Any, Any] = {}


def _py_func(cls: type) -> Any:
    fn = cls.__dict__.get("decide") or next((c.__dict__["decide"] for c in cls.__mro__ if "decide" in c.__dict__), None)
    if isinstance(fn, staticmethod):
        fn = fn.__func__
    fn = getattr(fn, "py_func", fn)  # an @njit function: compile its Python source our way
    if fn is None or not callable(fn):
        raise TypeError(
            f"{cls.__name__} must set decide to a function decide(kind, g, hand, hand_sizes, totals, drew_on)"
        )
    return fn


def jitted(cls: type) -> Any:
    """``cls.decide`` compiled for calls from Python (the numpy engine's path; compiled once per process)."""
    if cls not in _JITTED:
        # not cached: numba would file it under the same name as the C callback below, which is cached
        _JITTED[cls] = njit(K.DECIDE_SIG)(_py_func(cls))
    return _JITTED[cls]


def _cacheable(fn: Any) -> bool:
    code = getattr(fn, "__code__", None)
    return code is not None and not code.co_filename.startswith("<")


# Packages whose code a plug-in's compiled code does not take in (numba and numpy come with their own version checks).
_NOT_HASHED = {"builtins", "cmath", "llvmlite", "math", "numba", "numpy", "operator"}


def code_digest(fn: Any) -> str:
    """A digest of everything a compiled ``decide`` takes into its machine code.

    numba's own cache checks only the file that holds the function: a helper it calls in another file
    (an ``@njit`` function, a constant) can change without it noticing, and the cached code would run the
    old helper.  This digest covers the text of every file that holds a function ``fn`` reaches (through its
    globals, its closure, modules' attributes, recursively, numba dispatchers included) and the value of
    every other global it reads, which numba freezes into the code.

    Parameters
    ----------
    fn : function or numba dispatcher
        The plug-in's ``decide``.

    Returns
    -------
    str
        A sha256 hex digest; equal in two processes when the code they would compile is the same.
    """
    files: set[str] = set()
    values = hashlib.sha256()
    seen: set[int] = set()

    def hashed(module_name: str) -> bool:
        return module_name.partition(".")[0] not in _NOT_HASHED

    def visit(v: Any, names: tuple[str, ...]) -> None:
        if isinstance(v, types.ModuleType):  # visited once per reader: each reads its own attributes
            if hashed(v.__name__):
                files.add(getattr(v, "__file__", None) or v.__name__)
                for n in names:  # module.attribute, as the reading code names them
                    if n in vars(v) and not isinstance(vars(v)[n], types.ModuleType):
                        visit(vars(v)[n], names)
            return
        if id(v) in seen:
            return
        seen.add(id(v))
        py = getattr(v, "py_func", None) or getattr(v, "__wrapped__", None) or v
        code = getattr(py, "__code__", None)
        if code is not None:
            if hashed(getattr(py, "__module__", None) or ""):
                files.add(code.co_filename)
                inner = _names(code)
                glob = getattr(py, "__globals__", {})
                for n in inner:
                    if n in glob:
                        visit(glob[n], inner)
                for cell in getattr(py, "__closure__", None) or ():
                    visit(cell.cell_contents, inner)
            return
        module = getattr(v, "__module__", None)
        if callable(v) and isinstance(module, str):  # an intrinsic, an overload, a class: its module's file
            if hashed(module) and getattr(sys.modules.get(module), "__file__", None):
                files.add(sys.modules[module].__file__)
            return
        try:
            values.update(pickle.dumps(v))
        except Exception:  # noqa: BLE001 - an unpicklable value: its text stands for it
            values.update(repr(v).encode())

    visit(fn, ())
    h = hashlib.sha256(values.digest())
    for f in sorted(files):
        h.update(f.encode() + b"\0")
        try:
            with open(f, "rb") as fh:
                h.update(hashlib.sha256(fh.read()).digest())
        except OSError:
            pass
    return h.hexdigest()


def _names(code: types.CodeType) -> tuple[str, ...]:
    """The global and attribute names a code object and the functions defined in it read."""
    out = list(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out += _names(c)
    return tuple(dict.fromkeys(out))


class _DecideCache(FunctionCache):
    """numba's on-disk cache of a plug-in's ``decide``, made safe to reuse across runs.

    numba files compiled code under the function's file, name and line, keyed by its bytecode: two things
    it does not see would load code that breaks or is stale,

    - the module the code came from, which a cache entry imports again when it loads (a file plug-in's
      module is ``nines_user_<name>_<digest>``, the same file as ``module:Class`` is ``module``): part of
      the key here, so each form has its own entry;
    - the helpers ``decide`` calls in other files: :func:`code_digest` joins the file's stamp, so an edit
      of any of them recompiles.
    """

    def __init__(self, py_func: Any) -> None:
        super().__init__(py_func)
        stamp = (self._impl.locator.get_source_stamp(), code_digest(py_func))
        self._cache_file = IndexDataCacheFile(self._cache_path, self._impl.filename_base, stamp)

    def _index_key(self, sig: Any, codegen: Any) -> tuple:
        return (*super()._index_key(sig, codegen), self._py_func.__module__)

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        """The cached code, or None (compile it) where an entry cannot be loaded: a damaged file, a module gone."""
        try:
            return super().load_overload(sig, target_context)
        except Exception:  # noqa: BLE001 - a cache that cannot be read is a cache miss, never a failed run
            return None


def compiled_function(strategy: Strategy | None) -> Any:
    """The compiled-engine form of a seat's strategy: ``decide`` as a C callback, or a placeholder.

    A plug-in's ``decide`` is cached on disk (beside its file, or under ``NUMBA_CACHE_DIR``) by
    :class:`_DecideCache`: a later run, a worker process or a Dask worker loads it, whether the class was
    named by file or by module, and an edit of the file or of a helper it calls recompiles it.
    """
    fn = _py_func(type(strategy)) if isinstance(strategy, CompiledStrategy) else _placeholder
    if fn not in _CFUNCS:
        if fn is _placeholder or not _cacheable(fn):
            _CFUNCS[fn] = cfunc(K.DECIDE_SIG, cache=_cacheable(fn))(fn)
        else:
            args, restype = sigutils.normalize_signature(K.DECIDE_SIG)
            compiled = CFunc(fn, (args, restype), locals={}, options={})
            compiled._cache = _DecideCache(fn)  # what CFunc.enable_caching does, with the cache above
            compiled.compile()
            _CFUNCS[fn] = compiled
    return _CFUNCS[fn]


def _placeholder(kind, g, hand, hand_sizes, totals, drew_on):  # noqa: ANN001, ANN202 - numba-typed
    return -1


__all__ = [
    "CompiledStrategy",
    "DEALER_DECLARE",
    "DECLARE",
    "DecisionKind",
    "PLAY",
    "PLAY_DRAWN",
    "random_below",
    "random_word",
]
