"""What a first ``nines train`` compiles (issue 42): the run's last model is measured as a Python seat, the same
matches without compiling its decision; the features and the sampler are built before round 1, on two cores, for
the signatures the run asks for.  Counted (the decisions and signatures asked for), not timed."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from nines_sim.game.rules import make_rules
from nines_sim.learn import compile_ahead as ahead
from nines_sim.learn import decide
from nines_sim.learn.features import NFC, NFS
from nines_sim.learn.model import Model, load
from nines_sim.learn.train import EVAL_SEED_OFFSET, collect_unit, strength, train
from nines_sim.strategy.per_game_compiled import callback_built
from tests.shared_training import SEED, SETTINGS


def test_the_last_round_s_model_is_measured_without_compiling_its_decision(tmp_path, monkeypatch):
    """A one-round run asks for no compiled decision of a new model (its measure plays it as a Python seat), and
    its curve holds the numbers the compiled decision measures on the same matches.  Its decision then built, the
    same run trained again measures it compiled, with the same curve.  (The model is the shared run's first, whose
    decision that run built: here it is taken for new, then for built.)"""
    from nines_sim.learn import train as training

    asked = []
    decide_for = decide.decide_for
    monkeypatch.setattr(decide, "decide_for", lambda model: asked.append(model.digest) or decide_for(model))
    monkeypatch.setattr(training, "_decision_built", lambda path: False)
    rules = make_rules("classic", players=2)
    s = dataclasses.replace(SETTINGS, rounds=1)
    assert train(rules, tmp_path / "run", SEED, s, "nines train (test)", report=lambda line: None, charts=False)
    path = tmp_path / "run" / "model.npz"
    assert load(path).digest not in asked
    curve = pd.read_csv(tmp_path / "run" / "learning_curve.csv")
    row = curve.iloc[0]
    compiled = strength(rules, f"learned@{path}", "expert", s.eval_matches, SEED + EVAL_SEED_OFFSET + 1)
    assert load(path).digest in asked  # the comparison's is compiled (loaded from the cache)
    assert (row["vs_expert"], row["vs_expert_low"], row["vs_expert_high"]) == compiled
    monkeypatch.undo()
    # built: in this process, and in numba's disk cache (a new closure of the same weights finds it there)
    assert training._decision_built(path) and callback_built(decide.make_decide(load(path)))
    assert train(rules, tmp_path / "again", SEED, s, "nines train (test)", report=lambda line: None, charts=False)
    again = pd.read_csv(tmp_path / "again" / "learning_curve.csv")
    pd.testing.assert_frame_equal(curve.drop(columns="cpu_seconds"), again.drop(columns="cpu_seconds"))


def test_a_decision_never_compiled_is_not_taken_for_built():
    """The weights of a model no code compiles are in no cache entry: its measure would play it as a Python seat."""
    rules = make_rules("classic", players=2)
    never = Model(np.full(NFC, 0.314159), np.full(NFS, 0.271828), rules, {"command": "tests/test_train_forms.py"})
    assert not callback_built(decide.make_decide(never))


@pytest.mark.parametrize("players", [2, 3])
def test_the_code_built_ahead_of_round_1_is_the_code_its_labelling_asks_for(players):
    """The features and the sampler's forms a run builds before round 1 (the sampler in a second process) are
    compiled for the signatures round 1's labelling asks for: after them and a short collection each holds one
    (a second would be a compile more on a first run, and the second process's work wasted)."""
    rules = make_rules("classic", players=players)
    ahead.build_features(rules)
    ahead._build_sampler_classic(players)  # the second process's work
    built = ahead.feature_functions() + ahead.sampler_functions(players)
    assert all(f.signatures for f in built)
    s = dataclasses.replace(SETTINGS, rounds=1, matches=1)
    got = collect_unit(rules, None, s, SEED, 0, 1)
    assert got is not None and got[1] > 0  # decisions labelled: the sampler and the features were asked
    assert {f.py_func.__name__: len(f.signatures) for f in built} == {f.py_func.__name__: 1 for f in built}


def test_nines_warm_up_builds_the_features_of_train():
    """``nines warm-up``'s ``train`` form builds the batch features for the signature training asks for (its
    sampler is the ``search`` form's, ``tests/test_sampler.py``): counted from their compiled signatures."""
    from nines_sim.engine.build_forms import FORMS, GROUPS, build

    assert "train" in FORMS and "train" in GROUPS[0]  # after the classic expert form its table plays
    build("train")
    assert [len(f.overloads) for f in ahead.feature_functions()] == [1, 1]


@pytest.mark.parametrize(
    ("missing", "sampler", "pool", "second", "here"),
    [
        ({"sampler", "features"}, True, False, ["sampler"], ["features"]),
        ({"sampler", "features"}, True, True, ["sampler"], ["features"]),
        ({"features"}, True, False, [], []),  # met by the run as it goes, as before
        ({"features"}, True, True, [], ["features"]),  # else each worker compiles them at the same time
        ({"sampler"}, True, True, [], ["sampler"]),
        ({"sampler", "features"}, False, True, [], ["features"]),  # labelled by returns: no sampler
        ({"sampler", "features"}, False, False, [], []),
        (set(), True, True, [], []),
        # the second process's classic tables would compile their form beside this process: none
        ({"sampler", "features", "form"}, True, False, [], []),
        ({"sampler", "features", "form"}, True, True, [], ["features", "sampler"]),
    ],
)
def test_a_run_builds_what_the_cache_lacks_on_two_cores_or_before_its_workers_fork(
    monkeypatch, missing, sampler, pool, second, here
):
    """What :func:`~nines_sim.learn.compile_ahead.prepare` builds where, by what numba's cache lacks: the sampler
    in a second process while this one builds the features when both are missing and the second process's
    classic tables have their form (waited for before a pool of workers forks, else at the run's first sample);
    else, for a pool, what is missing here before they fork."""
    from nines_sim.engine.turn_loop import play_slots_classic_expert

    sampler_fns, feature_fns = ahead.sampler_functions(2), ahead.feature_functions()
    lacking = [f for f in sampler_fns if "sampler" in missing] + [f for f in feature_fns if "features" in missing]
    lacking += [play_slots_classic_expert] if "form" in missing else []
    monkeypatch.setattr(ahead, "in_cache", lambda f: f not in lacking)
    built, started = [], []
    monkeypatch.setattr(ahead, "build_features", lambda rules: built.append("features"))
    monkeypatch.setattr(ahead, "build_sampler", lambda rules: built.append("sampler"))

    class Second:
        def __init__(self, args, **kw):  # noqa: ANN001, ANN003
            started.append("sampler" if args[-3:] == ["-m", "nines_sim.learn.compile_ahead", "2"] else args)

        def wait(self) -> int:
            return 0

    monkeypatch.setattr(ahead.subprocess, "Popen", Second)
    monkeypatch.setattr(ahead.os, "cpu_count", lambda: 2)
    ahead.prepare(make_rules("classic", players=2), sampler=sampler, pool=pool)
    assert (started, built) == (second, here)
    # a run in this process goes on while the sampler builds (it waits at its first sample); a pool waits here
    assert len(ahead._building) == (1 if second and not pool else 0)
    ahead.sampler_ready()
    ahead.second_cpu()
