"""The compiled tally loops give the sums of whole-array numpy passes, value for value."""

from __future__ import annotations

import numpy as np
import pytest

from nines_sim.engine.batch import CompiledEngine
from nines_sim.game.rules import make_rules
from nines_sim.results.records import BLOCKED, CAPPED
from nines_sim.results.tally import SHARE_UNIT, Tally, _hist_rows, _seat_sums, _share_sums
from nines_sim.strategy.registry import make_lineup


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


def _numpy_tally(res) -> dict:
    """Every field of a :class:`Tally` of ``res`` by whole-array numpy passes (the tally before compiled loops)."""
    s = np.rint(res.win_share * SHARE_UNIT).astype(np.int64)
    hr = res.hand_records
    P = res.totals.shape[1]
    totals = res.totals.astype(np.int64)
    out = hr.outcome >= 0
    seat, dealer = hr.outcome[out].astype(np.int64), hr.dealer[out].astype(np.int64)
    wins60, xprod, outright, anyshare, beats = _numpy_shares(s)
    return {
        "players": P, "matches": len(s), "wins60": wins60, "share_xprod": xprod, "wins_outright": outright,
        "wins_any": anyshare, "beats": beats, "total_sum": totals.sum(axis=0), "total_sq": (totals**2).sum(axis=0),
        "total_hist": _numpy_hist(totals), "hands": len(hr), "turns": int(hr.turns.sum()),
        "drawn": int(hr.drawn.sum()), "reshuffles": int(hr.reshuffles.sum()),
        "nine_starters": int(hr.nine_starter.sum()), "blocked": int((hr.outcome == BLOCKED).sum()),
        "capped": int((hr.outcome == CAPPED).sum()), "tiebreak_hands": int(res.tiebreak_hands.sum()),
        "go_outs": np.bincount(seat, minlength=P), "go_outs_from_dealer": np.bincount((seat - dealer) % P, minlength=P),
        "penalty_sum": hr.penalty.astype(np.int64).sum(axis=0), "penalty_hist": _numpy_hist(hr.penalty),
    }  # fmt: skip


# Shared wins (S4 share), capped hands (T8), tie-break hands (S4 playoff), two decks (V4), and the blocked hands
# (T7) of a 2-seat no-play circle with a cap of 2 turns
REAL_RULES = [
    ("free-nines", {"players": 6, "target": 15, "turn_cap": 6}),
    ("double-nines", {"players": 5, "target": 20, "turn_cap": 40}),
    ("classic", {"players": 2, "fixed_hands": 1, "turn_cap": 3, "hand_sizes": (2, 2, 2, 2, 2)}),
    ("free-nines", {"players": 2, "turn_cap": 2, "fixed_hands": 3, "hand_sizes": (3, 3, 3, 3, 3)}),
]


@pytest.mark.parametrize("preset,over", REAL_RULES, ids=[p for p, _ in REAL_RULES])
def test_every_field_of_a_tally_of_real_matches_equals_numpy_sums(preset, over):
    rules = make_rules(preset, **over)
    lineup = make_lineup(["random", "expert", "hold-nines", "dump-faces", "suit-majority", "expert"][: rules.players])
    res = CompiledEngine(rules, lineup, 3, 0, 150).run()
    t, want = Tally.from_results(res), _numpy_tally(res)
    for name, value in want.items():
        got = getattr(t, name)
        assert np.array_equal(got, value), name
        assert not isinstance(got, np.ndarray) or got.dtype == np.int64, name
    # halves merge to the whole, in either order
    halves = [Tally.from_results(CompiledEngine(rules, lineup, 3, s, 75).run()) for s in (0, 75)]
    for merged in (halves[0] + halves[1], halves[1] + halves[0]):
        for name in want:
            assert np.array_equal(getattr(merged, name), getattr(t, name)), name


def test_the_real_matches_above_reach_shared_wins_blocks_caps_and_tie_breaks():
    seen = {"shared": 0, "blocked": 0, "capped": 0, "tiebreak": 0}
    for preset, over in REAL_RULES:
        rules = make_rules(preset, **over)
        lineup = make_lineup(
            ["random", "expert", "hold-nines", "dump-faces", "suit-majority", "expert"][: rules.players]
        )
        t = Tally.from_results(CompiledEngine(rules, lineup, 3, 0, 150).run())
        seen["shared"] += int((t.wins_any - t.wins_outright).sum())
        seen["blocked"] += t.blocked
        seen["capped"] += t.capped
        seen["tiebreak"] += t.tiebreak_hands
    assert all(v > 0 for v in seen.values()), seen
