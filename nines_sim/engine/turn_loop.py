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
inlined into it (see "the phases of a slot's game" below), kept by stage in modules of their own; every name
stays importable from here:

- :mod:`~nines_sim.engine.loop_constants`: the rules vector and its shape, phases, return codes, record, event columns;
- :mod:`~nines_sim.engine.deal`: the deck's order, the deal, draws and reshuffles (D4-D7, T4-T6);
- :mod:`~nines_sim.engine.turn_phases`: a turn's legal cards or draw, its move, the card's power (T1-T8, V1-V6);
- :mod:`~nines_sim.engine.decisions`: the seats' decisions (built-in, compiled user or Python strategies);
- :mod:`~nines_sim.engine.scoring`: the end of a hand and of a match, and the next match (C2, S1-S4, D1);
- :mod:`~nines_sim.engine.slot_locals`: a slot's hot state in and out of the loop's locals;
- :mod:`~nines_sim.engine.trace_log`: the trace form's event rows.

Inside the kernel a set of faces is an int64 (52 bits); it is stored as uint64
so that Python strategies see the same arrays as from the numpy engine.
"""

from __future__ import annotations

import numpy as np
from numba import njit

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
from nines_sim.engine.deal import (  # noqa: F401 - the deck's order, the deal, draws, also read from here
    FACE_BITS,
    ID_MASK,
    KEY_MASK,
    ONES8,
    PACK_BITS,
    U56,
    U57,
    U255,
    add_to_hand,
    add_under,
    card_id,
    deal,
    deal_one_deck,
    draw,
    remove_from_hand,
    reshuffle,
    sort_packed,
)
from nines_sim.engine.decisions import (  # noqa: F401 - decisions, also read from here
    LIGHT_FIRST,
    LIGHT_LAST,
    SID_HEAVY,
    answer_ok,
    builtin_decide,
    decide_phase,
    decide_phase_expert,
    fill_view,
    heuristic_phase,
    pair_legal,
    user_decide,
)
from nines_sim.engine.loop_constants import (  # noqa: F401 - the loop's numbers (rules vector, phases, codes, record columns, events), also read from here
    BUFFER_FULL,
    DECIDE_SIG,
    DONE,
    EV_DEAL,
    EV_DRAW,
    EV_END,
    EV_MARGIN,
    EV_MATCH_END,
    EV_PAIR,
    EV_PASS,
    EV_PENALTY_DRAW,
    EV_PLAY,
    EV_RESHUFFLE,
    EV_SKIP,
    EV_TURN,
    EV_WIDTH,
    FW_WIDTH,
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
    GO,
    H_DEALER,
    H_DRAWN,
    H_HAND,
    H_MATCH,
    H_NINE,
    H_OUTCOME,
    H_RESH,
    H_TURNS,
    ILLEGAL,
    M_FIRST,
    M_HANDS,
    M_MATCH,
    M_TB,
    MAX_SEATS,
    NG,
    NH,
    NM,
    NRP,
    PH_APPLY,
    PH_DEAL,
    PH_DEALER_DECL,
    PH_DECLARE,
    PH_END,
    PH_FINISH,
    PH_NEW,
    PH_PLAY,
    PH_PLAY_DRAWN,
    PH_TURN,
    R_CAP,
    R_DECKS,
    R_FIXED,
    R_HS,
    R_LOG,
    R_NINE_PEN,
    R_NNO,
    R_NOPLAY_BLOCK,
    R_P,
    R_PAIR,
    R_SHARE,
    R_SKIPREV,
    R_TARGET,
    R_UNTIL,
    classic_shape,
    rules_params,
)
from nines_sim.engine.scoring import (  # noqa: F401 - the end of a hand and of a match, also read from here
    end_hand_phase,
    end_hand_phase_trace,
    next_match_phase,
    penalty,
    record_hand,
    settle_regular,
    settle_tiebreak,
)
from nines_sim.engine.slot_locals import (  # noqa: F401 - a slot's hot state in and out of the loop's locals, also read from here
    load_slot,
    start_hand,
    store_slot,
)
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
    S_DRAW_LOG,
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
    S_STOP,
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
from nines_sim.engine.trace_log import (  # noqa: F401 - the trace form's event rows, also read from here
    NIL,
    log_deal,
    log_decision,
    log_move,
    log_seats,
    trace_turn,
    traced_draw,
)
from nines_sim.engine.turn_phases import (  # noqa: F401 - a turn's phases, also read from here
    apply_phase,
    draw_card,
    draw_card_trace,
    play_pair,
    powers_phase,
    powers_phase_trace,
    turn_phase,
    turn_phase_trace,
)
from nines_sim.game.codes import (  # noqa: F401 - also read from here
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
from nines_sim.game.codes import PAIR_OF_NINES as PAIR  # noqa: F401
from nines_sim.game.rules import Rules


# ----------------------------------------------------------------- the loop
def scratch(rules: Rules) -> tuple:
    """The scratch arrays :func:`play_slots` works in (:func:`sort_packed`'s values, whole keys, buffer and
    byte counters; penalties, a user view, suit figures)."""
    S = 52 * rules.decks
    return (
        np.empty(S, dtype=np.uint64), np.empty(1 << PACK_BITS, dtype=np.uint64), np.empty(S, dtype=np.uint64),
        np.empty(32, dtype=np.uint64), np.zeros(rules.players, dtype=np.int64),
        np.zeros(NG, dtype=np.int64), np.zeros(2, dtype=np.uint64), np.zeros(FW_WIDTH, dtype=np.float64),
    )  # fmt: skip


# ----------------------------------------------------------------- the phases of a slot's game
# Each phase is a function of the slot's arrays and of the hot values the loop keeps in locals, and returns
# the locals it changes with the phase to go to.  Each is compiled once, cached on its own and shared by the
# forms that call it, and LLVM inlines its machine code into the loop (``bits.shared_inline``): the compiled
# loop is the same machine code as one long function, while each phase reads on one screen.  The rules' shape
# (``D``, ``nno``, ``until``, ``skiprev``, ``pair_any``) comes in as arguments that the classic form of the loop
# passes as constants (numba compiles a phase for those literal values), so its code has no branch of the
# other variants; the trace form calls the phases' ``*_trace`` forms (``bits.traced_forms``).


def _compile_slots(classic: bool, expert: bool, trace: bool = False):  # noqa: ANN202 - returns a numba dispatcher
    """Compile :func:`play_slots` with the rules' shape read at run time, or (``classic``) as the constants of
    :func:`classic_shape`: numba treats the closure's ``classic`` as a constant, so the classic form has
    none of the other variants' branches (a smaller turn loop).  ``expert``: for tables with a seat of
    the heavy built-in (``expert``), with its code inlined (``decisions.heavy_decide_inline``, as registered).
    ``trace``: the form that writes every event of each slot's game into ``work[8]``, int64 (B, rows,
    EV_WIDTH), counted in ``work[9]``, int64 (B,) (the ``EV_*`` rows; a replay and a person's seat read them); it
    returns ``BUFFER_FULL`` before a pass that might not fit (fewer than ``EV_MARGIN`` rows free).  The forms without
    it hold none of its code (the flag is a constant, its branches are dropped, in the phases too).

    The loop picks its form's phases (``decide_phase_expert`` or ``decide_phase``, the ``*_trace`` forms or not)
    from globals, not closure variables: numba keys a closure's cache by its variables' pickled values, and a
    compiled function's differ from process to process (each process would compile the form again)."""
    # the forms that keep the draw log where the rules vector asks (slots_kernel): the trace form and those with
    # expert.  The classic one with expert keeps it so that a table with a Python seat under classic rules (the
    # search, reviews, training) plays the default tournament's form, already compiled, rather than the general
    # one (9 s of a first lookahead's compile); the forms without expert pass the phases a literal False (no
    # code of the log in their draw turns: W1's speed)
    log_form = trace or expert

    def play_slots(
        st, keys, hands, ncards, totals, drew_on, under, stock, played, rp, legal_tab, next_tab, seat_sid, seat_xp,
        mkeys, start, n_matches, next_match, max_new, hrec, hpen, hcount, mrec, mtot, mshare, mcount, fs, work,
    ):  # fmt: skip
        """Advance every slot until its game waits on a Python seat, or no match is left to start.

        Each slot's game goes through the phases (``PH_*``, one function each, in the stage modules the module's
        docstring lists) until it waits: a match starts (:func:`next_match_phase`), a hand is dealt (:func:`deal`),
        each turn finds legal cards or draws, decides, plays, passes the power on (:func:`turn_phase` to
        :func:`powers_phase`); a hand ends (:func:`end_hand_phase`).

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
        seat_xp : float64 (MAX_SEATS, n)
            Each seat's parameters of the heavy built-in (read only where the seat is ``SID_HEAVY``).
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
            ``DONE``; ``BUFFER_FULL`` when the record buffers must be drained before calling again; ``ILLEGAL``
            when a compiled user strategy answered outside the rules (``S_WAIT_*``, ``S_ANSWER``, ``S_MATCH``).
        """
        if classic:
            D, nno, until, skiprev, pair_any = 1, False, False, False, False
        else:
            D = rp[R_DECKS]
            nno = rp[R_NNO] != 0
            until = rp[R_UNTIL] != 0
            skiprev = rp[R_SKIPREV] != 0
            pair_any = rp[R_PAIR] != 0
        P, keep_log = rp[R_P], log_form and rp[R_LOG] != 0  # forms: slots_kernel
        # this form's phases: the flags are constants, so only the one picked is compiled in; globals (docstring)
        turn_of_form = turn_phase_trace if trace else turn_phase
        decide_of_form = decide_phase_expert if expert else decide_phase  # decisions._decide_phase: two functions
        powers_of_form = powers_phase_trace if trace else powers_phase
        end_hand_of_form = end_hand_phase_trace if trace else end_hand_phase
        sv, sfull, sbuf, scw, g, hb, fw = work[0], work[1], work[2], work[3], work[5], work[6], work[7]
        if trace:
            ev = work[8]
            evn = work[9]
            evcap = ev.shape[1] - EV_MARGIN
            stop = work[10]  # int64 (3,): pause before turn stop[1] of the hand dealt stop[0]-th, while stop[2] is 1
        started = np.int64(0)  # not the literal 0 (numba would also compile next_match_phase for it)
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
                if ph == PH_TURN and 0 < st[b, S_STOP] <= turn:  # a play-out's leaf: left unscored for its caller
                    st[b, S_OUTCOME] = CAPPED
                    ph = PH_NEW  # no match is started in a play-out: the slot idles as it stands
                if ph == PH_TURN:
                    if trace and trace_turn(ev, evn, stop, st, b, turn):
                        code = BUFFER_FULL
                        break
                    ph, legal, passed, mv, card = turn_of_form(
                        st, keys, hands, ncards, drew_on, under, stock, legal_tab, b, seat, top, active, mv, card, D,
                        nno, until, work, keep_log,
                    )  # fmt: skip
                if (ph == PH_PLAY or ph == PH_PLAY_DRAWN or ph == PH_DECLARE) and (
                    LIGHT_FIRST <= seat_sid[seat] <= LIGHT_LAST
                ):
                    ph, mv, active = heuristic_phase(
                        ph, hands, ncards, rp, legal_tab, b, seat, seat_sid[seat], top, active, legal, card, mv, dkey,
                        turn, D, pair_any, st,
                    )  # fmt: skip
                if ph == PH_PLAY or ph == PH_PLAY_DRAWN or ph == PH_DECLARE or ph == PH_DEALER_DECL:
                    ph, mv, active, code = decide_of_form(
                        st, hands, ncards, totals, drew_on, played, rp, legal_tab, seat_sid, seat_xp, fs, g, hb, fw, b,
                        ph, seat, top, active, legal, card, mv, dkey, turn, dirbit, mask, D, pair_any,
                    )  # fmt: skip
                    if code != GO:
                        break
                    if trace:  # expert's random pick's sets (the luck walk's); the dealer's suit (D6)
                        log_decision(ev, evn, b, st, seat_sid, SID_HEAVY, seat, ph, active, fw)
                    if ph == PH_TURN:  # the dealer declared (D6)
                        continue
                if ph == PH_APPLY:
                    ph, top, active = apply_phase(hands, ncards, under, played, b, seat, mv, top, active, D, pair_any)
                    if ph == PH_DECLARE:
                        continue
                if ph == PH_FINISH:
                    if trace and mv >= 0:
                        log_move(ev, evn, b, seat, mv, active)
                    ph, seat, turn, streak, dirbit, row = powers_of_form(
                        st, keys, hands, ncards, under, stock, next_tab, b, seat, mv, passed, streak, turn, dirbit,
                        row, mask, n_in, P, cap, noplay_block, skiprev, pair_any, D, work,
                    )  # fmt: skip
                    if ph == PH_TURN:
                        continue
                if ph == PH_END:
                    ph, mask, n_in, code = end_hand_of_form(
                        st, hands, totals, rp, next_tab, hrec, hpen, hcount, mrec, mtot, mshare, mcount, b, turn, mask,
                        n_in, P, D, work,
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


def slots_kernel(rp: np.ndarray, expert: bool = False):  # noqa: ANN201 - a numba dispatcher
    """The compiled turn loop for these rules: :func:`play_slots_classic` where :func:`classic_shape`
    holds, else :func:`play_slots`; with ``expert`` (a table with an ``expert`` seat) their forms with its
    code inlined.  All play the same moves (tests compare them byte for byte).  A table whose Python seats read
    the draw log (``rp[R_LOG]``) plays a form with ``expert``, which keeps it: under classic rules the form the
    default tournament plays."""
    if expert or rp[R_LOG]:
        return play_slots_classic_expert if classic_shape(rp) else play_slots_expert
    return play_slots_classic if classic_shape(rp) else play_slots


seal_module(globals())  # numba's cache checks only this file's timestamp: key it by every file the code takes in
