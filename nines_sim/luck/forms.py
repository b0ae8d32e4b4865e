"""The compiled code a ``--luck`` run needs, compiled before the run reaches it on a first run: the trace form of
the turn loop (whose rows the walk reads) and the luck walk, each in a process of its own, side by side, while the
run sets up (:class:`LuckForms`).

The two share no compiled code, and the reserved matches the value is fitted on need both at once: compiled where
the run meets them, they took one after the other on one core (about half a minute after the default tournament
filled the cache, most of a first ``--luck`` run).  The walk's helpers compile in the other process, first
(:func:`lanes`).  The run then loads them from numba's cache.  On a warm cache nothing is started (two index files
read).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nines_sim.engine.build_forms import Built

#: The forms of :data:`nines_sim.engine.build_forms.FORMS` a ``--luck`` run plays and walks.
LUCK_FORMS = ("trace", "luck")


def lanes(building: list[str]) -> list[list[str]]:
    """The building processes' work for the forms ``building``: each form in a process of its own, and with the walk,
    its helpers compiled first in the other process (one of their own when the walk builds alone; ``walk-helpers``,
    :data:`nines_sim.engine.build_forms.AHEAD`).  The walk's own process asks for them only after its first seconds
    (numba's inlining of its steps, before its type inference); compiled there, they were 3 of its 16 s of processor
    time, the trace form's process 10.  The helpers of a fixed value's walk (``scalar-helpers``) compile in the walk's
    process, before it: the other's would not all be built by the time it asks for them, and they even out the two
    processes (the trace form's about 12 s of processor time, the walk's 11.5, after the default tournament)."""
    lanes = [[f] for f in building if f != "luck"]
    if "luck" in building:
        if lanes:
            lanes[0].insert(0, "walk-helpers")
        else:
            lanes.append(["walk-helpers"])
        lanes.append(["scalar-helpers", "luck"])
    return lanes


class LuckForms:
    """The forms of :data:`LUCK_FORMS` that numba's cache lacks, building in processes of their own from now on.

    While the last form builds, the run's process, else waiting, loads the trace form once it is built (the fit
    plays it first) and does ``meanwhile``: the other building process has ended, so a core is free.

    Parameters
    ----------
    forms : sequence of str
        Forms of :data:`nines_sim.engine.build_forms.ROOTS` (default: :data:`LUCK_FORMS`).
    meanwhile : callable, optional
        Work of the run's for that time (imports it needs later), done once, if a form is built before the others.

    Attributes
    ----------
    building : list of str
        The forms being built (empty: all were in the cache).
    """

    def __init__(self, forms: tuple[str, ...] = LUCK_FORMS, meanwhile: Callable[[], None] | None = None) -> None:
        from nines_sim.engine.build_forms import BuildForms, in_cache, ready_to_fork, root

        self.building = [f for f in forms if not in_cache(f)]
        self._names = {f: root(f).py_func.__name__ for f in self.building}
        self._done: set[str] = set()
        self._hook: Callable[[str, bool], None] | None = None
        self._lock = threading.Lock()
        self._meanwhile = meanwhile
        if self.building:  # numba's tables, which this process loads anyway with the first code it loads from the
            ready_to_fork(self.building[0])  # cache: loaded once, before the building processes fork from it
        self._build = BuildForms(on_built=self._built, lanes=lanes(self.building), fork=True) if self.building else None

    def _built(self, built: Built) -> None:
        with self._lock:
            self._done.add(built.form)
            if self._hook is not None:
                self._hook(self._names[built.form], False)
            first = len(self._done) == 1 and len(self.building) > 1
        if first:  # in this reading thread, while ready() waits for the other form
            self._ahead(built.form)

    def _ahead(self, form: str) -> None:
        """Load ``form`` if it is the trace form, then do the run's ``meanwhile``: the run's work while the other
        form still builds.  A failure here is not an error (the run loads what it lacks itself later, and says why
        if that fails too)."""
        from nines_sim.engine.build_forms import build

        try:
            if form == "trace":
                build(form)  # from numba's cache: its one match and tally load what the fit plays
            if self._meanwhile is not None:
                self._meanwhile()
        except Exception:  # noqa: BLE001, S110 - see above
            pass

    def ready(self, compiling: Callable[[str, bool], None] | None = None) -> None:
        """Wait until the forms are built.

        A building process that failed is not an error here: the run compiles what it lacks itself, as without
        this (and says why if that fails too).

        Parameters
        ----------
        compiling : callable, optional
            ``compiling(name, started)``, as a run's progress bar hears a compile
            (:meth:`nines_sim.runs.progress.RunProgress.compiling`): each form's compiled function not yet built
            as the wait starts, and again as it is built.
        """
        build, self._build = self._build, None
        if build is None:
            return
        with self._lock:
            self._hook = compiling
            waiting = [f for f in self.building if f not in self._done]
            if compiling is not None:
                for f in waiting:
                    compiling(self._names[f], True)
        try:
            build.wait()
        except RuntimeError:
            pass
        finally:
            with self._lock:
                self._hook = None
                if compiling is not None:  # failed or stopped: the bar shows play again
                    for f in waiting:
                        if f not in self._done:
                            compiling(self._names[f], False)

    def close(self) -> None:
        """End the processes still building (what they finished stays in the cache): a run that stopped before
        it needed them."""
        if self._build is not None:
            self._build.stop()
            self._build = None
