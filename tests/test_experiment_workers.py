"""Every experiment plays through the one driver (:func:`nines_sim.runs.driver.run`) and gives the same numbers
on one worker and on two, and on a local Dask cluster where the experiment runs there (issue 39): the
tournament (a table and a league), the rule comparison, the design measures, a tuning trial and a review."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from nines_sim.experiments.compare_rules.rule_sets import rule_sets_from
from nines_sim.experiments.compare_rules.work import ComparisonWork
from nines_sim.experiments.design.work import LINEUPS, DesignSet, DesignSetup, DesignWork
from nines_sim.experiments.review.work import ReviewSetup, ReviewWork
from nines_sim.experiments.tournament.work import TournamentWork, plan_tournament
from nines_sim.experiments.tune import work as T
from nines_sim.game.rules import make_rules
from nines_sim.runs import driver
from nines_sim.runs.backends import Local


def numbers(x: object) -> object:
    """A result's numbers, comparable with ``==`` (arrays as their dtype and bytes)."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: numbers(getattr(x, f.name)) for f in dataclasses.fields(x) if f.name != "wall_seconds"}
    if isinstance(x, np.ndarray):
        return (x.dtype.str, x.shape, x.tobytes())
    if isinstance(x, dict):
        return {k: numbers(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [numbers(v) for v in x]
    return x


def on_one_and_two_workers(make: object, chunk: int | None = None) -> tuple[object, object]:
    """``make()``'s experiment run on one local worker and on two (a fresh experiment each: it merges into itself)."""
    return driver.run(make(), Local(1), chunk=chunk), driver.run(make(), Local(2), chunk=chunk)


@pytest.mark.parametrize(
    ("fmt", "names", "players"),
    [("table", ["expert", "random", "hold-nines"], None), ("league", ["random", "hold-nines", "dump-faces"], 2)],
)
def test_a_tournament_gives_the_same_tallies_on_one_and_two_workers(fmt, names, players):
    plan = plan_tournament(fmt, names, make_rules("classic"), players=players, tables=3 if fmt == "league" else None)
    one, two = on_one_and_two_workers(lambda: TournamentWork(plan, 600, seed=3), chunk=97)
    assert not one.partial and one.total_matches == 600 * len(plan.games)
    assert numbers(one.tallies) == numbers(two.tallies) and one.kept == two.kept


def test_a_rule_comparison_gives_the_same_tallies_and_pairs_on_one_and_two_workers():
    sets, _ = rule_sets_from(["classic", "hard-nines"], None, 2)
    one, two = on_one_and_two_workers(lambda: ComparisonWork(sets, ("expert", "random"), 500, seed=5), chunk=83)
    assert not one.partial and one.matches_played == 500
    assert numbers(one.tallies) == numbers(two.tallies) and numbers(one.cross) == numbers(two.cross)


def design_work() -> DesignWork:
    sets = [
        DesignSet("classic", make_rules("classic", players=2)),
        DesignSet("hard", make_rules("hard-nines", players=2)),
    ]
    return DesignWork(sets, DesignSetup(), 300, seed=7, batch_size=4096, kinds=LINEUPS, start=0)


@pytest.fixture(scope="module")
def design_on_one():  # noqa: ANN201
    """:func:`design_work` run on one local worker in chunks of 70: what both tests below compare with (each ran
    it)."""
    return driver.run(design_work(), Local(1), chunk=70)


def test_the_design_measures_give_the_same_sums_on_one_and_two_workers(design_on_one):  # noqa: ANN001
    one, two = design_on_one, driver.run(design_work(), Local(2), chunk=70)
    assert not one.partial and one.kept == two.kept == [(0, 300)]
    assert numbers(one.sums) == numbers(two.sums)


def test_the_design_measures_on_a_local_dask_cluster_give_the_local_sums(request, design_on_one):  # noqa: ANN001
    """On the running cluster the files on Dask share (``scheduler``, tests/conftest.py)."""
    distributed = pytest.importorskip("distributed")
    from nines_sim.runs.backends import Dask

    local = design_on_one
    with distributed.Client(request.getfixturevalue("scheduler")) as client:
        remote = driver.run(design_work(), Dask(client), chunk=70)
    assert numbers(remote.sums) == numbers(local.sums) and remote.kept == local.kept


def test_a_tuning_trial_plays_the_same_matches_on_one_and_two_workers():
    setup = T.make_setup("expert", ["hold-nines"], make_rules("classic", players=2), "shed_nine_at", 400, 2)

    def trial() -> T.TrialWork:
        return T.TrialWork(setup, "expert:shed_nine_at=3", 0, 200, 4096, True, range(2), T.Played())

    one, two = on_one_and_two_workers(trial, chunk=45)
    assert not one.stopped and one.stats.matches == 400
    assert numbers(one.stats) == numbers(two.stats) and one.shares().equals(two.shares())


def test_a_review_gives_the_same_rows_on_one_and_two_workers():
    rules = make_rules("classic", players=2)

    def review() -> ReviewWork:
        return ReviewWork(["hold-nines", "expert"], rules, 11, [(0, 4)], ReviewSetup(samples=8), batch_size=4)

    # the second item is the search's seconds: timing, the one thing that differs
    (rows1, _, kept1, stopped1), (rows2, _, kept2, stopped2) = on_one_and_two_workers(review, chunk=1)
    assert not stopped1 and not stopped2 and kept1 == kept2 == [(0, 4)] and rows1
    assert numbers(rows1) == numbers(rows2)
