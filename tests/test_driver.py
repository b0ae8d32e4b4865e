"""The one run driver: experiments of units and a merge, run on a backend, cut by one chunk-size policy."""

from __future__ import annotations

import math
import signal

import numpy as np
import pytest

from nines_sim.game.rules import make_rules
from nines_sim.runs import chunks, driver
from nines_sim.runs.backends import Dask, Job, Local, absolute_specs, choose
from nines_sim.runs.chunks import Keeps, Shape, chunk_size
from nines_sim.runs.ranges import KeptBlocks, cut
from nines_sim.runs.simulate import SimulationWork, simulate, simulate_range
from nines_sim.strategy.base import Observation
from tests.det_strategies import Lowest

# ---------------------------------------------------------------- the chunk-size policy


def test_the_chunk_policy_follows_what_a_stopped_unit_keeps():
    # kept whole or not at all: about four per worker, 2,000 to 20,000 matches
    assert chunk_size(200_000, 2, Shape(Keeps.WHOLE)) == 20_000
    assert chunk_size(60_000, 2, Shape(Keeps.WHOLE)) == 7_500
    assert chunk_size(3_000, 2, Shape(Keeps.WHOLE)) == 2_000
    # a finished block kept: one chunk per worker, the workers shared by the games played side by side
    assert chunk_size(200_000, 2, Shape(Keeps.BLOCK)) == 100_000
    assert chunk_size(200_000, 1, Shape(Keeps.BLOCK, compiled=True)) == 200_000
    assert chunk_size(200_000, 4, Shape(Keeps.BLOCK, games=2)) == 100_000
    assert chunk_size(999, 2, Shape(Keeps.BLOCK, games=4)) == 999
    # every seat compiled: about 16 per worker, at least 2,000 matches, at most one per worker
    assert chunk_size(200_000, 2, Shape(Keeps.BLOCK, compiled=True)) == 6_250
    assert chunk_size(6_000, 2, Shape(Keeps.BLOCK, compiled=True)) == 2_000
    assert chunk_size(3_999, 2, Shape(Keeps.BLOCK, compiled=True)) == 3_999  # under two of those: one chunk
    # progress heard only as chunks finish (Dask): about two per worker, 2,000 to 100,000
    assert chunk_size(200_000, 2, Shape(Keeps.BLOCK), live_progress=False) == 50_000
    assert chunk_size(10_000_000, 2, Shape(Keeps.BLOCK), live_progress=False) == 100_000
    # every record returned: one chunk alone, else about four per worker, 2,000 to four batches
    assert chunk_size(200_000, 1, Shape(Keeps.RECORDS)) == 200_000
    assert chunk_size(10_000_000, 2, Shape(Keeps.RECORDS, batch_size=1000)) == 4_000


# The rules each run path had before the driver, as they were written (main, and tidy's ddd4c1a): the policy
# must give the same chunks, so that no run's speed changes.
def _old_whole(n, w):  # simulate.whole_chunk_size (several games, rule comparisons)
    return int(min(20_000, max(2_000, math.ceil(n / (4 * max(w, 1))))))


def _old_tournament(n, w, compiled):  # tournament.chunk_size, one game (tidy's ddd4c1a: a small run is one chunk)
    per_worker = max(1, math.ceil(n / max(w, 1)))
    if w > 1 and compiled:
        if n < 2 * 2_000:
            return n
        return min(per_worker, max(2_000, math.ceil(per_worker / 16)))
    return per_worker


def _old_dask(n, w):  # cluster._chunk_size, one game
    return int(min(100_000, max(2_000, math.ceil(n / (2 * max(w, 1))))))


def _old_tune(n, w, games):  # tune.play
    pieces = max(1, math.ceil(w / games)) if w > 1 else 1
    return math.ceil(n / pieces)


def _old_simulate(n, w, b):  # simulate.default_chunk_size
    return max(1, n) if w <= 1 else max(1, min(4 * b, max(2_000, -(-n // (4 * w)))))


@pytest.mark.parametrize("n", [1, 7, 1_999, 2_000, 6_001, 40_000, 123_457, 2_000_000])
@pytest.mark.parametrize("w", [1, 2, 3, 8])
def test_the_one_policy_cuts_every_run_as_its_own_rule_did(n, w):
    assert chunk_size(n, w, Shape(Keeps.WHOLE)) == _old_whole(n, w)
    for compiled in (False, True):
        assert chunk_size(n, w, Shape(Keeps.BLOCK, compiled=compiled)) == _old_tournament(n, w, compiled)
    assert chunk_size(n, w, Shape(Keeps.BLOCK), live_progress=False) == _old_dask(n, w)
    for games in (1, 2, 3, 6):
        assert chunk_size(n, w, Shape(Keeps.BLOCK, games=games)) == _old_tune(n, w, games)
    for b in (64, 32768):
        assert chunk_size(n, w, Shape(Keeps.RECORDS, batch_size=b)) == _old_simulate(n, w, b)


# ---------------------------------------------------------------- the driver, on a toy experiment


def count_squares(start: int, n: int, on_matches=None, should_stop=None) -> tuple[int, int] | None:  # noqa: ANN001
    """A unit: the sum of k*k over k in start .. start+n-1, and n (None when asked to stop first)."""
    if should_stop and should_stop():
        return None
    if on_matches:
        on_matches(n, n)
    return sum(k * k for k in range(start, start + n)), n


class Squares:
    """An experiment: the sum of squares below ``n``, merged from its chunks."""

    play = staticmethod(count_squares)

    def __init__(self, n: int) -> None:
        self.matches, self.warm = n, []
        self.total, self.kept = 0, KeptBlocks()

    def shape(self) -> Shape:
        return Shape(Keeps.WHOLE)

    def units(self, size, portable):  # noqa: ANN001, ANN201
        return (((s, k), (s, k)) for s, k in cut([(0, self.matches)], size))

    def take(self, tag, result) -> int:  # noqa: ANN001
        if result is None:
            return 0
        self.total += result[0]
        return self.kept.add(tag[0], result[1])

    def outcome(self, partial: bool) -> tuple[int, list, bool]:
        return self.total, self.kept.ranges(), partial


@pytest.mark.parametrize(("workers", "chunk"), [(1, None), (1, 7), (2, 3), (2, None)])
def test_the_driver_merges_every_unit_whatever_the_workers_and_chunks(workers, chunk):
    heard = []
    total, kept, partial = driver.run(Squares(50), Local(workers), lambda p, k: heard.append(k), chunk)
    assert total == sum(k * k for k in range(50)) and kept == [(0, 50)] and not partial
    assert sum(heard) == 50  # every unit's matches reported once as kept


def test_a_run_cut_short_keeps_the_units_that_finished_and_says_partial():
    class StopsAtOnce(Local):
        def run(self, job: Job) -> bool:
            job.units = list(job.units)[:1]  # the first unit finishes, then Ctrl-C stops the run
            return super().run(job) or True

    total, kept, partial = driver.run(Squares(10), StopsAtOnce(1), chunk=5)
    assert (total, kept, partial) == (sum(k * k for k in range(5)), [(0, 5)], True)


def test_the_backend_is_chosen_by_the_client_and_only_dask_rewrites_file_specs(tmp_path):
    assert choose(3) == Local(3) and choose(3).live_progress
    fake_client = object()
    dask = choose(3, fake_client)
    assert isinstance(dask, Dask) and dask.client is fake_client and not dask.live_progress
    lineup = ("random", "my_strats.py:Mine", "pkg.module:Cls")
    assert Local(1).portable(lineup) == lineup
    here = str(tmp_path.resolve())  # absolute_specs resolves links, as the workers would
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(tmp_path)
        assert absolute_specs(lineup) == ("random", f"{here}/my_strats.py:Mine", "pkg.module:Cls")


# ---------------------------------------------------------------- simulate on the driver


class CtrlCOnFirstPlay(Lowest):
    """Plays the lowest legal card; presses Ctrl-C (SIGINT to this process) on its first decision, and counts
    its decisions."""

    name = "ctrl-c-on-first-play"

    def __init__(self) -> None:
        super().__init__()
        self.plays = 0

    def play(self, obs: Observation) -> np.ndarray:
        self.plays += 1
        if self.plays == 1:
            signal.raise_signal(signal.SIGINT)  # the run's own handler hears it at once
        return super().play(obs)


def test_ctrl_c_stops_a_simulation_at_the_next_step_and_returns_nothing_partial(capsys):
    seat = CtrlCOnFirstPlay()
    with pytest.raises(KeyboardInterrupt):
        simulate(make_rules("classic", players=2), [seat, "random"], 200, seed=3, batch_size=8)
    assert seat.plays == 1  # no step after the one that heard Ctrl-C (the 200 matches take hundreds)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the handler is given back
    assert "a simulation keeps nothing" in capsys.readouterr().err


def test_a_simulation_unit_stopped_keeps_nothing_and_one_run_gives_every_record_in_order():
    rules = make_rules("classic", players=3)
    lineup = ["random", "hold-nines", "dump-faces"]
    assert simulate_range(rules, lineup, 5, 0, 10, 4, should_stop=lambda: True) is None
    whole = simulate(rules, lineup, 30, seed=5)
    parts = [simulate_range(rules, lineup, 5, s, 10, 4) for s in (20, 0, 10)]
    run = SimulationWork(rules, lineup, 30, 5, 4, 0)
    for s, part in zip((20, 0, 10), parts):
        assert run.take(s, part) == 10
    merged = run.outcome(partial=False)
    assert merged.match.tolist() == list(range(30))
    np.testing.assert_array_equal(merged.totals, whole.totals)
    with pytest.raises(KeyboardInterrupt):
        run.outcome(partial=True)


def test_chunks_module_is_the_policy_the_runs_use():
    from nines_sim.experiments.tournament import work as T
    from nines_sim.runs import simulate as S

    plan = T.plan_tournament("table", ["random"] * 4, make_rules("classic"))
    assert T.chunk_size(plan, [(0, 200_000)], 2) == chunks.chunk_size(200_000, 2, T.plan_shape(plan))
    assert S.default_chunk_size(200_000, 2, 32768) == chunks.chunk_size(200_000, 2, Shape(Keeps.RECORDS))
