"""The hidden-card sampler: consistent with the observation; like the deal where nothing is revealed."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nines_sim.cards import N_FACES, NINES
from nines_sim.engine import BatchEngine, penalty_points
from nines_sim.position import PositionEngine
from nines_sim.registry import make_lineup
from nines_sim.rules import make_rules
from nines_sim.sampler import sample_positions
from nines_sim.strategy import DecisionKind


def _observe_after(preset: str, seed: int, n: int, turns: int):
    rules = make_rules(preset)
    eng = BatchEngine(rules, make_lineup(["expert"] * rules.players), seed, 0, n, batch_size=n)
    eng.start_run()
    for _ in range(turns):
        eng.advance()
    idx = np.arange(eng.B)
    return eng, eng.observe(idx, eng.seat.copy(), DecisionKind.PLAY)


@settings(max_examples=12, deadline=None)
@given(
    preset=st.sampled_from(["classic", "hard-nines", "double-nines+skip-reverse"]),
    seed=st.integers(0, 2**32),
    turns=st.integers(0, 40),
    samples=st.integers(1, 5),
)
def test_samples_keep_the_own_hand_the_pile_and_every_public_size(preset, seed, turns, samples):
    eng, obs = _observe_after(preset, seed, 6, turns)
    batch = sample_positions(obs, samples)
    a = batch.arrays
    n, K, P, D = obs.n, samples, obs.players, eng.D
    g = np.repeat(np.arange(n), K)
    seat = obs.seat[g]
    rows = np.arange(n * K)
    for d in range(D):
        assert np.array_equal(a["hands"][d][rows, seat], obs.hand[d][g])
        assert np.array_equal(a["under"][d], obs.pile[d][g])
    assert np.array_equal(a["ncards"], obs.hand_sizes[g])
    assert np.array_equal(a["stock_end"] - a["stock_pos"], obs.stock_size[g])
    # hand sizes as dealt agree with the public sizes, seat by seat
    held = np.zeros((n * K, P), dtype=np.int64)
    for d in range(D):
        held += np.bitwise_count(a["hands"][d]).astype(np.int64)
    assert np.array_equal(held, obs.hand_sizes[g])
    # every physical card exactly once: so no sampled card repeats the own hand or the pile
    pe = PositionEngine(batch, make_lineup(["expert"] * P))
    assert (pe.card_counts() == D).all()


def test_at_the_deal_samples_cannot_be_told_from_the_true_hidden_cards():
    # At turn 0 nothing about the opponent's hand is public beyond its size: the true deal is
    # uniform given the observation, so every statistic of the sampled hand must have the same mean.
    n = 3000
    eng, obs = _observe_after("classic", 2024, n, 0)
    batch = sample_positions(obs, 1)
    opp = 1 - obs.seat
    rows = np.arange(n)
    true_hand = [w[rows, opp] for w in eng.hands]
    sampled = [w[rows, opp] for w in batch.arrays["hands"]]
    stats = {
        "penalty": lambda h: penalty_points(h, 15),
        "nines": lambda h: np.bitwise_count(h[0] & np.uint64(NINES)),
        "first stock card is a 9": None,
    }
    for name, fn in stats.items():
        if fn is None:
            t = (eng.stock[rows, eng.stock_pos] % 13 == 8).astype(float)
            s = (batch.arrays["stock"][:, 0] % 13 == 8).astype(float)
        else:
            t, s = fn(true_hand).astype(float), fn(sampled).astype(float)
        se = np.sqrt(t.var() / n + s.var() / n)
        assert abs(t.mean() - s.mean()) < 4 * se, name
    # and per face: the share of games where it sits in the opponent's hand
    bits = np.arange(N_FACES, dtype=np.uint64)
    t = ((true_hand[0][:, None] >> bits) & np.uint64(1)).mean(axis=0)
    s = ((sampled[0][:, None] >> bits) & np.uint64(1)).mean(axis=0)
    p = (t + s) / 2
    se = np.sqrt(2 * p * (1 - p) / n) + 1e-12
    assert (np.abs(t - s) < 4.5 * se).all()


def test_the_same_decision_draws_the_same_samples():
    _, obs = _observe_after("classic", 9, 4, 7)
    a = sample_positions(obs, 3).arrays
    b = sample_positions(obs, 3).arrays
    c = sample_positions(obs, 3, salt=1).arrays
    assert np.array_equal(a["stock"], b["stock"]) and np.array_equal(a["hands"][0], b["hands"][0])
    assert not np.array_equal(a["stock"], c["stock"])
