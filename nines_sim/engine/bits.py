"""The compiled building blocks of the turn loop: random streams (twins of :mod:`nines_sim.game.rng`) and sets of faces.

Inside compiled code a set of faces is an int64 with bit ``face`` set (52 bits, see :mod:`nines_sim.game.cards`);
the helpers here count, pick and name its cards.  A strategy's compiled twin (``nines_sim.strategies.*_compiled``)
and the turn loop (:mod:`nines_sim.engine.turn_loop`) share them at no cost: these helpers, a few machine
instructions each and called from many places, are compiled once (and cached), and LLVM inlines them into their
callers' machine code.  numba's own inlining (``inline="always"``) would copy and type their code again at every
call site of every form of the loop (``popcount`` alone at 56): a cold compile took half as long again.
This module sets numba's cache folder before anything is compiled.
"""

from __future__ import annotations

import os
import platform
import types
from pathlib import Path

import numba
import numpy as np
from llvmlite import binding as llvm_binding
from llvmlite import ir
from numba import njit
from numba.core import cgutils
from numba.core import types as nbt
from numba.extending import intrinsic

from nines_sim.engine.code_cache import seal_module
from nines_sim.game import rng
from nines_sim.game.cards import NATURALS, NINES, PENALTY_GROUPS, RANK_MASK, SUIT_MASK


def cache_dir() -> Path | None:
    """Where compiled code is cached when the package folder is read-only (``None``: next to the code).

    numba caches in ``__pycache__`` beside this file; a read-only install (a system
    site-packages, a container image) gets ``$XDG_CACHE_HOME/nines-sim`` (default
    ``~/.cache/nines-sim``) instead, unless ``NUMBA_CACHE_DIR`` already says where.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    here = Path(__file__).resolve().parent
    pyc = here / "__pycache__"
    if os.access(pyc if pyc.is_dir() else here, os.W_OK):
        return None
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "nines-sim"


# Set before the first @njit below: numba picks its cache locator when a function is decorated.
_CACHE = cache_dir()
if _CACHE is not None and not numba.config.CACHE_DIR:
    numba.config.CACHE_DIR = str(_CACHE)

# ----------------------------------------------------------------- constants
I_NINES = np.int64(NINES)
I_NATURALS = np.int64(NATURALS)
SUIT_MASKS = np.array([int(m) for m in SUIT_MASK], dtype=np.int64)
RANK_MASKS = np.array([int(m) for m in RANK_MASK], dtype=np.int64)
# PEN_BIT_MASK[k]: the natural faces whose penalty has bit k set (penalty = sum of 2**k * cards held of mask k;
# the faces with the most points are found bit by bit from the top)
PEN_BIT_MASK = np.array(
    [
        sum(m for pts, m in PENALTY_GROUPS if (pts >> k) & 1)
        for k in range(max(p for p, _ in PENALTY_GROUPS).bit_length())
    ],
    dtype=np.int64,
)
# natural penalty of each face, 0 for a 9 (expert's weights)
FACE_NAT_PEN = np.zeros(52, dtype=np.float64)
for _p, _m in PENALTY_GROUPS:
    for _f in range(52):
        if (_m >> _f) & 1:
            FACE_NAT_PEN[_f] = _p

U_C1 = np.uint64(0xBF58476D1CE4E5B9)
U_C2 = np.uint64(0x94D049BB133111EB)
U_HAND = np.uint64(rng.HAND)
U_COUNTER = np.uint64(rng.COUNTER)
U_FIRST = np.uint64((rng.FIRST_DEALER * rng.PURPOSE) & rng.M64)
U_DEAL = np.uint64((rng.DEAL * rng.PURPOSE) & rng.M64)
U_RESH = np.uint64((rng.RESHUFFLE * rng.PURPOSE) & rng.M64)
U_DECISION = np.array([((rng.DECISION + k) * rng.PURPOSE) & rng.M64 for k in range(4)], dtype=np.uint64)
U30, U27, U31, U32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)

# Every kernel function uses numpy's error model: no division here can be by zero, and Python's
# ZeroDivisionError checks would cost a branch on every % and //.


# ----------------------------------------------------------------- random streams (twins of nines_sim.game.rng)
@njit(cache=True, error_model="numpy")
def mix(x):
    x = (x ^ (x >> U30)) * U_C1
    x = (x ^ (x >> U27)) * U_C2
    return x ^ (x >> U31)


@njit(cache=True, error_model="numpy")
def hand_key(match_key, hand_seq):
    return mix(match_key ^ (np.uint64(hand_seq + 1) * U_HAND))


@njit(cache=True, error_model="numpy")
def stream(key, purpose, counter):
    return mix(key ^ purpose ^ (np.uint64(counter) * U_COUNTER))


@njit(cache=True, error_model="numpy")
def below(x, n):
    return np.int64(((x >> U32) * np.uint64(n)) >> U32)


# ----------------------------------------------------------------- bit helpers (int64 sets of faces)
@intrinsic
def _ctpop(typingctx, x):
    """The processor's population count (LLVM ctpop) of an int64."""
    sig = nbt.int64(nbt.int64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _cttz(typingctx, x):
    """Trailing zeros (LLVM cttz) of an int64; 64 for 0."""
    sig = nbt.int64(nbt.int64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@njit(cache=True, error_model="numpy")
def popcount(x):
    return _ctpop(np.int64(x))


@njit(cache=True, error_model="numpy")
def lowest_face(x):
    return _cttz(np.int64(x))


def fast_pdep() -> bool:
    """Whether the processor deposits bits (BMI2 ``pdep``) in a few cycles, so that picking the r-th card is one
    instruction instead of a loop whose length the branch predictor cannot guess.

    False where numba is told to build for another processor (``NUMBA_CPU_NAME``: portable caches) and on AMD
    before Zen 3, whose microcoded ``pdep`` is slower than the loop.  numba keys its cache by the processor, so a
    cache built with ``pdep`` is never loaded where this says False.
    """
    if platform.machine().lower() not in ("x86_64", "amd64") or numba.config.CPU_NAME or numba.config.CPU_FEATURES:
        return False
    if llvm_binding.get_host_cpu_name() in ("znver1", "znver2", "bdver1", "bdver2", "bdver3", "bdver4"):
        return False
    return bool(llvm_binding.get_host_cpu_features().get("bmi2", False))


@intrinsic
def _pdep(typingctx, x, m):
    """The bits of ``x`` deposited at the set bits of ``m`` (x86 BMI2 ``pdep``), int64."""
    sig = nbt.int64(nbt.int64, nbt.int64)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, [i64, i64]), "llvm.x86.bmi.pdep.64")
        return builder.call(fn, args)

    return sig, codegen


if fast_pdep():

    @njit(cache=True, error_model="numpy")
    def nth_face(x, r):
        """The ``r``-th lowest face of the set ``x`` (64 if it has no more than ``r``)."""
        return lowest_face(_pdep(np.int64(1) << r, np.int64(x)))

else:

    @njit(cache=True, error_model="numpy")
    def nth_face(x, r):
        """The ``r``-th lowest face of the set ``x`` (64 if it has no more than ``r``)."""
        for _ in range(r):
            x &= x - 1
        return lowest_face(x)


@njit(cache=True, error_model="numpy")
def pick_card(w0, w1, x):
    """A uniformly chosen physical card of a count-coded pile (word 0's faces first), -1 if empty."""
    c0 = popcount(w0)
    total = c0 + popcount(w1)
    if total == 0:
        return -1
    r = below(x, total)
    if r < c0:
        return nth_face(w0, r)
    return nth_face(w1, r - c0)


@njit(cache=True, error_model="numpy")
def face_suit(f):
    """``f // 13`` for a face 0-127 (or -1): a multiplication and a shift instead of a floor division."""
    return (f * 79) >> 10


@njit(cache=True, error_model="numpy")
def face_rank(f):
    """``f % 13`` for a face 0-127 (or -1)."""
    return f - 13 * face_suit(f)


@njit(cache=True, error_model="numpy")
def decision_stream(dkey, turn, kind, salt):
    """The random word of a compiled seat's decision: the twin of ``Observation.random(salt)`` (``kind``: the
    decision's kind, ``dkey``: the decision hand key, ``turn``: the hand's turn)."""
    return stream(dkey, U_DECISION[kind], turn * 64 + salt)


def shared_inline(fn):  # noqa: ANN001, ANN201 - a function in, a numba dispatcher out
    """Compile ``fn`` once for every form of the turn loop that calls it, cached on its own, and have LLVM inline
    its machine code into each caller (numba's ``forceinline``: LLVM's ``alwaysinline``).

    numba's own inlining (``inline="always"``) copies a function's IR, with the whole scope, into every caller
    at every level of nesting (numba issues #8989, #9204) and types it again there, in every form of the loop: the
    largest share of a cold compile.  Called instead, a phase is typed once per kind of arguments (the classic
    form's shape arrives as literal constants, so its branches of the other variants still fold away) and
    shared by every form; the loop's machine code is still one function.  The trace form's flag is a closure
    constant of the phases that write events (numba does not prune a branch on a literal argument before typing).
    """
    return njit(cache=True, forceinline=True, error_model="numpy", _nrt=False)(fn)


def out_of_line(dispatcher):  # noqa: ANN001, ANN201 - a numba dispatcher in, an intrinsic out
    """A call of the compiled function ``dispatcher`` that LLVM never inlines (a ``noinline`` call site): its
    arguments go in one tuple, ``out_of_line(f)((a, b, ...))`` for ``f(a, b, ...)``.

    A rare path (a reshuffle, a compiled user strategy's call) compiled apart and called keeps its code out of
    the turn loop's registers.  Inside a phase compiled on its own (:func:`shared_inline`) LLVM would inline
    it anyway: it is the one call of its function in that small module, which LLVM's inliner counts as
    free."""

    @intrinsic
    def call(typingctx, args):  # noqa: ANN001, ANN202 - numba's typing protocol
        sig = typingctx.resolve_function_type(nbt.Dispatcher(dispatcher), tuple(args.types), {})
        if sig is None:
            return None

        def codegen(context, builder, signature, llargs):  # noqa: ANN001, ANN202
            cres = dispatcher.overloads[sig.args]
            context.add_linking_libs([cres.library])
            fn = context.declare_function(builder.module, cres.fndesc)
            vals = [builder.extract_value(llargs[0], i) for i in range(len(sig.args))]
            status, res = context.call_conv.call_function(
                builder, fn, sig.return_type, sig.args, vals, attrs=("noinline",)
            )
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            return res

        return sig.return_type(args), codegen

    return call


def traced_forms(make):  # noqa: ANN001, ANN202 - a factory in, the two dispatchers out
    """The forms of a phase without and with the trace form's events (``make(trace)``), each named apart (a
    cache index each) and compiled by :func:`shared_inline`: the flag is the closure's constant, so the form
    without it holds none of the event code (numba prunes a closure constant's branch before typing, not an
    argument's: the trace form's extra scratch arrays would not type)."""
    out = []
    for trace in (False, True):
        fn = make(trace)
        fn.__name__ = fn.__qualname__ = fn.__name__ + ("_trace" if trace else "")
        out.append(shared_inline(fn))
    return out


def renamed(fn, name: str):  # noqa: ANN001, ANN202
    """A copy of a plain function under another name: numba keys its on-disk cache by a function's name."""
    out = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    out.__qualname__ = name
    out.__doc__ = fn.__doc__
    return out


# numba's cache checks only this file's timestamp: key it by every file the code takes in
# (the helpers take in the rng's and codes' constants)
seal_module(globals())
