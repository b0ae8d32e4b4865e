"""``learned``'s suit choice is compiled once for the compiled decision and the training's batch features (issue 42):
the weights the features read were writable arrays there and a read-only constant of the decision's closure, and a
tuple of the other seats' context that began as the literals 99 and 0 was typed for those constants too, so numba
compiled ``nine_suit_after_in`` four times in a training run and ``nine_suit_after`` twice.  Counted from numba's
typing, not timed."""

from __future__ import annotations

from nines_sim.engine.loop_constants import DECIDE_SIG
from nines_sim.game.rules import make_rules
from nines_sim.learn import features
from nines_sim.learn.decide import decide_for
from nines_sim.learn.model import shipped
from nines_sim.learn.python_seat import PythonLearned
from nines_sim.runs.simulate import simulate
from tests.signatures import signatures_asked


def test_the_suit_choice_is_compiled_once_for_the_decision_and_the_training_features():
    rules = make_rules("classic", players=2)
    model, _ = shipped(rules)
    simulate(rules, ["learned", "random"], 20, seed=3)  # the compiled decision (in the turn loop)
    simulate(rules, [PythonLearned(model), "random"], 20, seed=3)  # the batch features, as training computes them
    batch = features.batch_card_features
    asked = signatures_asked([(decide_for(model), DECIDE_SIG.args), *((batch, sig) for sig in batch.signatures)],
                             [features])  # fmt: skip
    assert batch.signatures and {"nine_suit_after_in", "nine_suit_after"} <= set(asked)
    assert all(len(sigs) == 1 for sigs in asked.values()), {f: s for f, s in asked.items() if len(s) > 1}


def test_nines_warm_up_builds_the_shared_features_and_the_shipped_heads_up_decision():
    """After ``nines warm-up``'s ``learned`` form, a ``learned`` table compiles nothing: the features every model
    shares, the shipped heads-up classic model's decision and its likelihood of plays are in numba's cache (or this
    process), counted from the dispatchers' signatures, not timed.  (A new user saw ``learned expert`` compile four
    functions after ``nines warm-up``.)"""
    from nines_sim.engine.build_forms import FORMS, GROUPS, build, cached
    from nines_sim.learn.decide import SHARED_FEATURES
    from nines_sim.strategy.per_game_compiled import callback_built

    assert "learned" in FORMS and "learned" in GROUPS[0]
    build("learned")
    assert all(cached(f) for f in SHARED_FEATURES)
    assert callback_built(decide_for(shipped(make_rules("classic", players=2))[0]))
    # and its likelihood of an opponent's plays (lookahead:play_model=learned), compiled for its one signature
    from nines_sim.learn.likelihood import likelihood_for

    assert cached(likelihood_for(shipped(make_rules("classic", players=2))[0]))
