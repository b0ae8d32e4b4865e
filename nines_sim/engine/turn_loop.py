"""The compiled turn loop: numba machine code for deal, turn, powers, scoring and match flow.

:func:`play_slots` plays whole matches one game slot at a time, each game to its
end before the slot takes the next match index, so a table of built-in
strategies never returns to Python.  A seat played by a Python strategy makes
its game wait: the kernel records the decision asked for (kind, seat, legal
set, drawn card) in the slot and moves on to the next slot; Python decides for
every waiting game at once and calls the kernel again, which resumes each
game where it stopped.  Every rule, random stream and tie-break follows
the plain-Python reference :mod:`nines_sim.game.reference` (the executable RULES.md) exactly,
move for move (``tests/test_reference_agreement.py`` compares them).

The loop is compiled in two forms (:func:`slots_kernel` picks one): for rules
of the classic shape with that shape as constants, and for any rules.  Code a
workload does not run still costs it when inlined into the loop (it crowds the
loop's registers), so rare paths that need many values (``expert``, compiled
user strategies) are compiled apart and called.

The state of the slots is declared in :mod:`nines_sim.engine.slots` (:data:`~nines_sim.engine.slots.FIELDS`: each
per-slot array's dtype and shape); the loop takes its arrays as its first arguments, then ``rp``, int64
(NRP,), the rules as numbers (:func:`rules_params`).  The loop is a chain of named phases, each a function
inlined into it (see "the phases of a slot's game" below).

Inside the kernel a set of faces is an int64 (52 bits); it is stored as uint64
so that Python strategies see the same arrays as from the numpy engine.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.core import types as nbt

from nines_sim.engine.bits import (  # noqa: F401 - the kernel's helpers, also read from here (sampler, user strategies)
    I_NATURALS,
    I_NINES,
    PEN_BIT_MASK,
    U_DEAL,
    U_DECISION,
    U_FIRST,
    U_RESH,
    below,
    cache_dir,
    decision_stream,
    face_rank,
    face_suit,
    hand_key,
    lowest_face,
    nth_face,
    pick_card,
    popcount,
    stream,
)
from nines_sim.engine.code_cache import seal_module
from nines_sim.engine.slots import (  # noqa: F401 - the slots' columns, also read from here
    K_CHK,
    K_CMK,
    K_DHK,
    K_DMK,
    K_LEGAL,
    NKEY,
    NST,
    S_ACTIVE,
    S_ANSWER,
    S_CARD,
    S_DEALER,
    S_DIR,
    S_DRAWN,
    S_END,
    S_FIRST,
    S_HAND_SEQ,
    S_HANDS,
    S_HAVE_ANS,
    S_IN_TB,
    S_MASK,
    S_MATCH,
    S_MOVE,
    S_N_IN,
    S_NINE_START,
    S_OUTCOME,
    S_PASSED,
    S_PHASE,
    S_POS,
    S_RESH,
    S_SEAT,
    S_STREAK,
    S_TB_HANDS,
    S_TOP,
    S_TURN,
    S_WAIT_KIND,
    S_WAIT_SEAT,
    S_WAITING,
    SlotState,
    alloc_slots,
)
from nines_sim.game.codes import (
    BLOCKED,
    CAPPED,
    K_DEALER_DECLARE,
    K_DECLARE,
    K_PLAY,
    K_PLAY_DRAWN,
    NINE_RANK,
    RANK_ACE,
    RANK_JACK,
    RANK_QUEEN,
    RUNNING,
    SID_PYTHON,
    SID_USER,
)
from nines_sim.game.codes import PAIR_OF_NINES as PAIR
from nines_sim.game.rules import Rules
from nines_sim.strategies.expert_compiled import NXP, SID_EXPERT, expert_decide, expert_decide_inline  # noqa: F401
from nines_sim.strategies.heuristics_compiled import (  # noqa: F401 - every built-in's id, also read from here
    SID_DUMP_FACES,
    SID_HOLD_NINES,
    SID_RANDOM,
    SID_SUIT_MAJORITY,
    heuristic_declare,
    heuristic_play,
)

# ----------------------------------------------------------------- constants
# rules parameters
R_P, R_NINE_PEN, R_HS, R_UNTIL, R_SKIPREV, R_DECKS, R_PAIR, R_NNO = 0, 1, 2, 7, 8, 9, 10, 11
R_NOPLAY_BLOCK, R_SHARE, R_TARGET, R_FIXED, R_CAP = 12, 13, 14, 15, 16
NRP = 17


# phases of a slot
PH_NEW, PH_DEALER_DECL, PH_TURN, PH_PLAY, PH_PLAY_DRAWN, PH_APPLY, PH_DECLARE, PH_FINISH, PH_END, PH_DEAL = range(10)
# kernel return codes
DONE, BUFFER_FULL, ILLEGAL = 0, 1, 2
#: Seats a table can have: the length of the tuple of user decision functions.
MAX_SEATS = 6

# What a compiled user strategy sees of one game: ``g``, an int64 vector with these fields.
(G_SEAT, G_LEGAL, G_PAIR_LEGAL, G_TOP, G_ACTIVE, G_STOCK, G_DEALER, G_DIRECTION, G_PLAYED, G_CARD, G_PLAYERS,
 G_NINE_PENALTY, G_TURN, G_KEY, G_IN_HAND, G_DECKS, NG) = range(17)  # fmt: skip
#: ``decide(kind, g, hand, hand_sizes, totals, drew_on) -> int64``: the form of a compiled user strategy.
DECIDE_SIG = nbt.int64(nbt.int64, nbt.int64[::1], nbt.uint64[::1], nbt.int64[::1], nbt.int64[::1], nbt.int64[::1])

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
    one-deck form, which the classic form of the turn loop calls (its loops have constant bounds)."""

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


# array passed around a turn), so nothing here allocates: per-suit figures go to the scratch row ``fw``.


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
        return heuristic_declare(sid, h0, h1, decision_stream(dkey, turn, kind, 1))
    return heuristic_play(sid, h0, h1, legal, pair_ok, decision_stream(dkey, turn, kind, 0))


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


# ----------------------------------------------------------------- the phases of a slot's game
# Each phase is a function of the slot's arrays and of the hot values the loop keeps in locals, and returns
# the locals it changes with the phase to go to.  All are inlined into the loop (``inline="always"``): the
# compiled loop is the same machine code as one long function, while each phase reads on one screen.  The
# rules' shape (``D``, ``nno``, ``until``, ``skiprev``, ``pair_any``) comes in as arguments that the classic
# form of the loop passes as constants, so its code has no branch of the other variants.

#: What a phase returns as its code when the slot plays on (the kernel's return codes are >= 0).
GO = -1


@njit(cache=True, inline="always", error_model="numpy")
def draw_card(st, keys, hands, ncards, under, stock, D, b, s, kind, work, trace):
    """:func:`draw` in the scratch arrays ``work``; the trace form logs the card (``kind``: ``EV_DRAW`` or
    ``EV_PENALTY_DRAW``) and any reshuffle (:func:`traced_draw`)."""
    if trace:
        return traced_draw(
            work[8], work[9], kind, st, keys, hands, ncards, under, stock, D, b, s, work[0], work[1], work[2], work[3]
        )
    return draw(st, keys, hands, ncards, under, stock, D, b, s, work[0], work[1], work[2], work[3])


@njit(cache=True, inline="always", error_model="numpy")
def turn_phase(st, keys, hands, ncards, drew_on, under, stock, legal_tab, b, seat, top, active, mv, card, D, nno,
               until, work, trace):  # fmt: skip
    """A turn begins: the seat's legal cards (T1, T2, V5, V6), or else it draws (T4, T5, T6; V2 draws on).

    Returns
    -------
    tuple
        ``(phase, legal, passed, move, card)``: ``PH_PLAY`` with the legal set; ``PH_PLAY_DRAWN`` with the
        drawn card, which is playable; else ``PH_APPLY`` with the move (-1: no play).
    """
    tab = np.int64(legal_tab[top * 4 + active])
    legal = np.int64(hands[0, b, seat]) & tab
    if nno and ncards[b, seat] == 1:
        legal &= I_NATURALS
    if legal != 0:
        return PH_PLAY, legal, False, mv, card
    drew_on[b, seat] |= 1 << active
    f = draw_card(st, keys, hands, ncards, under, stock, D, b, seat, EV_DRAW, work, trace)
    if until:  # V2: draw until a legal card comes, and play it
        while f >= 0 and ((tab >> f) & 1) == 0:
            f = draw_card(st, keys, hands, ncards, under, stock, D, b, seat, EV_DRAW, work, trace)
        ph, passed, mv = PH_APPLY, f < 0, f
    elif f >= 0 and ((tab >> f) & 1) == 1:
        return PH_PLAY_DRAWN, np.int64(1) << f, False, mv, f
    else:
        ph, passed, mv = PH_APPLY, f < 0, np.int64(-1)
    if trace and passed:
        log_event(work[8], work[9], b, EV_PASS, seat, 0, 0)
    return ph, legal, passed, mv, card


@njit(cache=True, inline="always", error_model="numpy")
def heuristic_phase(ph, hands, ncards, rp, legal_tab, b, seat, sid, top, active, legal, card, mv, dkey, turn, D,
                    pair_any):  # fmt: skip
    """A heuristic seat's play, drawn card or declaration (:mod:`nines_sim.strategies.heuristics_compiled`).

    The heuristics need only the hand and the legal set, and always play a drawn card: decided here, they
    stay clear of the general decision block (:func:`decide_phase`), whose register pressure they would pay.

    Returns
    -------
    tuple
        ``(phase, move, active suit)``.
    """
    h0 = np.int64(hands[0, b, seat])
    h1 = np.int64(hands[1, b, seat]) if D == 2 else np.int64(0)
    if ph == PH_PLAY:
        pok = pair_legal(top, active, hands, ncards, rp, legal_tab, b, seat, D, pair_any)
        return PH_APPLY, heuristic_play(sid, h0, h1, legal, pok, decision_stream(dkey, turn, K_PLAY, 0)), active
    if ph == PH_PLAY_DRAWN:
        return PH_APPLY, card, active
    return PH_FINISH, mv, heuristic_declare(sid, h0, h1, decision_stream(dkey, turn, K_DECLARE, 1))


@njit(cache=True, inline="always", error_model="numpy")
def decide_phase(st, hands, ncards, totals, drew_on, played, rp, legal_tab, seat_sid, seat_xp, fs, g, hb, fw, b, ph,
                 seat, top, active, legal, card, mv, dkey, turn, dirbit, mask, D, pair_any, expert):  # fmt: skip
    """A decision: a card to play (T1, T2), whether to play the drawn card (T4), a suit (T3; the dealer's, D6).

    A Python seat's decision makes the slot wait (``S_WAITING``) until Python answers (``S_HAVE_ANS``); a
    compiled seat decides here.

    Returns
    -------
    tuple
        ``(phase, move, active suit, code)``: ``code`` is ``GO``, ``DONE`` (the slot waits) or ``ILLEGAL``
        (a compiled user strategy answered outside the rules).
    """
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
            return ph, mv, active, DONE
        st[b, S_HAVE_ANS] = 0
        ans = st[b, S_ANSWER]
    else:
        pok = kind == K_PLAY and pair_legal(top, active, hands, ncards, rp, legal_tab, b, who, D, pair_any)
        if sid == SID_USER:
            ans = user_decide(
                fs, kind, g, hb, st, hands, ncards, totals, drew_on, played, rp, b, who, dl, pok, top, active, dirbit,
                turn, mask, dc, dkey,
            )  # fmt: skip
            if not answer_ok(kind, ans, legal, pok):
                st[b, S_WAIT_KIND] = kind
                st[b, S_WAIT_SEAT] = who
                st[b, S_ANSWER] = ans
                st[b, S_WAITING] = 2  # marks the slot for the error message
                return ph, mv, active, ILLEGAL
        else:
            ans = builtin_decide(
                sid, kind, b, who, dl, dc, pok, dkey, turn, dirbit, hands, ncards, drew_on, played, rp, fw, seat_xp, D,
                expert,
            )  # fmt: skip
    if kind == K_PLAY:
        return PH_APPLY, ans, active, GO
    if kind == K_PLAY_DRAWN:
        return PH_APPLY, (card if ans != 0 else np.int64(-1)), active, GO
    if kind == K_DEALER_DECLARE:
        return PH_TURN, mv, ans, GO
    return PH_FINISH, mv, ans, GO


@njit(cache=True, inline="always", error_model="numpy")
def play_pair(hands, ncards, under, played, b, seat, top, D):
    """Two 9s as one move (V4): the highest 9 held, second copies first; the first ends on top.  Returns the top."""
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
    played[b] = np.uint64(np.int64(played[b]) | (np.int64(1) << f0) | (np.int64(1) << f1))
    return f0


@njit(cache=True, inline="always", error_model="numpy")
def apply_phase(hands, ncards, under, played, b, seat, mv, top, active, D, pair_any):
    """The move is made (T1, T2, V4): the card goes on the discard pile; a 9 asks for a suit (T3).

    Returns
    -------
    tuple
        ``(phase, top, active suit)``: ``PH_DECLARE`` after a 9, else ``PH_FINISH``.
    """
    if mv < 0:
        return PH_FINISH, top, active
    if pair_any and mv == PAIR:
        return PH_DECLARE, play_pair(hands, ncards, under, played, b, seat, top, D), active
    remove_from_hand(hands, ncards, D, b, seat, mv)
    add_under(under, D, b, top)
    played[b] = np.uint64(np.int64(played[b]) | (np.int64(1) << mv))
    return (PH_DECLARE if (I_NINES >> mv) & 1 else PH_FINISH), mv, face_suit(mv)


@njit(cache=True, inline="always", error_model="numpy")
def powers_phase(st, keys, hands, ncards, under, stock, next_tab, b, seat, mv, passed, streak, turn, dirbit, row,
                 mask, n_in, P, cap, noplay_block, skiprev, pair_any, D, work, trace):  # fmt: skip
    """The turn ends: going out (O1), a block (T7) or the turn cap (T8) end the hand; else the card's power
    (V1: J skips, Q reverses, A makes the next seat draw two; V4's pair skips) and the next seat.

    Returns
    -------
    tuple
        ``(phase, seat, turn, streak, dirbit, row)``: ``PH_TURN``, or ``PH_END`` with ``S_OUTCOME`` set.
    """
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
                log_event(work[8], work[9], b, EV_SKIP, nxt, 0, 0)
            nxt = next_tab[row + nxt]
        elif ace:
            for _ in range(2):
                draw_card(st, keys, hands, ncards, under, stock, D, b, nxt, EV_PENALTY_DRAW, work, trace)
            if trace:
                log_event(work[8], work[9], b, EV_SKIP, nxt, 0, 0)
            nxt = next_tab[row + nxt]
        return PH_TURN, nxt, turn, streak, dirbit, row
    st[b, S_OUTCOME] = out
    return PH_END, nxt, turn, streak, dirbit, row


@njit(cache=True, inline="always", error_model="numpy")
def record_hand(st, totals, hrec, hpen, hcount, pen, b, out, turn, P):
    """Record a regular hand (S1, S4) and add its penalties to the totals; the deal passes to the left (D2)."""
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


@njit(cache=True, inline="always", error_model="numpy")
def settle_regular(st, totals, mshare, mcount, rp, next_tab, b, P, mask, n_in):
    """After a regular hand: is the match over (S2: a target reached, or the fixed number of hands), and who
    wins it (S3: the lowest total; a tie shares the win or starts tie-break hands among the tied seats).

    Returns
    -------
    tuple
        ``(finished, mask, n_in)``: whether the match is decided (its shares written), and the seats in play.
    """
    if rp[R_FIXED] > 0:
        over = st[b, S_HANDS] >= rp[R_FIXED]
    else:
        hi = totals[b, 0]
        for p in range(1, P):
            hi = max(hi, totals[b, p])
        over = hi >= rp[R_TARGET]
    if not over:
        return False, mask, n_in
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
        return True, mask, n_in
    st[b, S_IN_TB] = 1
    st[b, S_DEALER] = next_tab[(tmask * 2) * P + (st[b, S_DEALER] + P - 1) % P]
    return False, tmask, k


@njit(cache=True, inline="always", error_model="numpy")
def settle_tiebreak(st, mshare, mcount, next_tab, pen, b, out, P, mask, n_in):
    """After a tie-break hand (S3): the seat that went out wins, else the lowest penalty among the tied;
    a new tie plays another hand among those still tied.

    Returns
    -------
    tuple
        ``(finished, mask, n_in)`` as :func:`settle_regular`.
    """
    st[b, S_TB_HANDS] += 1
    m = mcount[0]
    if out >= 0:
        for p in range(P):
            mshare[m, p] = 1.0 if p == out else 0.0
        return True, mask, n_in
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
        return True, mask, n_in
    st[b, S_DEALER] = next_tab[(tmask * 2) * P + st[b, S_DEALER]]
    return False, tmask, k


@njit(cache=True, inline="always", error_model="numpy")
def end_hand_phase(st, hands, totals, rp, next_tab, hrec, hpen, hcount, mrec, mtot, mshare, mcount, b, turn, mask,
                   n_in, P, D, work, trace):  # fmt: skip
    """The hand is over: score it (C2, S1, S4), then end the match (S2, S3) or go on to the next hand.

    Returns
    -------
    tuple
        ``(phase, mask, n_in, code)``: ``PH_NEW`` after the match, ``PH_DEAL`` for its next hand; ``code`` is
        ``BUFFER_FULL`` (nothing done) when the record buffers have no room, else ``GO``.
    """
    if hcount[0] >= hrec.shape[0] or mcount[0] >= mrec.shape[0]:
        return PH_END, mask, n_in, BUFFER_FULL
    st[b, S_TURN] = turn
    out = st[b, S_OUTCOME]
    pen = work[4]
    for p in range(P):
        pen[p] = penalty(hands, D, b, p, rp[R_NINE_PEN])
    if trace:
        log_seats(work[8], work[9], b, EV_END, out, pen, P)
    if st[b, S_IN_TB] == 0:
        record_hand(st, totals, hrec, hpen, hcount, pen, b, out, turn, P)
        finished, mask, n_in = settle_regular(st, totals, mshare, mcount, rp, next_tab, b, P, mask, n_in)
    else:
        finished, mask, n_in = settle_tiebreak(st, mshare, mcount, next_tab, pen, b, out, P, mask, n_in)
    if not finished:
        st[b, S_MASK] = mask
        st[b, S_N_IN] = n_in
        return PH_DEAL, mask, n_in, GO
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
        log_seats(work[8], work[9], b, EV_MATCH_END, wmask, totals[b], P)
    mcount[0] = m + 1
    st[b, S_MATCH] = -1
    return PH_NEW, mask, n_in, GO


@njit(cache=True, inline="always", error_model="numpy")
def next_match_phase(st, keys, totals, mkeys, next_match, b, start, n_matches, started, max_new, P):
    """The slot takes the next match of the range (D1: a first dealer drawn from the match's card stream).

    Returns
    -------
    tuple
        ``(phase, started, code)``: ``PH_DEAL`` and ``GO``, or ``DONE`` (the slot idles) when no match is left
        to start in this call.
    """
    j = next_match[0]
    if j >= n_matches or started >= max_new:
        st[b, S_MATCH] = -1
        return PH_NEW, started, DONE
    next_match[0] = j + 1
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
    st[b, S_MASK] = (1 << P) - 1
    st[b, S_N_IN] = P
    st[b, S_HAVE_ANS] = 0
    return PH_DEAL, started + 1, GO


@njit(cache=True, inline="always", error_model="numpy")
def trace_turn(ev, evn, stop, st, b, turn):
    """The trace form at a turn's start: True to pause before it (``stop``: int64 (3,), the hand dealt
    ``stop[0]``-th and its turn ``stop[1]``, while ``stop[2]`` is 1; cleared, so the next call goes on), else
    log ``(EV_TURN, turn)``."""
    if stop[2] != 0 and st[b, S_HAND_SEQ] == stop[0] and turn == stop[1]:
        stop[2] = 0  # a position to look at (nines analyze)
        return True
    log_event(ev, evn, b, EV_TURN, turn, 0, 0)
    return False


@njit(cache=True, inline="always", error_model="numpy")
def log_move(ev, evn, b, seat, mv, active):
    """The trace form's move: ``(EV_PAIR, seat, suit)`` or ``(EV_PLAY, seat, face, suit declared or -1)``."""
    if mv == PAIR:
        log_event(ev, evn, b, EV_PAIR, seat, active, 0)
    else:
        log_event(ev, evn, b, EV_PLAY, seat, mv, active if (I_NINES >> mv) & 1 else -1)


@njit(cache=True, inline="always", error_model="numpy")
def load_slot(st, keys, b):
    """The slot's hot state, which the loop keeps in locals while the slot plays (:func:`store_slot`'s order)."""
    return (
        st[b, S_PHASE], st[b, S_TOP], st[b, S_ACTIVE], st[b, S_SEAT], st[b, S_DIR], st[b, S_TURN], st[b, S_STREAK],
        st[b, S_N_IN], st[b, S_MASK], st[b, S_MOVE], st[b, S_PASSED] != 0, st[b, S_CARD], keys[b, K_DHK],
        np.int64(keys[b, K_LEGAL]),
    )  # fmt: skip


@njit(cache=True, inline="always", error_model="numpy")
def store_slot(st, keys, b, ph, top, active, seat, dirbit, turn, streak, n_in, mask, mv, passed, card, legal):
    """Store the loop's locals in the slot, where Python (and the next call) can see them."""
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


@njit(cache=True, inline="always", error_model="numpy")
def start_hand(st, keys, b):
    """The loop's locals of a hand just dealt: ``(phase, top, active suit, seat, n_in, seats mask, decision key)``."""
    return (
        st[b, S_PHASE], st[b, S_TOP], st[b, S_ACTIVE], st[b, S_SEAT], st[b, S_N_IN], st[b, S_MASK], keys[b, K_DHK]
    )  # fmt: skip


def _compile_slots(classic: bool, expert: bool, trace: bool = False):  # noqa: ANN202 - returns a numba dispatcher
    """Compile :func:`play_slots` with the rules' shape read at run time, or (``classic``) as the constants of
    :func:`classic_shape`: numba treats the closure's ``classic`` as a constant, so the classic form has
    none of the other variants' branches (a smaller turn loop).  ``expert``: for tables with an ``expert``
    seat, with its code inlined (:mod:`nines_sim.strategies.expert_compiled`).  ``trace``: the form
    that writes every event of each slot's game into ``work[8]``, int64 (B, rows, EV_WIDTH), counted in
    ``work[9]``, int64 (B,) (the ``EV_*`` rows; a replay and a person's seat read them); it returns
    ``BUFFER_FULL`` before a pass that might not fit (fewer than ``EV_MARGIN`` rows free).  The forms without
    it hold none of its code (the flag is a constant, its branches are dropped, in the phases too)."""

    def play_slots(
        st, keys, hands, ncards, totals, drew_on, under, stock, played, rp, legal_tab, next_tab, seat_sid, seat_xp,
        mkeys, start, n_matches, next_match, max_new, hrec, hpen, hcount, mrec, mtot, mshare, mcount, fs, work,
    ):  # fmt: skip
        """Advance every slot until its game waits on a Python seat, or no match is left to start.

        Each slot's game goes through the phases (``PH_*``, one function each above) until it waits: a match starts
        (:func:`next_match_phase`), a hand is dealt (:func:`deal`), each turn finds legal cards or draws, decides,
        plays, passes the power on (:func:`turn_phase` to :func:`powers_phase`); a hand ends (:func:`end_hand_phase`).

        Parameters
        ----------
        st, keys, hands, ncards, totals, drew_on, under, stock, played
            The slots' state (the layout in this module's docstring); changed in place.
        rp : int64 (NRP,)
            The rules (:func:`rules_params`).
        legal_tab, next_tab
            Legal faces per top card and active suit, next seat per seats in play and direction.
        seat_sid : int64 (MAX_SEATS,)
            Each seat's strategy id (``SID_*``).
        seat_xp : float64 (MAX_SEATS, NXP)
            Each seat's ``expert`` parameters (the ``X_*`` columns; read only where the seat is ``SID_EXPERT``).
        mkeys : uint64 (n_matches, 2)
            Card and decision match keys of matches ``start ..`` (computed by :mod:`nines_sim.game.rng`).
        next_match, max_new : int64 (1,), int
            Index (from ``start``) of the next match to start, advanced here; at most ``max_new`` start a call.
        hrec, hpen, hcount, mrec, mtot, mshare, mcount
            Output buffers of hand and match records and their fill counts (int64 (1,)).
        fs : tuple of MAX_SEATS compiled functions of ``DECIDE_SIG``
            Each seat's compiled user strategy (a placeholder where the seat has none).
        work : tuple
            Scratch arrays from :func:`scratch` (the kernel allocates nothing: it runs without numba's
            reference counting); the trace form's event buffer, count and pause after them.

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
        P = rp[R_P]
        sv, sfull, sbuf, scw, g, hb, fw = work[0], work[1], work[2], work[3], work[5], work[6], work[7]
        if trace:
            ev = work[8]
            evn = work[9]
            evcap = ev.shape[1] - EV_MARGIN
            stop = work[10]  # int64 (3,): pause before turn stop[1] of the hand dealt stop[0]-th, while stop[2] is 1
        started = 0
        noplay_block = rp[R_NOPLAY_BLOCK] != 0
        cap = rp[R_CAP]
        for b in range(st.shape[0]):
            if st[b, S_WAITING] != 0:
                continue
            # the hot state of this slot lives in locals while it plays (stored back by store_slot)
            (ph, top, active, seat, dirbit, turn, streak, n_in, mask, mv, passed, card, dkey,
             legal) = load_slot(st, keys, b)  # fmt: skip
            row = (mask * 2 + dirbit) * P  # this direction's row of the next-seat table
            code = GO
            # A turn's phases come first, a new hand and match last: a pass's first test is then a turn's.
            while True:
                if trace and evn[b] > evcap:
                    code = BUFFER_FULL
                    break
                if ph == PH_TURN:
                    if trace and trace_turn(ev, evn, stop, st, b, turn):
                        code = BUFFER_FULL
                        break
                    ph, legal, passed, mv, card = turn_phase(
                        st, keys, hands, ncards, drew_on, under, stock, legal_tab, b, seat, top, active, mv, card, D,
                        nno, until, work, trace,
                    )  # fmt: skip
                if (ph == PH_PLAY or ph == PH_PLAY_DRAWN or ph == PH_DECLARE) and (
                    SID_RANDOM <= seat_sid[seat] <= SID_SUIT_MAJORITY
                ):
                    ph, mv, active = heuristic_phase(
                        ph, hands, ncards, rp, legal_tab, b, seat, seat_sid[seat], top, active, legal, card, mv, dkey,
                        turn, D, pair_any,
                    )  # fmt: skip
                if ph == PH_PLAY or ph == PH_PLAY_DRAWN or ph == PH_DECLARE or ph == PH_DEALER_DECL:
                    ph, mv, active, code = decide_phase(
                        st, hands, ncards, totals, drew_on, played, rp, legal_tab, seat_sid, seat_xp, fs, g, hb, fw, b,
                        ph, seat, top, active, legal, card, mv, dkey, turn, dirbit, mask, D, pair_any, expert,
                    )  # fmt: skip
                    if code != GO:
                        break
                    if ph == PH_TURN:  # the dealer declared (D6)
                        if trace:
                            log_event(ev, evn, b, EV_DECLARE, st[b, S_DEALER], active, 0)
                        continue
                if ph == PH_APPLY:
                    ph, top, active = apply_phase(hands, ncards, under, played, b, seat, mv, top, active, D, pair_any)
                    if ph == PH_DECLARE:
                        continue
                if ph == PH_FINISH:
                    if trace and mv >= 0:
                        log_move(ev, evn, b, seat, mv, active)
                    ph, seat, turn, streak, dirbit, row = powers_phase(
                        st, keys, hands, ncards, under, stock, next_tab, b, seat, mv, passed, streak, turn, dirbit, row,
                        mask, n_in, P, cap, noplay_block, skiprev, pair_any, D, work, trace,
                    )  # fmt: skip
                    if ph == PH_TURN:
                        continue
                if ph == PH_END:
                    ph, mask, n_in, code = end_hand_phase(
                        st, hands, totals, rp, next_tab, hrec, hpen, hcount, mrec, mtot, mshare, mcount, b, turn, mask,
                        n_in, P, D, work, trace,
                    )  # fmt: skip
                    if code != GO:
                        break
                if ph == PH_NEW:
                    ph, started, code = next_match_phase(
                        st, keys, totals, mkeys, next_match, b, start, n_matches, started, max_new, P
                    )
                    if code != GO:
                        break
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
                    ph, top, active, seat, n_in, mask, dkey = start_hand(st, keys, b)
                    dirbit = 0
                    turn = 0
                    streak = 0
                    row = mask * 2 * P
                    if trace:
                        log_deal(ev, evn, b, st, hands, P, D)
            store_slot(st, keys, b, ph, top, active, seat, dirbit, turn, streak, n_in, mask, mv, passed, card, legal)
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


# numba's cache checks only this file's timestamp: key it by every file the code takes in
# (the turn loop's forms take in bits.py, slots.py, the built-ins' compiled decisions and the codes)
seal_module(globals())
