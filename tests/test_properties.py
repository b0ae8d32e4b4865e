"""Properties over many random hands, for every preset and 2-6 players.

After every step each card is in exactly one place; the engine offers exactly
the cards an independent reading of T1/V5/V6 allows and every move played is
one of them; totals never fall; matches end exactly as S2/S3 say.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nines_sim.engine.batch import CompiledEngine
from nines_sim.game.cards import FACE_RANK, FACE_SUIT, NINE_RANK, faces_of
from nines_sim.game.rules import PRESETS, RulesError, make_rules
from nines_sim.strategy.base import PAIR_OF_NINES, Observation, Strategy
from nines_sim.strategy.registry import make_lineup
from tests.position_seats import card_counts


def independent_legal(rules, held: int, n_cards: int, top: int, active: int) -> set[int]:
    """T1 with V5 and V6, card by card."""
    out = set()
    for f in faces_of(held):
        nine = FACE_RANK[f] == NINE_RANK
        if nine:
            ok = rules.nine_on_nine or FACE_RANK[top] != NINE_RANK
            ok = ok and not (rules.no_nine_out and n_cards == 1)
        else:
            ok = FACE_SUIT[f] == active or (FACE_RANK[f] == FACE_RANK[top] and FACE_RANK[top] != NINE_RANK)
        if ok:
            out.add(f)
    return out


class Checked(Strategy):
    """Wraps a strategy and checks each play decision against the independent rules."""

    classifier = {"stochastic": True, "uses_public_history": False, "plays_pair_of_nines": True}

    def __init__(self, inner: Strategy, rules):
        self.inner, self.rules, self.name, self.checked = inner, rules, inner.name, 0

    def play(self, obs: Observation) -> np.ndarray:
        moves = np.asarray(self.inner.play(obs))
        sizes = obs.hand_sizes[np.arange(obs.n), obs.seat]
        for j in range(obs.n):
            expect = independent_legal(
                self.rules, int(obs.held[j]), int(sizes[j]), int(obs.top[j]), int(obs.active_suit[j])
            )
            assert set(faces_of(int(obs.legal[j]))) == expect
            assert moves[j] in expect or (moves[j] == PAIR_OF_NINES and obs.pair_legal[j])
        self.checked += obs.n
        return moves

    def declare(self, obs: Observation) -> np.ndarray:
        return self.inner.declare(obs)

    def play_drawn(self, obs: Observation, card: np.ndarray) -> np.ndarray:
        return self.inner.play_drawn(obs, card)


#: Every preset at every table size, but fixed-hands-5: its seed (below) is fixed-hands-7's, and a fixed-hands match
#: deals the hands of the same seed's match whatever N (S3), so that its 150 matches were fixed-hands-7's first five
#: hands, checked there step by step, and one tie-break hand (S4, checked under every other preset); S3's count of
#: hands is checked at 7 and at 10.
COMBOS = [(preset, p) for preset in PRESETS if preset != "fixed-hands-5" for p in range(2, 7)]
#: Who sits at the tables of the every-preset property test (seats 0..P-1); every strategy
#: named here is checked in every preset at every table size (fixed-hands-5 in fixed-hands-7's first hands;
#: tests/test_contract.py relies on it).
PROPERTY_LINEUP = ["random", "hold-nines", "dump-faces", "suit-majority", "random", "dump-faces"]


def run_checked(rules, n_matches: int, seed: int, names: list[str]) -> tuple[CompiledEngine, object]:
    inner = make_lineup(names)
    cache: dict[int, Checked] = {}
    lineup = [cache.setdefault(id(s), Checked(s, rules)) for s in inner]
    last_totals = np.zeros((n_matches, rules.players), dtype=np.int64)

    def check(e: CompiledEngine) -> None:
        counts = card_counts(e)
        live = e.match >= 0
        assert (counts[live] == rules.decks).all(), "a card is in two places or none"
        assert (e.ncards[live] >= 0).all()
        m = e.match[live]
        assert (e.totals[live] >= last_totals[m]).all(), "a total fell"
        last_totals[m] = e.totals[live]

    # the Checked seats are Python seats: each advance plays every game to its next decision
    e = CompiledEngine(rules, lineup, seed, 0, n_matches, batch_size=n_matches)
    e.start_run()
    while e.B:
        e.advance()
        check(e)
    res = e.results()
    assert sum(c.checked for c in cache.values()) > 0
    return e, res


def check_match_ends(rules, res) -> None:
    hr = res.hand_records
    assert len(hr) == int(res.hands.sum())
    if rules.fixed_hands:
        assert (res.hands == rules.fixed_hands).all()  # S3
    else:
        assert (res.totals.max(axis=1) >= rules.target).all()  # S2
        for m in range(res.n_matches):
            rows = hr.penalty[hr.match == m]
            before_last = rows[:-1].sum(axis=0)
            assert before_last.max(initial=0) < rules.target, "the match went on past the target"
            assert np.array_equal(rows.sum(axis=0), res.totals[m])
    low = res.totals == res.totals.min(axis=1, keepdims=True)
    assert np.allclose(res.win_share.sum(axis=1), 1.0)
    assert (res.win_share[~low] == 0).all(), "a player without the lowest total won"
    check_penalties(res)


def check_penalties(res) -> None:
    """C2: no hand's penalty is negative, and whoever went out pays none."""
    hr = res.hand_records
    assert (hr.penalty >= 0).all()
    went_out = hr.outcome >= 0
    assert (hr.penalty[np.flatnonzero(went_out), hr.outcome[went_out]] == 0).all()


@pytest.mark.parametrize("preset,players", COMBOS, ids=[f"{a}-{b}p" for a, b in COMBOS])
def test_C1_T1_S1_S2_S3_properties_every_preset(preset, players):
    try:
        rules = make_rules(preset, players=players)
    except RulesError:
        pytest.skip("impossible combination")
    names = PROPERTY_LINEUP[:players]
    # 30 matches (a few hundred hands, every step checked) per preset and table size; the engine's
    # event-by-event agreement with the reference player is tests/test_reference_agreement.py's job
    e, res = run_checked(rules, 30, seed=players * 101 + len(preset), names=names)
    check_match_ends(rules, res)
    assert len(res.hand_records) >= 30
    if (preset, players) == ("classic", 4):
        _CLASSIC_4.append(res)


#: The classic 4-seat matches of the every-preset test, kept for the C2 test below.
_CLASSIC_4: list = []


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(2, 6),
    presets=st.lists(
        st.sampled_from(
            [
                "hard-nines",
                "draw-until-playable",
                "skip-reverse",
                "double-nines",
                "no-nine-out",
                "no-stacking",
                "free-nines",
            ]
        ),
        min_size=1,
        max_size=3,
        unique=True,
    ),
    seed=st.integers(0, 2**64 - 1),
    target=st.sampled_from([30, 100]),
)
def test_V1_V7_properties_under_combined_variants(players, presets, seed, target):
    try:
        rules = make_rules("+".join(presets), players=players, target=target)
    except RulesError:
        return
    e, res = run_checked(rules, 8, seed=seed, names=["random"] * players)
    check_match_ends(rules, res)


def test_C2_totals_never_fall_and_penalties_are_card_values():
    """The classic 4-seat matches that the every-preset test checked step by step (no total fell: run_checked),
    not 50 matches more of four random seats played and checked so again: C2's penalties are checked there
    (check_match_ends) in every preset and table size and under the combined variants (issue 42)."""
    if not _CLASSIC_4:  # this test run alone
        test_C1_T1_S1_S2_S3_properties_every_preset("classic", 4)
    res = _CLASSIC_4[0]
    assert len(res.hand_records) >= 30 and (res.hand_records.penalty > 0).any()
    check_penalties(res)
