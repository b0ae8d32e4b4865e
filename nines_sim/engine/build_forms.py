"""Building every form of the compiled turn loop ahead of time, in parallel processes (``nines warm-up``, the tests).

A command compiles the forms it needs the first time it meets them (tens of seconds each on an empty cache,
one after the other). :func:`build_all` builds all of them at once instead, the groups of :data:`GROUPS` side
by side in processes of their own, and says as each form is done; later commands load them from numba's cache.
Each process builds its forms by playing one short match on each (the very signatures the commands compile),
then the tally's loops on what it played.  The forms of one group share their phases' compiled code
(:func:`nines_sim.engine.bits.shared_inline`), so a group's second form compiles only its own loop.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

#: Every form of the turn loop, by name: (rules preset, lineup, traced).  The classic shape and the general one
#: (skip-reverse reaches it), each with and without ``expert`` inlined, the search's sampler of hidden hands
#: (``lookahead``, ``nines review``, ``nines analyze``, training: a ``lookahead`` seat, on the classic ``expert``
#: form; a 3-seat table, then a heads-up one, whose sampler has a form of its own), the trace form (replays,
#: ``nines play``, ``nines analyze`` of a match with a plug-in or under rules of the general shape; built-ins under
#: classic-shaped rules are analysed on the classic ``expert`` form) and the compiled luck walk (``--luck``,
#: :mod:`nines_sim.luck.steps`; it reads the trace form's rows but shares no code with it, so it builds alone).
#: ``train``: ``nines train``'s batch features (:mod:`nines_sim.learn.compile_ahead`; its sampler is the search
#: form's), on the classic ``expert`` form.  ``learned``: the features every ``learned`` model's decision shares
#: (:data:`nines_sim.learn.decide.SHARED_FEATURES`) and the shipped heads-up classic model's own decision and its
#: likelihood of an opponent's plays (the search's ``play_model=learned``, :mod:`nines_sim.learn.likelihood`).
FORMS: dict[str, tuple[str, tuple[str, ...], bool]] = {
    "classic-expert": ("classic", ("expert", "random", "random", "random"), False),
    "classic": ("classic", ("random",) * 4, False),
    "search": ("classic", ("lookahead", "expert", "expert"), False),
    "train": ("classic", ("expert", "expert"), False),
    "learned": ("classic", ("learned", "expert"), False),
    "general-expert": ("skip-reverse", ("expert", "random", "random", "random"), False),
    "general": ("skip-reverse", ("random",) * 4, False),
    "trace": ("classic", ("random", "random"), True),
    "luck": ("classic", ("random", "dump-faces"), True),
}
#: Forms built one after the other in one process: a group's forms share their phases' compiled code (the
#: classic shape's phases are compiled for its constants, the general ones for any rules), so its second form
#: loads them from the cache.  The default tournament's form comes first.
GROUPS: tuple[tuple[str, ...], ...] = (
    ("classic-expert", "classic", "search", "train", "learned"),
    ("general-expert", "general", "trace", "luck"),
)


#: The compiled function each form's machine code is filed under in numba's cache (its other functions are
#: compiled into it), as ``module:name``; the search's sampler has no one such function and is not listed.
ROOTS: dict[str, str] = {
    "classic-expert": "nines_sim.engine.turn_loop:play_slots_classic_expert",
    "classic": "nines_sim.engine.turn_loop:play_slots_classic",
    "general-expert": "nines_sim.engine.turn_loop:play_slots_expert",
    "general": "nines_sim.engine.turn_loop:play_slots",
    "trace": "nines_sim.engine.turn_loop:play_slots_trace",
    "luck": "nines_sim.luck.steps:walk",
}


#: Work a building process can do ahead of its forms for a form another process builds, by name (not forms: no
#: line is said for them): ``walk-helpers`` compiles the luck walk's helpers
#: (:func:`nines_sim.luck.kernel.compile_helpers`), which the walk's own process asks numba's cache for only once
#: its type inference reaches their calls, after its first seconds of inlining the steps; ``scalar-helpers`` those of
#: a fixed value's walk, in the walk's process before it (:func:`nines_sim.luck.value_kernel.compile_helpers`).
AHEAD: dict[str, str] = {"walk-helpers": "nines_sim.luck.kernel:compile_helpers",
                         "scalar-helpers": "nines_sim.luck.value_kernel:compile_helpers"}  # fmt: skip


@dataclass(frozen=True)
class Built:
    """One form built: its name (a key of :data:`FORMS`), whether numba compiled anything for it (False: it
    was all in the cache), and the processor seconds its process spent on it."""

    form: str
    compiled: bool
    cpu_s: float


def build(form: str) -> list[str]:
    """Build one form in this process: play a match on it, then tally it (compiling what the cache lacks).

    Parameters
    ----------
    form : str
        A key of :data:`FORMS`.

    Returns
    -------
    list of str
        The functions numba compiled, as ``module.name`` (empty: everything was loaded from the cache, or
        was already loaded in this process).

    Raises
    ------
    KeyError
        For a name not in :data:`FORMS`.
    """
    from numba.core import event

    from nines_sim.engine.batch import CompiledEngine
    from nines_sim.game.rules import make_rules
    from nines_sim.results.tally import Tally
    from nines_sim.strategy.registry import make_lineup

    preset, lineup, traced = FORMS[form]
    with event.install_recorder("numba:compile") as rec:
        rules = make_rules(preset, players=len(lineup))
        if form == "luck":
            build_walk(rules, make_lineup(list(lineup)))
        elif form == "train":
            from nines_sim.learn.compile_ahead import build_features

            build_features(rules)
        else:
            played = CompiledEngine(rules, make_lineup(list(lineup)), 0, 0, 1, trace=traced).run()
            Tally.from_results(played)
            if form == "search":  # a heads-up table's sampler too, the form for one hidden seat (sample_deal.py)
                CompiledEngine(make_rules(preset, players=2), make_lineup(list(lineup[:2])), 0, 0, 1).run()
            if form == "learned":  # the model's likelihood of the opponent's plays (lookahead:play_model=learned)
                from nines_sim.learn.likelihood import likelihood_for
                from nines_sim.learn.model import shipped

                likelihood_for(shipped(rules)[0])
    names = []
    for _, ev in rec.buffer:
        fn = getattr(ev.data["dispatcher"], "py_func", None)
        if ev.is_start and fn is not None:
            names.append(f"{fn.__module__}.{fn.__name__}")
    return names


def build_walk(rules: Any, lineup: Sequence) -> None:
    """Compile the luck walk (:func:`nines_sim.luck.steps.walk`) alone: a walker fed no rows, the signature every
    ``--luck`` fit and run walks with (its arrays' kinds depend on no table), without playing the trace form first
    (the form that writes the rows it reads shares no code with it, and builds beside it).

    Parameters
    ----------
    rules : nines_sim.game.rules.Rules
    lineup : sequence of Strategy
        The table's seats (any: the walk is compiled for all tables at once).
    """
    import numpy as np

    from nines_sim.engine.loop_constants import EV_WIDTH
    from nines_sim.engine.seats import seat_ids
    from nines_sim.luck.compiled import RowWalker

    RowWalker(rules, seat_ids(lineup), 0, 0).feed(0, np.zeros((0, EV_WIDTH), dtype=np.int64))


def root(form: str) -> Any:
    """The numba dispatcher a form's machine code is filed under (:data:`ROOTS`; its module imported here).

    Raises
    ------
    KeyError
        For a form not in :data:`ROOTS`.
    """
    return _named(ROOTS[form])


def ready_to_fork(form: str) -> None:
    """Load numba's tables of types and functions into this process (about 0.6 s of processor time, with the imports of
    ``form``'s module) before :class:`BuildForms` forks building processes from it (``fork=True``): loaded once here,
    not again in each of them, which then begin compiling at once.

    Parameters
    ----------
    form : str
        A key of :data:`ROOTS`: its module is imported here (the first form a building process builds, whose imports
        it needs anyway).

    Raises
    ------
    KeyError
        For a form not in :data:`ROOTS`.
    """
    fn = root(form)
    fn.typingctx.refresh()
    fn.targetctx.refresh()


def _named(ref: str) -> Any:
    """The object a ``module:name`` reference names (its module imported here)."""
    import importlib

    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


def in_cache(form: str) -> bool:
    """Whether numba's cache holds machine code of ``form`` for this code and this machine, or this process has
    it already (:func:`cached` of its root function, :data:`ROOTS`).

    Raises
    ------
    KeyError
        For a form not in :data:`ROOTS`.
    """
    return cached(root(form))


def cached(fn: Any) -> bool:
    """Whether a cached numba dispatcher has machine code in this process, or numba's cache holds some for this
    code and this machine (loaded in about a second, where a form's compile takes tens).

    Any signature counts: each form is compiled for one, whatever the table (a test that calls a function with
    other argument kinds may leave others).  The index is read as numba reads it: stale when any file the code
    takes in changed (:class:`~nines_sim.engine.code_cache.DigestCache`).

    Parameters
    ----------
    fn : numba dispatcher
        Compiled with ``cache=True``.
    """
    if fn.overloads:
        return True
    probe = fn._cache._index_key(None, fn.targetctx.codegen())  # every key of this code and machine ends alike
    return any(key[1:] == probe[1:] for key in fn._cache._cache_file._load_index())


def _build_here(forms: Sequence[str]) -> None:
    """Build ``forms`` in this process, one line each on stdout as it is done: ``form compiled cpu_s`` (the work of
    :data:`AHEAD` among them done in turn, no line said)."""
    for form in forms:
        if form in AHEAD:
            _named(AHEAD[form])()
            continue
        t0 = time.process_time()
        compiled = build(form)
        print(f"{form} {int(bool(compiled))} {time.process_time() - t0:.1f}", flush=True)


class BuildForms:
    """Forms of the turn loop building in parallel processes, a group of :data:`GROUPS` each (started at once).

    Parameters
    ----------
    workers : int, optional
        Processes at most (default: the CPU count); groups beyond it join the others' processes.
    on_built : callable, optional
        ``on_built(Built)`` as each form is done, from a reading thread (one call at a time).
    forms : sequence of str, optional
        The forms to build (keys of :data:`FORMS`; default: all).
    apart : bool
        Each form in a process of its own (``workers`` ignored): for forms that share no compiled code, as the
        trace form and the luck walk.
    lanes : sequence of sequences of str, optional
        The work of each process, in order, instead (``forms``, ``workers`` and ``apart`` ignored): forms and the
        work of :data:`AHEAD`.
    fork : bool
        Fork the processes from this one (:class:`_Forked`) where it can (a POSIX system, this process's one
        thread), rather than start new interpreters: they begin compiling with this process's imports and numba's
        tables loaded, each about 0.6 s of processor time sooner (a ``--luck`` run has loaded them to see what
        numba's cache lacks).

    Raises
    ------
    ValueError
        For a form name not in :data:`FORMS` (nor, in ``lanes``, :data:`AHEAD`), or fewer than one worker.
    """

    def __init__(
        self,
        workers: int | None = None,
        on_built: Callable[[Built], None] | None = None,
        forms: Sequence[str] | None = None,
        apart: bool = False,
        lanes: Sequence[Sequence[str]] | None = None,
        fork: bool = False,
    ) -> None:
        wanted = list(FORMS) if forms is None else list(forms)
        if lanes is not None:
            wanted = [f for lane in lanes for f in lane if f not in AHEAD]
        unknown = [f for f in wanted if f not in FORMS]
        if unknown:
            raise ValueError(f"no form named {unknown[0]!r}: the forms are {', '.join(FORMS)}")
        n = workers if workers is not None else (os.cpu_count() or 1)
        if n < 1:
            raise ValueError(f"workers must be at least 1, not {n}")
        groups = [[f] for f in wanted] if apart else [g for g in ([f for f in g if f in wanted] for g in GROUPS) if g]
        n = len(groups) if apart else n
        #: The forms each process builds, in order (and the work of :data:`AHEAD` among them).
        self.lanes: list[list[str]] = [[] for _ in range(min(n, len(groups)))]
        for i, g in enumerate(groups):
            self.lanes[i % len(self.lanes)] += g
        if lanes is not None:
            self.lanes = [list(lane) for lane in lanes if lane]
        #: The forms built so far, in the order they were done.
        self.done: list[Built] = []
        self._lock = threading.Lock()
        self._on_built = on_built
        forked = fork and hasattr(os, "fork") and threading.active_count() == 1  # no other thread's locks held
        self._procs: list[Any] = [
            _Forked(lane)
            if forked
            else subprocess.Popen(
                [sys.executable, "-m", "nines_sim.engine.build_forms", *lane],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for lane in self.lanes
        ]
        self._readers = [threading.Thread(target=self._read, args=(p,), daemon=True) for p in self._procs]
        for t in self._readers:
            t.start()

    def _read(self, p: Any) -> None:
        assert p.stdout is not None
        for line in p.stdout:
            form, compiled, cpu = line.split()
            built = Built(form, compiled == "1", float(cpu))
            with self._lock:
                self.done.append(built)
                if self._on_built is not None:
                    self._on_built(built)

    def wait(self) -> list[Built]:
        """Wait for every building process; the forms built, in the order they were done.

        Raises
        ------
        RuntimeError
            If a building process failed (its last line of error output).
        """
        failed = []
        try:
            for p, t in zip(self._procs, self._readers):
                t.join()
                err = p.stderr.read() if p.stderr is not None else ""
                if p.wait():
                    failed.append((err.strip().splitlines() or ["(no error output)"])[-1])
        finally:  # a Ctrl-C here stops the building processes too
            self.stop()
        if failed:
            raise RuntimeError(f"building the compiled forms failed: {failed[0]}")
        return self.done

    def stop(self) -> None:
        """End the processes still building (what they finished stays in the cache)."""
        for p in self._procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def _end_with_parent(parent: int) -> None:
    """Have Linux end this (forked) process when its parent does: a run killed by SIGTERM, SIGHUP or SIGKILL
    leaves no building process behind to compile on for a minute.  Only a fork from the run's one thread asks it
    (the signal follows the thread that forked).  Elsewhere, or where ``prctl`` is missing, it does nothing."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent ended before the request was made
        os._exit(1)


class _Forked:
    """A building process forked from this one, doing ``lane`` as ``python -m nines_sim.engine.build_forms`` would
    (:func:`_build_here`): what :class:`BuildForms` uses of a :class:`subprocess.Popen` (its lines on ``stdout``, its
    error output on ``stderr``, ``poll``, ``wait``, ``kill``).  It dies at a Ctrl-C (the default action; this process
    ends it anyway) and leaves by ``os._exit``, running none of this process's exit handlers."""

    def __init__(self, lane: Sequence[str]) -> None:
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        sys.stdout.flush()  # nothing buffered here is written twice
        sys.stderr.flush()
        parent = os.getpid()
        self.pid = os.fork()
        if self.pid == 0:  # pragma: no cover - the child, measured by its lines
            code = 1
            try:
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's death signal ends it, whatever the run set
                _end_with_parent(parent)
                os.close(out_r)
                os.close(err_r)
                os.dup2(out_w, 1)
                os.dup2(err_w, 2)
                sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115 - the process's own, until os._exit
                sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
                _build_here(lane)
                code = 0
            except BaseException:  # noqa: BLE001 - said on stderr, the parent reads its last line
                traceback.print_exc()
            finally:
                try:  # a parent killed meanwhile closed the pipes: a flush then raises, and must not escape
                    sys.stdout.flush()
                    sys.stderr.flush()
                except BaseException:  # noqa: BLE001, S110 - nobody is left to tell
                    pass
                os._exit(code)  # never back into the caller's code, whatever happened above
        os.close(out_w)
        os.close(err_w)
        self.stdout = open(out_r, encoding="utf-8")  # noqa: SIM115 - closed as the process ends (wait)
        self.stderr = open(err_r, encoding="utf-8")  # noqa: SIM115
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self) -> int:
        if self.returncode is None:
            self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            os.kill(self.pid, signal.SIGKILL)


def build_all(
    workers: int | None = None,
    on_built: Callable[[Built], None] | None = None,
    forms: Sequence[str] | None = None,
) -> list[Built]:
    """Build the forms of the turn loop in parallel processes and wait for them (:class:`BuildForms`, whose
    parameters these are); the forms built, in the order they were done."""
    return BuildForms(workers, on_built, forms).wait()


if __name__ == "__main__":
    _build_here(sys.argv[1:])
