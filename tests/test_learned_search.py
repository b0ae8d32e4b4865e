"""The search players with the learned model: its rollouts legal and reproducible under every preset."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from nines_sim.game.rules import make_rules
from nines_sim.learn.model import FallbackWarning
from nines_sim.runs.simulate import simulate
from nines_sim.strategy.registry import make_lineup

PRESETS = ["classic", "hard-nines", "draw-until-playable", "skip-reverse", "no-nine-out", "double-nines"]


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("spec", ["lookahead:samples=4,policy=learned", "ismcts:iterations=8,policy=learned"])
def test_learned_rollouts_play_legally_and_keep_every_card_in_one_place(preset, spec):
    from tests.test_properties import run_checked

    # the rollouts play on the compiled loop, which stops with IllegalMoveError at an illegal move of a seat
    rules = make_rules(preset, players=5 if preset == "double-nines" else 4)
    names = [make_lineup([spec])[0], "random", "hold-nines", "dump-faces", "expert"][: rules.players]
    with warnings.catch_warnings():  # no model ships for some presets: the nearest one plays, as documented
        warnings.simplefilter("ignore", FallbackWarning)
        _, res = run_checked(rules, 2, seed=2, names=names)
    assert len(res.match) == 2 and np.allclose(res.win_share.sum(axis=1), 1.0)


@pytest.mark.parametrize("spec", ["lookahead:samples=8,policy=learned", "ismcts:iterations=8,policy=learned"])
def test_learned_rollouts_give_the_same_numbers_for_any_workers_and_batch_size(spec):
    rules = make_rules("classic", players=2)
    one = simulate(rules, [make_lineup([spec])[0], "expert"], 6, seed=4, workers=1, batch_size=3)
    two = simulate(rules, [make_lineup([spec])[0], "expert"], 6, seed=4, workers=2, batch_size=2, chunk_size=3)
    six = simulate(rules, [make_lineup([spec])[0], "expert"], 6, seed=4, workers=1, batch_size=6)
    for other in (two, six):
        assert np.array_equal(one.totals, other.totals)
        assert np.array_equal(one.hand_records.penalty, other.hand_records.penalty)
    # the rollouts are the model's, not expert's: the same matches go otherwise with expert rolling out
    base = simulate(rules, [make_lineup([spec.replace("learned", "expert")])[0], "expert"], 6, seed=4, workers=1,
                    batch_size=3)  # fmt: skip
    assert not np.array_equal(one.hand_records.penalty, base.hand_records.penalty)


def test_play_inference_weights_from_the_model_are_the_softmax_of_its_scores_recomputed_in_python():
    from math import exp

    from nines_sim.game.cards import parse_card
    from nines_sim.search.play_likelihood import play_likelihoods
    from nines_sim.search.position import Position, PositionBatch
    from nines_sim.strategies.learned import Learned
    from nines_sim.strategy.base import DecisionKind
    from tests.position_seats import PositionSeats
    from tests.test_play_inference import R2, _after_their_play, _cards, _worlds

    memory, obs, now = _after_their_play()  # the opponent answered my 7H with 2H from 7H, hearts active
    plays = memory.plays(obs)
    theirs = ["KH 10C JD QD", "8C 10C JD QD", "9S 10C JD QD"]
    worlds = _worlds(now, theirs)
    model = Learned()
    expected = []
    for hand in theirs:
        # the opponent's decision as it was in this world: its hand then held 2H too; my 7H on top
        held = _cards(hand) + (parse_card("2H"),)
        mine = now.hands[0]
        pile = _cards("3H 7C")
        top = parse_card("7H")
        stock = tuple(f for f in range(52) if f not in {*mine, *held, top, *pile})
        before = Position(R2, (mine, held), stock, pile, top, 2, seat=1, dealer=1, turn=4,
                          played=sum(1 << f for f in (*pile, top)), dkey=12345)  # fmt: skip
        seats = PositionSeats(PositionBatch.from_positions([before]), make_lineup(["expert", "expert"]))
        legal = seats.hands[0][:1, 1] & seats.legal_tab[top * 4 + 2]
        o = seats.observe(np.array([0]), np.array([1]), DecisionKind.PLAY, legal)
        scores = model.scores(o)[0]
        z = sum(exp(scores[f] / 2.0) for f in range(52) if legal[0] >> np.uint64(f) & np.uint64(1))
        expected.append(max(exp(scores[parse_card("2H")] / 2.0) / z, 1e-3))
    expected = np.array(expected)
    assert np.allclose(play_likelihoods(obs, worlds, plays, model, 1.0, 2.0), expected, rtol=1e-9)
    assert np.allclose(play_likelihoods(obs, worlds, plays, model, 0.5, 2.0), np.sqrt(expected), rtol=1e-9)
    # 2H was the opponent's only legal card in world 1: certain there; in world 0 KH was legal too
    assert expected[1] == 1.0 and expected[0] < 1.0


@pytest.mark.parametrize(
    "spec",
    ["lookahead:samples=8,infer_plays=1,play_model=learned", "ismcts:iterations=8,infer_plays=1,play_model=learned"],
)
def test_play_inference_with_the_model_gives_the_same_numbers_for_any_workers_and_batch_size(spec):
    rules = make_rules("classic", players=2)
    one = simulate(rules, [make_lineup([spec])[0], "expert"], 6, seed=4, workers=1, batch_size=3)
    two = simulate(rules, [make_lineup([spec])[0], "expert"], 6, seed=4, workers=2, batch_size=2, chunk_size=3)
    assert np.array_equal(one.totals, two.totals)
    assert np.array_equal(one.hand_records.penalty, two.hand_records.penalty)


def test_a_learned_seat_keeps_its_compiled_decision_by_rules_and_pickles_without_it():
    import pickle

    rules = make_rules("classic", players=2)
    seat = make_lineup(["learned"])[0]
    decide = seat.decide_function(rules)
    assert seat.decide_function(rules) is decide  # kept: a search asks at every batch of rollouts
    copy = pickle.loads(pickle.dumps(seat))
    assert copy._deciders == {}  # the compiled closure stays in this process
    assert copy.decide_function(rules) is decide  # and the copy finds the same one by the model's digest
