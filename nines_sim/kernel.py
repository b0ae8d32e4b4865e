"""The compiled turn loop: numba machine code for deal, turn, powers, scoring and match flow.

:func:`play_slots` plays whole matches one game slot at a time, each game to its
end before the slot takes the next match index, so a table of built-in
strategies never returns to Python.  A seat played by a Python strategy makes
its game wait: the kernel records the decision asked for (kind, seat, legal
set, drawn card) in the slot and moves on to the next slot; Python decides for
every waiting game at once and calls the kernel again, which resumes each
game where it stopped.  Every rule, random stream and tie-break follows
:mod:`nines_sim.engine` (the lockstep numpy engine) exactly, so both produce
the same numbers (the tests compare them byte for byte).

The loop is compiled in two forms (:func:`slots_kernel` picks one): for rules
of the classic shape with that shape as constants, and for any rules.  Code a
workload does not run still costs it when inlined into the loop (it crowds the
loop's registers), so rare paths that need many values (``expert``, compiled
user strategies) are compiled apart and called.

Layout (``B`` slots, ``P`` seats, ``D`` decks)
----------------------------------------------
``st``     int64 (B, NST)    one row of named scalars per slot (the ``S_*`` columns)
``keys``   uint64 (B, NKEY)  match and hand keys (card and decision streams), the legal set asked about
``hands``  uint64 (D, B, P)  count-coded hands (:mod:`nines_sim.cards`)
``under``  uint64 (D, B)     count-coded discard pile below the top card
``played`` uint64 (B,)       faces played this hand
``ncards, totals, drew_on``  int64 (B, P)
``stock``  int8 (B, 52 D)    faces of the stock
``rp``     int64 (NRP,)      the rules as numbers (:func:`rules_params`)

Inside the kernel a set of faces is an int64 (52 bits); it is stored as uint64
so that Python strategies see the same arrays as from the numpy engine.
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

from nines_sim import rng
from nines_sim.cards import NATURALS, NINES, PENALTY_GROUPS, RANK_MASK, SUIT_MASK
from nines_sim.rules import Rules


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
# rules parameters
R_P, R_NINE_PEN, R_HS, R_UNTIL, R_SKIPREV, R_DECKS, R_PAIR, R_NNO = 0, 1, 2, 7, 8, 9, 10, 11
R_NOPLAY_BLOCK, R_SHARE, R_TARGET, R_FIXED, R_CAP = 12, 13, 14, 15, 16
NRP = 17

# slot scalars
(S_MATCH, S_HAND_SEQ, S_HANDS, S_TB_HANDS, S_FIRST, S_IN_TB, S_MASK, S_N_IN, S_POS, S_END, S_TOP, S_ACTIVE,
 S_SEAT, S_DEALER, S_DIR, S_TURN, S_STREAK, S_DRAWN, S_RESH, S_NINE_START, S_PHASE, S_MOVE, S_PASSED,
 S_CARD, S_OUTCOME, S_WAITING, S_WAIT_KIND, S_WAIT_SEAT, S_HAVE_ANS, S_ANSWER, NST) = range(31)  # fmt: skip
# keys: card match key, decision match key, card hand key, decision hand key, legal set of a waiting decision
K_CMK, K_DMK, K_CHK, K_DHK, K_LEGAL, NKEY = 0, 1, 2, 3, 4, 5

# phases of a slot
PH_NEW, PH_DEALER_DECL, PH_TURN, PH_PLAY, PH_PLAY_DRAWN, PH_APPLY, PH_DECLARE, PH_FINISH, PH_END, PH_DEAL = range(10)
# decision kinds (strategy.DecisionKind)
K_PLAY, K_DECLARE, K_PLAY_DRAWN, K_DEALER_DECLARE = 0, 1, 2, 3
# seat strategy ids: 0 is a Python strategy, the rest are compiled built-ins
SID_PYTHON, SID_RANDOM, SID_HOLD_NINES, SID_DUMP_FACES, SID_SUIT_MAJORITY, SID_EXPERT, SID_USER = range(7)
# kernel return codes
DONE, BUFFER_FULL, ILLEGAL = 0, 1, 2
#: Seats a table can have: the length of the tuple of user decision functions.
MAX_SEATS = 6
#: ``expert``'s parameters, one float64 row per seat (``seat_xp``), in the order of ``Expert.params``.
(X_PENALTY, X_FOLLOW, X_BLOCK, X_DANGER, X_NEXT_FACTOR, X_SHED_NINE_AT, X_SWITCH_AGAINST, X_SPARE_NINES,
 X_DECLARE_POINTS, X_RANK, X_SHORT, X_END_CARDS, X_PENALTY_END, X_NINE_AT_END, X_SCARCE, X_DECLARE_SHORT,
 NXP) = range(17)  # fmt: skip

# What a compiled user strategy sees of one game: ``g``, an int64 vector with these fields.
(G_SEAT, G_LEGAL, G_PAIR_LEGAL, G_TOP, G_ACTIVE, G_STOCK, G_DEALER, G_DIRECTION, G_PLAYED, G_CARD, G_PLAYERS,
 G_NINE_PENALTY, G_TURN, G_KEY, G_IN_HAND, G_DECKS, NG) = range(17)  # fmt: skip
#: ``decide(kind, g, hand, hand_sizes, totals, drew_on) -> int64``: the form of a compiled user strategy.
DECIDE_SIG = nbt.int64(nbt.int64, nbt.int64[::1], nbt.uint64[::1], nbt.int64[::1], nbt.int64[::1], nbt.int64[::1])

RUNNING, BLOCKED, CAPPED = -3, -1, -2
PAIR = 52
NINE_RANK, RANK_ACE, RANK_JACK, RANK_QUEEN = 8, 0, 10, 11
# hand record columns
H_MATCH, H_HAND, H_DEALER, H_OUTCOME, H_TURNS, H_DRAWN, H_RESH, H_NINE, NH = range(9)
# match record columns
M_MATCH, M_HANDS, M_TB, M_FIRST, NM = range(5)
# events of the trace form of the loop (:func:`_compile_slots` with ``trace``): one int64 row each, its kind first
(EV_TURN, EV_DEAL, EV_DECLARE, EV_PLAY, EV_PAIR, EV_DRAW, EV_PENALTY_DRAW, EV_PASS, EV_SKIP, EV_RESHUFFLE, EV_END,
 EV_MATCH_END) = range(12)  # fmt: skip
#: Columns of an event row: the kind, then at most 5 numbers and two words per seat (a deal's hands).
EV_WIDTH = 6 + 2 * MAX_SEATS
#: Rows a slot's event buffer keeps free before a pass of its loop: more than one turn, a hand's end and a deal
#: can write (draws until playable take at most every card of two decks, with a reshuffle before each).
EV_MARGIN = 4 * 104 + 32

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


def rules_params(rules: Rules) -> np.ndarray:
    """The rules as the int64 array the kernel reads (the ``R_*`` indices).

    Returns
    -------
    numpy.ndarray
        int64, shape (NRP,).
    """
    rp = np.zeros(NRP, dtype=np.int64)
    rp[R_P] = rules.players
    rp[R_NINE_PEN] = rules.nine_penalty
    rp[R_HS : R_HS + 5] = rules.hand_sizes
    rp[R_UNTIL] = rules.draw_rule == "until-playable"
    rp[R_SKIPREV] = rules.skip_reverse
    rp[R_DECKS] = rules.decks
    rp[R_PAIR] = rules.pair_of_nines
    rp[R_NNO] = rules.no_nine_out
    rp[R_NOPLAY_BLOCK] = rules.block_rule == "no-play-circle"
    rp[R_SHARE] = rules.tie_rule == "share"
    rp[R_TARGET] = rules.target
    rp[R_FIXED] = rules.fixed_hands
    rp[R_CAP] = rules.turn_cap
    return rp


# Every kernel function uses numpy's error model: no division here can be by zero, and Python's
# ZeroDivisionError checks would cost a branch on every % and //.


# ----------------------------------------------------------------- random streams (twins of nines_sim.rng)
@njit(cache=True, inline="always", error_model="numpy")
def mix(x):
    x = (x ^ (x >> U30)) * U_C1
    x = (x ^ (x >> U27)) * U_C2
    return x ^ (x >> U31)


@njit(cache=True, inline="always", error_model="numpy")
def hand_key(match_key, hand_seq):
    return mix(match_key ^ (np.uint64(hand_seq + 1) * U_HAND))


@njit(cache=True, inline="always", error_model="numpy")
def stream(key, purpose, counter):
    return mix(key ^ purpose ^ (np.uint64(counter) * U_COUNTER))


@njit(cache=True, inline="always", error_model="numpy")
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


@njit(cache=True, inline="always", error_model="numpy")
def popcount(x):
    return _ctpop(np.int64(x))


@njit(cache=True, inline="always", error_model="numpy")
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

    @njit(cache=True, inline="always", error_model="numpy")
    def nth_face(x, r):
        """The ``r``-th lowest face of the set ``x`` (64 if it has no more than ``r``)."""
        return lowest_face(_pdep(np.int64(1) << r, np.int64(x)))

else:

    @njit(cache=True, inline="always", error_model="numpy")
    def nth_face(x, r):
        """The ``r``-th lowest face of the set ``x`` (64 if it has no more than ``r``)."""
        for _ in range(r):
            x &= x - 1
        return lowest_face(x)


@njit(cache=True, inline="always", error_model="numpy")
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


@njit(cache=True, inline="always", error_model="numpy")
def face_suit(f):
    """``f // 13`` for a face 0-127 (or -1): a multiplication and a shift instead of a floor division."""
    return (f * 79) >> 10


@njit(cache=True, inline="always", error_model="numpy")
def face_rank(f):
    """``f % 13`` for a face 0-127 (or -1)."""
    return f - 13 * face_suit(f)


#: Low bits of a packed sort value (:func:`sort_packed`) that hold the card: deck << 6 | face.
PACK_BITS = 7
ID_MASK = np.uint64((1 << PACK_BITS) - 1)
FACE_BITS = np.uint64(63)
KEY_MASK = ~ID_MASK
ONES8 = np.uint64(0x0101010101010101)
U56, U57, U255 = np.uint64(56), np.uint64(57), np.uint64(255)


@njit(cache=True, inline="always", error_model="numpy")
def card_id(d, f):
    """The packed id of deck ``d``'s face ``f``: ascending in ``52 d + f``, and its face is ``id & 63``."""
    return np.uint64((d << 6) | f)


@njit(cache=True, error_model="numpy", _nrt=False)
def sort_packed(vals, n, full, buf, cw):
    """Order cards by their stream keys, ascending, equal keys by card (numpy's stable argsort of the keys).

    ``vals[:n]`` holds ``key & KEY_MASK | id`` per card, ids ascending in the cards' order
    (:func:`card_id`), and ``full[id]`` the whole key.  One array of distinct values sorts faster than
    keys with ids beside them: a counting pass on the top 7 bits (8 above 64 cards) with byte counters
    eight to a word, whose prefix sums are a multiplication a word, then insertion.  Two keys equal in
    all but their low 7 bits (about once in 10^14 deals) are put in the order of their whole keys.

    Parameters
    ----------
    vals : uint64 (>= n,)
        Sorted in place.
    full : uint64 (128,)
        The whole key of each id.
    buf : uint64 (>= n,)
        Scratch.
    cw : uint64 (32,)
        Scratch: 256 byte counters.
    """
    shift = U57 if n <= 64 else U56
    nw = 16 if n <= 64 else 32
    for w in range(nw):
        cw[w] = 0
    for j in range(n):
        bk = vals[j] >> shift
        cw[bk >> np.uint64(3)] += np.uint64(1) << ((bk & np.uint64(7)) << np.uint64(3))
    base = np.uint64(0)
    for w in range(nw):
        x = cw[w]
        inc = x * ONES8  # byte i: the counts of bytes 0..i
        cw[w] = inc - x + base * ONES8
        base += inc >> U56
    for j in range(n):
        v = vals[j]
        bk = v >> shift
        w = bk >> np.uint64(3)
        sh = (bk & np.uint64(7)) << np.uint64(3)
        x = cw[w]
        cw[w] = x + (np.uint64(1) << sh)
        buf[np.int64((x >> sh) & U255)] = v
    for j in range(n):
        v = buf[j]
        m = j - 1
        while m >= 0 and vals[m] > v:
            vals[m + 1] = vals[m]
            m -= 1
        vals[m + 1] = v
    for j in range(1, n):
        if (vals[j] & KEY_MASK) == (vals[j - 1] & KEY_MASK):
            # a tie in the packed bits: order the run by whole key, then id (insertion is stable)
            v = vals[j]
            m = j - 1
            while m >= 0 and (vals[m] & KEY_MASK) == (v & KEY_MASK) and full[vals[m] & ID_MASK] > full[v & ID_MASK]:
                vals[m + 1] = vals[m]
                m -= 1
            vals[m + 1] = v


# ----------------------------------------------------------------- card moves
@njit(cache=True, inline="always", error_model="numpy")
def add_to_hand(hands, ncards, D, b, s, f):
    bit = np.int64(1) << f
    h0 = np.int64(hands[0, b, s])
    if D == 2 and (h0 & bit) != 0:
        hands[1, b, s] = np.uint64(np.int64(hands[1, b, s]) | bit)
    else:
        hands[0, b, s] = np.uint64(h0 | bit)
    ncards[b, s] += 1


@njit(cache=True, inline="always", error_model="numpy")
def remove_from_hand(hands, ncards, D, b, s, f):
    bit = np.int64(1) << f
    if D == 2 and (np.int64(hands[1, b, s]) & bit) != 0:
        hands[1, b, s] = np.uint64(np.int64(hands[1, b, s]) & ~bit)
    else:
        hands[0, b, s] = np.uint64(np.int64(hands[0, b, s]) & ~bit)
    ncards[b, s] -= 1


@njit(cache=True, inline="always", error_model="numpy")
def add_under(under, D, b, f):
    bit = np.int64(1) << f
    u0 = np.int64(under[0, b])
    if D == 2 and (u0 & bit) != 0:
        under[1, b] = np.uint64(np.int64(under[1, b]) | bit)
    else:
        under[0, b] = np.uint64(u0 | bit)


@njit(cache=True, error_model="numpy", _nrt=False)
def reshuffle(st, keys, under, stock, D, b, sv, sfull, sbuf, scw):
    """Rebuild the stock from the discard pile below the top card (T5)."""
    n = 0
    base = np.uint64(st[b, S_RESH] * 256)
    key = keys[b, K_CHK]
    for d in range(D):
        w = np.int64(under[d, b])
        while w != 0:
            f = lowest_face(w)
            w &= w - 1
            x = stream(key, U_RESH, np.uint64(d * 52 + f) + base)
            cid = card_id(d, f)
            sfull[cid] = x
            sv[n] = (x & KEY_MASK) | cid
            n += 1
    sort_packed(sv, n, sfull, sbuf, scw)
    for j in range(n):
        stock[b, j] = np.int8(sv[j] & FACE_BITS)
    st[b, S_POS] = 0
    st[b, S_END] = n
    for d in range(D):
        under[d, b] = np.uint64(0)
    st[b, S_RESH] += 1


@njit(cache=True, inline="always", error_model="numpy")
def draw(st, keys, hands, ncards, under, stock, D, b, s, sv, sfull, sbuf, scw):
    """Seat ``s`` draws one card (T4), rebuilding an empty stock first (T5); -1 if none (T6)."""
    if st[b, S_POS] >= st[b, S_END] and under[0, b] != 0:
        reshuffle(st, keys, under, stock, D, b, sv, sfull, sbuf, scw)
    pos = st[b, S_POS]
    if pos >= st[b, S_END]:
        return -1
    f = np.int64(stock[b, pos])
    add_to_hand(hands, ncards, D, b, s, f)
    st[b, S_POS] = pos + 1
    st[b, S_DRAWN] += 1
    return f


# ----------------------------------------------------------------- the trace form's events
@njit(cache=True, inline="always", error_model="numpy")
def log_event(ev, evn, b, kind, x, y, z):
    """Append an event row ``(kind, x, y, z)`` to slot ``b``'s buffer (the trace form only)."""
    n = evn[b]
    ev[b, n, 0] = kind
    ev[b, n, 1] = x
    ev[b, n, 2] = y
    ev[b, n, 3] = z
    evn[b] = n + 1


@njit(cache=True, error_model="numpy", _nrt=False)
def traced_draw(ev, evn, kind, st, keys, hands, ncards, under, stock, D, b, s, sv, sfull, sbuf, scw):
    """:func:`draw`, with its events: ``(EV_RESHUFFLE, cards in the new stock)`` before the card if the
    discard pile was shuffled (T5), then ``(kind, seat, face)`` if a card came (``EV_DRAW`` or
    ``EV_PENALTY_DRAW``)."""
    r0 = st[b, S_RESH]
    f = draw(st, keys, hands, ncards, under, stock, D, b, s, sv, sfull, sbuf, scw)
    if st[b, S_RESH] != r0:
        log_event(ev, evn, b, EV_RESHUFFLE, st[b, S_END], 0, 0)
    if f >= 0:
        log_event(ev, evn, b, kind, s, f, 0)
    return f


@njit(cache=True, error_model="numpy", _nrt=False)
def log_deal(ev, evn, b, st, hands, P, D):
    """``(EV_DEAL, hand sequence number, dealer, starter, match, then each seat's hand words 0 and 1)``."""
    n = evn[b]
    ev[b, n, 0] = EV_DEAL
    ev[b, n, 1] = st[b, S_HAND_SEQ] - 1
    ev[b, n, 2] = st[b, S_DEALER]
    ev[b, n, 3] = st[b, S_TOP]
    ev[b, n, 4] = st[b, S_MATCH]
    for p in range(P):
        ev[b, n, 6 + 2 * p] = np.int64(hands[0, b, p])
        ev[b, n, 7 + 2 * p] = np.int64(hands[1, b, p]) if D == 2 else 0
    evn[b] = n + 1


@njit(cache=True, error_model="numpy", _nrt=False)
def log_seats(ev, evn, b, kind, x, vals, P):
    """``(kind, x, 0, 0, 0, 0, then one number per seat)``: a hand's end (``EV_END``: the outcome, the hand
    penalties) or a match's (``EV_MATCH_END``: the winners' seat mask, the totals)."""
    n = evn[b]
    ev[b, n, 0] = kind
    ev[b, n, 1] = x
    for p in range(P):
        ev[b, n, 6 + p] = vals[p]
    evn[b] = n + 1


def _compile_deal(one_deck: bool):  # noqa: ANN202 - returns a numba dispatcher
    """Compile :func:`deal` with the decks read from the rules, or (``one_deck``) as the constant 1: the
    one-deck form, which the classic form of the turn loop calls, measured 5% faster on W1 (paired A/B)."""

    def deal(st, keys, hands, ncards, under, stock, played, drew_on, rp, next_tab, b, sv, sfull, sbuf, scw):
        """Deal a hand (D4-D7); ``S_DEALER``, ``S_MASK`` and ``S_N_IN`` are set."""
        P = rp[R_P]
        D = 1 if one_deck else rp[R_DECKS]
        S = 52 * D
        seq = st[b, S_HAND_SEQ]
        keys[b, K_CHK] = hand_key(keys[b, K_CMK], seq)
        keys[b, K_DHK] = hand_key(keys[b, K_DMK], seq)
        st[b, S_HAND_SEQ] = seq + 1
        key = keys[b, K_CHK]
        for d in range(D):
            for f in range(52):
                x = stream(key, U_DEAL, d * 52 + f)
                cid = card_id(d, f)
                sfull[cid] = x
                sv[d * 52 + f] = (x & KEY_MASK) | cid
        sort_packed(sv, S, sfull, sbuf, scw)
        for d in range(D):
            under[d, b] = np.uint64(0)
            for p in range(P):
                hands[d, b, p] = np.uint64(0)
        for p in range(P):
            ncards[b, p] = 0
            drew_on[b, p] = 0
        k = st[b, S_N_IN]
        h = rp[R_HS + k - 2]
        mask = st[b, S_MASK]
        s = st[b, S_DEALER]
        first = 0
        for i in range(k):
            s = next_tab[(mask * 2) * P + s]
            if i == 0:
                first = s
            # the hand is built in registers and stored once (count-coded: a second copy goes to word 1)
            h0 = np.int64(0)
            h1 = np.int64(0)
            for j in range(h):
                bit = np.int64(1) << np.int64(sv[i + j * k] & FACE_BITS)
                if D == 2 and (h0 & bit) != 0:
                    h1 |= bit
                else:
                    h0 |= bit
            hands[0, b, s] = np.uint64(h0)
            if D == 2:
                hands[1, b, s] = np.uint64(h1)
            ncards[b, s] = h
        starter = np.int64(sv[k * h] & FACE_BITS)
        rest = S - k * h - 1
        for j in range(rest):
            stock[b, j] = np.int8(sv[k * h + 1 + j] & FACE_BITS)
        st[b, S_POS] = 0
        st[b, S_END] = rest
        st[b, S_TOP] = starter
        st[b, S_ACTIVE] = face_suit(starter)
        st[b, S_SEAT] = first
        st[b, S_DIR] = 0
        st[b, S_TURN] = 0
        st[b, S_STREAK] = 0
        st[b, S_DRAWN] = 0
        st[b, S_RESH] = 0
        played[b] = np.uint64(np.int64(1) << starter)
        nine = face_rank(starter) == NINE_RANK
        st[b, S_NINE_START] = nine
        st[b, S_PHASE] = PH_DEALER_DECL if nine else PH_TURN

    deal.__qualname__ = deal.__name__ = "deal_one_deck" if one_deck else "deal"  # a cache index each (see above)
    return njit(cache=True, error_model="numpy", _nrt=False)(deal)


#: Deal a hand under any rules (:func:`_compile_deal`).
deal = _compile_deal(False)
#: Deal a hand of one deck.
deal_one_deck = _compile_deal(True)


# ----------------------------------------------------------------- compiled built-in strategies
@njit(cache=True, inline="always", error_model="numpy")
def _rand(dkey, turn, kind, salt):
    return stream(dkey, U_DECISION[kind], turn * 64 + salt)


# The kernel runs without numba's reference counting (``_nrt=False``: no atomic increments on every
# array passed around a turn), so nothing here allocates: per-suit figures go to the scratch row ``fw``.
@njit(cache=True, inline="always", error_model="numpy")
def _suit_counts_nat(h0, h1, fw, o):
    """Natural cards held per suit into ``fw[o : o + 4]`` (float64)."""
    for s in range(4):
        m = SUIT_MASKS[s] & I_NATURALS
        fw[o + s] = popcount(h0 & m) + popcount(h1 & m)


@njit(cache=True, inline="always", error_model="numpy")
def _pick_best_suit(fw, o, x):
    """A uniformly chosen suit among those with the highest ``fw[o : o + 4]``."""
    mx = max(max(fw[o], fw[o + 1]), max(fw[o + 2], fw[o + 3]))
    tied = 0
    for s in range(4):
        if fw[o + s] == mx:
            tied |= 1 << s
    return pick_card(tied, 0, x)


@njit(cache=True, inline="always", error_model="numpy")
def _expert_threat(dirbit, sizes, drew, P, seat, threat, danger, next_factor):
    for s in range(4):
        threat[s] = 0.0
    step = 1 - 2 * dirbit
    nxt = (seat + step + P) % P
    for p in range(P):
        sz = sizes[p]
        if sz > 0 and sz <= danger and p != seat:
            wgt = next_factor if nxt == p else 1.0
            for s in range(4):
                threat[s] += wgt * ((drew[p] >> s) & 1)


@njit(cache=True, inline="always", error_model="numpy")
def _expert_card_score(f, h0, h1, held, threat, short, w_pen, pl, xr):
    """``expert``'s score of shedding natural face ``f`` (higher first), in ``Expert.play``'s order of operations."""
    s = face_suit(f)
    m = RANK_MASKS[face_rank(f)]
    same_rank = popcount(h0 & m) + popcount(h1 & m) - 1.0
    return (
        w_pen * FACE_NAT_PEN[f]
        + xr[X_FOLLOW] * (held[s] - 1.0)
        + xr[X_BLOCK] * threat[s]
        + xr[X_RANK] * same_rank
        + xr[X_SHORT] * ((short >> s) & 1)
        + xr[X_SCARCE] * popcount(pl & SUIT_MASKS[s] & I_NATURALS)
    )


@njit(cache=True, inline="always", error_model="numpy")
def heuristic_play(sid, h0, h1, legal, pair_ok, x):
    """The card (or ``PAIR``) that ``random``, ``hold-nines``, ``dump-faces`` or ``suit-majority`` plays: a
    uniformly chosen card of the set it prefers, from the hand words ``h0``, ``h1`` and the legal faces."""
    if sid == SID_RANDOM:
        l0 = h0 & legal
        l1 = h1 & legal
        c0 = popcount(l0)
        cards = c0 + popcount(l1)
        r = below(x, cards + (1 if pair_ok else 0))
        if r == cards:
            return PAIR
        if r < c0:
            return nth_face(l0, r)
        return nth_face(l1, r - c0)
    if sid == SID_HOLD_NINES:
        nat = legal & I_NATURALS
        choose = nat if nat != 0 else legal
        return pick_card(h0 & choose, h1 & choose, x)
    if sid == SID_DUMP_FACES:
        # the dearest legal naturals: keep, bit by bit from the top of the points, the cards that have it
        nat = legal & I_NATURALS
        for k in range(PEN_BIT_MASK.shape[0] - 1, -1, -1):
            hit = nat & PEN_BIT_MASK[k]
            nat = hit if hit != 0 else nat
        choose = nat if nat != 0 else legal
        return pick_card(h0 & choose, h1 & choose, x)
    # SID_SUIT_MAJORITY
    return pick_card(h0 & legal, h1 & legal, x)


@njit(cache=True, inline="always", error_model="numpy")
def heuristic_declare(sid, h0, h1, x):
    """The suit that ``random``, ``hold-nines``, ``dump-faces`` or ``suit-majority`` declares: for
    ``suit-majority`` a uniformly chosen suit among those it holds the most natural cards of, else any suit."""
    if sid != SID_SUIT_MAJORITY:
        return below(x, 4)
    most = -1
    tied = 0
    for s in range(4):
        m = SUIT_MASKS[s] & I_NATURALS
        n = popcount(h0 & m) + popcount(h1 & m)
        if n > most:
            most = n
            tied = 0
        if n == most:
            tied |= 1 << s
    return pick_card(tied, 0, x)


def _expert_decide(kind, seat, legal, card, dkey, turn, dirbit, h0, h1, pl, sizes, drew, P, fw, xr):
    """``expert``'s decision: a face / PAIR, a suit, or 0/1 for play_drawn (:class:`Expert`'s twin).

    Compiled twice: apart (:data:`expert_decide`, called from the forms of the turn loop for tables without
    ``expert``, which never call it: inlined there its code crowded the loop's registers, 4-6% of W1's time)
    and inlined (:data:`expert_decide_inline`, in the forms for tables with ``expert``, whose every call
    would otherwise cost a tenth of a rollout's time for ``lookahead``).

    ``h0``, ``h1``: the seat's hand words; ``pl``: faces played this hand; ``sizes``, ``drew``:
    int64 (P,), the seats' hand sizes and the suits each drew on; ``fw``: float64 scratch of 64 (held per
    suit, threat per suit, suit scores, then a score per face); ``xr``: float64 (NXP,), the seat's
    parameters (the ``X_*`` columns), used in the same order of floating-point operations as ``Expert``
    so that both give the same moves.
    """
    if kind == K_PLAY_DRAWN:
        return 1 if (face_rank(card) != NINE_RANK or sizes[seat] - 1 <= xr[X_SHED_NINE_AT]) else 0
    held = fw[0:4]
    threat = fw[4:8]
    _suit_counts_nat(h0, h1, fw, 0)
    _expert_threat(dirbit, sizes, drew, P, seat, threat, xr[X_DANGER], xr[X_NEXT_FACTOR])
    nxt = (seat + 1 - 2 * dirbit + P) % P
    short = drew[nxt]
    if kind == K_DECLARE or kind == K_DEALER_DECLARE:
        score = fw[8:12]
        block100 = xr[X_BLOCK] * 100.0
        short100 = xr[X_DECLARE_SHORT] * 100.0
        for s in range(4):
            pts = 0.0
            m = SUIT_MASKS[s] & I_NATURALS
            for w in (h0, h1):
                x = w & m
                while x != 0:
                    pts += FACE_NAT_PEN[lowest_face(x)]
                    x &= x - 1
            score[s] = (
                held[s] * 100.0 + xr[X_DECLARE_POINTS] * pts + block100 * threat[s] + short100 * ((short >> s) & 1)
            )
        return _pick_best_suit(fw, 8, _rand(dkey, turn, kind, 1))
    # K_PLAY
    x = _rand(dkey, turn, kind, 0)
    near_end = False
    for p in range(P):
        sz = sizes[p]
        if p != seat and sz > 0 and sz <= xr[X_END_CARDS]:
            near_end = True
    w_pen = xr[X_PENALTY] + xr[X_PENALTY_END] * (1.0 if near_end else 0.0)
    natural = legal & I_NATURALS
    best = -np.inf
    w = natural
    while w != 0:
        f = lowest_face(w)
        w &= w - 1
        sc = _expert_card_score(f, h0, h1, held, threat, short, w_pen, pl, xr)
        fw[12 + f] = sc  # each card's score, kept for the tie test below
        best = max(best, sc)
    top = 0
    w = natural
    while w != 0:
        f = lowest_face(w)
        w &= w - 1
        top |= np.int64(fw[12 + f] >= best - 1e-9) << f
    choice = pick_card(top, 0, x)
    nines = legal & I_NINES
    has_natural = natural != 0
    best_suit = face_suit(choice) if has_natural else 0
    natural_blocks = threat[best_suit] > 0
    danger = (threat[0] + threat[1] + threat[2] + threat[3]) > 0
    can_block = max(max(threat[0], threat[1]), max(threat[2], threat[3])) > 0 and sizes[nxt] <= xr[X_SWITCH_AGAINST]
    # 9s held (both decks), not only the legal ones: spare 9s go like any card
    nines_held = popcount(h0 & I_NINES) + popcount(h1 & I_NINES)
    use_nine = nines != 0 and (
        (not has_natural)
        or (danger and can_block and not natural_blocks)
        or sizes[seat] <= xr[X_SHED_NINE_AT]
        or nines_held > xr[X_SPARE_NINES]
        or (near_end and xr[X_NINE_AT_END] > 0)
    )
    if use_nine:
        return pick_card(nines, 0, _rand(dkey, turn, kind, 2))
    return choice


def _named(fn, name: str):  # noqa: ANN001, ANN202
    """A copy of a plain function under another name: numba keys its on-disk cache by a function's name."""
    out = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    out.__qualname__ = name
    out.__doc__ = fn.__doc__
    return out


expert_decide = njit(cache=True, error_model="numpy", _nrt=False)(_named(_expert_decide, "expert_decide"))
expert_decide_inline = njit(cache=True, inline="always", error_model="numpy")(
    _named(_expert_decide, "expert_decide_inline")
)


@njit(cache=True, inline="always", error_model="numpy")
def builtin_decide(
    sid, kind, b, seat, legal, card, pair_ok, dkey, turn, dirbit, hands, ncards, drew_on, played, rp, fw, xp, D,
    expert_inline,
):  # fmt: skip
    """Decision of a compiled built-in strategy: a face / PAIR, a suit, or 0/1 for play_drawn.

    The turn loop decides the heuristics' plays and declarations itself (:func:`heuristic_play`,
    :func:`heuristic_declare`) and asks here for ``expert``'s decisions (:func:`expert_decide`) and every
    dealer's declaration (D6).  ``xp``: float64 (MAX_SEATS, NXP), each seat's ``expert`` parameters;
    ``fw``: float64 scratch of 64; ``D``: decks; ``expert_inline``: whether ``expert``'s code is inlined here
    (a constant of the loop's form).
    """
    h0 = np.int64(hands[0, b, seat])
    h1 = np.int64(hands[1, b, seat]) if D == 2 else np.int64(0)
    if sid == SID_EXPERT and expert_inline:
        return expert_decide_inline(
            kind, seat, legal, card, dkey, turn, dirbit, h0, h1, np.int64(played[b]), ncards[b], drew_on[b], rp[R_P],
            fw, xp[seat],
        )  # fmt: skip
    if sid == SID_EXPERT:
        return expert_decide(
            kind, seat, legal, card, dkey, turn, dirbit, h0, h1, np.int64(played[b]), ncards[b], drew_on[b], rp[R_P],
            fw, xp[seat],
        )  # fmt: skip
    if kind == K_PLAY_DRAWN:
        return 1  # the heuristics play what they drew
    if kind == K_DECLARE or kind == K_DEALER_DECLARE:
        return heuristic_declare(sid, h0, h1, _rand(dkey, turn, kind, 1))
    return heuristic_play(sid, h0, h1, legal, pair_ok, _rand(dkey, turn, kind, 0))


# ----------------------------------------------------------------- the loop
def scratch(rules: Rules) -> tuple:
    """The scratch arrays :func:`play_slots` works in (:func:`sort_packed`'s values, whole keys, buffer and
    byte counters; penalties, a user view, suit figures)."""
    S = 52 * rules.decks
    return (
        np.empty(S, dtype=np.uint64), np.empty(1 << PACK_BITS, dtype=np.uint64), np.empty(S, dtype=np.uint64),
        np.empty(32, dtype=np.uint64), np.zeros(rules.players, dtype=np.int64),
        np.zeros(NG, dtype=np.int64), np.zeros(2, dtype=np.uint64), np.zeros(64, dtype=np.float64),
    )  # fmt: skip


@njit(cache=True, inline="always", error_model="numpy")
def pair_legal(top, active, hands, ncards, rp, legal_tab, b, seat, D, pair_any):
    """Whether two 9s together are a legal move (V4, V5)."""
    if not pair_any:
        return False
    n9 = popcount(np.int64(hands[0, b, seat]) & I_NINES)
    if D == 2:
        n9 += popcount(np.int64(hands[1, b, seat]) & I_NINES)
    if n9 < 2:
        return False
    if (np.int64(legal_tab[top * 4 + active]) & I_NINES) == 0:
        return False
    if rp[R_NNO] != 0 and ncards[b, seat] <= 2:
        return False
    return True


@njit(cache=True, error_model="numpy", _nrt=False)
def penalty(hands, D, b, p, nine_pen):
    """Penalty points of seat ``p``'s hand (C2): the natural cards' points bit by bit, one population count
    per bit of the largest natural penalty (``PEN_BIT_MASK``), and the 9s at ``nine_pen`` each."""
    total = 0
    for d in range(D):
        w = np.int64(hands[d, b, p])
        for k in range(PEN_BIT_MASK.shape[0]):
            total += popcount(w & PEN_BIT_MASK[k]) << k
        total += nine_pen * popcount(w & I_NINES)
    return total


@njit(cache=True, error_model="numpy", _nrt=False)
def user_decide(
    fs, kind, g, hb, st, hands, ncards, totals, drew_on, played, rp, b, who, legal, pok, top, active, dirbit, turn,
    mask, card, dkey,
):  # fmt: skip
    """A compiled user strategy's answer (out of the turn loop's line: the call's set-up crowds its registers)."""
    fill_view(g, hb, st, hands, played, rp, b, who, legal, pok, top, active, dirbit, turn, mask, card, dkey)
    return fs[who](kind, g, hb, ncards[b], totals[b], drew_on[b])


@njit(cache=True, inline="always", error_model="numpy")
def answer_ok(kind, ans, legal, pok):
    """Whether a compiled user strategy's answer is within the rules: a legal card or the pair (T1, T2, V4, V5,
    V6), 0 or 1 for playing the drawn card, a suit 0-3 for a declaration."""
    if kind == K_PLAY:
        return (ans >= 0 and ans < 52 and ((legal >> ans) & 1) == 1) or (ans == PAIR and pok)
    if kind == K_PLAY_DRAWN:
        return ans == 0 or ans == 1
    return ans >= 0 and ans <= 3


@njit(cache=True, error_model="numpy", _nrt=False)
def fill_view(g, hb, st, hands, played, rp, b, seat, legal, pok, top, active, dirbit, turn, mask, card, dkey):
    """What a compiled user strategy sees of game ``b`` (the ``G_*`` fields, and its own hand in ``hb``)."""
    g[G_SEAT] = seat
    g[G_LEGAL] = legal
    g[G_PAIR_LEGAL] = pok
    g[G_TOP] = top
    g[G_ACTIVE] = active
    g[G_STOCK] = st[b, S_END] - st[b, S_POS]
    g[G_DEALER] = st[b, S_DEALER]
    g[G_DIRECTION] = 1 - 2 * dirbit
    g[G_PLAYED] = np.int64(played[b])
    g[G_CARD] = card
    g[G_PLAYERS] = rp[R_P]
    g[G_NINE_PENALTY] = rp[R_NINE_PEN]
    g[G_TURN] = turn
    g[G_KEY] = np.int64(dkey)
    g[G_IN_HAND] = mask
    g[G_DECKS] = rp[R_DECKS]
    hb[0] = hands[0, b, seat]
    hb[1] = hands[1, b, seat] if rp[R_DECKS] == 2 else np.uint64(0)


def _compile_slots(classic: bool, expert: bool, trace: bool = False):  # noqa: ANN202 - returns a numba dispatcher
    """Compile :func:`play_slots` with the rules' shape read at run time, or (``classic``) as the constants of
    :func:`classic_shape`: numba treats the closure's ``classic`` as a constant, so the classic form has
    none of the other variants' branches (a smaller turn loop, about 6% faster on W1 by A/B).  ``expert``:
    for tables with an ``expert`` seat, with its code inlined (:func:`_expert_decide`).  ``trace``: the form
    that writes every event of each slot's game into ``work[8]``, int64 (B, rows, EV_WIDTH), counted in
    ``work[9]``, int64 (B,) (the ``EV_*`` rows; a replay and a person's seat read them); it returns
    ``BUFFER_FULL`` before a pass that might not fit (fewer than ``EV_MARGIN`` rows free), and before the
    turn that ``work[10]`` names (int64 (3,): hands dealt in the match, turn, armed), disarming it.  The forms without
    it hold none of its code (the flag is a constant, its branches are dropped)."""

    def play_slots(
        st, keys, hands, ncards, totals, drew_on, under, stock, played, rp, legal_tab, next_tab, seat_sid, seat_xp,
        mkeys, start, n_matches, next_match, max_new, hrec, hpen, hcount, mrec, mtot, mshare, mcount, fs, work,
    ):  # fmt: skip
        """Advance every slot until its game waits on a Python seat, or no match is left to start.

        Parameters
        ----------
        seat_sid : int64 (MAX_SEATS,)
            Each seat's strategy id (``SID_*``).
        seat_xp : float64 (MAX_SEATS, NXP)
            Each seat's ``expert`` parameters (the ``X_*`` columns; read only where the seat is ``SID_EXPERT``).
        mkeys : uint64 (n_matches, 2)
            Card and decision match keys of matches ``start ..`` (computed by :mod:`nines_sim.rng`).
        next_match : int64 (1,)
            Index (from ``start``) of the next match to start; advanced here.
        max_new : int
            At most this many matches are started in this call.
        hrec, hpen, hcount, mrec, mtot, mshare, mcount
            Output buffers of hand and match records and their fill counts (int64 (1,)).
        fs : tuple of MAX_SEATS compiled functions of ``DECIDE_SIG``
            Each seat's compiled user strategy (a placeholder where the seat has none).
        work : tuple
            Scratch arrays from :func:`scratch` (the kernel allocates nothing: it runs without
            numba's reference counting, which cost an atomic increment per array per helper call).

        Returns
        -------
        int
            ``DONE``; ``BUFFER_FULL`` when the record buffers must be drained before calling again;
            ``ILLEGAL`` when a compiled user strategy answered outside the rules (the slot's
            ``S_WAIT_KIND``, ``S_WAIT_SEAT`` and ``S_ANSWER`` say what, ``S_MATCH`` where).
        """
        if classic:
            D, nno, until, skiprev, pair_any = 1, False, False, False, False
        else:
            D = rp[R_DECKS]
            nno = rp[R_NNO] != 0
            until = rp[R_UNTIL] != 0
            skiprev = rp[R_SKIPREV] != 0
            pair_any = rp[R_PAIR] != 0
        B = st.shape[0]
        P = rp[R_P]
        sv, sfull, sbuf, scw, pen, g, hb, fw = work[0], work[1], work[2], work[3], work[4], work[5], work[6], work[7]
        if trace:
            ev = work[8]
            evn = work[9]
            evcap = ev.shape[1] - EV_MARGIN
            stop = work[10]  # int64 (3,): pause before turn stop[1] of the hand dealt stop[0]-th, while stop[2] is 1
        started = 0
        hcap = hrec.shape[0]
        mcap = mrec.shape[0]
        full_mask = (1 << P) - 1
        noplay_block = rp[R_NOPLAY_BLOCK] != 0
        cap = rp[R_CAP]
        code = DONE
        for b in range(B):
            if st[b, S_WAITING] != 0:
                continue
            # the hot state of this slot lives in locals while it plays (stored back below)
            ph = st[b, S_PHASE]
            top = st[b, S_TOP]
            active = st[b, S_ACTIVE]
            seat = st[b, S_SEAT]
            dirbit = st[b, S_DIR]
            turn = st[b, S_TURN]
            streak = st[b, S_STREAK]
            n_in = st[b, S_N_IN]
            mask = st[b, S_MASK]
            mv = st[b, S_MOVE]
            passed = st[b, S_PASSED] != 0
            card = st[b, S_CARD]
            dkey = keys[b, K_DHK]
            legal = np.int64(keys[b, K_LEGAL])
            row = (mask * 2 + dirbit) * P  # this direction's row of the next-seat table
            while True:
                if trace and evn[b] > evcap:
                    code = BUFFER_FULL
                    break
                if ph == PH_TURN:
                    if trace and stop[2] != 0 and st[b, S_HAND_SEQ] == stop[0] and turn == stop[1]:
                        stop[2] = 0  # a position to look at (nines analyze): stop here once, go on when called again
                        code = BUFFER_FULL
                        break
                    if trace:
                        log_event(ev, evn, b, EV_TURN, turn, 0, 0)
                    tab = np.int64(legal_tab[top * 4 + active])
                    legal = np.int64(hands[0, b, seat]) & tab
                    if nno and ncards[b, seat] == 1:
                        legal &= I_NATURALS
                    passed = False
                    if legal != 0:
                        ph = PH_PLAY
                    else:
                        drew_on[b, seat] |= 1 << active
                        if trace:
                            f = traced_draw(ev, evn, EV_DRAW, st, keys, hands, ncards, under, stock, D, b, seat, sv,
                                            sfull, sbuf, scw)  # fmt: skip
                        else:
                            f = draw(st, keys, hands, ncards, under, stock, D, b, seat, sv, sfull, sbuf, scw)
                        if until:  # V2: draw until a legal card comes, and play it
                            while f >= 0 and ((tab >> f) & 1) == 0:
                                if trace:
                                    f = traced_draw(ev, evn, EV_DRAW, st, keys, hands, ncards, under, stock, D, b,
                                                    seat, sv, sfull, sbuf, scw)  # fmt: skip
                                else:
                                    f = draw(st, keys, hands, ncards, under, stock, D, b, seat, sv, sfull, sbuf, scw)
                            passed = f < 0
                            mv = f
                            ph = PH_APPLY
                        else:
                            passed = f < 0
                            if f >= 0 and ((tab >> f) & 1) == 1:
                                card = f
                                legal = np.int64(1) << f
                                ph = PH_PLAY_DRAWN
                            else:
                                mv = -1
                                ph = PH_APPLY
                        if trace and passed:
                            log_event(ev, evn, b, EV_PASS, seat, 0, 0)
                if (ph == PH_PLAY or ph == PH_PLAY_DRAWN or ph == PH_DECLARE) and (
                    SID_RANDOM <= seat_sid[seat] <= SID_SUIT_MAJORITY
                ):
                    # The heuristics need only the hand and the legal set, and always play a drawn card: decided
                    # here, they stay clear of the general decision block below, which measured 8% of W1's time
                    # for its plays and another 6% for its declarations.
                    h0 = np.int64(hands[0, b, seat])
                    h1 = np.int64(hands[1, b, seat]) if D == 2 else np.int64(0)
                    if ph == PH_PLAY:
                        pok = pair_legal(top, active, hands, ncards, rp, legal_tab, b, seat, D, pair_any)
                        mv = heuristic_play(seat_sid[seat], h0, h1, legal, pok, _rand(dkey, turn, K_PLAY, 0))
                        ph = PH_APPLY
                    elif ph == PH_PLAY_DRAWN:
                        mv = card
                        ph = PH_APPLY
                    else:
                        active = heuristic_declare(seat_sid[seat], h0, h1, _rand(dkey, turn, K_DECLARE, 1))
                        ph = PH_FINISH
                if ph == PH_PLAY or ph == PH_PLAY_DRAWN or ph == PH_DECLARE or ph == PH_DEALER_DECL:
                    # a decision: a card to play (T1, T2), whether to play the drawn card (T4), a suit (D6, T3)
                    play = ph == PH_PLAY or ph == PH_PLAY_DRAWN
                    if ph == PH_PLAY:
                        kind = K_PLAY
                    elif ph == PH_PLAY_DRAWN:
                        kind = K_PLAY_DRAWN
                    elif ph == PH_DECLARE:
                        kind = K_DECLARE
                    else:
                        kind = K_DEALER_DECLARE
                    who = st[b, S_DEALER] if kind == K_DEALER_DECLARE else seat
                    dl = legal if play else 0
                    dc = card if play else 0
                    sid = seat_sid[who]
                    if sid == SID_PYTHON:
                        if st[b, S_HAVE_ANS] == 0:
                            st[b, S_WAITING] = 1
                            st[b, S_WAIT_KIND] = kind
                            st[b, S_WAIT_SEAT] = who
                            break
                        st[b, S_HAVE_ANS] = 0
                        ans = st[b, S_ANSWER]
                    else:
                        pok = kind == K_PLAY and pair_legal(
                            top, active, hands, ncards, rp, legal_tab, b, who, D, pair_any
                        )
                        if sid == SID_USER:
                            ans = user_decide(
                                fs, kind, g, hb, st, hands, ncards, totals, drew_on, played, rp, b, who, dl, pok, top,
                                active, dirbit, turn, mask, dc, dkey,
                            )  # fmt: skip
                            if not answer_ok(kind, ans, legal, pok):
                                st[b, S_WAIT_KIND] = kind
                                st[b, S_WAIT_SEAT] = who
                                st[b, S_ANSWER] = ans
                                st[b, S_WAITING] = 2  # marks the slot for the error message
                                code = ILLEGAL
                                break
                        else:
                            ans = builtin_decide(
                                sid, kind, b, who, dl, dc, pok, dkey, turn, dirbit, hands, ncards, drew_on, played, rp,
                                fw, seat_xp, D, expert,
                            )  # fmt: skip
                    if kind == K_PLAY:
                        mv = ans
                        ph = PH_APPLY
                    elif kind == K_PLAY_DRAWN:
                        mv = card if ans != 0 else -1
                        ph = PH_APPLY
                    else:
                        active = ans
                        if kind == K_DEALER_DECLARE:
                            if trace:
                                log_event(ev, evn, b, EV_DECLARE, who, ans, 0)
                            ph = PH_TURN
                            continue
                        ph = PH_FINISH
                if ph == PH_APPLY:
                    if mv < 0:
                        ph = PH_FINISH
                    elif pair_any and mv == PAIR:
                        # two 9s as one move (V4): the highest 9 held, second copies first; the first ends on top
                        f0 = -1
                        f1 = -1
                        for j in range(2):
                            pick = np.int64(hands[D - 1, b, seat]) & I_NINES
                            if pick == 0:
                                pick = np.int64(hands[0, b, seat]) & I_NINES
                            f = -1
                            for nine in range(4):
                                fc = 13 * nine + NINE_RANK
                                if (pick >> fc) & 1:
                                    f = fc
                            remove_from_hand(hands, ncards, D, b, seat, f)
                            if j == 0:
                                f0 = f
                            else:
                                f1 = f
                        add_under(under, D, b, top)
                        add_under(under, D, b, f1)
                        top = f0
                        played[b] = np.uint64(np.int64(played[b]) | (np.int64(1) << f0) | (np.int64(1) << f1))
                        ph = PH_DECLARE
                    else:
                        remove_from_hand(hands, ncards, D, b, seat, mv)
                        add_under(under, D, b, top)
                        top = mv
                        active = face_suit(mv)
                        played[b] = np.uint64(np.int64(played[b]) | (np.int64(1) << mv))
                        ph = PH_DECLARE if (I_NINES >> mv) & 1 else PH_FINISH
                    if ph == PH_DECLARE:
                        continue
                if ph == PH_FINISH:
                    if trace and mv >= 0:
                        if mv == PAIR:
                            log_event(ev, evn, b, EV_PAIR, seat, active, 0)
                        else:
                            log_event(ev, evn, b, EV_PLAY, seat, mv, active if (I_NINES >> mv) & 1 else -1)
                    out = RUNNING
                    skip = False
                    reverse = False
                    ace = False
                    if mv >= 0:
                        alive = ncards[b, seat] != 0
                        if not alive:
                            out = seat
                        if pair_any and mv == PAIR:
                            skip = alive
                        elif alive and skiprev:
                            r = face_rank(mv)
                            skip = r == RANK_JACK
                            reverse = r == RANK_QUEEN
                            ace = r == RANK_ACE
                    if noplay_block:
                        streak = 0 if mv >= 0 else streak + 1
                    else:
                        streak = streak + 1 if passed else 0
                    turn += 1
                    if out == RUNNING and streak >= n_in:
                        out = BLOCKED
                    if out == RUNNING and turn >= cap:
                        out = CAPPED
                    if reverse:
                        dirbit ^= 1
                        row = (mask * 2 + dirbit) * P
                        if n_in == 2:
                            skip = True
                    nxt = next_tab[row + seat]
                    if out == RUNNING:
                        if skip:
                            if trace:
                                log_event(ev, evn, b, EV_SKIP, nxt, 0, 0)
                            nxt = next_tab[row + nxt]
                        elif ace:
                            for _ in range(2):
                                if trace:
                                    traced_draw(ev, evn, EV_PENALTY_DRAW, st, keys, hands, ncards, under, stock, D, b,
                                                nxt, sv, sfull, sbuf, scw)  # fmt: skip
                                else:
                                    draw(st, keys, hands, ncards, under, stock, D, b, nxt, sv, sfull, sbuf, scw)
                            if trace:
                                log_event(ev, evn, b, EV_SKIP, nxt, 0, 0)
                            nxt = next_tab[row + nxt]
                    seat = nxt
                    if out == RUNNING:
                        ph = PH_TURN
                        continue
                    st[b, S_OUTCOME] = out
                    ph = PH_END
                if ph == PH_END:
                    # score the hand (S1, S4), end the match (S2, S3) or deal the next hand
                    if hcount[0] >= hcap or mcount[0] >= mcap:
                        code = BUFFER_FULL
                        break
                    st[b, S_TURN] = turn
                    out = st[b, S_OUTCOME]
                    for p in range(P):
                        pen[p] = penalty(hands, D, b, p, rp[R_NINE_PEN])
                    if trace:
                        log_seats(ev, evn, b, EV_END, out, pen, P)
                    finished = False
                    if st[b, S_IN_TB] == 0:
                        h = hcount[0]
                        hrec[h, H_MATCH] = st[b, S_MATCH]
                        hrec[h, H_HAND] = st[b, S_HANDS]
                        hrec[h, H_DEALER] = st[b, S_DEALER]
                        hrec[h, H_OUTCOME] = out
                        hrec[h, H_TURNS] = turn
                        hrec[h, H_DRAWN] = st[b, S_DRAWN]
                        hrec[h, H_RESH] = st[b, S_RESH]
                        hrec[h, H_NINE] = st[b, S_NINE_START]
                        for p in range(P):
                            hpen[h, p] = pen[p]
                            totals[b, p] += pen[p]
                        hcount[0] = h + 1
                        st[b, S_HANDS] += 1
                        st[b, S_DEALER] = (st[b, S_DEALER] + 1) % P
                        if rp[R_FIXED] > 0:
                            over = st[b, S_HANDS] >= rp[R_FIXED]
                        else:
                            hi = totals[b, 0]
                            for p in range(1, P):
                                hi = max(hi, totals[b, p])
                            over = hi >= rp[R_TARGET]
                        if over:
                            lo = totals[b, 0]
                            for p in range(1, P):
                                lo = min(lo, totals[b, p])
                            tmask = 0
                            k = 0
                            for p in range(P):
                                if totals[b, p] == lo:
                                    tmask |= 1 << p
                                    k += 1
                            if k == 1 or rp[R_SHARE] != 0:
                                m = mcount[0]
                                for p in range(P):
                                    mshare[m, p] = (1.0 / k) if (tmask >> p) & 1 else 0.0
                                finished = True
                            else:
                                st[b, S_IN_TB] = 1
                                mask = tmask
                                n_in = k
                                st[b, S_DEALER] = next_tab[(mask * 2) * P + (st[b, S_DEALER] + P - 1) % P]
                    else:
                        st[b, S_TB_HANDS] += 1
                        m = mcount[0]
                        if out >= 0:
                            for p in range(P):
                                mshare[m, p] = 1.0 if p == out else 0.0
                            finished = True
                        else:
                            lo = np.iinfo(np.int64).max
                            for p in range(P):
                                if (mask >> p) & 1 and pen[p] < lo:
                                    lo = pen[p]
                            tmask = 0
                            k = 0
                            for p in range(P):
                                if (mask >> p) & 1 and pen[p] == lo:
                                    tmask |= 1 << p
                                    k += 1
                            if k == 1:
                                for p in range(P):
                                    mshare[m, p] = 1.0 if (tmask >> p) & 1 else 0.0
                                finished = True
                            else:
                                mask = tmask
                                n_in = k
                                st[b, S_DEALER] = next_tab[(mask * 2) * P + st[b, S_DEALER]]
                    if finished:
                        m = mcount[0]
                        mrec[m, M_MATCH] = st[b, S_MATCH]
                        mrec[m, M_HANDS] = st[b, S_HANDS]
                        mrec[m, M_TB] = st[b, S_TB_HANDS]
                        mrec[m, M_FIRST] = st[b, S_FIRST]
                        for p in range(P):
                            mtot[m, p] = totals[b, p]
                        if trace:
                            wmask = 0
                            for p in range(P):
                                if mshare[m, p] > 0:
                                    wmask |= 1 << p
                            log_seats(ev, evn, b, EV_MATCH_END, wmask, totals[b], P)
                        mcount[0] = m + 1
                        st[b, S_MATCH] = -1
                        ph = PH_NEW
                    else:
                        st[b, S_MASK] = mask
                        st[b, S_N_IN] = n_in
                        ph = PH_DEAL
                # A new match and a new hand come last: the loop's first test is then a turn's, the phase of
                # almost every pass (measured 4-6% faster on W1 than with the match and hand phases first).
                if ph == PH_NEW:  # the slot takes the next match
                    j = next_match[0]
                    if j >= n_matches or started >= max_new:
                        st[b, S_MATCH] = -1
                        break
                    next_match[0] = j + 1
                    started += 1
                    st[b, S_MATCH] = start + j
                    keys[b, K_CMK] = mkeys[j, 0]
                    keys[b, K_DMK] = mkeys[j, 1]
                    first = below(stream(mkeys[j, 0], U_FIRST, 0), P)
                    st[b, S_FIRST] = first
                    st[b, S_DEALER] = first
                    st[b, S_HAND_SEQ] = 0
                    st[b, S_HANDS] = 0
                    st[b, S_TB_HANDS] = 0
                    for p in range(P):
                        totals[b, p] = 0
                    st[b, S_IN_TB] = 0
                    st[b, S_MASK] = full_mask
                    st[b, S_N_IN] = P
                    st[b, S_HAVE_ANS] = 0
                    ph = PH_DEAL
                if ph == PH_DEAL:  # the first hand of a match, or the next one
                    if classic:
                        deal_one_deck(
                            st, keys, hands, ncards, under, stock, played, drew_on, rp, next_tab, b, sv, sfull, sbuf,
                            scw,
                        )  # fmt: skip
                    else:
                        deal(
                            st, keys, hands, ncards, under, stock, played, drew_on, rp, next_tab, b, sv, sfull, sbuf,
                            scw,
                        )  # fmt: skip
                    ph = st[b, S_PHASE]
                    top = st[b, S_TOP]
                    active = st[b, S_ACTIVE]
                    seat = st[b, S_SEAT]
                    dirbit = 0
                    turn = 0
                    streak = 0
                    n_in = st[b, S_N_IN]
                    mask = st[b, S_MASK]
                    row = mask * 2 * P
                    dkey = keys[b, K_DHK]
                    if trace:
                        log_deal(ev, evn, b, st, hands, P, D)
            # store the slot's state where Python (and the next call) can see it
            st[b, S_PHASE] = ph
            st[b, S_TOP] = top
            st[b, S_ACTIVE] = active
            st[b, S_SEAT] = seat
            st[b, S_DIR] = dirbit
            st[b, S_TURN] = turn
            st[b, S_STREAK] = streak
            st[b, S_N_IN] = n_in
            st[b, S_MASK] = mask
            st[b, S_MOVE] = mv
            st[b, S_PASSED] = passed
            st[b, S_CARD] = card
            keys[b, K_LEGAL] = np.uint64(legal)
            if code != DONE:
                return code
        return DONE

    # Each form gets a name of its own: numba files a closure's forms under one cache index keyed by its name,
    # and two processes compiling different forms at once could then both write the same data file.
    name = "play_slots" + ("_classic" if classic else "") + ("_expert" if expert else "") + ("_trace" if trace else "")
    play_slots.__qualname__ = play_slots.__name__ = name
    return njit(cache=True, error_model="numpy", _nrt=False)(play_slots)


#: The compiled turn loop for any rules (:func:`_compile_slots`).
play_slots = _compile_slots(False, False)
#: The compiled turn loop for rules of the classic shape (:func:`classic_shape`).
play_slots_classic = _compile_slots(True, False)
#: The two forms for tables with an ``expert`` seat.
play_slots_expert = _compile_slots(False, True)
play_slots_classic_expert = _compile_slots(True, True)


#: The trace form of the loop, for any rules and any table (:func:`_compile_slots` with ``trace``): a replay,
#: a person's seat and the tests read every event of a game from it.  One form serves them all (speed does
#: not matter there; compiling fewer forms does).
play_slots_trace = _compile_slots(False, True, trace=True)


def classic_shape(rp: np.ndarray) -> bool:
    """Whether rules (as :func:`rules_params`) have the classic shape: one deck, one card drawn (T4), no
    skip and reverse (V1), no pair of 9s (V4), and a 9 may go out.  Most presets do (classic, hard-nines,
    free-nines, no-stacking, fixed-hands-*); the nine penalty, block rule, tie rule, target and turn cap
    are read at run time by either form."""
    return bool(rp[R_DECKS] == 1 and rp[R_NNO] == 0 and rp[R_UNTIL] == 0 and rp[R_SKIPREV] == 0 and rp[R_PAIR] == 0)


def slots_kernel(rp: np.ndarray, expert: bool = False):  # noqa: ANN201 - a numba dispatcher
    """The compiled turn loop for these rules: :func:`play_slots_classic` where :func:`classic_shape`
    holds, else :func:`play_slots`; with ``expert`` (a table with an ``expert`` seat) their forms with its
    code inlined.  All play the same moves (tests compare them byte for byte)."""
    if expert:
        return play_slots_classic_expert if classic_shape(rp) else play_slots_expert
    return play_slots_classic if classic_shape(rp) else play_slots
