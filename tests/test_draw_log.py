"""The draw log (T1, T2, T3, T4, T6, D6, V2, V3, V4, V5, V6): what the engine keeps of each seat's draw turns and
declarations, rebuilt from the trace of the same hand, and the sampler's weights read from it."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nines_sim.engine.batch import CompiledEngine
from nines_sim.engine.draw_log import LOG_DECL, LOG_K, LOG_KEPT
from nines_sim.engine.slots import DRAW_LOG_COLUMNS, DRAW_LOG_WORDS
from nines_sim.game.cards import NINES, parse_card
from nines_sim.game.codes import NINE_RANK
from nines_sim.game.rules import make_rules
from nines_sim.game.tables import legal_table
from nines_sim.search.position import Position, PositionBatch, PositionError
from nines_sim.search.sampler import LOG_DECLARED, LOG_NATURAL, LOG_NINE, log_view, log_weights
from nines_sim.strategy.base import DecisionKind
from nines_sim.strategy.registry import make_lineup
from tests.position_seats import PositionSeats


def _rebuilt(events: list[tuple], rules, legal_tab: np.ndarray) -> np.ndarray:
    """Each seat's log words (P, DRAW_LOG_WORDS) as the rules say they stand after ``events`` (one hand)."""
    P = rules.players
    k = np.full((P, 52), -1)  # cards drawn since each face's last exclusion (-1: never excluded)
    decl = [(0, 0)] * P  # (1 + suit, 1 + turn) of each seat's last declaration
    state: dict = {}

    def close_turn() -> None:
        s = state.get("drawer")
        if s is None:
            return
        lacked = int(legal_tab[state["turn_top"] * 4 + state["turn_active"]])
        if rules.no_nine_out and state["turn_size"] == 1:  # V5: its one 9 was no legal card
            lacked &= ~int(NINES)
        k[s, [f for f in range(52) if (lacked >> f) & 1]] = 0
        state["drawer"] = None

    for ev in events:
        kind = ev[0]
        if kind == "deal":
            k[:] = -1
            decl = [(0, 0)] * P
            state.update(top=ev[4], active=ev[4] // 13, sizes=[len(h) for h in ev[3]], drawer=None)
        elif kind == "declare":
            state["active"] = ev[2]
            decl[ev[1]] = (ev[2] + 1, 1)  # the dealer, before turn 0 (D6)
        elif kind == "turn":
            close_turn()
            state.update(turn_top=state["top"], turn_active=state["active"], turn=ev[1])
        elif kind in ("draw", "penalty_draw"):
            k[ev[1]] = np.where(k[ev[1]] >= 0, np.minimum(k[ev[1]] + 1, 3), -1)
            state["sizes"][ev[1]] += 1
            if kind == "draw" and state.get("drawer") is None:
                state.update(drawer=ev[1], turn_size=state["sizes"][ev[1]] - 1)
        elif kind == "pass":
            if state.get("drawer") is None:
                state.update(drawer=ev[1], turn_size=state["sizes"][ev[1]])
        elif kind == "play":
            state["sizes"][ev[1]] -= 1
            state.update(top=ev[2], active=ev[3] if ev[2] % 13 == NINE_RANK else ev[2] // 13)
            if ev[2] % 13 == NINE_RANK:  # T3
                decl[ev[1]] = (ev[3] + 1, state["turn"] + 1)
        elif kind == "pair":
            state["sizes"][ev[1]] -= 2
            state.update(top=13 * ev[2] + NINE_RANK, active=ev[2])
            decl[ev[1]] = (ev[2] + 1, state["turn"] + 1)
    close_turn()
    words = np.zeros((P, DRAW_LOG_WORDS), dtype=np.int64)
    for s in range(P):
        for age in range(4):
            words[s, LOG_K + age] = sum(1 << f for f in range(52) if k[s, f] == age)
        words[s, LOG_DECL] = int(LOG_KEPT) | decl[s][0] | (decl[s][1] << 8)
    return words


@settings(max_examples=25, deadline=None)
@given(
    preset=st.sampled_from(
        [
            "classic",
            "hard-nines",
            "skip-reverse",
            "draw-until-playable",
            "no-nine-out",
            "double-nines",
            "no-stacking",
            "free-nines",
        ]  # fmt: skip
    ),
    players=st.integers(2, 6),
    seed=st.integers(0, 2**31),
    turns=st.integers(1, 60),
)
def test_T2_T3_T4_the_draw_log_is_what_the_trace_says_each_seat_lacked_and_declared(preset, players, seed, turns):
    if preset == "double-nines" and players < 5:
        players = 5
    rules = make_rules(preset, players=players)
    lineup = ["expert", "random", "dump-faces", "hold-nines", "suit-majority", "expert"][:players]
    eng = CompiledEngine(rules, make_lineup(lineup), seed, 0, 1, trace=True)
    eng.stop_at(0, turns)
    while eng.B and not eng.paused:
        eng.advance()
    if not eng.paused:  # the hand ended first: nothing to compare at a turn
        return
    expected = _rebuilt(eng.trace[int(eng.match[0])], rules, legal_table(rules))
    assert np.array_equal(eng.draw_log[0].reshape(-1, DRAW_LOG_WORDS)[:players], expected)


def _observed(log_words: tuple[int, ...], turn: int = 0):
    rules = make_rules("classic", players=2)
    f = parse_card
    seen = {f(c) for c in ("2C", "3C", "4D", "5D", "6D", "KS", "QS", "7H")}
    pos = Position(rules, hands=((f("2C"), f("3C"), f("4D")), (f("5D"), f("6D"), f("KS"), f("QS"))),
                   stock=tuple(x for x in range(52) if x not in seen), pile=(), top=f("7H"), active=2, seat=0,
                   dealer=1, draw_log=log_words, turn=turn)  # fmt: skip
    seats = PositionSeats(PositionBatch.from_positions([pos]), make_lineup(["expert", "expert"]))
    return seats.observe(np.array([0]), np.array([0]), DecisionKind.PLAY)


def _words(lacked: dict[int, tuple[int, str]], declared: tuple[int, int, int] | None = None) -> tuple[int, ...]:
    """Log words: seat ``s`` lacked the cards of ``lacked[s] = (k, cards)`` ``k`` draws ago; ``declared`` =
    (seat, suit, turn)."""
    out = [0] * DRAW_LOG_COLUMNS
    for seat in range(2):
        out[seat * DRAW_LOG_WORDS + LOG_DECL] = int(LOG_KEPT)
    for seat, (k, cards) in lacked.items():
        out[seat * DRAW_LOG_WORDS + LOG_K + k] = sum(1 << parse_card(c) for c in cards.split())
    if declared:
        seat, suit, turn = declared
        out[seat * DRAW_LOG_WORDS + LOG_DECL] |= (suit + 1) | ((turn + 1) << 8)
    return tuple(out)


@pytest.mark.parametrize("since", [0, 1, 2, 3])
def test_T1_log_weights_follow_the_cards_drawn_since_the_last_turn_a_card_was_lacked(since):
    # seat 1 lacked KH, 7C and 9C `since` draws ago (it drew on 7H, say); nothing is said about KC
    obs = _observed(_words({1: (since, "KH 7C 9C")}))
    k, kept, suit, _ = log_view(obs)
    assert kept.all() and (suit == -1).all()
    assert k[0, 1, parse_card("KH")] == since and k[0, 1, parse_card("KC")] == -1
    w = log_weights(obs, 1.0)[0, 1]
    assert w[parse_card("KH")] == pytest.approx(LOG_NATURAL[since])
    assert w[parse_card("7C")] == pytest.approx(LOG_NATURAL[since])
    assert w[parse_card("9C")] == pytest.approx(LOG_NINE[since])
    assert w[parse_card("KC")] == 1.0
    assert (log_weights(obs, 0.0) == 1.0).all()  # infer 0: draws ignored


def test_T3_a_declared_suit_weighs_up_its_naturals_that_no_draw_excluded():
    # seat 1 declared clubs at turn 4; it is turn 7: its next turn is its second since (heads-up)
    obs = _observed(_words({1: (0, "KC")}, declared=(1, 0, 4)), turn=7)
    w = log_weights(obs, 1.0, declare=True)[0, 1]
    assert w[parse_card("QC")] == pytest.approx(LOG_DECLARED[2])
    assert w[parse_card("KC")] == pytest.approx(LOG_NATURAL[0])  # a draw excluded it since
    assert w[parse_card("9C")] == 1.0 and w[parse_card("QD")] == 1.0  # a 9, another suit
    assert log_weights(obs, 1.0)[0, 1, parse_card("QC")] == 1.0  # draws=log alone ignores declarations


def test_a_position_without_a_log_falls_back_on_the_suits_drawn_on():
    obs = _observed((0,) * DRAW_LOG_COLUMNS)
    assert not log_view(obs)[1].any()
    assert (log_weights(obs, 1.0) == 1.0).all()  # nobody drew on anything: every weight 1


def test_an_analysis_key_leaves_the_draw_log_out_so_printed_analyses_replay():
    from nines_sim.search.analyze import analysis_key

    f = parse_card
    seen = {f(c) for c in ("2C", "3C", "5D", "7H")}
    rules = make_rules("classic", players=2)
    pos = Position(rules, hands=((f("2C"), f("3C")), (f("5D"),)), stock=tuple(x for x in range(52) if x not in seen),
                   pile=(), top=f("7H"), active=2, seat=0, dealer=1)  # fmt: skip
    logged = pos.with_(draw_log=_words({1: (0, "KH")}))
    assert logged.draw_log != pos.draw_log
    assert analysis_key(logged, 3) == analysis_key(pos, 3) != analysis_key(pos, 4)


@pytest.mark.parametrize(
    "log, words",
    [
        ((0,) * 5, "holds 30 words (6 seats x 5"),
        ((), "not 0"),
        ((1 << 52,) + (0,) * 29, "word 0 is"),
        ((0,) * 4 + (7,) + (0,) * 25, "declaration word"),
        ((-1,) + (0,) * 29, "word 0 is"),
    ],  # fmt: skip
)
def test_a_described_position_with_a_draw_log_no_engine_writes_is_refused_in_one_line(log, words):
    with pytest.raises(PositionError, match=re.escape(words)):
        _observed(log)


def test_a_draw_log_may_be_any_sequence_of_words_such_as_an_engine_row():
    row = np.array(_words({1: (2, "KH")}), dtype=np.int64)
    k, kept, _, _ = log_view(_observed(row))
    assert kept.all() and k[0, 1, parse_card("KH")] == 2
