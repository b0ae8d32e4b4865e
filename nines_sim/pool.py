"""Running units of work on local worker processes, with progress and a clean Ctrl-C.

A unit of work is a module-level function called as
``fn(*args, on_matches=callback, should_stop=callback)``: it reports finished
matches as it goes and asks whether to stop at each of its step boundaries.
Ctrl-C (or a failing unit) sets a shared stop flag: every unit returns what it
finished, and the caller keeps it.
"""

from __future__ import annotations

import multiprocessing
import queue as queue_module
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

# Worker-process state, set by _init_worker (multiprocessing queues and events can
# only be inherited at process start, not passed with each task).
_progress_queue: Any = None
_stop_event: Any = None


def _init_worker(progress_queue: Any, stop_event: Any) -> None:
    global _progress_queue, _stop_event
    _progress_queue, _stop_event = progress_queue, stop_event
    # Ctrl-C reaches every process of the group: a worker stops at the next step
    # boundary and returns what finished, instead of dying mid-step.
    signal.signal(signal.SIGINT, lambda *_: stop_event.set())


def _call_in_worker(fn: Callable, *args: Any) -> Any:
    return fn(*args, on_matches=_progress_queue.put, should_stop=_stop_event.is_set)


class Interrupt:
    """Turns Ctrl-C into a flag for the duration of a block (restored afterwards)."""

    def __init__(self, event: Any = None) -> None:
        self.flag = False
        self.event = event
        self.previous: Any = None

    def __enter__(self) -> Interrupt:
        try:
            self.previous = signal.signal(signal.SIGINT, self._handle)
        except ValueError:  # not the main thread: Ctrl-C cannot reach us anyway
            self.previous = None
        return self

    def _handle(self, *_: object) -> None:
        self.flag = True
        if self.event is not None:
            self.event.set()

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


def _drain(q: Any, on_progress: Callable[[int], None] | None) -> None:
    while True:
        try:
            n = q.get_nowait()
        except queue_module.Empty:
            return
        if on_progress:
            on_progress(n)


def run_units(
    fn: Callable,
    units: Sequence[tuple[Any, tuple]],
    workers: int,
    take: Callable[[Any, Any], None],
    on_progress: Callable[[int], None] | None = None,
) -> bool:
    """Run ``fn(*args)`` for every ``(tag, args)`` unit; hand each result to ``take(tag, result)``.

    Parameters
    ----------
    fn : callable
        A module-level function (it is pickled by reference for worker processes).
    units : sequence of (tag, args)
    workers : int
        1 runs the units in this process, in order; more use a process pool.
    take : callable
        Receives each unit's tag and result as it completes.
    on_progress : callable, optional
        Receives counts of finished matches (for a progress bar).

    Returns
    -------
    bool
        True when Ctrl-C stopped the run early (what finished was still taken).

    Raises
    ------
    Exception
        The first exception of a unit, after the other units were told to stop.
    """
    if workers <= 1:
        with Interrupt() as stop:
            for tag, args in units:
                take(tag, fn(*args, on_matches=on_progress, should_stop=lambda: stop.flag))
                if stop.flag:
                    break
        return stop.flag
    ctx = multiprocessing.get_context()
    progress, event = ctx.Queue(), ctx.Event()
    with (
        Interrupt(event) as stop,
        ProcessPoolExecutor(
            max_workers=workers, mp_context=ctx, initializer=_init_worker, initargs=(progress, event)
        ) as pool,
    ):
        futures: dict[Future, Any] = {pool.submit(_call_in_worker, fn, *args): tag for tag, args in units}
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            _drain(progress, on_progress)
            for fut in done:
                try:
                    result = fut.result()
                except BaseException:
                    event.set()  # a unit failed: stop the others now, not at the end of their share
                    raise
                take(futures[fut], result)
            if event.is_set():
                stop.flag = True
        _drain(progress, on_progress)
    return stop.flag or event.is_set()
