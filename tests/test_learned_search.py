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
