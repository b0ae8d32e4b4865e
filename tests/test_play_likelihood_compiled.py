"""Play inference by the learned model, compiled (issue 40): the compiled likelihood of the opponent's recorded plays
gives the numpy form's log-likelihoods, and the search the same choices."""

from __future__ import annotations

import numpy as np
import pytest

import nines_sim.search.play_likelihood as pl
from nines_sim.game.rules import make_rules
from nines_sim.runs.simulate import simulate
from nines_sim.strategy.registry import make_lineup

R2 = make_rules("classic", players=2)
SPEC = "lookahead:samples=16,infer_plays=1,play_model=learned"


def _record_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """Every call of the search's play likelihoods in a run, its arguments kept (the worlds copied: the rollouts
    play them on)."""
    calls: list[tuple] = []
    real = pl.play_likelihoods

    def keep(obs, worlds, plays, model, infer, temp):  # noqa: ANN001, ANN202
        calls.append((obs, worlds.take(np.arange(worlds.n)), plays, model, infer, temp))
        return real(obs, worlds, plays, model, infer, temp)

    monkeypatch.setattr(pl, "play_likelihoods", keep)
    return calls


def test_the_compiled_likelihoods_are_the_numpy_forms_in_every_sampled_world_of_real_decisions(monkeypatch):
    calls = _record_calls(monkeypatch)
    simulate(R2, [make_lineup([SPEC])[0], "expert"], 4, seed=5, workers=1, batch_size=4)
    assert len(calls) > 20
    nines = 0
    for obs, worlds, plays, model, infer, temp in calls[::3]:
        for inf, t in ((infer, temp), (0.5, 1.0)):
            compiled = pl.log_likelihoods(obs, worlds, plays, model, inf, t)
            numpy = pl.log_likelihoods_numpy(obs, worlds, plays, model, inf, t)
            assert np.abs(compiled - numpy).max() <= 1e-12
        nines += sum(p.suit >= 0 for ps in plays for p in ps)
    assert nines > 0  # the 9's suit term was compared too
    assert any(np.ptp(pl.log_likelihoods(*c)) > 0 for c in calls)  # the worlds' hands tell their weights apart
    # no recorded play, or no inference: every world weighs 1
    obs, worlds, plays, model, _, temp = calls[0]
    assert np.array_equal(pl.log_likelihoods(obs, worlds, plays, model, 0.0, temp), np.zeros(worlds.n))
    empty = [[] for _ in plays]
    assert np.array_equal(pl.play_likelihoods(obs, worlds, empty, model, 1.0, temp), np.ones(worlds.n))


def test_the_search_makes_the_same_choices_with_the_compiled_likelihoods_as_with_numpys(monkeypatch):
    compiled = simulate(R2, [make_lineup([SPEC])[0], "expert"], 4, seed=6, workers=1, batch_size=4)
    monkeypatch.setattr(
        pl, "play_likelihoods", lambda *a: np.exp(pl.log_likelihoods_numpy(*a))
    )  # the numpy form, as the search ran it before
    numpy = simulate(R2, [make_lineup([SPEC])[0], "expert"], 4, seed=6, workers=1, batch_size=4)
    assert np.array_equal(compiled.totals, numpy.totals)
    assert np.array_equal(compiled.hand_records.penalty, numpy.hand_records.penalty)
