"""Where units of work run: local processes or a Dask cluster, behind one interface.

A unit of work is a module-level function called as
``fn(*args, on_matches=callback, should_stop=callback)`` (see :mod:`nines_sim.runs.pool`).
A backend runs a stream of ``(tag, args)`` units and hands each result to
``take(tag, result)``, which returns the matches it kept (for progress).  Both
backends hand units out lazily, two per worker at a time, so that a Ctrl-C
waits for no queued work: the running units are asked to stop at their next
engine step and return what they finished, the caller keeps it, and ``run``
says that the run was cut short.  A unit's error stops the others and is raised.

The results are the same on either backend: a unit's result is a pure function
of its arguments.  Dask reruns the unit of a worker that dies; a strategy's error
is not retried (it comes back as a value and stops the run).
"""

from __future__ import annotations

import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nines_sim.game.rules import Rules
from nines_sim.runs.pool import POLL_S, STOP_NOTICE, Interrupt, Progress, drive, run_units

#: ``take(tag, result)``: merges one unit's result; returns the matches it kept (None counts as 0).
Take = Callable[[Any, Any], int | None]


@dataclass
class Job:
    """Units of work for a backend to run.

    Attributes
    ----------
    fn : callable
        The unit function, module level (pickled by reference).
    units : iterable of (tag, args)
        Consumed lazily: a unit is built and submitted only when a worker is about to be free.
    take : callable
        ``take(tag, result)``, called in this process as each unit finishes.
    on_progress : callable, optional
        ``on_progress(played, kept)`` with counts of matches (for a progress bar).
    warm : iterable of Rules or (Rules, lineup), or None
        The rules the units play, so that forked workers inherit the compiled forms they need
        (:func:`nines_sim.engine.batch.warm_up`; None: none to load).
    notice : str
        Printed to stderr on the first Ctrl-C.
    meanwhile : callable, optional
        Work this process may do while workers play (such as loading the modules that write the results);
        called at most once, and not at all where the units play in this process.
    """

    fn: Callable
    units: Iterable[tuple[Any, tuple]]
    take: Take
    on_progress: Progress | None = None
    warm: Iterable[Rules | tuple[Rules, Sequence]] | None = ()
    notice: str = STOP_NOTICE
    meanwhile: Callable[[], None] | None = None


class Backend(ABC):
    """Runs units of work (see the module docstring)."""

    #: Whether ``on_progress`` hears of matches as they finish (False: only as units finish).
    live_progress = True

    @property
    @abstractmethod
    def workers(self) -> int:
        """Units that run at once."""

    def portable(self, lineup: tuple[str, ...]) -> tuple[str, ...]:
        """The lineup's specs as the workers must read them (as given: the workers share this folder)."""
        return tuple(lineup)

    @abstractmethod
    def run(self, job: Job) -> bool:
        """Run every unit of ``job``, handing each result to ``job.take``; True when Ctrl-C cut the run short.

        Raises
        ------
        Exception
            The first error of a unit, after the other units were told to stop.
        """


@dataclass
class Local(Backend):
    """Units on this machine: in this process (``n_workers`` 1) or a pool of worker processes.

    Workers report matches as they finish, so progress is live.  See :func:`nines_sim.runs.pool.run_units`.
    """

    n_workers: int = 1

    @property
    def workers(self) -> int:
        return self.n_workers

    def run(self, job: Job) -> bool:
        return run_units(job.fn, job.units, self.n_workers, job.take, job.on_progress, job.warm, job.notice,
                         job.meanwhile)  # fmt: skip


#: Seconds between a Dask worker's looks at the stop event (each look is a round trip to the scheduler).
STOP_CHECK_S = 0.25


def absolute_specs(lineup: Sequence[str]) -> tuple[str, ...]:
    """Strategy file specs (``path.py:Class``) with absolute paths, so that workers in other folders find them."""
    out = []
    for spec in lineup:
        where, sep, cls = spec.rpartition(":")
        out.append(f"{Path(where).resolve()}:{cls}" if sep and where.endswith(".py") else spec)
    return tuple(out)


def _stoppable(fn: Callable, args: tuple, stop_name: str) -> tuple[str, Any]:
    """Run one unit on a Dask worker; its errors come back as values (Dask retries only lost workers)."""
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


@dataclass
class Dask(Backend):
    """Units on a Dask cluster, through a connected ``distributed.Client`` (:func:`nines_sim.runs.cluster.connect`).

    Progress is heard as units come back: ``on_progress(kept, kept)`` with the matches each kept.
    Strategy files are named by absolute paths, so that workers in other folders find them.
    """

    client: Any
    live_progress = False

    @property
    def workers(self) -> int:
        return len(self.client.scheduler_info()["workers"])

    def portable(self, lineup: tuple[str, ...]) -> tuple[str, ...]:
        return absolute_specs(lineup)

    def run(self, job: Job) -> bool:
        import distributed

        client = self.client
        stop_name = f"nines-stop-{uuid.uuid4().hex}"
        stop = distributed.Event(stop_name, client=client)

        def submit(args: tuple) -> Any:
            return client.submit(_stoppable, job.fn, args, stop_name, pure=False)

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

        def take(tag: Any, value: Any) -> None:
            kept = job.take(tag, value)
            if job.on_progress and kept:
                job.on_progress(kept, kept)

        with Interrupt(notice=job.notice) as flag:
            drive(job.units, 2 * max(1, self.workers), submit, wait_done, result, lambda: flag.flag, stop.set, take)
        return flag.flag


def choose(workers: int, client: Any = None) -> Backend:
    """The backend of a run: the Dask cluster of ``client`` where one is connected, else ``workers`` local processes.

    Parameters
    ----------
    workers : int
        Local worker processes (1 plays in this process).
    client : distributed.Client, optional
        A client from :func:`nines_sim.runs.cluster.connect`.
    """
    return Dask(client) if client is not None else Local(workers)
