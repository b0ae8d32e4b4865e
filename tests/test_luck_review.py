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


def test_review_luck_writes_the_table_with_net_luck_per_hand(tmp_path):
    """``nines review STRATEGY --luck`` writes luck_skill.csv: every hand's luck zero across the seats, the
    reviewed seat's skill minus its decisions' points lost, and says the split on the terminal."""
    from typer.testing import CliRunner

    from nines_sim.cli import app

    out = tmp_path / "review"
    args = ["review", "dump-faces", "--against", "expert", "-n", "1", "--samples", "4", "--luck", "--no-charts",
            "--workers", "1", "--out", str(out)]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out / "luck_skill.csv")
    hands = table[table["hand"] > 0]
    np.testing.assert_allclose(hands.groupby(["match", "hand"])["luck"].sum(), 0.0, atol=1e-6)
    lost = pd.read_csv(out / "review.csv").groupby("hand")["points_lost"].sum()
    skill = hands[hands["seat"] == 0].set_index("hand")["skill"]
    np.testing.assert_allclose(-skill.reindex(lost.index), lost, atol=1e-6)
    assert "luck and skill of seat 0 (dump-faces)" in result.output
    # no luck of '-0' points (a user's probe): no random seat, so every luck_choice is a zero, written 0
    cells = [c for line in (out / "luck_skill.csv").read_text().splitlines() for c in line.split(",")]
    assert "0" in cells and "-0" not in cells


def test_review_luck_refuses_a_saved_match_in_one_line(tmp_path):
    from typer.testing import CliRunner

    from nines_sim.cli import app

    saved = tmp_path / "m.json"
    saved.write_text("{}")
    result = CliRunner().invoke(app, ["review", str(saved), "--luck"])
    assert result.exit_code == 2 and "give no --luck" in result.output
