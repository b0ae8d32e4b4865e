"""Running tournaments and rule comparisons on a Dask cluster (optional extra ``dask``).

The work is the same chunks of match indices as on local workers, each
returning the same mergeable tallies, so a cluster run writes byte-identical
numbers whatever the number of Dask workers or the chunk size.  Dask reruns
the chunk of a worker that dies; the chunk's result is a pure function of its
arguments, so the rerun gives the same numbers.  A strategy's error is not
retried: it comes back as a value and stops the run.

Nothing here is imported unless ``--scheduler`` is given.
"""

from __future__ import annotations

import math
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from nines_sim import compare as cmp
from nines_sim import tournament as tour
from nines_sim.pool import POLL_S, STOP_NOTICE, Interrupt, drive
from nines_sim.ranges import Range
from nines_sim.ranges import total as ranges_total
from nines_sim.simulate import whole_chunk_size

#: Seconds to wait for a scheduler before giving up with an error.
CONNECT_TIMEOUT_S = 10
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
def connect(address: str, workers: int = 2, timeout: float | None = None):
    """A Dask client for ``address`` (``tcp://host:port``) or ``"local"`` (a LocalCluster).

    Parameters
    ----------
    address : str
    workers : int
        Worker processes of a local cluster (one thread each).
    timeout : float, optional
        Seconds to wait for the scheduler (default :data:`CONNECT_TIMEOUT_S`, read at the call).

    Raises
    ------
    ClusterError
        If Dask is missing, the scheduler cannot be reached within ``timeout``,
        or the workers cannot import nines-sim.
    """
    distributed = _import_distributed()
    timeout = CONNECT_TIMEOUT_S if timeout is None else timeout
    cluster = None
    try:
        if address == "local":
            import dask

            environ = {f"distributed.nanny.pre-spawn-environ.{k}": v for k, v in WORKER_ENVIRON.items()}
            # Workers inherit an ignored SIGINT: a Ctrl-C is the client's to handle (it asks the
            # running chunks to stop and keeps what they finished), not a reason for workers to die.
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                with dask.config.set(environ):
                    cluster = distributed.LocalCluster(
                        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
                    )
            finally:
                signal.signal(signal.SIGINT, previous)
            client = distributed.Client(cluster, timeout=f"{timeout}s")
        else:
            client = _connect_remote(distributed, address, timeout)
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


def _connect_remote(distributed: Any, address: str, timeout: float) -> Any:
    """A client for a remote scheduler, or a ClusterError within about ``timeout`` seconds."""
    if not address.strip():
        raise ClusterError("--scheduler needs an address such as tcp://HOST:8786, or local")
    outcome: dict[str, Any] = {}

    def attempt() -> None:
        try:
            outcome["client"] = distributed.Client(address, timeout=f"{timeout}s")
        except BaseException as exc:  # reported below as a one-line error
            outcome["error"] = exc

    # A peer that accepts the connection but never answers can stall Dask's handshake
    # past its own timeout, so the wait is bounded here.
    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout + 5)
    if worker.is_alive() or "client" not in outcome:
        exc = outcome.get("error")
        if isinstance(exc, ValueError) and "://" not in address:
            raise ClusterError(
                f"--scheduler {address} is not a scheduler address; write tcp://HOST:PORT, as 'dask scheduler' "
                f"prints it (e.g. tcp://10.0.0.5:8786), or local"
            )
        why = "no answer" if exc is None else type(exc).__name__
        raise ClusterError(
            f"cannot reach a Dask scheduler at {address} within {timeout:g} s ({why}); start one with "
            f"'dask scheduler' and 'dask worker {address}', and write --scheduler tcp://HOST:PORT (or local)"
        )
    return outcome["client"]


def _absolute(lineup: tuple[str, ...]) -> tuple[str, ...]:
    """Strategy file specs with absolute paths, so that workers in other folders find them."""
    out = []
    for spec in lineup:
        where, sep, cls = spec.rpartition(":")
        out.append(f"{Path(where).resolve()}:{cls}" if sep and where.endswith(".py") else spec)
    return tuple(out)


#: Seconds between a Dask worker's looks at the stop event (each look is a round trip to the scheduler).
STOP_CHECK_S = 0.25


def _stoppable(fn: Callable, args: tuple, stop_name: str) -> tuple[str, Any]:
    """Run one chunk on a worker; its errors come back as values (Dask retries only lost workers)."""
    import distributed

    stop = distributed.Event(stop_name)
    last = [time.monotonic(), False]

    def should_stop() -> bool:
        # Asked after every engine step: look at the scheduler's event a few times a second only.
        now = time.monotonic()
        if not last[1] and now - last[0] >= STOP_CHECK_S:
            last[0], last[1] = now, stop.is_set()
        return bool(last[1])

    if stop.is_set():
        return "stopped", None
    try:
        return "ok", fn(*args, on_matches=None, should_stop=should_stop)
    except Exception as exc:
        return "error", exc


def _run_chunks(
    client: Any, fn: Callable, units: Iterable[tuple[Any, tuple]], take: Callable[[Any, Any], None]
) -> bool:
    """Run chunks on the cluster, handing each result to ``take``; True if Ctrl-C cut the run short.

    Chunks are submitted lazily, two per worker at a time, so a Ctrl-C waits
    for no queued work: the running chunks are asked to stop at their next
    step and return what they finished; on a chunk's error the others are
    stopped and it is raised.
    """
    distributed = _import_distributed()
    stop_name = f"nines-stop-{uuid.uuid4().hex}"
    stop = distributed.Event(stop_name, client=client)
    n_workers = max(1, len(client.scheduler_info()["workers"]))

    def submit(args: tuple) -> Any:
        return client.submit(_stoppable, fn, args, stop_name, pure=False)

    def wait_done(futures: list) -> list:
        try:
            distributed.wait(futures, timeout=POLL_S, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return []
        return [f for f in futures if f.done()]

    def result(fut: Any) -> Any:
        status, value = fut.result()
        if status == "error":
            raise value
        return value

    with Interrupt(notice=STOP_NOTICE) as flag:
        drive(units, 2 * n_workers, submit, wait_done, result, lambda: flag.flag, stop.set, take)
    return flag.flag


def _chunk_size(n_matches: int, n_workers: int, chunk_size: int | None) -> int:
    if chunk_size:
        return chunk_size
    # few, large chunks keep each engine's batch full; enough of them to balance the workers
    return int(min(100_000, max(2_000, math.ceil(n_matches / (2 * max(n_workers, 1))))))


def run_plan_dask(
    client: Any,
    plan: tour.Plan,
    n_matches: int,
    seed: int,
    batch_size: int = 32768,
    chunk_size: int | None = None,
    save_matches: bool = False,
    on_progress: Callable[[int, int], None] | None = None,
    ranges: list[Range] | None = None,
) -> tour.RunOutcome:
    """A tournament on a Dask cluster; the same :class:`~nines_sim.tournament.RunOutcome` as local workers.

    ``on_progress(played, kept)`` hears of each chunk as it comes back.
    """
    n_workers = len(client.scheduler_info()["workers"])
    ranges = ranges or [(0, n_matches)]
    n = ranges_total(ranges)
    if chunk_size is None and len(plan.games) > 1:
        chunk_size = whole_chunk_size(n, n_workers)
    size = _chunk_size(n, n_workers, chunk_size)
    play, collector = tour.unit_driver(plan)
    collect = collector(plan, ranges)
    lineups = {g.key: _absolute(g.lineup) for g in plan.games}
    units = tour.plan_units(plan, ranges, size, seed, batch_size, save_matches, lineups)

    def done(tag: tuple[int, int], result: Any) -> None:
        kept = collect.take(tag, result) * len(plan.games)
        if on_progress and kept:
            on_progress(kept, kept)

    partial = _run_chunks(client, play, units, done)
    return collect.outcome(partial)


def run_comparison_dask(
    client: Any,
    rule_sets: list[cmp.RuleSet],
    lineup: tuple[str, ...],
    n_matches: int,
    seed: int,
    batch_size: int = 32768,
    chunk_size: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    ranges: list[Range] | None = None,
) -> cmp.CompareOutcome:
    """A rule comparison on a Dask cluster; the same :class:`~nines_sim.compare.CompareOutcome` as locally."""
    n_workers = len(client.scheduler_info()["workers"])
    ranges = ranges or [(0, n_matches)]
    # chunks small enough to lose little to a Ctrl-C (a stopped chunk keeps the block every rule set finished)
    size = chunk_size or whole_chunk_size(ranges_total(ranges), n_workers)
    collect = cmp.CompareCollector(rule_sets, ranges)
    units = cmp.compare_units(rule_sets, _absolute(lineup), ranges, size, seed, batch_size)

    def done(tag: tuple[int, int], c: cmp.CompareChunk | None) -> None:
        kept = collect.take(tag, c) * len(rule_sets)
        if on_progress and kept:
            on_progress(kept, kept)

    partial = _run_chunks(client, cmp.compare_range, units, done)
    return collect.outcome(partial)
