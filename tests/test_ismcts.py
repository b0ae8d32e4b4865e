"""``ismcts``: the obvious moves, reproducibility, and decisions from the observation alone."""

from __future__ import annotations

import numpy as np
import pytest

from nines_sim.game.cards import SUIT_NAMES, parse_card
from nines_sim.game.rules import make_rules
from nines_sim.runs.simulate import simulate
from nines_sim.strategies.ismcts import ISMCTS
from nines_sim.strategies.lookahead import Clairvoyant, SettingError
from nines_sim.strategy.registry import make_lineup
from tests.test_lookahead import decide, position

R2 = make_rules("classic", players=2)


def test_ismcts_keeps_the_nine_to_go_out_with():
    plays = decide(ISMCTS(iterations=128), position("KH 9S", "2C 3C 4D 5D 6S 8S JC", "7H"))
    assert (plays == parse_card("KH")).all()


def test_ismcts_keeps_the_suit_a_one_card_opponent_drew_on():
    pos = position("QD 7C 2S 3S", "KD", "7D", drew_on=1 << SUIT_NAMES.index("C"))
    assert (decide(ISMCTS(iterations=256, infer=1.0), pos) == parse_card("7C")).all()


def test_two_true_states_with_one_observation_give_one_decision_and_clairvoyant_tells_them_apart():
    # seat 1's one card is a diamond in one state and a club in the other; seat 0 sees the same
    club = SUIT_NAMES.index("C")
    diamond = position("QD 7C 2S 3S", "KD", "7D", drew_on=1 << club)
    club_card = position("QD 7C 2S 3S", "KC", "7D", drew_on=1 << club)
    ism = ISMCTS(iterations=64)
    assert np.array_equal(decide(ism, diamond), decide(ism, club_card))
    # the control: seeing the card, 7C blocks the diamond and QD the club
    assert (decide(Clairvoyant(samples=32), diamond) == parse_card("7C")).all()
    assert (decide(Clairvoyant(samples=32), club_card) == parse_card("QD")).all()


@pytest.mark.parametrize("values", [dict(iterations=16), dict(iterations=8, infer_plays=1.0)])
def test_same_seed_same_decisions_for_every_worker_count_and_batch_size(values):
    one = simulate(R2, [ISMCTS(**values), "expert"], 6, seed=4, workers=1, batch_size=3)
    two = simulate(R2, [ISMCTS(**values), "expert"], 6, seed=4, workers=2, batch_size=2, chunk_size=3)
    six = simulate(R2, [ISMCTS(**values), "expert"], 6, seed=4, workers=1, batch_size=6)
    for other in (two, six):
        assert np.array_equal(one.totals, other.totals)
        assert np.array_equal(one.hand_records.penalty, other.hand_records.penalty)


def test_a_batch_under_two_decks_gives_each_match_its_own_decisions():
    # V4: the pair of 9s is the last candidate column, after the padding of a game with fewer legal faces than
    # another in the batch; the search once took that padding (-1) for the pair and returned it
    rules = make_rules("double-nines", players=3)
    lineup = [ISMCTS(iterations=64), "expert", "random"]
    together = simulate(rules, lineup, 3, seed=0, workers=1, batch_size=3)
    alone = simulate(rules, lineup, 3, seed=0, workers=1, batch_size=1)
    assert np.array_equal(together.totals, alone.totals)
    assert np.array_equal(together.hand_records.penalty, alone.hand_records.penalty)


@pytest.mark.parametrize("preset", ["classic", "double-nines+skip-reverse"])
def test_ismcts_makes_only_legal_moves_and_keeps_every_card_in_one_place(preset):
    from tests.test_properties import run_checked

    rules = make_rules(preset)
    _, res = run_checked(rules, 2, seed=2, names=[ISMCTS(iterations=8), "random", "hold-nines", "dump-faces"])
    assert len(res.match) == 2 and np.allclose(res.win_share.sum(axis=1), 1.0)


def test_settings_come_in_a_strategy_spec_and_bad_ones_are_refused_in_one_line():
    st = make_lineup(["ismcts:iterations=32,c=5,infer_plays=1"])[0]
    assert (st.iterations, st.c, st.infer_plays) == (32, 5.0, 1.0)
    with pytest.raises(SettingError, match=r"iterations must lie in 1\.\.8192"):
        ISMCTS(iterations=0)
    with pytest.raises(SettingError, match="has no parameter 'samples'"):
        ISMCTS(samples=3)


def test_the_tuned_expert_rollout_policy_is_expert_at_the_tuned_classic_values_and_plays_compiled():
    import json
    from pathlib import Path

    from nines_sim.engine.seats import seat_ids
    from nines_sim.strategies.expert import Expert

    tuned = json.loads((Path(__file__).parents[1] / "docs" / "tuned" / "expert-classic.json").read_text())["params"]
    for spec in ("lookahead:policy=tuned-expert", "ismcts:policy=tuned-expert"):
        policy = make_lineup([spec])[0]._policy
        assert {k: getattr(policy, k) for k in tuned} == tuned
        assert (seat_ids([policy, policy]) == Expert.kernel_id).all()
