"""Exact scenario tests for the classic clauses of RULES.md (C, D, T, O, S, X1, P)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nines_sim.engine.batch import CompiledEngine
from nines_sim.game.cards import FULL_DECK, NINES, PENALTY_GROUPS, SUIT_NAMES, card_name, faces_of, parse_card
from nines_sim.game.rules import make_rules
from nines_sim.game.tables import penalty_points
from nines_sim.results.records import BLOCKED, CAPPED
from nines_sim.runs.simulate import simulate
from nines_sim.strategy.registry import make_lineup
from tests.position_seats import dealt
from tests.scenario import Scripted, cards, events, hand_of, play_out, setup

C = make_rules("classic")
C2 = make_rules("classic", players=2)


def names(faces: list[int]) -> list[str]:
    return [card_name(f) for f in faces]


# ---------------------------------------------------------------- cards


def test_C1_deck_has_52_distinct_cards_and_four_wild_nines():
    assert bin(FULL_DECK).count("1") == 52
    assert names(faces_of(NINES)) == ["9C", "9D", "9H", "9S"]
    e, _ = dealt(C, make_lineup(["random"] * 4), seed=3, n=20)
    assert (e.card_counts() == 1).all()


def test_C2_penalty_values_and_full_deck_total_364():
    full = np.array([FULL_DECK], dtype=np.uint64)
    assert int(penalty_points([full], 15)[0]) == 364
    assert int(penalty_points([full], 15)[0]) / 52 == 7.0
    expect = {"AC": 1, "2D": 2, "8H": 8, "10S": 10, "JC": 10, "QD": 10, "KH": 10, "9S": 15}
    for name, pts in expect.items():
        w = np.array([1 << parse_card(name)], dtype=np.uint64)
        assert int(penalty_points([w], 15)[0]) == pts, name
    assert sum(p * bin(m).count("1") for p, m in PENALTY_GROUPS) == 364 - 60


# ---------------------------------------------------------------- players, deal


@pytest.mark.parametrize("players", [1, 7, 0])
def test_D1_player_count_outside_2_to_6_is_an_error(players):
    from nines_sim.game.rules import RulesError

    with pytest.raises(RulesError, match="2 to 6"):
        make_rules("classic", players=players)


def test_D2_first_dealer_uniform_over_seats():
    n, p = 40_000, 4
    res = simulate(C, ["random"] * p, n, seed=11, batch_size=4096)
    counts = np.bincount(res.first_dealer, minlength=p)
    se = math.sqrt(n * (1 / p) * (1 - 1 / p))
    assert np.all(np.abs(counts - n / p) < 4 * se), counts


def test_D3_dealer_passes_clockwise_each_hand():
    res = simulate(C, ["random"] * 4, 300, seed=5)
    hr = res.hand_records
    first = hr.hand == 0
    assert np.array_equal(hr.dealer[first], res.first_dealer)
    expect = (res.first_dealer[hr.match] + hr.hand) % 4
    assert np.array_equal(hr.dealer, expect)


@pytest.mark.parametrize("players,size", [(2, 7), (3, 7), (4, 7), (5, 5), (6, 5)])
def test_D4_D5_D7_deal_sizes_starter_stock_and_first_player(players, size):
    rules = make_rules("classic", players=players)
    e, trace = dealt(rules, make_lineup(["random"] * players), seed=2, n=5)
    assert (e.ncards == size).all()
    assert (e.stock_end == 52 - players * size - 1).all()  # D5: 4 players -> 28 + 1 + 23
    assert (e.card_counts() == 1).all()
    assert np.array_equal(e.seat, (e.dealer + 1) % players)  # D7
    for m in range(5):
        deal = trace[m][0]
        assert deal[0] == "deal" and all(len(h) == size for h in deal[3])


def test_D5_four_players_28_1_23():
    e, _ = dealt(C, make_lineup(["random"] * 4), seed=9, n=1)
    assert int(e.ncards.sum()) == 28 and int(e.stock_end[0]) == 23


def test_D6_dealer_declares_at_a_nine_starter():
    res = None
    e = CompiledEngine(C, make_lineup(["suit-majority"] * 4), seed=1, start=0, n_matches=300, trace=True)
    res = e.run()
    found = 0
    for traced in e.trace.values():
        evs = [x for x in traced if x[0] != "turn"]  # the moves only, not the turn markers
        for i, ev in enumerate(evs):
            if ev[0] == "deal" and ev[4] % 13 == 8:
                found += 1
                dealer, suit = evs[i + 1][1], evs[i + 1][2]
                assert evs[i + 1][0] == "declare" and dealer == ev[2]
                # suit-majority counts the dealt hand's naturals
                counts = [sum(1 for f in ev[3][dealer] if f // 13 == s and f % 13 != 8) for s in range(4)]
                assert counts[suit] == max(counts)
                first = evs[i + 2]
                if first[0] == "play" and first[2] % 13 != 8:
                    assert first[2] // 13 == suit  # the first player follows the declared suit
    assert found > 0 and res.hand_records.nine_starter.sum() >= found // 2


# ---------------------------------------------------------------- a turn


def test_T1_legal_cards_suit_rank_or_any_nine():
    a = Scripted(plays="2H")
    e = setup(C2, [a, Scripted()], {0: "2H 7C 9S KD", 1: "3C"}, top="7H")
    e.advance()
    assert names(a.seen_legal[0]) == ["7C", "2H", "9S"]
    assert int(e.top[0]) == parse_card("2H") and int(e.active[0]) == SUIT_NAMES.index("H")


def test_T1_nine_on_top_follows_declared_suit_not_printed_suit():
    a = Scripted()
    e = setup(C2, [a, Scripted()], {0: "2S 5C 9D KH", 1: "3C"}, top="9S", active="C")
    e.advance()
    assert names(a.seen_legal[0]) == ["5C", "9D"]


def test_T2_a_player_with_a_legal_card_must_play_not_draw():
    e = setup(C2, [Scripted(), Scripted()], {0: "4H KC", 1: "3C"}, top="7H", stock="2C 3D")
    e.advance()
    assert int(e.stock_pos[0]) == 0 and int(e.drawn[0]) == 0
    assert events(e)[0] == ("play", 0, parse_card("4H"), -1)


def test_T3_nine_declares_any_suit_including_its_own():
    for suit in "CDHS":
        e = setup(C2, [Scripted(plays="9S", declares=suit), Scripted()], {0: "9S KD", 1: "3C"}, top="7H")
        e.advance()
        assert int(e.active[0]) == SUIT_NAMES.index(suit) and int(e.top[0]) == parse_card("9S")


@pytest.mark.parametrize("play_it", [True, False])
def test_T4_draws_exactly_one_and_may_play_a_legal_drawn_card(play_it):
    a = Scripted(drawn=[play_it])
    e = setup(C2, [a, Scripted()], {0: "KC 2D", 1: "3C 4C"}, top="5H", stock="6H 7H 8H")
    e.advance()
    ev = events(e)
    assert ev[0] == ("draw", 0, parse_card("6H"))
    assert int(e.drawn[0]) == 1 and int(e.turn[0]) == 1
    if play_it:
        assert ev[1] == ("play", 0, parse_card("6H"), -1) and names(hand_of(e, 0)) == ["KC", "2D"]
    else:
        assert names(hand_of(e, 0)) == ["KC", "2D", "6H"] and int(e.top[0]) == parse_card("5H")
    assert int(e.seat[0]) == 1


def test_T4_illegal_drawn_card_is_kept_and_the_turn_ends():
    a = Scripted()
    e = setup(C2, [a, Scripted()], {0: "KC 2D", 1: "3C 4C"}, top="5H", stock="JS 7H")
    e.advance()
    assert events(e) == [("draw", 0, parse_card("JS"))]
    assert names(hand_of(e, 0)) == ["KC", "2D", "JS"] and not a.log
    assert int(e.seat[0]) == 1 and int(e.top[0]) == parse_card("5H")


def test_T5_empty_stock_reshuffles_discards_below_the_top_keeping_active_suit():
    e = setup(C2, [Scripted(drawn=[False]), Scripted()], {0: "KC", 1: "3C"}, top="9S", active="D", under="2H 3H 4H")
    e.advance()
    ev = events(e)
    assert ev[0] == ("reshuffle", 3) and ev[1][0] == "draw" and ev[1][2] in cards("2H 3H 4H")
    assert int(e.reshuffles[0]) == 1 and int(e.top[0]) == parse_card("9S") and int(e.active[0]) == 1
    assert int(e.stock_end[0] - e.stock_pos[0]) == 2 and int(e.under[0][0]) == 0
    assert (e.card_counts()[0, cards("KC 3C 9S 2H 3H 4H")] == 1).all()


def test_T6_nothing_to_rebuild_is_a_pass():
    e = setup(C2, [Scripted(), Scripted()], {0: "KC", 1: "3C 4C"}, top="5H")
    e.advance()
    assert events(e) == [("pass", 0)]
    assert int(e.turn[0]) == 1 and int(e.streak[0]) == 1 and int(e.drawn[0]) == 0


def test_T7_pass_circle_blocks_and_everyone_scores():
    e = setup(C2, [Scripted(), Scripted()], {0: "KC", 1: "3C QD"}, top="5H", totals=[10, 20])
    out = play_out(e)
    assert out == BLOCKED
    assert events(e)[:2] == [("pass", 0), ("pass", 1)]
    assert events(e)[2] == ("end", BLOCKED, (10, 13))
    assert e.totals[0].tolist() == [20, 33]


def test_T7_no_play_circle_counts_draws_without_a_play():
    rules = make_rules("free-nines", players=2)
    # seat 0 draws an unplayable card, seat 1 passes: two turns, no card played -> blocked
    e = setup(rules, [Scripted(), Scripted()], {0: "KC", 1: "3C QD"}, top="5H", stock="2S")
    assert play_out(e) == BLOCKED
    assert events(e)[:2] == [("draw", 0, parse_card("2S")), ("pass", 1)]
    # under pass-circle the same position goes on: a draw is not a pass
    e = setup(C2, [Scripted(), Scripted()], {0: "KC", 1: "3C QD"}, top="5H", stock="2S")
    e.advance()
    out = e.advance()
    assert out[0] == -3 and int(e.streak[0]) == 1


def test_T8_turn_cap_stops_the_hand_and_counts_it_capped():
    rules = make_rules("classic", players=2, turn_cap=3)
    e = setup(rules, [Scripted(), Scripted()], {0: "2H 3H 4H 5C", 1: "6H 7H 8H 5D"}, top="KH")
    assert play_out(e) == CAPPED
    res = e.results()
    assert res.hand_records.outcome.tolist() == [CAPPED]
    assert res.hand_records.turns.tolist() == [3]


def test_T7_T8_block_wins_when_both_fire_on_one_turn():
    rules = make_rules("classic", players=2, turn_cap=2)
    e = setup(rules, [Scripted(), Scripted()], {0: "KC", 1: "3C QD"}, top="5H")
    assert play_out(e) == BLOCKED


# ---------------------------------------------------------------- going out, scoring


def test_O1_last_card_ends_the_hand_at_once_and_a_nine_may_be_last():
    e = setup(C2, [Scripted(plays="9S", declares="H"), Scripted()], {0: "9S", 1: "3C KD"}, top="7H")
    assert play_out(e) == 0
    assert [x for x in events(e) if x[0] == "end"] == [("end", 0, (0, 13))]


def test_O2_no_last_card_announcement_or_penalty():
    e = setup(C2, [Scripted(), Scripted()], {0: "2H 3C", 1: "4C KD"}, top="7H")
    e.advance()  # down to one card: nothing happens, play moves on
    assert int(e.ncards[0, 0]) == 1 and int(e.seat[0]) == 1 and e.totals[0].tolist() == [0, 0]


def test_S1_player_out_scores_zero_others_add_their_cards():
    rules = make_rules("classic", players=3)
    e = setup(rules, [Scripted()] * 3, {0: "2H", 1: "KC 9D", 2: "AS 3S"}, top="7H", totals=[5, 5, 5])
    assert play_out(e) == 0
    assert e.totals[0].tolist() == [5, 30, 9]


def test_S2_match_ends_at_target_and_lowest_total_wins_not_the_player_out():
    # below the target the match goes on (no result written yet)
    e = setup(C2, [Scripted(), Scripted()], {0: "2H", 1: "KC 9D"}, top="7H", totals=[95, 60])
    play_out(e)
    assert e.results().n_matches == 0 and e.totals[0].tolist() == [95, 85]
    r3 = make_rules("classic", players=3)
    e = setup(r3, [Scripted()] * 3, {0: "2H", 1: "KC JD", 2: "5C"}, top="7H", totals=[97, 75, 98])
    play_out(e)
    res = e.results()
    assert res.totals.tolist() == [[97, 95, 103]]
    assert res.win_share.tolist() == [[0.0, 1.0, 0.0]]  # seat 0 went out, yet seat 1 has the lowest total


def test_S2_reaching_exactly_the_target_ends_the_match():
    e = setup(C2, [Scripted(), Scripted()], {0: "2H", 1: "KC"}, top="7H", totals=[0, 90])
    play_out(e)
    res = e.results()
    assert res.totals.tolist() == [[0, 100]] and res.win_share.tolist() == [[1.0, 0.0]]


def test_S3_fixed_hands_end_after_that_many_hands():
    rules = make_rules("fixed-hands-5", players=2)
    e = setup(rules, [Scripted(), Scripted()], {0: "2H", 1: "KC"}, top="7H", totals=[0, 3], hands_played=4)
    play_out(e)
    res = e.results()
    assert res.hands.tolist() == [5] and res.totals.tolist() == [[0, 13]]
    assert res.win_share.tolist() == [[1.0, 0.0]]


def test_S4_tie_rule_share_splits_the_win():
    rules = make_rules("classic", players=3, tie_rule="share")
    e = setup(rules, [Scripted()] * 3, {0: "2H", 1: "KC", 2: "5C"}, top="7H", totals=[100, 90, 95])
    play_out(e)
    res = e.results()
    assert res.totals.tolist() == [[100, 100, 100]]
    assert np.allclose(res.win_share, [[1 / 3, 1 / 3, 1 / 3]]) and res.tiebreak_hands.tolist() == [0]


def test_S4_playoff_tie_break_hand_among_tied_players_only():
    rules = make_rules("classic", players=3)
    e = setup(
        rules, [Scripted(), Scripted(), Scripted()], {0: "2H", 1: "KC", 2: "5C 3C"}, top="7H", totals=[95, 95, 90]
    )
    e.dealer[0] = 2
    play_out(e)  # seat 0 goes out: totals 95, 105, 98 -> seat 0 wins outright
    assert e.results().win_share.tolist() == [[1.0, 0.0, 0.0]]

    e = setup(rules, [Scripted(), Scripted(), Scripted()], {0: "2H", 1: "KC", 2: "QC"}, top="7H", totals=[105, 90, 90])
    e.dealer[0] = 2
    play_out(e)
    # totals 105, 100, 100: seats 1 and 2 tie; the seat due to deal next is 0 (dealer 2 -> 0),
    # so the first tied seat clockwise from 0 deals: seat 1; seat 2 plays first
    assert bool(e.in_tb[0]) and int(e.seats_mask[0]) == 0b110 and int(e.dealer[0]) == 1
    assert int(e.seat[0]) == 2 and int(e.ncards[0, 0]) == 0 and (e.ncards[0, 1:] == 7).all()
    deal = events(e)[-1] if events(e)[-1][0] == "deal" else events(e)[-2]
    assert deal[0] == "deal" and deal[3][0] == () and len(deal[3][1]) == 7
    before = e.totals[0].tolist()
    out = play_out(e, max_steps=10_000)
    res = e.results()
    assert res.totals.tolist() == [before]  # tie-break hands add nothing to totals
    assert res.tiebreak_hands.tolist() == [1] and res.hands.tolist() == [1]
    assert res.win_share[0, out] == 1.0 and out in (1, 2)
    assert len(res.hand_records) == 1  # per-hand statistics count regular hands only


def test_S4_blocked_tie_break_goes_to_lowest_hand_penalty():
    rules = make_rules("classic", players=3)
    e = setup(rules, [Scripted()] * 3, {1: "KC 2D", 2: "QD"}, top="5H", totals=[105, 100, 100])
    e.in_tb[0] = True
    assert play_out(e) == BLOCKED
    res = e.results()
    assert res.win_share.tolist() == [[0.0, 0.0, 1.0]]


def test_S4_blocked_tie_break_with_equal_penalties_plays_another():
    rules = make_rules("classic", players=3)
    e = setup(rules, [Scripted()] * 3, {1: "KC", 2: "QD"}, top="5H", totals=[105, 100, 100], dealer=1, seat=2)
    e.in_tb[0] = True
    assert play_out(e) == BLOCKED
    assert bool(e.in_tb[0]) and int(e.seats_mask[0]) == 0b110
    assert int(e.dealer[0]) == 2  # the next tied player after the last tie-break dealer (1)
    assert int(e.tb_hands[0]) == 1


# ---------------------------------------------------------------- worked example


def test_X1_worked_example_two_players():
    a = Scripted(plays="9S AC", declares="C")
    b = Scripted(plays="KC")
    e = setup(C2, [a, b], {0: "9S AC", 1: "KC 9D QH"}, top="7H", totals=[0, 80])
    assert play_out(e) == 0
    assert names(b.seen_legal[0]) == ["KC", "9D"]  # the 9's printed spade binds no one
    assert [x for x in events(e) if x[0] in ("play", "end")] == [
        ("play", 0, parse_card("9S"), 0),
        ("play", 1, parse_card("KC"), -1),
        ("play", 0, parse_card("AC"), -1),
        ("end", 0, (0, 25)),
    ]
    res = e.results()
    assert res.totals.tolist() == [[0, 105]]
    assert res.win_share.tolist() == [[1.0, 0.0]]
    assert events(e)[-1] == ("match_end", (0, 105), (1.0, 0.0))


# ---------------------------------------------------------------- presets


def test_P1_classic_preset_options():
    r = make_rules("classic")
    assert (r.tie_rule, r.block_rule, r.nine_penalty, r.target, r.players) == ("playoff", "pass-circle", 15, 100, 4)


def test_P2_free_nines_preset_options():
    r = make_rules("free-nines")
    assert (r.tie_rule, r.block_rule) == ("share", "no-play-circle")
    assert make_rules("free-nines", tie_rule="playoff").tie_rule == "playoff"


def test_rules_md_in_the_repo_is_the_shared_specification():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    shared = root.parent / "shared" / "RULES.md"
    if not shared.exists():
        pytest.skip("no shared/ beside this checkout")
    assert (root / "RULES.md").read_bytes() == shared.read_bytes()
