"""Review's intervals on mean points lost are taken by match (issue 38): a match's decisions move together."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from nines_sim.experiments.review.report import by_kind, by_situation, clusters, mean_lost_interval

#: Simulated reviews: matches of 10 to 40 decisions; in each match a decision loses points with the match's
#: own chance (Beta(4, 16), mean 0.2), an exponential loss of the match's own scale (3 e^N(0, 0.3)), so the
#: decisions of a match are correlated (as a review's are: the same deal, opponents and score).
MATCHES = 200
CHANCE = (4, 16)
SCALE_SD = 0.3
TRUE_MEAN = CHANCE[0] / sum(CHANCE) * 3 * math.exp(SCALE_SD**2 / 2)


def _review(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Points lost per decision, float64 (n,), and each decision's match, int64 (n,)."""
    sizes = rng.integers(10, 41, MATCHES)
    chance = rng.beta(*CHANCE, MATCHES)
    scale = 3 * np.exp(rng.normal(0, SCALE_SD, MATCHES))
    match = np.repeat(np.arange(MATCHES), sizes)
    lost = (rng.random(sizes.sum()) < chance[match]) * rng.exponential(scale[match])
    return lost, match


def test_the_interval_by_match_covers_at_its_rate_where_the_decisions_one_did_not():
    """Over 1,000 simulated reviews of 200 matches (the size of the docs' reviews) the interval by match covers
    the true mean at about 95% (3 standard errors of the coverage estimate); the old one, the normal interval
    over the decisions as if independent, covers in about 85%."""
    rng = np.random.default_rng(38)
    runs = 1000
    new = old = 0
    for _ in range(runs):
        lost, match = _review(rng)
        mean, low, high = mean_lost_interval(lost, match)
        new += low <= TRUE_MEAN <= high
        half = 1.96 * lost.std(ddof=1) / math.sqrt(len(lost))  # the old interval
        old += abs(mean - TRUE_MEAN) <= half
    se = math.sqrt(0.95 * 0.05 / runs)
    assert abs(new / runs - 0.95) < 3 * se, new / runs
    assert old / runs < 0.95 - 5 * se, old / runs  # measurably short (about 0.85)


def test_no_interval_on_points_lost_goes_below_zero():
    # one costly decision in one match of many: the symmetric interval would reach below 0
    lost = np.zeros(200)
    lost[3] = 12.0
    match = np.repeat(np.arange(20), 10)
    mean, low, high = mean_lost_interval(lost, match)
    assert mean == 0.06 and low == 0.0 and high > 2 * mean


def _decisions(rng: np.random.Generator, matches: int) -> pd.DataFrame:
    lost, match = _review(rng)
    keep = match < matches
    n = int(keep.sum())
    return pd.DataFrame({
        "match": match[keep], "hand": rng.integers(1, 5, n), "points_lost": lost[keep],
        "kind": np.where(rng.random(n) < 0.8, "play", "declare"), "accurate": lost[keep] == 0,
        "verdict": np.where(lost[keep] == 0, "ok", "inaccuracy"), "opponent_about_to_go_out": rng.random(n) < 0.1,
        "holding_nines": rng.random(n) < 0.3, "phase": np.where(rng.random(n) < 0.3, "early", "late"),
    })  # fmt: skip


def test_the_tables_take_their_intervals_by_match_or_by_hand_in_a_single_match():
    d = _decisions(np.random.default_rng(1), 30)
    assert clusters(d) == ["match"]
    row = by_kind(d).iloc[-1]
    assert row["group"] == "all decisions"
    got = mean_lost_interval(d["points_lost"].to_numpy(), d["match"].to_numpy())
    assert (row["mean_lost"], row["low"], row["high"]) == pytest.approx(got, rel=1e-12)
    assert (by_situation(d)["low"] >= 0).all()
    one = d[d["match"] == 0]  # a saved game: one match, its hands are the clusters
    assert clusters(one) == ["match", "hand"]
    row = by_kind(one).iloc[-1]
    hands = one["hand"].to_numpy()
    got = mean_lost_interval(one["points_lost"].to_numpy(), np.unique(hands, return_inverse=True)[1])
    assert (row["mean_lost"], row["low"], row["high"]) == pytest.approx(got, rel=1e-12)
    # a cluster alone gives no interval
    mean, low, high = mean_lost_interval(np.array([1.0, 2.0]), np.array([0, 0]))
    assert mean == 1.5 and math.isnan(low) and math.isnan(high)


def test_a_row_without_an_interval_says_why_on_screen_and_in_the_report():
    from types import SimpleNamespace

    from nines_sim.experiments.review.report import _table, terminal_lines

    d = _decisions(np.random.default_rng(1), 30)
    one_hand = d[(d["match"] == 0) & (d["hand"] == d["hand"].iloc[0])]  # a saved game of one hand
    assert len(one_hand) > 1 and clusters(one_hand) == ["match", "hand"]
    shown = terminal_lines(SimpleNamespace(decisions=one_hand, seconds=1.0, speed=1.0, note=None))
    rows = [line for line in shown if line.startswith("  ")]
    # every row's interval place says why it is empty (it was blank): a single hand has no spread to measure
    assert rows and all("n/a (1 hand)" in line for line in rows), shown
    table = _table(by_kind(one_hand), "by hand")[2:]
    assert table and all("n/a (1 hand)" in line for line in table), table
    # with two matches or more a row seen in only one of them says so by match
    two = d[d["match"] < 2].assign(kind=lambda x: np.where(x["match"] == 0, "play", "declare"))
    assert all("n/a (1 match)" in line for line in _table(by_kind(two), "by match")[2:4])
    assert "n/a" not in _table(by_kind(two), "by match")[4]  # the "all decisions" row has both matches
