"""The compiled tally loops give the sums of whole-array numpy passes, value for value."""

from __future__ import annotations

import numpy as np
import pytest

from nines_sim.compiled import CompiledEngine
from nines_sim.registry import make_lineup
from nines_sim.results import BLOCKED, CAPPED
from nines_sim.rules import make_rules
from nines_sim.tally import SHARE_UNIT, Tally, _hist_rows, _seat_sums, _share_sums


def _numpy_shares(s: np.ndarray) -> tuple:
    return (
        s.sum(axis=0),
        s.T @ s,
        (s == SHARE_UNIT).sum(axis=0),
        (s > 0).sum(axis=0),
        (s[:, :, None] > s[:, None, :]).sum(axis=0),
    )


def _numpy_hist(values: np.ndarray) -> np.ndarray:
    n_bins = int(values.max(initial=0)) + 1
    return np.stack([np.bincount(values[:, p], minlength=n_bins) for p in range(values.shape[1])])


@pytest.mark.parametrize("players", [2, 3, 6])
@pytest.mark.parametrize("n", [0, 1, 500])
def test_compiled_tally_loops_equal_numpy_sums(players, n):
    rng = np.random.default_rng(players * 1000 + n)
    # shares as the engine makes them: one winner, or a tie shared by 2 or 3 seats
    s = np.zeros((n, players), dtype=np.int64)
    for i in range(n):
        k = rng.integers(1, min(3, players) + 1)
        s[i, rng.choice(players, size=k, replace=False)] = SHARE_UNIT // k
    for got, want in zip(_share_sums(s), _numpy_shares(s)):
        assert got.dtype == np.int64 and np.array_equal(got, want)

    totals = rng.integers(0, 180, size=(n, players))
    penalty = rng.integers(0, 90, size=(3 * n, players))
    outcome = rng.choice(np.array([BLOCKED, CAPPED, *range(players)]), size=3 * n)
    dealer = rng.integers(0, players, size=3 * n)
    total_sum, total_sq, penalty_sum, go_outs, from_dealer, blocked, capped = _seat_sums(
        totals, penalty, outcome, dealer
    )
    out = outcome >= 0
    assert np.array_equal(total_sum, totals.sum(axis=0)) and np.array_equal(total_sq, (totals**2).sum(axis=0))
    assert np.array_equal(penalty_sum, penalty.sum(axis=0))
    assert np.array_equal(go_outs, np.bincount(outcome[out], minlength=players))
    assert np.array_equal(from_dealer, np.bincount((outcome[out] - dealer[out]) % players, minlength=players))
    assert (blocked, capped) == ((outcome == BLOCKED).sum(), (outcome == CAPPED).sum())
    assert np.array_equal(_hist_rows(totals), _numpy_hist(totals))
    assert np.array_equal(_hist_rows(penalty), _numpy_hist(penalty))


def test_a_tally_of_real_matches_counts_every_hand_and_share():
    # shared wins and blocked hands both occur under these rules within a few hundred matches
    rules = make_rules("classic", players=3, tie_rule="share", target=30)
    res = CompiledEngine(rules, make_lineup(["random", "hold-nines", "expert"]), 2, 0, 400).run()
    t = Tally.from_results(res)
    s = np.rint(res.win_share * SHARE_UNIT).astype(np.int64)
    assert t.matches == 400 and t.wins60.sum() == 400 * SHARE_UNIT
    assert (s % SHARE_UNIT != 0).any()  # the shared wins are there to count
    assert np.array_equal(t.beats, (s[:, :, None] > s[:, None, :]).sum(axis=0))
    hr = res.hand_records
    assert t.hands == len(hr) and t.blocked == int((hr.outcome == BLOCKED).sum())
    assert t.go_outs.sum() + t.blocked + t.capped == t.hands
    assert np.array_equal(t.penalty_hist, _numpy_hist(hr.penalty))
