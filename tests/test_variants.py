"""Exact stacked-deck tests of the rule variants V1-V7 (RULES.md), one clause per test name.

Conventions where RULES.md is silent (the engine's readings, tested as such):
under V3 an A makes the next player draw 2 ("penalty_draw") then ("skip", victim);
a J logs ("skip", skipped seat); a Q reverses, and with 2 participants acts as a
skip.  The pair of 9s (V4) declares a suit and skips the next player; each of its
two removals takes the highest 9 held twice, else the highest 9 held.  Under V2
the player draws until a legal card comes and it is played at once, undecided.
A turn is one action of the player to move (skipped players and A victims take none).
"""

from __future__ import annotations

import numpy as np
import pytest

from nines_sim.engine.batch import CompiledEngine
from nines_sim.game.cards import FULL_DECK, card_name
from nines_sim.game.codes import RUNNING
from nines_sim.game.rules import make_rules
from nines_sim.game.tables import penalty_points
from nines_sim.strategy.registry import make_lineup
from tests.scenario import Scripted, events, hand_of, play_out, setup
from tests.variant_cases import Recorder, acting_events, c, scripted, sorted_faces


# ---------------------------------------------------------------------------- V1
def test_V1_hard_nines_full_deck_penalty_is_404():
    full = [np.array([FULL_DECK], dtype=np.uint64)]
    assert int(penalty_points(full, make_rules("hard-nines").nine_penalty)[0]) == 404
    assert int(penalty_points(full, make_rules("classic").nine_penalty)[0]) == 364  # C2 control
    both = [np.array([FULL_DECK], dtype=np.uint64)] * 2  # two decks, count-coded
    assert int(penalty_points(both, 25)[0]) == 808


def test_V1_hard_nines_scoring_a_hand_holding_every_other_card():
    rules = make_rules("hard-nines", players=2)
    rest = " ".join(card_name(f) for f in range(52) if f not in (c("3C"), c("7C")))
    e = setup(rules, scripted(2, s0="3C"), hands={0: "3C", 1: rest}, top="7C")
    assert play_out(e) == 0
    ev = events(e)
    # 404 minus the 3C and the 7C starter; every 9 costs 25
    assert ("end", 0, (0, 404 - 3 - 7)) in ev
    assert ev[-1] == ("match_end", (0, 394), (1.0, 0.0))
    assert e.results().totals[0].tolist() == [0, 394]
    assert e.results().win_share[0].tolist() == [1.0, 0.0]


@pytest.mark.parametrize(("preset", "points"), [("hard-nines", 25), ("classic", 15)])
def test_V1_a_nine_left_in_hand_scores_25_under_hard_nines(preset, points):
    rules = make_rules(preset, players=2)
    e = setup(rules, scripted(2, s0="3C"), hands={0: "3C", 1: "9S"}, top="7C", totals=[0, 0])
    assert play_out(e) == 0
    assert ("end", 0, (0, points)) in events(e)
    assert e.totals[0].tolist() == [0, points]  # the match goes on (below the target)


def test_V1_V7_nine_penalty_is_a_plain_number():
    rules = make_rules("classic", players=2, nine_penalty=40)
    e = setup(rules, scripted(2, s0="3C"), hands={0: "3C", 1: "9S 9D KH"}, top="7C")
    play_out(e)
    assert ("end", 0, (0, 90)) in events(e)


# ---------------------------------------------------------------------------- V2
def test_V2_draws_until_playable_and_must_play():
    rules = make_rules("draw-until-playable", players=2)
    lineup = scripted(2)
    e = setup(rules, lineup, hands={0: "KC 2D", 1: "4D 5D"}, top="5H", stock="3C 4C 7H 8S 10S")
    out = e.advance()
    assert out[0] == RUNNING
    assert acting_events(e) == [
        ("draw", 0, c("3C")),
        ("draw", 0, c("4C")),
        ("draw", 0, c("7H")),
        ("play", 0, c("7H"), -1),
    ]
    assert hand_of(e, 0) == sorted_faces("KC 2D 3C 4C")
    assert e.turn[0] == 1
    assert e.drawn[0] == 3
    assert e.stock_pos[0] == 3 and e.stock_end[0] == 5
    assert e.top[0] == c("7H") and e.seat[0] == 1
    # played at once, with no decision asked of the player
    assert lineup[0].log == [] and lineup[0].seen_legal == []


def test_V2_drawn_nine_is_played_at_once_and_declares():
    rules = make_rules("draw-until-playable", players=2)
    lineup = [Scripted(declares="S"), Scripted()]
    e = setup(rules, lineup, hands={0: "KC 2D", 1: "4D 5D"}, top="5H", stock="3C 9D 7H")
    e.advance()
    assert acting_events(e) == [("draw", 0, c("3C")), ("draw", 0, c("9D")), ("play", 0, c("9D"), 3)]
    assert e.active[0] == 3 and e.drawn[0] == 2
    assert [x[0] for x in lineup[0].log] == ["declare"]


def test_V2_immediately_playable_first_draw_draws_one():
    rules = make_rules("draw-until-playable", players=2)
    e = setup(rules, scripted(2), hands={0: "KC 2D", 1: "4D 5D"}, top="5H", stock="5S 3C")
    e.advance()
    assert acting_events(e) == [("draw", 0, c("5S")), ("play", 0, c("5S"), -1)]
    assert e.drawn[0] == 1 and hand_of(e, 0) == sorted_faces("KC 2D")


def test_V2_stock_runs_out_with_nothing_to_rebuild_is_a_pass():
    rules = make_rules("draw-until-playable", players=2)
    e = setup(rules, scripted(2), hands={0: "KC 2D", 1: "4D 5D"}, top="5H", stock="3C 4C", under="")
    out = e.advance()
    assert out[0] == RUNNING
    assert acting_events(e) == [("draw", 0, c("3C")), ("draw", 0, c("4C")), ("pass", 0)]
    assert hand_of(e, 0) == sorted_faces("KC 2D 3C 4C")
    assert e.turn[0] == 1 and e.drawn[0] == 2 and e.streak[0] == 1
    assert e.top[0] == c("5H") and e.seat[0] == 1


def test_V2_empty_stock_and_single_card_pile_passes_without_drawing():
    rules = make_rules("draw-until-playable", players=2)
    e = setup(rules, scripted(2), hands={0: "KC 2D", 1: "4D 5D"}, top="5H")
    e.advance()
    assert acting_events(e) == [("pass", 0)]
    assert e.drawn[0] == 0 and e.turn[0] == 1
    assert hand_of(e, 0) == sorted_faces("KC 2D")


def test_V2_rebuilds_the_stock_then_passes_when_the_rebuilt_stock_runs_out():
    rules = make_rules("draw-until-playable", players=2)
    e = setup(rules, scripted(2), hands={0: "KC 2D", 1: "4D 5D"}, top="5H", stock="3C", under="6C")
    e.advance()
    assert acting_events(e) == [("draw", 0, c("3C")), ("reshuffle", 1), ("draw", 0, c("6C")), ("pass", 0)]
    assert e.reshuffles[0] == 1 and e.drawn[0] == 2
    assert hand_of(e, 0) == sorted_faces("KC 2D 3C 6C")


def test_V2_rebuilt_stock_yields_a_legal_card_that_is_played():
    rules = make_rules("draw-until-playable", players=2)
    e = setup(rules, scripted(2), hands={0: "KC 2D", 1: "4D 5D"}, top="5H", stock="3C", under="8H")
    e.advance()
    assert acting_events(e) == [
        ("draw", 0, c("3C")),
        ("reshuffle", 1),
        ("draw", 0, c("8H")),
        ("play", 0, c("8H"), -1),
    ]
    assert e.top[0] == c("8H")


def test_V2_T7_passes_of_every_player_block_the_hand():
    rules = make_rules("draw-until-playable", players=2)
    e = setup(rules, scripted(2), hands={0: "KC 2D", 1: "4D 3S"}, top="5H")
    assert e.advance()[0] == RUNNING
    assert play_out(e) == -1
    ev = events(e)
    assert ev[:2] == [("pass", 0), ("pass", 1)]
    assert ("end", -1, (12, 7)) in ev


# ---------------------------------------------------------------------------- V3
FOUR = {0: "JH 3C", 1: "4H 5C", 2: "6H 7C", 3: "8H 10C"}


def test_V3_jack_skips_the_next_player():
    rules = make_rules("skip-reverse")
    lineup = scripted(4, s0="JH", s2="6H")
    e = setup(rules, lineup, hands=FOUR, top="5H")
    e.advance()
    assert acting_events(e) == [("play", 0, c("JH"), -1), ("skip", 1)]
    assert e.seat[0] == 2 and e.turn[0] == 1
    e.advance()
    assert acting_events(e)[2:] == [("play", 2, c("6H"), -1)]
    assert e.seat[0] == 3


def test_V3_skipped_players_take_no_turn():
    rules = make_rules("skip-reverse")
    lineup = scripted(4, s0="JH", s2="6H", s3="8H")
    e = setup(rules, lineup, hands=FOUR, top="5H")
    for _ in range(3):
        e.advance()
    assert e.turn[0] == 3  # seats 0, 2, 3 acted; seat 1 was skipped
    assert lineup[1].log == [] and lineup[1].seen_legal == []
    assert hand_of(e, 1) == sorted_faces("4H 5C")
    assert e.seat[0] == 0
    assert [ev[1] for ev in acting_events(e) if ev[0] == "play"] == [0, 2, 3]


def test_V3_without_the_variant_a_jack_has_no_power():
    e = setup(make_rules("classic"), scripted(4, s0="JH"), hands=FOUR, top="5H")
    e.advance()
    assert acting_events(e) == [("play", 0, c("JH"), -1)]
    assert e.seat[0] == 1


def test_V3_queen_reverses_the_direction():
    rules = make_rules("skip-reverse")
    hands = {0: "QH 3C", 1: "4H 5C", 2: "6H 7C", 3: "8H 10C"}
    lineup = scripted(4, s0="QH", s3="8H")
    e = setup(rules, lineup, hands=hands, top="5H")
    e.advance()
    assert acting_events(e) == [("play", 0, c("QH"), -1)]
    assert e.dirbit[0] == 1
    assert e.seat[0] == 3  # the player to the right
    e.advance()
    assert acting_events(e)[1:] == [("play", 3, c("8H"), -1)]
    assert e.seat[0] == 2  # counter-clockwise goes on
    assert e.turn[0] == 2


def test_V3_jack_after_a_reverse_skips_counter_clockwise():
    rules = make_rules("skip-reverse")
    hands = {0: "QH 3C", 1: "4H 5C", 2: "6H 7C", 3: "JH 10C"}
    e = setup(rules, scripted(4, s0="QH", s3="JH"), hands=hands, top="5H")
    e.advance()
    e.advance()
    assert acting_events(e)[1:] == [("play", 3, c("JH"), -1), ("skip", 2)]
    assert e.seat[0] == 1


def test_V3_queen_with_two_players_acts_as_a_skip():
    rules = make_rules("skip-reverse", players=2)
    lineup = scripted(2, s0="QH 3H")
    e = setup(rules, lineup, hands={0: "QH 3H 2C", 1: "4D 5D"}, top="5H")
    e.advance()
    assert acting_events(e) == [("play", 0, c("QH"), -1), ("skip", 1)]
    assert e.seat[0] == 0  # the same player moves again
    e.advance()
    assert acting_events(e)[2:] == [("play", 0, c("3H"), -1)]
    assert e.turn[0] == 2
    assert lineup[1].log == []


def test_V3_ace_makes_the_next_player_draw_two_and_lose_the_turn():
    rules = make_rules("skip-reverse")
    hands = {0: "AH 3C", 1: "4D 5C", 2: "6H 7C", 3: "8H 10C"}
    lineup = scripted(4, s0="AH")
    e = setup(rules, lineup, hands=hands, top="5H", stock="2C 3D 4S")
    e.advance()
    assert acting_events(e) == [
        ("play", 0, c("AH"), -1),
        ("penalty_draw", 1, c("2C")),
        ("penalty_draw", 1, c("3D")),
        ("skip", 1),
    ]
    assert hand_of(e, 1) == sorted_faces("4D 5C 2C 3D")
    assert e.stock_pos[0] == 2  # exactly two cards; 4S is still in the stock
    assert e.seat[0] == 2
    assert e.turn[0] == 1  # the victim took no turn
    assert lineup[1].log == []


def test_V3_ace_with_two_players_the_same_player_moves_again():
    rules = make_rules("skip-reverse", players=2)
    e = setup(rules, scripted(2, s0="AH"), hands={0: "AH 3H", 1: "4D"}, top="5H", stock="2C 3D")
    e.advance()
    assert acting_events(e)[1:] == [("penalty_draw", 1, c("2C")), ("penalty_draw", 1, c("3D")), ("skip", 1)]
    assert e.seat[0] == 0 and hand_of(e, 1) == sorted_faces("4D 2C 3D")


def test_V3_power_applies_to_a_drawn_card_played_at_once():
    rules = make_rules("skip-reverse")
    hands = {0: "3C KC", 1: "4D 5C", 2: "6H 7C", 3: "8H 10C"}
    e = setup(rules, scripted(4), hands=hands, top="5H", stock="JH 2S")
    e.advance()
    assert acting_events(e) == [("draw", 0, c("JH")), ("play", 0, c("JH"), -1), ("skip", 1)]
    assert e.seat[0] == 2 and e.turn[0] == 1


def test_V3_drawn_ace_played_at_once_makes_the_next_player_draw_two():
    rules = make_rules("skip-reverse")
    hands = {0: "3C KC", 1: "4D 5C", 2: "6H 7C", 3: "8H 10C"}
    e = setup(rules, scripted(4), hands=hands, top="5H", stock="AH 2S 3S 4S")
    e.advance()
    assert acting_events(e) == [
        ("draw", 0, c("AH")),
        ("play", 0, c("AH"), -1),
        ("penalty_draw", 1, c("2S")),
        ("penalty_draw", 1, c("3S")),
        ("skip", 1),
    ]
    assert e.seat[0] == 2 and e.drawn[0] == 3


def test_V3_V2_power_applies_to_the_card_drawn_until_playable():
    rules = make_rules("skip-reverse+draw-until-playable")
    hands = {0: "3C KC", 1: "4D 5C", 2: "6H 7C", 3: "8H 10C"}
    e = setup(rules, scripted(4), hands=hands, top="5H", stock="2C JH 2S")
    e.advance()
    assert acting_events(e) == [("draw", 0, c("2C")), ("draw", 0, c("JH")), ("play", 0, c("JH"), -1), ("skip", 1)]
    assert e.seat[0] == 2


def test_V3_drawn_card_kept_has_no_power():
    rules = make_rules("skip-reverse")
    hands = {0: "3C KC", 1: "4D 5C", 2: "6H 7C", 3: "8H 10C"}
    lineup = [Scripted(drawn=[False])] + scripted(3)
    e = setup(rules, lineup, hands=hands, top="5H", stock="JH")
    e.advance()
    assert acting_events(e) == [("draw", 0, c("JH"))]
    assert e.seat[0] == 1


@pytest.mark.parametrize("last", ["JH", "QH", "AH"])
def test_V3_card_that_goes_out_has_no_power(last):
    rules = make_rules("skip-reverse")
    hands = {0: last, 1: "4D 5C", 2: "6H 7C", 3: "8H 10C"}
    e = setup(rules, scripted(4), hands=hands, top="5H", stock="2S 3S 4S", totals=[0, 0, 0, 0])
    assert play_out(e) == 0
    ev = events(e)
    end = next(i for i, x in enumerate(ev) if x[0] == "end")
    assert ev[:end] == [("play", 0, c(last), -1)]
    assert ev[end] == ("end", 0, (0, 9, 13, 18))  # the A made nobody draw
    assert not any(x[0] in ("skip", "penalty_draw") for x in ev)


def test_V3_every_hand_starts_clockwise():
    rules = make_rules("skip-reverse")
    hands = {0: "QH 3C", 1: "KC", 2: "KD", 3: "5H"}
    e = setup(rules, scripted(4, s0="QH", s3="5H"), hands=hands, top="5H", dealer=3)
    e.advance()
    assert e.dirbit[0] == 1 and e.seat[0] == 3
    assert e.advance()[0] == 3  # seat 3 goes out while play runs counter-clockwise
    # the next hand: dealer passes to seat 0, seat 1 plays first, clockwise again
    assert e.dealer[0] == 0
    assert e.dirbit[0] == 0
    assert e.seat[0] == 1
    assert e.turn[0] == 0


def test_V3_real_run_hands_start_clockwise_from_the_dealers_left_and_starter_has_no_power():
    rules = make_rules("skip-reverse")
    rec = Recorder(rules)
    CompiledEngine(rules, [rec] * 4, seed=11, start=0, n_matches=150, batch_size=150).run()
    t = rec.table()
    first = t[t[:, 7] == 1]  # first turn of a hand that is a play decision
    full = first[first[:, 8] == 1]
    assert len(full) > 100
    assert (first[:, 4] == 1).all()  # clockwise
    # the dealer's left moves first, whatever the starter (a J/Q/A starter has no power)
    assert (full[:, 5] == (full[:, 6] + 1) % 4).all()
    ranks = full[:, 0] % 13
    assert np.isin(ranks, [0, 10, 11]).sum() > 10


def _turns_from_trace(hand_events: list[tuple]) -> int:
    """Turns implied by one hand's events (draw one rule): play/pair/pass/draw, a draw played at once counting once."""
    turns = 0
    prev = None
    for ev in hand_events:
        k = ev[0]
        if k == "draw":
            turns += 1
        elif k in ("pair", "pass"):
            turns += 1
        elif k == "play":
            if not (prev is not None and prev[0] == "draw" and prev[1] == ev[1] and prev[2] == ev[2]):
                turns += 1
        if k not in ("reshuffle",):
            prev = ev
    return turns


def test_V3_turn_count_excludes_skipped_players_and_ace_victims_real_run():
    rules = make_rules("skip-reverse")
    e = CompiledEngine(rules, make_lineup(["random"] * 4), seed=5, start=0, n_matches=30, trace=True)
    res = e.run()
    hr = res.hand_records
    checked = skips = 0
    for m in range(30):
        ev = [x for x in e.trace[m] if x[0] != "turn"]  # the moves only, not the turn markers
        starts = [i for i, x in enumerate(ev) if x[0] == "deal"]
        ends = [i for i, x in enumerate(ev) if x[0] == "end"]
        rows = np.flatnonzero(hr.match == m)
        for h, row in enumerate(rows):  # regular hands come first
            seg = ev[starts[h] + 1 : ends[h]]
            skips += sum(1 for x in seg if x[0] == "skip")
            assert _turns_from_trace(seg) == hr.turns[row]
            checked += 1
    assert checked >= 30 and skips > 50
