"""The review's luck and skill table (nines_sim.luck.review): luck in penalty points, net across seats, and the
skill of the reviewed seat's decisions in the same points."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nines_sim.game.rules import make_rules
from nines_sim.luck.measure import FIT_START, measure_luck
from nines_sim.luck.review import luck_sentence, luck_skill_frame, match_luck
from nines_sim.luck.value import LinearValue, fit_value, noise_value


@pytest.fixture(scope="module")
def fitted():
    rules = make_rules("classic").replace(players=3)
    specs = ["random", "dump-faces", "expert"]
    fit = measure_luck(rules, specs, 1, FIT_START, 150)
    return rules, specs, fit_value(fit.parts, fit.shares, fit.hand_blocks, fit.hand_penalties)


def test_luck_in_points_is_net_across_seats_in_every_hand(fitted):
    """Every hand's luck in points, its parts and its result each sum to zero across the seats (S1's penalties:
    the others' mean minus the own), and the parts add up to the luck."""
    rules, specs, value = fitted
    report = match_luck(rules, specs, 1, 3, value)
    table = luck_skill_frame(report, pd.DataFrame(columns=["hand", "seat", "points_lost"]), specs)
    hands = table[table["hand"] > 0]
    for col in ("result", "luck", "luck_deal", "luck_draw", "luck_choice"):
        np.testing.assert_allclose(hands.groupby("hand")[col].sum(), 0.0, atol=1e-9)
    parts = hands[["luck_deal", "luck_draw", "luck_choice"]].sum(axis=1)
    np.testing.assert_allclose(parts, hands["luck"], atol=1e-9)
    assert np.abs(hands["luck"]).sum() > 0 and hands["skill"].isna().all()  # no seat reviewed: no skill


def test_skill_is_the_points_the_reviewed_seat_lost_hand_by_hand(fitted):
    """A reviewed seat's skill in a hand is minus the points its decisions lost there; the match row sums the
    hands; the sentence says the match's result and the cards' share of it."""
    rules, specs, value = fitted
    report = match_luck(rules, specs, 1, 3, value)
    decisions = pd.DataFrame({"hand": [1, 1, 2], "seat": [2, 2, 2], "points_lost": [1.5, 0.25, 4.0]})
    table = luck_skill_frame(report, decisions, specs)
    seat2 = table[(table["seat"] == 2) & (table["hand"] > 0)].set_index("hand")["skill"]
    assert seat2[1] == -1.75 and seat2[2] == -4.0 and (seat2.drop([1, 2]) == 0).all()
    match = table[(table["seat"] == 2) & (table["hand"] == 0)].iloc[0]
    assert match["skill"] == -5.75
    assert match["result"] == pytest.approx(report.results[:, 2].sum())
    assert match["unexplained"] == pytest.approx(match["result"] - match["luck"] - match["skill"])
    said = luck_sentence(table, 2)
    assert "seat 2 (expert)" in said and f"{abs(match['result']):.1f} points" in said


def test_a_value_without_points_is_refused():
    rules = make_rules("classic").replace(players=2)
    report = match_luck(rules, ["random", "expert"], 0, 0, noise_value(2, 1))
    assert report.points is None
    with pytest.raises(ValueError, match="fitted value"):
        luck_skill_frame(report, pd.DataFrame(columns=["hand", "seat", "points_lost"]), ["random", "expert"])
    assert isinstance(noise_value(2, 1), LinearValue)
