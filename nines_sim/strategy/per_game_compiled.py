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

import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import cfunc, njit
from numba.core import sigutils
from numba.core.ccallback import CFunc
from numba.core.errors import NumbaExperimentalFeatureWarning

from nines_sim.engine import turn_loop as K
from nines_sim.engine.code_cache import DigestCache, code_digest  # noqa: F401 - code_digest, also read from here
from nines_sim.engine.failures import StrategyCompileError
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
from nines_sim.strategy.base import DecisionKind, Observation, Strategy  # noqa: F401 - DecisionKind: __all__
from nines_sim.strategy.compiled_base import CompiledStrategy

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


_JITTED: dict[Any, Any] = {}
_CFUNCS: dict[Any, Any] = {}


def jitted_decide(fn: Any, name: str) -> Any:
    """``fn`` (a ``decide``) compiled for calls from Python, once per process; ``name``: the strategy's, for errors."""
    if fn not in _JITTED:
        _JITTED[fn] = _compiling(name, fn, lambda: _python_form(fn))
    return _JITTED[fn]


def _python_form(fn: Any) -> Any:
    """``fn`` compiled for calls from Python, for ``DECIDE_SIG`` only, cached on disk where it has a source file.

    Its entry is filed apart from the C callback's (:func:`_callback`), which numba would file under the same
    name: a later process (``nines analyze``, ``nines review``, a test) loads it instead of compiling it again
    (5-10 s of processor time for a ``learned`` model).
    """
    compiled = njit(fn)
    if _cacheable(fn):
        compiled._cache = _DecideCache(fn, form="-py")  # what Dispatcher.enable_caching does, with that cache
    compiled.compile(K.DECIDE_SIG)
    compiled.disable_compile()  # as when compiled for the signature given: other argument types are refused
    return compiled


def _compiling(name: str, fn: Any, build: Callable[[], Any]) -> Any:
    """``build()``, which compiles the strategy ``name``'s ``decide`` (``fn``); numba's failure as one line.

    numba's own error is a page long (its pipeline's traceback, then the message with the source quoted
    twice): the line keeps the strategy's name, the file and line numba points at, and the first line of
    numba's message that says what is wrong (not its "Failed in ... pipeline" heading).
    """
    from numba.core.errors import NumbaError

    try:
        return build()
    except NumbaError as exc:
        loc = getattr(exc, "loc", None)
        code = getattr(fn, "__code__", None)
        file = getattr(loc, "filename", None) or (code.co_filename if code else "?")
        line = getattr(loc, "line", None) or (code.co_firstlineno if code else "?")
        said = [t for t in (_ANSI.sub("", x).strip() for x in str(exc).splitlines()) if t]
        said = [t for t in said if not _PIPELINE.match(t)] or said or [type(exc).__name__]
        raise StrategyCompileError(
            f"strategy {name!r}: numba cannot compile its decide (at {file}, line {line}, in {fn.__name__}): {said[0]}"
        ) from exc


#: numba's heading of a failed compile (the stage, not the fault), and its terminal colours.
_PIPELINE = re.compile(r"Failed in \w[\w ]* mode pipeline \(step: [^)]*\)$")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _cacheable(fn: Any) -> bool:
    code = getattr(fn, "__code__", None)
    return code is not None and not code.co_filename.startswith("<")


class _DecideCache(DigestCache):
    """numba's on-disk cache of a plug-in's ``decide``, made safe to reuse across runs.

    numba files compiled code under the function's file, name and line, keyed by its bytecode: two things
    it does not see would load code that breaks or is stale,

    - the module the code came from, which a cache entry imports again when it loads (a file plug-in's
      module is ``nines_user_<name>_<digest>``, the same file as ``module:Class`` is ``module``): part of
      the key here, so each form has its own entry;
    - the helpers ``decide`` calls in other files: :func:`code_digest` joins the file's stamp, so an edit
      of any of them recompiles.
    """

    def _index_key(self, sig: Any, codegen: Any) -> tuple:
        return (*super()._index_key(sig, codegen), self._py_func.__module__)

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        """The cached code, or None (compile it) where an entry cannot be loaded: a damaged file, a module gone."""
        try:
            return super().load_overload(sig, target_context)
        except Exception:  # noqa: BLE001 - a cache that cannot be read is a cache miss, never a failed run
            return None


def compiled_function(strategy: Strategy | None, rules: Any = None) -> Any:
    """The compiled-engine form of a seat's strategy under ``rules``: ``decide`` as a C callback, or a placeholder.

    A plug-in's ``decide`` is cached on disk (beside its file, or under ``NUMBA_CACHE_DIR``) by
    :class:`_DecideCache`: a later run, a worker process or a Dask worker loads it, whether the class was
    named by file or by module, and an edit of the file or of a helper it calls recompiles it.

    Raises
    ------
    nines_sim.engine.failures.StrategyCompileError
        If numba cannot compile the strategy's ``decide``: one line, with the file and line numba points at.
    """
    fn = strategy.decide_function(rules) if isinstance(strategy, CompiledStrategy) else _placeholder
    if fn not in _CFUNCS:
        if fn is _placeholder:
            _CFUNCS[fn] = cfunc(K.DECIDE_SIG, cache=True)(fn)
        else:
            _CFUNCS[fn] = _compiling(getattr(strategy, "name", type(strategy).__name__), fn, lambda: _callback(fn))
    return _CFUNCS[fn]


def _callback(fn: Any) -> Any:
    """A plug-in's ``decide`` compiled as a C callback, cached on disk where it has a source file."""
    if not _cacheable(fn):
        return cfunc(K.DECIDE_SIG)(fn)
    args, restype = sigutils.normalize_signature(K.DECIDE_SIG)
    compiled = CFunc(fn, (args, restype), locals={}, options={})
    compiled._cache = _DecideCache(fn)  # what CFunc.enable_caching does, with the cache above
    compiled.compile()
    return compiled


def callback_built(fn: Any) -> bool:
    """Whether a plug-in's ``decide`` is compiled already, in this process or in numba's disk cache (where
    :func:`compiled_function` loads it instead of compiling it): the entry a compile of ``fn`` would write."""
    if fn in _CFUNCS:
        return True
    if not _cacheable(fn):
        return False
    from numba.core.registry import cpu_target
    from numba.core.typing import signature

    args, restype = sigutils.normalize_signature(K.DECIDE_SIG)
    cache = _DecideCache(fn)
    return cache._index_key(signature(restype, *args), cpu_target.target_context.codegen()) in (
        cache._cache_file._load_index()
    )


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
