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


def test_weighed_worlds_count_in_the_means_in_proportion_to_their_weights(monkeypatch):
    """``play_worlds=weigh``: each world's outcomes count by its weight; a game whose worlds weigh alike keeps the
    plain mean, float for float."""
    from types import SimpleNamespace

    from nines_sim.search import pimc

    nan = np.nan
    values = np.array([[[1.0, 2.0, 3.0, 6.0], [0.0, 0.0, 4.0, 4.0]], [[1.0, 2.0, 3.0, 4.1], [nan, nan, nan, nan]]])
    monkeypatch.setattr(pimc, "sample_values", lambda *a, **k: values)
    moves = np.array([[0, 1], [0, -1]])
    worlds = SimpleNamespace(n=8, weight=np.array([1.0, 1.0, 2.0, 4.0, 0.3, 0.3, 0.3, 0.3]))
    est = pimc.evaluate(None, worlds, moves, None)  # type: ignore[arg-type]
    assert est.mean[0, 0] == pytest.approx((1 + 2 + 6 + 24) / 8) and est.mean[0, 1] == pytest.approx(3.0)
    assert est.mean[1, 0] == values[1, 0].mean() and est.mean[1, 1] == -np.inf
    p = np.array([1, 1, 2, 4]) / 8
    assert est.se[0, 1] == pytest.approx(np.sqrt((p * p * (values[0, 1] - 3.0) ** 2).sum()))
    unweighed = pimc.evaluate(None, SimpleNamespace(n=8), moves, None)  # type: ignore[arg-type]
    assert unweighed.mean[0, 0] == 3.0 and np.array_equal(unweighed.mean[1], est.mean[1])


def test_weighing_samples_only_the_worlds_it_plays_and_is_the_same_for_any_workers(monkeypatch):
    import nines_sim.search.sampler as sampler

    asked: list[int] = []
    real = sampler.sample_positions

    def count(obs, samples, *a, **k):  # noqa: ANN001, ANN202
        asked.append(samples)  # per game
        return real(obs, samples, *a, **k)

    monkeypatch.setattr(sampler, "sample_positions", count)
    weigh = SPEC + ",play_worlds=weigh"
    one = simulate(R2, [make_lineup([weigh])[0], "expert"], 4, seed=6, workers=1, batch_size=4)
    assert set(asked) == {16}  # no extra worlds: 16 a game, recorded plays or not
    asked.clear()
    simulate(R2, [make_lineup([SPEC + ",oversample=2"])[0], "expert"], 2, seed=6, workers=1, batch_size=2)
    assert set(asked) == {16, 32}  # resampled: twice the worlds where the opponent's plays are recorded
    monkeypatch.setattr(sampler, "sample_positions", real)
    two = simulate(R2, [make_lineup([weigh])[0], "expert"], 4, seed=6, workers=2, batch_size=2, chunk_size=2)
    assert np.array_equal(one.totals, two.totals)
    assert np.array_equal(one.hand_records.penalty, two.hand_records.penalty)
    resampled = simulate(R2, [make_lineup([SPEC])[0], "expert"], 4, seed=6, workers=1, batch_size=4)
    assert not np.array_equal(one.hand_records.penalty, resampled.hand_records.penalty)
