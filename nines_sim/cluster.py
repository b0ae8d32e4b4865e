"""Running tournaments and rule comparisons on a Dask cluster (optional extra ``dask``).

The work is the same chunks of match indices as on local workers, each
returning the same mergeable tallies, so a cluster run writes byte-identical
numbers whatever the number of Dask workers or the chunk size.  Dask retries
the chunk of a worker that dies; the chunk's result is a pure function of its
arguments, so the retry gives the same numbers.

Nothing here is imported unless ``--scheduler`` is given.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

import numpy as np

from nines_sim import compare as cmp
from nines_sim import tournament as tour
from nines_sim.simulate import chunks
from nines_sim.tally import Tally

#: Seconds to wait for a scheduler before giving up with an error.
CONNECT_TIMEOUT_S = 10
#: Times Dask retries a chunk whose worker died.
RETRIES = 3
#: Environment of local Dask worker processes. Dask's nannies set MALLOC_TRIM_THRESHOLD_, which
#: also freezes glibc's mmap threshold at 128 KiB: every batch-sized numpy temporary is then
#: mmap'd and unmapped again, and the engine ran 1.7x slower (6.3 s -> 10.7 s for 100,000
#: matches). Raising the mmap threshold restores the speed of a plain process.
WORKER_ENVIRON = {"MALLOC_MMAP_THRESHOLD_": 32 * 1024 * 1024, "MALLOC_TRIM_THRESHOLD_": 128 * 1024 * 1024}


class ClusterError(RuntimeError):
    """The cluster cannot be used; the message says why and what to do."""


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ClusterError(
            'Dask is not installed: pip install "nines-sim[dask]" (or run without --scheduler)'
        ) from None
    return distributed


def _probe() -> str:
    import nines_sim

    return nines_sim.__version__


@contextmanager
def connect(address: str, workers: int = 2, timeout: float = CONNECT_TIMEOUT_S):
    """A Dask client for ``address`` (``tcp://host:port``) or ``"local"`` (a LocalCluster).

    Parameters
    ----------
    address : str
    workers : int
        Worker processes of a local cluster (one thread each).
    timeout : float
        Seconds to wait for the scheduler.

    Raises
    ------
    ClusterError
        If Dask is missing, the scheduler cannot be reached within ``timeout``,
        or the workers cannot import nines-sim.
    """
    distributed = _import_distributed()
    cluster = None
    try:
        if address == "local":
            import dask

            with dask.config.set({f"distributed.nanny.pre-spawn-environ.{k}": v for k, v in WORKER_ENVIRON.items()}):
                cluster = distributed.LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
                )
            client = distributed.Client(cluster, timeout=f"{timeout}s")
        else:
            try:
                client = distributed.Client(address, timeout=f"{timeout}s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise ClusterError(
                    f"cannot reach the Dask scheduler at {address} within {timeout:g} s ({type(exc).__name__}); "
                    f"start one with 'dask scheduler' and 'dask worker {address}', or check the address"
                ) from None
        try:
            versions = client.run(_probe)
        except Exception as exc:  # a worker without the package fails to unpickle the probe
            client.close()
            raise ClusterError(
                f"the Dask workers cannot run nines-sim ({type(exc).__name__}: {exc}); "
                f'install it on every worker: pip install "nines-sim[dask]"'
            ) from None
        if not versions:
            client.close()
            raise ClusterError(f"the Dask scheduler at {address} has no workers; start some with 'dask worker'")
        try:
            yield client
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()


def _chunk_size(n_matches: int, n_workers: int, chunk_size: int | None) -> int:
    if chunk_size:
        return chunk_size
    # few, large chunks keep each engine's batch full; enough of them to balance the workers
    return int(min(100_000, max(2_000, math.ceil(n_matches / (2 * max(n_workers, 1))))))


def _gather(client: Any, futures: dict, on_done: Callable[[Any, Any], None]) -> bool:
    """Collect futures as they complete; return True if Ctrl-C cut the run short."""
    distributed = _import_distributed()
    try:
        for fut in distributed.as_completed(list(futures)):
            on_done(futures[fut], fut.result())
    except KeyboardInterrupt:
        client.cancel(list(futures))
        return True
    return False


def run_plan_dask(
    client: Any,
    plan: tour.Plan,
    n_matches: int,
    seed: int,
    batch_size: int = 32768,
    chunk_size: int | None = None,
    save_matches: bool = False,
    on_progress: Callable[[int], None] | None = None,
) -> tour.RunOutcome:
    """A tournament on a Dask cluster; the same :class:`~nines_sim.tournament.RunOutcome` as local workers."""
    n_workers = len(client.scheduler_info()["workers"])
    size = _chunk_size(n_matches, n_workers, chunk_size)
    tallies = {g.key: Tally(g.rules.players) for g in plan.games}
    played = {g.key: 0 for g in plan.games}
    rows: list = []
    t0 = time.perf_counter()
    futures = {}
    for g in plan.games:
        for s, n in chunks(0, n_matches, size):
            fut = client.submit(tour.play_range, g.rules, g.lineup, seed, s, n, batch_size, save_matches,
                                retries=RETRIES, pure=False)  # fmt: skip
            futures[fut] = g

    def done(g: tour.Game, result: tuple) -> None:
        tally, dfs = result
        tallies[g.key] = tallies[g.key] + tally
        played[g.key] += tally.matches
        for df in dfs:
            df.insert(0, "game", g.key)
            rows.append(df)
        if on_progress:
            on_progress(tally.matches)

    partial = _gather(client, futures, done)
    return tour.RunOutcome(tallies, played, partial, time.perf_counter() - t0, rows)


def run_comparison_dask(
    client: Any,
    rule_sets: list[cmp.RuleSet],
    lineup: tuple[str, ...],
    n_matches: int,
    seed: int,
    batch_size: int = 32768,
    chunk_size: int | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> cmp.CompareOutcome:
    """A rule comparison on a Dask cluster; the same :class:`~nines_sim.compare.CompareOutcome` as locally."""
    n_workers = len(client.scheduler_info()["workers"])
    size = _chunk_size(n_matches, n_workers, chunk_size)
    P = rule_sets[0].rules.players
    tallies = [Tally(P) for _ in rule_sets]
    cross = [np.zeros(P, dtype=np.int64) for _ in rule_sets]
    state = {"played": 0}
    t0 = time.perf_counter()
    futures = {
        client.submit(cmp.compare_range, rule_sets, lineup, seed, s, n, batch_size, retries=RETRIES, pure=False): n
        for s, n in chunks(0, n_matches, size)
    }

    def done(n: int, c: cmp.CompareChunk) -> None:
        for i, t in enumerate(c.tallies):
            tallies[i] = tallies[i] + t
            cross[i] = cross[i] + c.cross[i]
        state["played"] += c.tallies[0].matches
        if on_progress:
            on_progress(n * len(rule_sets))

    partial = _gather(client, futures, done)
    return cmp.CompareOutcome(tallies, cross, partial, time.perf_counter() - t0, state["played"])
