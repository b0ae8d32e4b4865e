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
from nines_sim.game.cards import FULL_DECK, NINE_RANK, NINES, SUIT_NAMES, card_name, parse_card, words_of
from nines_sim.game.codes import RUNNING
from nines_sim.game.rules import PRESETS, Rules, RulesError, make_rules
from nines_sim.game.tables import penalty_points
from nines_sim.runs.simulate import simulate
from nines_sim.search.position import PositionBatch
from nines_sim.strategy.base import DecisionKind, Observation, Strategy
from nines_sim.strategy.registry import make_lineup
from tests.interrupt import built_ins_as_python_seats
from tests.position_seats import PositionSeats, card_counts, dealt
from tests.scenario import Scenario, Scripted, cards, events, hand_of, play_out, setup


def c(name: str) -> int:
    return parse_card(name)


def sorted_faces(text: str) -> list[int]:
    return sorted(cards(text))


def suit(letter: str) -> int:
    return SUIT_NAMES.index(letter)


def scripted(n: int, **plays: str) -> list[Scripted]:
    """``n`` separate Scripted players; ``plays`` maps "s0".."s5" to their play queues."""
    return [Scripted(plays.get(f"s{i}", "")) for i in range(n)]


def acting_events(e: Scenario) -> list[tuple]:
    """Events of the current hand, without deal/declare bookkeeping."""
    return [ev for ev in events(e) if ev[0] not in ("deal", "declare")]


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


class _Recorder(Strategy):
    """Random play that records, at each play decision, what the observation shows:
    (top, active, legal, pair_legal, direction, seat, dealer, first turn of the hand, all seats in the hand)."""

    name = "recorder"
    classifier = {"stochastic": True, "uses_public_history": False, "plays_pair_of_nines": True}

    def __init__(self, rules: Rules):
        self.inner = make_lineup(["random"])[0]
        self.rows: list[np.ndarray] = []
        self.rules = rules

    def play(self, obs: Observation) -> np.ndarray:
        # nothing played on the starter yet and every hand still as dealt: the hand's first turn
        dealt = obs.hand_sizes == self.rules.hand_size(self.rules.players)
        first = (np.bitwise_count(obs.played) == 1) & dealt.all(axis=1)
        self.rows.append(
            np.stack(
                [
                    obs.top.astype(np.int64),
                    obs.active_suit.astype(np.int64),
                    obs.legal.astype(np.int64),
                    obs.pair_legal.astype(np.int64),
                    obs.direction,
                    obs.seat.astype(np.int64),
                    obs.dealer,
                    first.astype(np.int64),
                    obs.in_hand.all(axis=1).astype(np.int64),
                ],
                axis=1,
            )
        )
        return self.inner.play(obs)

    def declare(self, obs: Observation) -> np.ndarray:
        return self.inner.declare(obs)

    def table(self) -> np.ndarray:
        return np.concatenate(self.rows)


def test_V3_real_run_hands_start_clockwise_from_the_dealers_left_and_starter_has_no_power():
    rules = make_rules("skip-reverse")
    rec = _Recorder(rules)
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


# ---------------------------------------------------------------------------- V4
@pytest.mark.parametrize("players", [4, 5, 6])
def test_V4_double_nines_deck_has_104_cards_and_8_nines(players, monkeypatch):
    rules = make_rules("double-nines", players=players)
    e, _ = dealt(rules, make_lineup(["random"] * players), seed=2, n=20)
    counts = e.card_counts()
    assert (counts == 2).all()
    assert (counts.sum(axis=1) == 104).all()
    nine_faces = [13 * s + NINE_RANK for s in range(4)]
    assert (counts[:, nine_faces].sum(axis=1) == 8).all()
    size = rules.hand_size()
    assert (e.ncards == size).all()
    assert (e.stock_end == 104 - players * size - 1).all()
    built_ins_as_python_seats(monkeypatch)  # 20 games a decision at a time
    e = CompiledEngine(rules, make_lineup(["random"] * players), seed=2, start=0, n_matches=20, batch_size=20)
    for _ in range(10):  # cards are conserved in play
        e.advance()
        assert (card_counts(e)[e.match >= 0] == 2).all()


def test_V4_pair_offered_only_with_two_nines_in_hand():
    rules = make_rules("double-nines")
    one = Scripted()
    e = setup(rules, [one] + scripted(3), hands={0: "9S 3C", 1: "KC", 2: "KD", 3: "KS"}, top="5H")
    e.advance()
    assert one.seen_pair == [False]
    for hand in ("9S 9H 3C", "9S 9S 3C"):
        two = Scripted()
        e = setup(rules, [two] + scripted(3), hands={0: hand, 1: "KC", 2: "KD", 3: "KS"}, top="5H")
        e.advance()
        assert two.seen_pair == [True], hand


def test_V4_pair_not_offered_without_the_variant():
    rules = make_rules("classic")
    s = Scripted()
    e = setup(rules, [s] + scripted(3), hands={0: "9S 9H 3C", 1: "KC", 2: "KD", 3: "KS"}, top="5H")
    e.advance()
    assert s.seen_pair == [False]


def test_V4_pair_declares_a_suit_and_skips_exactly_one_player():
    rules = make_rules("double-nines")
    lineup = [Scripted("PAIR", declares="D"), Scripted(), Scripted("2D"), Scripted()]
    hands = {0: "9S 9H 3C", 1: "KC 4D", 2: "2D 3S", 3: "KS 5D"}
    e = setup(rules, lineup, hands=hands, top="7H")
    e.advance()
    assert acting_events(e) == [("pair", 0, suit("D")), ("skip", 1)]
    assert hand_of(e, 0) == sorted_faces("3C")
    assert e.active[0] == suit("D")
    assert e.top[0] % 13 == NINE_RANK
    assert e.ncards[0, 0] == 1
    assert e.seat[0] == 2 and e.turn[0] == 1
    # both 9s and the old top are on the pile
    on_pile = sorted([int(e.top[0])] + [f for w in e.under for f in range(52) if (int(w[0]) >> f) & 1])
    assert on_pile == sorted_faces("9S 9H 7H")
    e.advance()
    assert lineup[2].seen_legal == [[c("2D")]]  # the declared diamonds bind seat 2
    assert lineup[1].log == []
    assert e.seat[0] == 3 and e.turn[0] == 2


def test_V4_pair_removes_the_highest_double_nine_first_then_the_highest_held():
    rules = make_rules("double-nines")
    e = setup(rules, [Scripted("PAIR", "C")] + scripted(3), hands={0: "9C 9C 9S 3C", 1: "KC", 2: "KD", 3: "KS"},
              top="7H")  # fmt: skip
    e.advance()
    assert ("pair", 0, 0) in events(e)
    assert hand_of(e, 0) == sorted_faces("9C 3C")
    e = setup(rules, [Scripted("PAIR", "C")] + scripted(3), hands={0: "9D 9S 9H 3C", 1: "KC", 2: "KD", 3: "KS"},
              top="7H")  # fmt: skip
    e.advance()
    assert hand_of(e, 0) == sorted_faces("9D 3C")
    assert e.top[0] == c("9S")


def test_V4_pair_may_be_the_last_two_cards_and_goes_out():
    rules = make_rules("double-nines")
    s = Scripted("PAIR", declares="H")
    e = setup(rules, [s] + scripted(3), hands={0: "9S 9H", 1: "KC", 2: "KD", 3: "KS"}, top="7H", totals=[0] * 4)
    assert e.advance()[0] == 0
    assert s.seen_pair == [True]
    ev = events(e)
    assert ev[:2] == [("pair", 0, suit("H")), ("end", 0, (0, 10, 10, 10))]
    assert not any(x[0] == "skip" for x in ev)


def test_V4_pair_with_two_players_the_same_player_moves_again():
    rules = make_rules("double-nines", players=2)
    e = setup(rules, [Scripted("PAIR")] + scripted(1), hands={0: "9S 9H 3C", 1: "KC 4D"}, top="7H")
    e.advance()
    assert acting_events(e) == [("pair", 0, 0), ("skip", 1)]
    assert e.seat[0] == 0


def test_V4_pair_not_allowed_right_after_a_draw():
    # Only a 9-less hand (or V5/V6) ever draws; under V5 a lone 9 draws a second 9:
    # the player is then asked only whether to play the drawn card, never for the pair.
    rules = make_rules("double-nines+no-nine-out")
    s = Scripted()
    e = setup(rules, [s] + scripted(3), hands={0: "9S", 1: "KC", 2: "KD", 3: "KS"}, top="7H", stock="9H 2C")
    e.advance()
    assert s.seen_pair == [] and s.seen_legal == []
    assert [x[0] for x in s.log] == ["play_drawn", "declare"]
    assert acting_events(e) == [("draw", 0, c("9H")), ("play", 0, c("9H"), 0)]
    assert hand_of(e, 0) == sorted_faces("9S")


def test_V4_two_identical_cards_are_two_physical_cards():
    rules = make_rules("double-nines")
    s = Scripted("5H")
    e = setup(rules, [s] + scripted(3), hands={0: "5H 5H 3C", 1: "KC", 2: "KD", 3: "KS"}, top="7H")
    assert hand_of(e, 0) == sorted_faces("5H 5H 3C")
    assert e.ncards[0, 0] == 3
    e.advance()
    assert s.seen_legal == [[c("5H")]]  # one face, held twice
    assert hand_of(e, 0) == sorted_faces("5H 3C")
    assert e.ncards[0, 0] == 2
    assert e.top[0] == c("5H")


def test_V4_uniform_random_strategy_counts_physical_cards():
    rules = make_rules("double-nines")
    n = 3000
    one, _ = dealt(rules, make_lineup(["random"] * 4), seed=9, n=1)
    pos = PositionBatch.from_positions([one.position(0)] * n)
    e = PositionSeats(pos, make_lineup(["random"] * 4))
    e.dkey[:] = np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)  # each game its own stream
    w = words_of(cards("5H 5H 6H"), 2)
    for d in range(2):
        e.hands[d][:, 0] = w[d]
    e.ncards[:, 0] = 3
    e.top[:] = c("7H")
    e.active[:] = suit("H")
    e.seat[:] = 0
    idx = np.arange(n)
    legal = e.hands[0][idx, 0] & e.legal_tab[e.top * 4 + e.active]
    played = e.decide(DecisionKind.PLAY, idx, e.seat.copy(), legal=legal)  # random's play, asked once per game
    share = float(np.mean(played == c("5H")))
    assert np.isin(played, [c("5H"), c("6H")]).all()
    assert abs(share - 2 / 3) < 0.05, share


# ---------------------------------------------------------------------------- V5
def test_V5_lone_nine_cannot_go_out_the_player_draws():
    rules = make_rules("no-nine-out", players=2)
    s = Scripted()
    e = setup(rules, [s, Scripted()], hands={0: "9S", 1: "KD 4D"}, top="7H", stock="3C 4S")
    e.advance()
    assert s.seen_legal == []
    assert acting_events(e) == [("draw", 0, c("3C"))]
    assert hand_of(e, 0) == sorted_faces("9S 3C")
    assert e.seat[0] == 1


def test_V5_lone_nine_that_draws_a_legal_card_may_play_it():
    rules = make_rules("no-nine-out", players=2)
    e = setup(rules, scripted(2), hands={0: "9S", 1: "KD 4D"}, top="7H", stock="3H")
    e.advance()
    assert acting_events(e) == [("draw", 0, c("3H")), ("play", 0, c("3H"), -1)]
    assert hand_of(e, 0) == sorted_faces("9S")


def test_V5_nine_that_is_not_the_last_card_is_legal():
    rules = make_rules("no-nine-out", players=2)
    s = Scripted("9S", declares="C")
    e = setup(rules, [s, Scripted()], hands={0: "9S 3C", 1: "KD 4D"}, top="7H")
    e.advance()
    assert s.seen_legal == [[c("9S")]]
    assert acting_events(e) == [("play", 0, c("9S"), 0)]


def test_V5_lone_natural_card_still_goes_out():
    rules = make_rules("no-nine-out", players=2)
    e = setup(rules, scripted(2), hands={0: "5H", 1: "KD 4D"}, top="7H", totals=[0, 0])
    assert e.advance()[0] == 0


def test_V5_without_the_variant_a_lone_nine_goes_out():
    rules = make_rules("classic", players=2)
    s = Scripted()
    e = setup(rules, [s, Scripted()], hands={0: "9S", 1: "KD 4D"}, top="7H", totals=[0, 0])
    assert e.advance()[0] == 0
    assert s.seen_legal == [[c("9S")]]


def test_V5_V4_pair_as_the_last_two_cards_is_not_offered():
    rules = make_rules("double-nines+no-nine-out")
    s = Scripted()
    e = setup(rules, [s] + scripted(3), hands={0: "9S 9H", 1: "KC", 2: "KD", 3: "KS"}, top="7H")
    e.advance()
    assert s.seen_pair == [False]
    assert s.seen_legal == [sorted_faces("9H 9S")]  # a single 9 (not the last card) is legal
    s3 = Scripted("PAIR")
    e = setup(rules, [s3] + scripted(3), hands={0: "9S 9H 3C", 1: "KC", 2: "KD", 3: "KS"}, top="7H")
    e.advance()
    assert s3.seen_pair == [True]
    assert hand_of(e, 0) == sorted_faces("3C")


# ---------------------------------------------------------------------------- V6
def test_V6_no_stacking_nine_cannot_be_played_on_a_nine():
    rules = make_rules("no-stacking", players=2)
    s = Scripted()
    e = setup(rules, [s, Scripted()], hands={0: "9D 3H KC", 1: "KD 4D"}, top="9S", active="H")
    e.advance()
    assert s.seen_legal == [[c("3H")]]


def test_V6_no_stacking_only_nines_against_a_nine_means_a_draw():
    rules = make_rules("no-stacking", players=2)
    s = Scripted()
    e = setup(rules, [s, Scripted()], hands={0: "9D KC", 1: "KD 4D"}, top="9S", active="H", stock="9H 2S")
    e.advance()
    assert s.seen_legal == []
    assert acting_events(e) == [("draw", 0, c("9H"))]  # a drawn 9 is not playable on a 9 either
    assert s.log == []


def test_V6_default_nine_may_answer_a_nine():
    rules = make_rules("classic", players=2)
    s = Scripted()
    e = setup(rules, [s, Scripted()], hands={0: "9D 3H KC", 1: "KD 4D"}, top="9S", active="H")
    e.advance()
    assert s.seen_legal == [sorted_faces("3H 9D")]


def test_V6_V4_pair_not_offered_on_a_nine_under_no_stacking():
    rules = make_rules("double-nines+no-stacking")
    s = Scripted()
    e = setup(rules, [s] + scripted(3), hands={0: "9D 9H 3H", 1: "KC", 2: "KD", 3: "KS"}, top="9S", active="H")
    e.advance()
    assert s.seen_pair == [False] and s.seen_legal == [[c("3H")]]


@pytest.mark.parametrize(("preset", "stacking"), [("no-stacking", False), ("classic", True)])
def test_V6_nine_starter_real_run(preset, stacking):
    rules = make_rules(preset)
    rec = _Recorder(rules)
    CompiledEngine(rules, [rec] * 4, seed=4, start=0, n_matches=150, batch_size=150).run()
    t = rec.table()
    on_nine = t[t[:, 0] % 13 == NINE_RANK]
    starters = on_nine[on_nine[:, 7] == 1]  # first turn of a hand with a 9 starter
    assert len(starters) > 10
    nines_legal = (t[:, 2].astype(np.uint64) & np.uint64(NINES)) != 0
    on_nine_legal9 = nines_legal[t[:, 0] % 13 == NINE_RANK]
    start_legal9 = on_nine_legal9[on_nine[:, 7] == 1]
    if stacking:
        assert start_legal9.any() and on_nine_legal9.any()
    else:
        assert not on_nine_legal9.any() and not start_legal9.any()


# ---------------------------------------------------------------------------- V7 / S3 / S2 / D4
def _check_fixed(res, n_hands: int) -> None:
    hr = res.hand_records
    assert (res.hands == n_hands).all()
    assert len(hr) == n_hands * res.n_matches
    assert (np.bincount(hr.match - res.match[0], minlength=res.n_matches) == n_hands).all()
    tot = res.totals
    tied = (tot == tot.min(axis=1, keepdims=True)).sum(axis=1) > 1
    assert ((res.tiebreak_hands > 0) == tied).all()  # tie-break hands only when tied (playoff)
    assert np.allclose(res.win_share.sum(axis=1), 1.0)
    assert ((res.win_share == 1.0).sum(axis=1) == 1).all()


def test_S3_V7_fixed_hands_5_plays_exactly_five_hands():
    res = simulate(make_rules("fixed-hands-5"), ["random"] * 4, n_matches=300, seed=1)
    _check_fixed(res, 5)
    assert (res.tiebreak_hands > 0).any()  # ties happen, and are played off
    # totals are the sum of the five hands' penalties, with no target cut-off
    hr = res.hand_records
    sums = np.zeros_like(res.totals)
    np.add.at(sums, hr.match - res.match[0], hr.penalty)
    assert (sums == res.totals).all()
    assert (res.totals.max(axis=1) >= 0).all()


@pytest.mark.parametrize(
    ("preset", "kw", "n"), [("fixed-hands-7", {}, 7), ("fixed-hands-10", {}, 10), ("classic", {"fixed_hands": 3}, 3)]
)
def test_S3_V7_fixed_hands_presets_and_plain_number(preset, kw, n):
    res = simulate(make_rules(preset, **kw), ["random"] * 4, n_matches=40, seed=2)
    _check_fixed(res, n)


def test_S2_V7_target_50_ends_the_match_at_or_above_50():
    res = simulate(make_rules("classic", target=50), ["random"] * 4, n_matches=300, seed=3)
    hr = res.hand_records
    for m in range(res.n_matches):
        pens = hr.penalty[hr.match == m]
        assert len(pens) == res.hands[m]
        cum = np.cumsum(pens, axis=0)
        assert (cum[-1] == res.totals[m]).all()
        assert cum[-1].max() >= 50
        assert (cum[:-1].max(axis=1, initial=0) < 50).all()
    assert res.hands.min() >= 1 and res.hands.mean() < 10


def test_D4_V7_hand_sizes_override_deals_that_many():
    for players, size in ((4, 5), (5, 4), (2, 5)):
        rules = make_rules("classic", players=players, hand_sizes=(5, 5, 5, 4, 4))
        assert rules.hand_size() == size
        e, _ = dealt(rules, make_lineup(["random"] * players), seed=0, n=10)
        assert (e.ncards == size).all()
        assert (e.stock_end == 52 - players * size - 1).all()
        assert (e.card_counts() == 1).all()


def test_D4_default_hand_sizes():
    for players, size in ((2, 7), (3, 7), (4, 7), (5, 5), (6, 5)):
        assert make_rules(players=players).hand_size() == size


# ---------------------------------------------------------------------------- presets
def test_P_presets_combine():
    r = make_rules("hard-nines+no-nine-out")
    assert r.nine_penalty == 25 and r.no_nine_out is True
    base = make_rules("classic").options()
    changed = {k for k, v in r.options().items() if base[k] != v}
    assert changed == {"nine_penalty", "no_nine_out"}
    r2 = make_rules("double-nines+no-nine-out+skip-reverse", players=6)
    assert (r2.decks, r2.pair_of_nines, r2.no_nine_out, r2.skip_reverse, r2.players) == (2, True, True, True, 6)
    for name, (_clause, over) in PRESETS.items():
        r = make_rules(name)
        for k, v in over.items():
            assert getattr(r, k) == v


def test_P_impossible_combination_raises_rules_error_saying_why():
    with pytest.raises(RulesError) as info:
        make_rules("classic", players=6, hand_sizes=(7, 7, 7, 10, 10))
    msg = str(info.value)
    assert "10 cards to 6 players" in msg and "61" in msg and "52" in msg
    # two decks make the same sizes possible
    assert make_rules("double-nines", players=6, hand_sizes=(7, 7, 7, 10, 10)).decks == 2
    with pytest.raises(RulesError, match="disagree"):
        make_rules("fixed-hands-5+fixed-hands-7")
    with pytest.raises(RulesError, match="presets are"):
        make_rules("hard-nines+no-such-variant")
    with pytest.raises(RulesError, match="unknown rules option"):
        make_rules("classic", nine_penalties=25)
    with pytest.raises(RulesError):
        Rules(players=7)
