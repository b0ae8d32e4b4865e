"""Exact stacked-deck tests of the rule variants V4-V7 and the presets (RULES.md), one clause per test name;
V1-V3 and the conventions where RULES.md is silent are in ``test_variants.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from nines_sim.engine.batch import CompiledEngine
from nines_sim.game.cards import NINE_RANK, NINES, words_of
from nines_sim.game.rules import PRESETS, Rules, RulesError, make_rules
from nines_sim.runs.simulate import simulate
from nines_sim.search.position import PositionBatch
from nines_sim.strategy.base import DecisionKind
from nines_sim.strategy.registry import make_lineup
from tests.interrupt import built_ins_as_python_seats
from tests.position_seats import PositionSeats, card_counts, dealt
from tests.scenario import Scripted, cards, events, hand_of, setup
from tests.variant_cases import Recorder, acting_events, c, scripted, sorted_faces, suit


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
    rec = Recorder(rules)
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
