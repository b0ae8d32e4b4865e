"""Running units of work with progress and a clean Ctrl-C, on local processes or any executor.

A unit of work is a module-level function called as
``fn(*args, on_matches=callback, should_stop=callback)``: it reports matches as
they finish (``on_matches(played, kept)``: played, and how many of them it will
keep if stopped now), asks ``should_stop()`` before it starts and at every
engine step, and returns what it keeps.

Units are handed out lazily, a few more than there are workers, so that a
Ctrl-C never waits for queued work: it sets a stop flag, nothing new starts,
the running units return what they finished within a step, and the caller
keeps it.  A failing unit stops the others the same way and is raised.
"""

from __future__ import annotations

import itertools
import os
import queue as queue_module
import signal
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from nines_sim.game.rules import Rules
from nines_sim.runs.stages import ctrl_c_heard

if TYPE_CHECKING:
    from concurrent.futures import Future

#: ``on_progress(played, kept)``: matches just finished, and how many of them are kept for good.  An
#: ``on_progress`` that also has a method ``compiling(form, started)`` hears when a form of the compiled
#: code starts and ends compiling (a cache miss: the first run, or after an edit), in this process or a
#: worker, so that a bar can say so and count play apart from compiling.
Progress = Callable[[int, int], None]

#: What a worker puts on the progress queue when a form starts or ends compiling (beside (played, kept)).
COMPILING = "compiling"


def listen_for_compiles(callback: Callable[[str, bool], None]) -> Callable[[], None]:
    """Have ``callback(form, started)`` called whenever numba compiles in this process (a cache miss).

    Parameters
    ----------
    callback : callable
        ``callback(form, started)``: the name of the function compiled (e.g. ``play_slots_classic``), and
        True as it starts, False once it is compiled (and cached).  Functions a form calls compile inside
        it and are not reported apart.

    Returns
    -------
    callable
        Stops listening.  Where numba is missing, nothing compiles and it does nothing.
    """
    try:
        from numba.core import event
    except ImportError:  # pragma: no cover - numba is a dependency
        return lambda: None

    class CompileListener(event.Listener):
        """Only the outermost compile is reported: the functions a form calls compile inside it.  A forked
        worker inherits the listener and ignores it (its compiles reach the parent over the progress queue)."""

        def __init__(self) -> None:
            self.depth = 0
            self.pid = os.getpid()

        def on_start(self, ev: Any) -> None:
            if os.getpid() == self.pid:
                self.depth += 1
                if self.depth == 1:
                    callback(_form_of(ev), True)

        def on_end(self, ev: Any) -> None:
            if os.getpid() == self.pid:
                self.depth -= 1
                if self.depth == 0:
                    callback(_form_of(ev), False)

    listener = CompileListener()
    event.register("numba:compile", listener)
    return lambda: event.unregister("numba:compile", listener)


def _form_of(ev: Any) -> str:
    """The name of the function a numba compile event is about."""
    dispatcher = (ev.data or {}).get("dispatcher")
    return getattr(getattr(dispatcher, "py_func", None), "__name__", None) or "compiled code"


def _compiling_hook(on_progress: Progress | None) -> Callable[[str, bool], None] | None:
    return getattr(on_progress, "compiling", None)


#: What a run prints on Ctrl-C, at once (the stop itself takes a step of each running engine).
STOP_NOTICE = "Stopping (Ctrl-C): finishing the current step; every finished chunk is kept."

#: Seconds between looks at finished units, progress and the stop flag.
POLL_S = 0.2

# Worker-process state, set by _init_worker (multiprocessing queues and events can
# only be inherited at process start, not passed with each task).
_progress_queue: Any = None
_stop_event: Any = None


def _init_worker(progress_queue: Any, stop_event: Any) -> None:
    global _progress_queue, _stop_event
    _progress_queue, _stop_event = progress_queue, stop_event
    listen_for_compiles(lambda form, started: progress_queue.put((COMPILING, form, started)))
    # Ctrl-C reaches every process of the group: a worker stops at the next step
    # and returns what finished, instead of dying mid-step; one compiling stops at its next compile's start
    signal.signal(signal.SIGINT, lambda *_: stop_event.set())
    _stop_between_compiles(stop_event.is_set)


def _report(played: int, kept: int) -> None:
    _progress_queue.put((played, kept))


def _call_in_worker(fn: Callable, *args: Any) -> Any:
    try:
        return fn(*args, on_matches=_report, should_stop=_stop_event.is_set)
    except CompileStopped:  # stopped while it compiled: it keeps nothing, as a unit stopped before its start
        return None


class CompileStopped(KeyboardInterrupt):
    """A Ctrl-C heard while this process compiled in the foreground, raised as the next function starts compiling
    (:class:`Interrupt` with ``compiles``): numba's compile of a first run's form takes tens of seconds, and a flag
    alone was heard only after it (17-19 s)."""


#: The :class:`Interrupt` blocks in force in this process's main thread, the innermost (whose handler hears a
#: Ctrl-C) last.
_active: list[Interrupt] = []


def _stop_between_compiles(stopped: Callable[[], bool]) -> Callable[[], None]:
    """Raise :class:`CompileStopped` as a function starts compiling in this process's main thread once
    ``stopped()`` (a Ctrl-C heard); returns what stops it.

    A compile's start is a point between two of numba's compiles (each function a form calls is compiled on its
    own, as it is met): the one it would start is not begun, those that finished stay finished.  Raised at a
    start only, so that every listener hears the end of each compile it heard start (the bar's count of forms
    compiling)."""
    numba_events = sys.modules.get("numba.core.event")
    if numba_events is None:  # numba not loaded: nothing compiles in the block before it is, and the run loads it first
        return lambda: None
    import threading

    pid, main = os.getpid(), threading.main_thread()

    class StopAtNextCompile(numba_events.Listener):
        def on_start(self, ev: Any) -> None:
            if os.getpid() == pid and threading.current_thread() is main and stopped():
                raise CompileStopped

        def on_end(self, ev: Any) -> None:
            pass

    listener = StopAtNextCompile()
    numba_events.register("numba:compile", listener)  # after the run's own listeners: they hear each start first
    return lambda: numba_events.unregister("numba:compile", listener)


class Interrupt:
    """Turns Ctrl-C into a flag for the duration of a block (restored afterwards).

    Parameters
    ----------
    event : multiprocessing.Event or similar, optional
        Also set on Ctrl-C (to reach worker processes).
    notice : str, optional
        Printed to stderr on the first Ctrl-C, so the user knows the run heard it.
    again : bool
        A second Ctrl-C raises KeyboardInterrupt (the usual convention: the user insists on stopping at once),
        where the first only set the flag.
    compiles : bool
        Once the flag is set, the next function numba starts to compile in this process raises
        :class:`CompileStopped` (a KeyboardInterrupt): for a block that plays in this process, whose first
        steps compile a first run's code for tens of seconds, and that keeps what finished before it
        (:func:`_run_here`).
    """

    def __init__(self, event: Any = None, notice: str | None = None, again: bool = False,
                 compiles: bool = False) -> None:  # fmt: skip
        self.flag = False
        self.event = event
        self.notice = notice
        self.again = again
        self.compiles = compiles
        self.previous: Any = None
        self._unlisten: Callable[[], None] = lambda: None

    def __enter__(self) -> Interrupt:
        try:
            self.previous = signal.signal(signal.SIGINT, self._handle)
        except ValueError:  # not the main thread: Ctrl-C cannot reach us anyway
            self.previous = None
            return self
        _active.append(self)
        if self.compiles:  # the innermost block's flag: an inner one that holds Ctrl-C back (writing) is not cut
            self._unlisten = _stop_between_compiles(lambda: self.flag and _active[-1] is self)
        return self

    def _handle(self, *_: object) -> None:
        if self.flag and self.again:
            raise KeyboardInterrupt
        if not self.flag and self.notice:
            sys.stderr.write(f"\n{self.notice}\n")
            sys.stderr.flush()
        self.flag = True
        if self.event is not None:
            self.event.set()

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            self._unlisten()
            _active.remove(self)
            signal.signal(signal.SIGINT, self.previous)


def drive(
    units: Iterable[tuple[Any, tuple]],
    limit: int,
    submit: Callable[[tuple], Any],
    wait_done: Callable[[list], list],
    result: Callable[[Any], Any],
    stopped: Callable[[], bool],
    stop: Callable[[], None],
    take: Callable[[Any, Any], None],
) -> None:
    """Hand out units lazily, at most ``limit`` at a time, until all are done or a stop is asked.

    Parameters
    ----------
    units : iterable of (tag, args)
    limit : int
        Units submitted and not yet taken, at most (workers plus a few queued).
    submit : callable
        ``submit(args) -> handle`` starts one unit.
    wait_done : callable
        ``wait_done(handles) -> finished handles``; returns within about :data:`POLL_S`.
    result : callable
        ``result(handle) -> value``; raises the unit's error.
    stopped, stop : callable
        Whether a stop was asked (Ctrl-C); ask every running unit to stop (called once).
    take : callable
        Receives ``(tag, value)`` of each finished unit.

    Raises
    ------
    Exception
        A unit's error, after every running unit was asked to stop.
    """
    todo = iter(units)
    running: dict[Any, Any] = {}
    asked = False
    try:
        while True:
            if not asked and stopped():
                asked = True
                stop()
            while not asked and len(running) < limit:
                nxt = next(todo, None)
                if nxt is None:
                    break
                running[submit(nxt[1])] = nxt[0]
            if not running:
                return
            for handle in wait_done(list(running)):
                take(running.pop(handle), result(handle))
    except BaseException:
        stop()
        raise


class _Done:
    """A unit run in this process, as a handle for :func:`drive`."""

    def __init__(self, value: Any) -> None:
        self.value = value


def _drain(q: Any, on_progress: Progress | None) -> None:
    while True:
        try:
            message = q.get_nowait()
        except queue_module.Empty:
            return
        if message[0] == COMPILING:
            if hook := _compiling_hook(on_progress):
                hook(message[1], message[2])
        elif on_progress:
            on_progress(*message)


def run_units(
    fn: Callable,
    units: Iterable[tuple[Any, tuple]],
    workers: int,
    take: Callable[[Any, Any], None],
    on_progress: Progress | None = None,
    rules: Iterable[Rules | tuple[Rules, Sequence]] | None = (),
    notice: str = STOP_NOTICE,
    meanwhile: Callable[[], None] | None = None,
) -> bool:
    """Run ``fn(*args)`` for every ``(tag, args)`` unit; hand each result to ``take(tag, result)``.

    Parameters
    ----------
    fn : callable
        A module-level function (it is pickled by reference for worker processes).
    units : iterable of (tag, args)
        Consumed lazily: a unit is built and submitted only when a worker is about to be free.
    workers : int
        1 runs the units in this process, in order; more use a process pool.  One unit alone plays in this
        process too, except in a process's first such run with a ``meanwhile``, before it has loaded the
        compiled code, where workers fork (:func:`_lone_in_worker`): one forked worker plays it while this
        process runs ``meanwhile``.
    take : callable
        Receives each unit's tag and result as it completes.
    on_progress : callable, optional
        ``on_progress(played, kept)`` with counts of matches (for a progress bar).
    rules : iterable of Rules or of (Rules, lineup), optional
        The rules the units play, each optionally with its lineup, so that forked workers inherit the
        compiled kernel's forms they need, and only those (:func:`nines_sim.engine.batch.warm_up`; None: none).
    notice : str
        Printed to stderr on the first Ctrl-C (default :data:`STOP_NOTICE`; a caller that keeps
        nothing of a stopped run, as ``nines bench``, says so instead).
    meanwhile : callable, optional
        Work for this process while a lone unit plays in a forked worker (such as loading what writes the
        results), called once the unit is handed out; not called where the units play otherwise.

    Returns
    -------
    bool
        True when Ctrl-C stopped the run early (what finished was still taken).

    Raises
    ------
    Exception
        The first exception of a unit, after the other units were told to stop.
    """
    import multiprocessing  # a process pool is loaded when a run reaches one

    units = iter(units)
    first = list(itertools.islice(units, 2))
    ctx = multiprocessing.get_context()
    lone = len(first) < 2 and workers > 1 and meanwhile is not None and _lone_in_worker(ctx.get_start_method())
    if len(first) < 2 and not lone:
        workers = 1
    units = itertools.chain(first, units)
    hook = _compiling_hook(on_progress)
    # a lone unit's worker reports its compiles over the queue, and this process compiles nothing (listening
    # here would import numba, which the worker is loading meanwhile)
    stop_listening = listen_for_compiles(hook) if hook is not None and not lone else (lambda: None)
    try:
        if workers <= 1:
            return _run_here(fn, units, take, on_progress, notice)
        return _run_pool(fn, units, 1 if lone else workers, take, on_progress, rules, notice,
                         (meanwhile or (lambda: None)) if lone else None, ctx)  # fmt: skip
    finally:
        stop_listening()


#: Whether this process has handed a lone unit to a forked worker (see :func:`_lone_in_worker`).
_lone_taken = False


def _lone_in_worker(start_method: str) -> bool:
    """Whether one unit alone, given work for ``meanwhile``, should play in a forked worker rather than here.

    Loading the compiled code (numba and the cached machine code) is most of a short run's time, and so is
    loading what writes its results (pandas, the statistics).  Until this process has loaded the compiled
    code, a forked worker can load it and play while this process loads the rest, on two cores at once.  A
    process does this once: its later runs play here (loading the compiled code then, once, as the first run
    would have), so that a session of many short runs does not pay a worker's load for each.  A spawned
    worker would import everything again, so only ``fork`` gains.
    """
    global _lone_taken
    if _lone_taken or start_method != "fork" or "numba" in sys.modules:
        return False
    _lone_taken = True
    return True


def _run_here(
    fn: Callable, units: Iterable[tuple[Any, tuple]], take: Callable[[Any, Any], None],
    on_progress: Progress | None, notice: str,
) -> bool:  # fmt: skip
    """The units one after another in this process."""
    with Interrupt(notice=notice, compiles=True) as flag:

        def now(args: tuple) -> _Done:
            try:
                return _Done(fn(*args, on_matches=on_progress, should_stop=lambda: flag.flag))
            except CompileStopped:  # Ctrl-C while it compiled: it keeps nothing, as a unit stopped before its start
                return _Done(None)

        drive(units, 1, now, lambda hs: hs, lambda h: h.value, lambda: flag.flag, lambda: None, take)
    return flag.flag


def _run_pool(
    fn: Callable, units: Iterable[tuple[Any, tuple]], workers: int, take: Callable[[Any, Any], None],
    on_progress: Progress | None, rules: Iterable[Rules | tuple[Rules, Sequence]] | None, notice: str,
    meanwhile: Callable[[], None] | None, ctx: Any,
) -> bool:  # fmt: skip
    """The units on a pool of ``workers`` processes; ``meanwhile`` (given for a lone unit only, whose worker
    loads the compiled code itself) runs here once the unit is handed out."""
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    if meanwhile is None:
        from nines_sim.engine.batch import warm_up

        warm_up(ctx.get_start_method(), rules)  # forked workers inherit the loaded kernel instead of each loading it
        if ctrl_c_heard():  # a Ctrl-C while it compiled, dropped where it was raised (numba's cache callback)
            raise KeyboardInterrupt
    progress, event = ctx.Queue(), ctx.Event()
    pending = [meanwhile] if meanwhile is not None else []

    def submit(args: tuple) -> Future:
        handle = pool.submit(_call_in_worker, fn, *args)
        while pending:
            pending.pop()()
        return handle

    def wait_done(handles: list[Future]) -> list[Future]:
        done, _ = wait(handles, timeout=POLL_S, return_when=FIRST_COMPLETED)
        _drain(progress, on_progress)
        return [f for f in handles if f in done]  # in submission order: the same order of takes every run

    with (
        Interrupt(event, notice=notice) as flag,
        ProcessPoolExecutor(
            max_workers=workers, mp_context=ctx, initializer=_init_worker, initargs=(progress, event)
        ) as pool,
    ):
        drive(units, 2 * workers, submit, wait_done, lambda f: f.result(), event.is_set, event.set, take)
        _drain(progress, on_progress)
    # A worker's queue writes go through a thread of its own, so its last ones (matches, the end of a compile)
    # can land after its result; once the workers have exited, all of them are there.
    _drain(progress, on_progress)
    return flag.flag or event.is_set()
