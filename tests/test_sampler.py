"""The hidden-card sampler: consistent with the observation; like the deal where nothing is revealed."""

from __future__ import annotations

import functools
from itertools import combinations
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nines_sim.engine.batch import CompiledEngine
from nines_sim.game.cards import N_FACES, NINES
from nines_sim.game.rules import make_rules
from nines_sim.game.tables import penalty_points
from nines_sim.search.position import Position, PositionBatch, positions_from_engine
from nines_sim.search.sampler import sample_positions
from nines_sim.strategy.base import DecisionKind
from nines_sim.strategy.registry import make_lineup
from tests.position_seats import PositionSeats


def _position_at(rules, lineup, seed: int, match: int, turns: int) -> PositionBatch:
    """Match ``match``'s first hand at the start of turn ``turns``, or of an earlier turn where the hand ends first."""
    while True:
        eng = CompiledEngine(rules, lineup, seed, match, 1, trace=True)
        eng.stop_at(0, turns)
        while eng.B and not eng.paused:
            eng.advance()
        if eng.paused:
            return positions_from_engine(eng)
        turns //= 2


def _observe_after(preset: str, seed: int, n: int, turns: int):
    rules = make_rules(preset)
    lineup = make_lineup(["expert"] * rules.players)
    batches = [_position_at(rules, lineup, seed, m, turns) for m in range(n)]
    eng = PositionSeats(PositionBatch.from_positions([b.position(0) for b in batches]), lineup)
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
    pe = PositionSeats(batch, make_lineup(["expert"] * P))
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


def _never_played_unseen(obs, eng_hands_own):
    """Faces the player cannot see that were never played this hand: bool, (n, 52)."""
    bits = np.arange(N_FACES, dtype=np.uint64)
    own = ((eng_hands_own[:, None] >> bits) & np.uint64(1)) == 1
    pile = ((obs.pile[0][:, None] >> bits) & np.uint64(1)) == 1
    played = ((obs.played[:, None] >> bits) & np.uint64(1)) == 1
    top = np.arange(N_FACES)[None, :] == obs.top[:, None]
    return ~(own | pile | played | top)


@pytest.mark.parametrize("infer", [0.0, 1.0])
def test_T5_after_a_reshuffle_never_played_cards_are_in_hands_in_the_deal_and_in_every_sample(infer):
    # The stock is empty when the pile is shuffled into it, so a face never played this hand cannot
    # be in the stock after a reshuffle.  Checked first on the engine's true state, then on samples
    # (with draw inference too: its swaps between the 4-seat table's hands and the stock keep the rule).
    eng, obs = _observe_after("draw-until-playable", 5, 64, 30)
    live = obs.public("reshuffles") > 0
    assert live.sum() >= 10  # enough games that did reshuffle
    rows = np.arange(obs.n)
    never = _never_played_unseen(obs, obs.hand[0]) & live[:, None]
    stock_faces = np.zeros((obs.n, N_FACES), dtype=bool)
    for b in range(obs.n):
        stock_faces[b, eng.stock[b, eng.stock_pos[b] : eng.stock_end[b]]] = True
    assert never.any() and not (never & stock_faces).any()
    K = 8
    batch = sample_positions(obs, K, infer=infer)
    a = batch.arrays
    g = np.repeat(rows, K)
    for r in range(obs.n * K):
        in_stock = a["stock"][r, : a["stock_end"][r]]
        assert not never[g[r], in_stock].any()
    # and the unseen never-played faces do sit in the other hands of every sample
    others = np.bitwise_or.reduce(np.where(np.arange(obs.players)[None, :] != obs.seat[g, None], a["hands"][0], 0),
                                  axis=1)  # fmt: skip
    held = ((others[:, None] >> np.arange(N_FACES, dtype=np.uint64)) & np.uint64(1)) == 1
    assert (held | ~never[g]).all()


def test_T1_draws_make_the_suits_drawn_on_rarer_in_that_hand_as_in_the_true_deal():
    # Heads-up after some turns: count the opponent's cards of a suit it drew on, or 9s once it drew.
    # The true hands hold fewer than uniform samples do (a drawer held none then); inference moves the
    # samples towards the truth.
    n = 600
    eng, obs = _observe_after("classic", 77, n, 24)
    rows = np.arange(n)
    opp = 1 - obs.seat
    drew = obs.drew_on[rows, opp]
    suit = np.repeat(np.arange(4), 13)
    flagged = ((drew[:, None] >> suit[None, :]) & 1).astype(bool) | ((drew[:, None] != 0) & (np.arange(52) % 13 == 8))
    keep = drew != 0
    assert keep.sum() > 100

    def count(hand_words):
        held = ((hand_words[:, None] >> np.arange(N_FACES, dtype=np.uint64)) & np.uint64(1)) == 1
        return (held & flagged[np.repeat(rows, hand_words.shape[0] // n)]).sum(axis=1).astype(float)

    true = count(eng.hands[0][rows, opp])[keep]
    K = 16
    g = np.repeat(rows, K)
    plain = count(sample_positions(obs, K).arrays["hands"][0][np.arange(n * K), opp[g]]).reshape(n, K).mean(axis=1)
    inferred = count(sample_positions(obs, K, infer=0.8).arrays["hands"][0][np.arange(n * K), opp[g]])
    inferred = inferred.reshape(n, K).mean(axis=1)
    plain, inferred = plain[keep], inferred[keep]
    se = np.sqrt(true.var() / true.size + plain.var() / plain.size)
    assert true.mean() < plain.mean() - 3 * se
    assert inferred.mean() < plain.mean() - 3 * np.sqrt(inferred.var() / inferred.size + plain.var() / plain.size)


def _drew_on_hearts(players: int, drawer: int) -> tuple[object, int]:
    """Seat 0 to move at a classic table; ``drawer`` drew while hearts were active (and holds no heart, no 9).

    Returns the observation and the faces (bitmask) that draw makes rarer in the drawer's hand.
    """
    rules = make_rules("classic", players=players)
    top = 47  # 9S, declared hearts
    flagged = [f for f in range(N_FACES) if f // 13 == 2 or f % 13 == 8]
    rest = [f for f in np.random.default_rng(players * 10 + drawer).permutation(N_FACES).tolist() if f != top]
    drawer_hand = [f for f in rest if f not in flagged][:7]
    rest = [f for f in rest if f not in drawer_hand]
    hands = []
    for s in range(players):
        hands.append(tuple(drawer_hand) if s == drawer else tuple(rest[:7]))
        rest = rest if s == drawer else rest[7:]
    drew = tuple(4 if s == drawer else 0 for s in range(players))  # bit 2: hearts
    pos = Position(rules, tuple(hands), tuple(rest), (), top, 2, seat=0, dealer=players - 1, drew_on=drew, turn=players)
    eng = PositionSeats(PositionBatch.from_positions([pos]), make_lineup(["expert"] * players))
    idx = np.zeros(1, dtype=np.int64)
    legal = eng.hands[0][idx, eng.seat] & eng.legal_tab[eng.top * 4 + eng.active]
    mask = sum(1 << f for f in flagged if f not in hands[0] and f != top)
    return eng.observe(idx, eng.seat.copy(), DecisionKind.PLAY, legal), mask


@pytest.mark.parametrize("players, drawer", [(p, d) for p in (3, 4, 6) for d in range(1, p)])
def test_T1_every_seat_s_sampled_hand_follows_its_own_draws_whatever_its_place_in_the_deal(players, drawer):
    # The law aimed at: a deal's probability is proportional to the product of the hands' card weights.
    # Only the drawer's weights differ from 1 here (eps on the F unseen hearts and 9s), so the number m of
    # them in its h cards has P(m) ~ eps^m C(F, m) C(N - F, h - m), and given that hand the other hands and
    # the stock share the rest uniformly.  The first version gave the drawer a heart or a 9 in 7-83% of
    # samples when it was not the first seat dealt (0.2% heads-up).
    K = 4000
    obs, mask = _drew_on_hearts(players, drawer)
    hands = sample_positions(obs, K, infer=1.0).arrays["hands"][0]
    F = bin(mask).count("1")
    N = int(obs.stock_size[0] + obs.hand_sizes[0].sum() - obs.hand_sizes[0, 0])
    h = int(obs.hand_sizes[0, drawer])
    eps = 1e-3
    m = np.arange(h + 1)
    pm = eps**m * np.array([comb(F, int(i)) * comb(N - F, h - int(i)) for i in m], dtype=float)
    pm /= pm.sum()
    flagged = np.bitwise_count(hands & np.uint64(mask)).astype(float)  # (K, P)
    p_any = 1 - pm[0]
    share = (flagged[:, drawer] > 0).mean()
    assert abs(share - p_any) < 4 * np.sqrt(p_any * (1 - p_any) / K) + 1 / K, (share, p_any)
    for s in range(1, players):
        if s != drawer:
            expect = obs.hand_sizes[0, s] * (F - (m * pm).sum()) / (N - h)
            got = flagged[:, s]
            assert abs(got.mean() - expect) < 4 * got.std(ddof=1) / np.sqrt(K), (s, got.mean(), expect)


def _exact_marginals(weight: np.ndarray, sizes: list[int], n_cards: int) -> np.ndarray:
    """P(card c is in seat s's hand) under the product law, by enumerating every deal: (P, n_cards)."""
    out = np.zeros((len(sizes), n_cards))
    total = 0.0

    def deal(seat: int, left: tuple[int, ...], w: float, held: list[tuple[int, ...]]) -> None:
        nonlocal total
        if seat == len(sizes):
            total += w
            for s, hand in enumerate(held):
                out[s, list(hand)] += w
            return
        for hand in combinations(left, sizes[seat]):
            rest = tuple(c for c in left if c not in hand)
            deal(seat + 1, rest, w * float(np.prod([weight[seat, c] for c in hand])), [*held, hand])

    deal(0, tuple(range(n_cards)), 1.0, [])
    return out / total


@pytest.mark.parametrize("seed", [1, 2])
def test_with_several_seats_weighed_the_deal_follows_the_product_of_the_hands_weights(seed):
    # Three hidden seats (the own seat 0 deals nothing) with their own weights in (0.05, 1) on 9 unseen
    # cards, 2 each in hand and 3 in the stock: each seat's share of each card, against the exact law.
    from nines_sim.search.sample_deal import deal_samples, purpose_word
    from nines_sim.search.sampler import SAMPLE_CARDS, SAMPLE_SWAPS, SWEEPS

    r = np.random.default_rng(seed)
    faces = np.sort(r.choice(N_FACES, 9, replace=False))
    w_cards = r.uniform(0.05, 1.0, (3, 9))
    weight = np.ones((1, 4, N_FACES))
    weight[0, 1:, faces] = w_cards.T
    unseen = np.zeros((1, N_FACES), dtype=np.int64)
    unseen[0, faces] = 1
    sizes = np.array([[0, 2, 2, 2]], dtype=np.int64)
    K = 20000
    hands = np.zeros((1, K, 4), dtype=np.uint64)
    stock = np.zeros((K, N_FACES), dtype=np.int8)
    deal_samples(np.array([seed], dtype=np.uint64), purpose_word(SAMPLE_CARDS), K, unseen,
                 np.zeros((1, N_FACES), dtype=bool), weight, sizes, np.array([3]), hands, stock,
                 purpose_word(SAMPLE_SWAPS), SWEEPS, np.full((1, 4, N_FACES), -1), 1, 0,
                 np.zeros(3, dtype=np.uint64), np.zeros((1, 3), dtype=np.int64))  # fmt: skip
    exact = _exact_marginals(w_cards, [2, 2, 2], 9)
    got = ((hands[0][:, 1:, None] >> faces.astype(np.uint64)) & np.uint64(1)).mean(axis=0)  # (3, 9)
    se = np.sqrt(exact * (1 - exact) / K)
    assert (np.abs(got - exact) < 4.5 * se).all(), np.round(got - exact, 4)


@functools.cache
def _asked_of_the_full_sampler() -> dict[str, list[str]]:
    """The signatures each helper of :mod:`~nines_sim.search.sample_deal` and :mod:`~nines_sim.search.swaps` is asked
    for when the full form of the sampler (steps 1-3, the count bounds) is typed again (its one signature: a
    counted sample compiles or loads it first), by name; typed once for the tests that read it."""
    from nines_sim.search import sample_deal, swaps
    from tests.signatures import signatures_asked

    _, obs = _observe_after("classic", 3, 2, 10)
    sample_positions(obs, 2, counts=True)  # compiles the sampler, or loads it from the cache
    (signature,) = sample_deal.deal_samples.signatures
    return signatures_asked([(sample_deal.deal_samples, signature)], [sample_deal, swaps])


def test_the_sampler_s_helpers_are_compiled_once_each():
    """Each helper of the sampler is compiled for one signature (issue 42): a count that began as the literal 0 made
    numba compile every helper it reached twice, once for the constant 0, which no call uses (a third of the
    sampler's compile).  The signatures each helper is asked for while the sampler is typed again (as a compile of
    it asks them, its helpers typed again too where they were loaded from the cache) are counted, not timed."""
    asked = _asked_of_the_full_sampler()
    assert {"_split_unseen", "_swap_step", "_deal_hands", "count_ages"} <= {f for f, sigs in asked.items() if sigs}
    assert all(len(sigs) <= 1 for sigs in asked.values()), asked


#: Step 3 of the deal and the count bounds' helpers (:func:`nines_sim.search.sample_deal._swap_step` reaches them).
STEP_3 = {"_swap_step", "_swap_weights", "repair", "rotate", "count_ages", "within_bounds"}


def test_a_table_with_one_hidden_seat_deals_on_a_form_without_step_3_and_the_same_samples(monkeypatch):
    """Heads-up with no count bounds step 3 never runs (one hidden seat), yet a first heads-up ``lookahead`` table or
    ``nines train`` compiled it and the bounds' code with it (about 4 s of processor time of the sampler's 9-12):
    such a table deals on a form without them (issue 42), whose samples are the full form's, byte for byte.
    Counted from the signatures numba's typing asks, not timed."""
    from nines_sim.search import sample_deal, sampler, swaps
    from tests.signatures import signatures_asked

    rules = make_rules("classic", players=2)
    lineup = make_lineup(["expert", "expert"])
    eng = PositionSeats(PositionBatch.from_positions([_position_at(rules, lineup, 4, m, 6).position(0)
                                                     for m in range(5)]), lineup)  # fmt: skip
    obs = eng.observe(np.arange(eng.B), eng.seat.copy(), DecisionKind.PLAY)
    light = sample_positions(obs, 16, infer=1.0).arrays
    monkeypatch.setattr(sampler, "deal_samples_one_hidden", sample_deal.deal_samples)
    full = sample_positions(obs, 16, infer=1.0).arrays
    for name in ("hands", "stock"):
        assert all(np.array_equal(a, b) for a, b in zip(light[name], full[name], strict=True)), name
    form = sample_deal.deal_samples_one_hidden
    asked = signatures_asked([(form, sig) for sig in form.signatures], [sample_deal, swaps])
    assert "_deal_hands" in asked and not STEP_3 & set(asked), sorted(asked)
    assert STEP_3 <= set(_asked_of_the_full_sampler())


def test_nines_warm_up_builds_both_forms_of_the_sampler():
    """``nines warm-up``'s search form plays a 3-seat ``lookahead`` table and a heads-up one, so that both forms of
    the sampler are built (the heads-up table's has no step 3): counted from the signatures each was asked for."""
    from nines_sim.engine.build_forms import FORMS, build
    from nines_sim.search import sample_deal

    assert len(FORMS["search"][1]) == 3
    build("search")
    assert len(sample_deal.deal_samples.overloads) == 1 and len(sample_deal.deal_samples_one_hidden.overloads) == 1


def test_a_weighted_draw_takes_each_card_as_often_as_drawing_by_weight_without_replacement_does():
    """Two cards drawn one after the other, each with probability in proportion to its weight among those left (the
    sampler's step 1 and its hands' draws): each card's chance to be among the two is the exact one, within five
    standard errors over 60,000 draws.  The weight left in the pool must lose the drawn card's weight: losing the
    weight of the card swapped into its place made a card shown lacking come up four times too often."""
    from nines_sim.search.sample_deal import _pick

    w = np.zeros(52)
    w[:6] = [0.03, 0.2, 0.5, 1.0, 1.0, 1.0]
    total = w.sum()
    exact = [w[i] / total + sum(w[j] / total * w[i] / (total - w[j]) for j in range(6) if j != i) for i in range(6)]
    n = 60_000
    xs = np.random.default_rng(4).integers(0, 2**64, size=(n, 2), dtype=np.uint64)
    seen = np.zeros(6)
    for x in xs:
        ids = np.arange(6, dtype=np.int64)
        left = _pick(ids, 0, 6, w, False, x[0], total)
        _pick(ids, 1, 6, w, False, x[1], left)
        seen[ids[:2]] += 1
    se = np.sqrt(np.array(exact) * (1 - np.array(exact)) / n)
    np.testing.assert_array_less(np.abs(seen / n - exact), 5 * se)
