"""The draw log (T1, T2, T4, T6, V2, V3, V5, V6): what the engine keeps of each seat's draw turns, rebuilt
from the trace of the same hand, and the sampler's weights read from it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nines_sim.engine.batch import CompiledEngine
from nines_sim.engine.draw_log import LOG_COUNTERS, LOG_DECL, LOG_DECL_TURN, LOG_DRAWS, LOG_RANK, LOG_SUIT
from nines_sim.engine.slots import DRAW_LOG_COLUMNS
from nines_sim.game.cards import parse_card
from nines_sim.game.codes import NINE_RANK
from nines_sim.game.rules import make_rules
from nines_sim.search.position import Position, PositionBatch
from nines_sim.search.sampler import LOG_NATURAL, LOG_NINE, log_counters, log_weights
from nines_sim.strategy.base import DecisionKind
from nines_sim.strategy.registry import make_lineup
from tests.position_seats import PositionSeats


def _rebuilt(events: list[tuple], rules) -> np.ndarray:
    """Each seat's counters (P, LOG_COUNTERS) as the rules say they should stand after ``events`` (one hand)."""
    P = rules.players
    log = np.zeros((P, LOG_COUNTERS), dtype=np.int64)
    state: dict = {}

    def close_turn() -> None:
        s = state.get("drawer")
        if s is None:
            return
        top, active, size = state["turn_top"], state["turn_active"], state["turn_size"]
        v = log[s, LOG_DRAWS]
        log[s, LOG_SUIT + active] = v
        r = top % 13
        if r != NINE_RANK:
            log[s, LOG_RANK + r] = v
        if (r != NINE_RANK or rules.nine_on_nine) and not (rules.no_nine_out and size == 1):
            log[s, LOG_RANK + NINE_RANK] = v
        state["drawer"] = None

    for ev in events:
        kind = ev[0]
        if kind == "deal":
            log[:] = 0
            log[:, LOG_DRAWS] = 1
            state.update(top=ev[4], active=ev[4] // 13, sizes=[len(h) for h in ev[3]], drawer=None)
        elif kind == "declare":
            state["active"] = ev[2]
            log[ev[1], LOG_DECL], log[ev[1], LOG_DECL_TURN] = ev[2] + 1, 1  # the dealer, before turn 0 (D6)
        elif kind == "turn":
            close_turn()
            state.update(turn_top=state["top"], turn_active=state["active"], turn=ev[1])
        elif kind in ("draw", "penalty_draw"):
            log[ev[1], LOG_DRAWS] += 1
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
                log[ev[1], LOG_DECL], log[ev[1], LOG_DECL_TURN] = ev[3] + 1, state["turn"] + 1
        elif kind == "pair":
            state["sizes"][ev[1]] -= 2
            state.update(top=13 * ev[2] + NINE_RANK, active=ev[2])
            log[ev[1], LOG_DECL], log[ev[1], LOG_DECL_TURN] = ev[2] + 1, state["turn"] + 1
    close_turn()
    return log


def _engine_log(eng: CompiledEngine, b: int) -> np.ndarray:
    words = eng.draw_log[b].reshape(-1, DRAW_LOG_COLUMNS // 6)[: eng.P]
    j = np.arange(LOG_COUNTERS)
    return (words[:, j >> 2] >> (16 * (j & 3))) & 0xFFFF


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
def test_the_draw_log_is_what_the_hand_s_trace_says_each_seat_lacked_at_its_draw_turns(preset, players, seed, turns):
    if preset == "double-nines" and players < 5:
        players = 5
    try:
        rules = make_rules(preset, players=players)
    except ValueError:
        pytest.skip("no such table")
    eng = CompiledEngine(rules, make_lineup(["expert"] * players), seed, 0, 1, trace=True)
    eng.stop_at(0, turns)
    while eng.B and not eng.paused:
        eng.advance()
    if not eng.paused:  # the hand ended first: nothing to compare at a turn
        return
    events = eng.trace[int(eng.match[0])]
    assert np.array_equal(_engine_log(eng, 0), _rebuilt(events, rules))


def _observed(log_words: tuple[int, ...]):
    rules = make_rules("classic", players=2)
    f = parse_card
    pos = Position(rules, hands=((f("2C"), f("3C"), f("4D")), (f("5D"), f("6D"), f("KS"), f("QS"))),
                   stock=tuple(x for x in range(52) if x not in {f(c) for c in
                                                               ("2C", "3C", "4D", "5D", "6D", "KS", "QS", "7H")}),
                   pile=(), top=f("7H"), active=2, seat=0, dealer=1, draw_log=log_words)  # fmt: skip
    seats = PositionSeats(PositionBatch.from_positions([pos]), make_lineup(["expert", "expert"]))
    return seats.observe(np.array([0]), np.array([0]), DecisionKind.PLAY)


def _words(counters: dict[tuple[int, int], int]) -> tuple[int, ...]:
    out = [0] * DRAW_LOG_COLUMNS
    for (seat, j), v in counters.items():
        out[seat * (DRAW_LOG_COLUMNS // 6) + (j >> 2)] |= v << (16 * (j & 3))
    return tuple(out)


@pytest.mark.parametrize("since", [0, 1, 2, 5])
def test_T1_log_weights_follow_the_cards_drawn_since_the_last_turn_a_card_was_lacked(since):
    # seat 1 drew on 7H (hearts active): no heart, no 7, no 9 then; `since` cards drawn after that turn
    v = 3
    log = _words({(1, LOG_DRAWS): v + since, (1, LOG_SUIT + 2): v, (1, LOG_RANK + 6): v,
                  (1, LOG_RANK + NINE_RANK): v, (0, LOG_DRAWS): 1})  # fmt: skip
    obs = _observed(log)
    assert log_counters(obs)[0, 1, LOG_DRAWS] == v + since
    w = log_weights(obs, 1.0)[0, 1]
    k = min(since, 3)
    assert w[parse_card("KH")] == pytest.approx(LOG_NATURAL[k])  # a heart
    assert w[parse_card("7C")] == pytest.approx(LOG_NATURAL[k])  # a 7
    assert w[parse_card("9C")] == pytest.approx(LOG_NINE[k])  # a 9
    assert w[parse_card("KC")] == 1.0  # nothing said about it
    assert (log_weights(obs, 0.0) == 1.0).all()  # infer 0: draws ignored


def test_a_position_without_a_log_falls_back_on_the_suits_drawn_on():
    obs = _observed((0,) * DRAW_LOG_COLUMNS)
    assert (log_weights(obs, 1.0) == 1.0).all()  # nobody drew on anything: every weight 1
