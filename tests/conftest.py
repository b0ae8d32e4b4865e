"""Session set-up shared by every test file.

With ``-n 2`` (the README's command) each pytest worker compiles the forms of the compiled turn loop its
tests reach the first time, and on an empty cache both workers compile the same forms at the same time
(numba has no cross-process lock). The controller has the forms built once instead
(:class:`nines_sim.engine.build_forms.BuildForms`: two processes side by side, forked from the controller, the
classic shape's forms in one and the general and traced ones in the other) while the workers start and collect the
tests, and says so on the terminal before "bringing up nodes", then each form as it is done; the tests are handed
out once both processes are done, and the workers then load the forms from numba's cache. On a warm cache this
costs two short processes (about a second each).  Once the classic group's process is done, its core trains the
training tests' shared run (``tests/shared_training.py``) beside the tests, into the cache.

The workers take whole files (``--dist loadfile``), handed out in the order :func:`pytest_collection_modifyitems`
puts them: the files that take the most processor time first, so that the last ones handed out are short and the
two workers end together (xdist's own order, most tests first, left the training and tuning files, few tests of
tens of seconds each, to the end, where one worker ran them while the other had nothing left).  The files that
play on a Dask cluster (:data:`ON_DASK`) are one such unit, handed to one worker, and share one cluster
(the ``scheduler`` fixture), started by the first test that asks for it and closed once the unit's last test is
done: each file's own cluster cost two worker processes' start and their loading of the compiled code.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import typer.testing

from nines_sim.engine.build_forms import GROUPS, BuildForms, Built, ready_to_fork

# Python's bytecode caches are written, as numba's are: under PYTHONDONTWRITEBYTECODE (container images set it;
# CI's had it) no ``.pyc`` was ever kept, so each worker rewrote every test module's asserts again (4.5 of a
# collection's 9.4 s of processor time) and each process the tests start compiled the package from source.  The
# workers and those processes inherit this environment (the controller loads this file before it starts them).
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# The Ctrl-C tests press it in this process (``signal.raise_signal``) as a terminal's reaches a command. A suite
# started with SIGINT ignored (a background job of a shell without job control: ``pytest ... &`` in a script)
# kept it ignored, as Python leaves an inherited disposition, and lost each one (four tests failed so); the
# ``nines`` entry point hears SIGINT again likewise (nines_sim/console.py).  Each worker loads this file too.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Dask's clock-driven chores, which no test reads, at long intervals: each process of a cluster woke 50 times a
# second to time its event loop and sampled its threads every 10 ms for a profile, so that an idle cluster of two
# workers cost about 0.07 s of processor time a second (0.007 so).  Set here, the clusters the tests start and
# those of the commands they run (``--scheduler local``) inherit them; a value set outside wins.
for _key, _value in {
    "DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "1s",
    "DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__INTERVAL": "2s",
    "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
    "DASK_DISTRIBUTED__WORKER__MEMORY__MONITOR_INTERVAL": "1s",
}.items():
    os.environ.setdefault(_key, _value)


def _command_once(build: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``build`` (Typer's making of an app's click command) once per app: the same command every time."""
    built: dict[Any, Any] = {}

    def command(app: Any) -> Any:
        if app not in built:
            built[app] = build(app)
        return built[app]

    return command


# Typer's CliRunner made the app's click command again at every ``invoke``, reading every command's signature and
# type hints anew (30 ms of processor time where the machine is idle, and a thousand invokes): the command made
# once is the same (the app's commands are registered when ``nines_sim.cli`` is imported, and each call of one
# parses its arguments afresh).
typer.testing._get_command = _command_once(typer.testing._get_command)

_BUILDING: list[BuildForms] = []


class _SharedTraining:
    """``tests/shared_training.py`` in a process of its own, started once the classic group's forms are built
    (its core would otherwise idle until the other group's end; the training's self-play plays the classic
    ``expert`` form, then loaded, not compiled again).  The tests do not wait for it: the files that train the
    same run are handed out after the first few (:data:`HEAVY_FIRST`), by when it is done."""

    def __init__(self, root: Path, say: Callable[[str], None]) -> None:
        say("training the tests' shared short run beside the tests (its code and its rounds' models compiled for "
            "the training tests; first run only: about half a minute of processor time)")  # fmt: skip
        self.err = tempfile.TemporaryFile("w+")  # not a pipe: nobody reads it while it runs
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.shared_training"], cwd=root,
                                     stdout=subprocess.DEVNULL, stderr=self.err, text=True)  # fmt: skip

    def stop(self) -> None:
        """End it if it still runs (what it compiled stays in the cache); say on stderr if it failed."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        elif self.proc.returncode:
            self.err.seek(0)
            last = (self.err.read().strip().splitlines() or ["(no error output)"])[-1]
            sys.stderr.write(f"conftest: the shared training run failed: {last}\n")
        self.err.close()


_TRAINING: list[_SharedTraining] = []


@pytest.hookimpl(trylast=True)  # after the terminal reporter is set up
def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return  # an xdist worker, or a run without workers: each test compiles what it reaches, as before
    reporter = config.pluginmanager.get_plugin("terminalreporter")

    def say(line: str) -> None:
        if reporter is not None:
            reporter.write_line(f"conftest: {line}")

    def built(b: Built) -> None:
        say(f"{b.form} {'compiled' if b.compiled else 'loaded from the cache'} ({b.cpu_s:.0f} s of processor time)")
        if b.form == GROUPS[0][-1]:  # the classic group's process is done
            _TRAINING.append(_SharedTraining(config.rootpath, say))

    groups = " | ".join(", ".join(g) for g in GROUPS)
    say(f"building the compiled turn loop's forms in {len(GROUPS)} processes before the tests start: {groups} "
        "(first run only: about a minute of compiling; then each loads from the cache)")  # fmt: skip
    # Forked from here with numba's tables loaded once (no worker has started yet: this process has one thread), not
    # started as interpreters that each import numba and load them (about 1.3 s of processor time less in all).
    ready_to_fork(GROUPS[0][0])
    _BUILDING.append(BuildForms(len(GROUPS), built, fork=True))


def _wait_for_building() -> None:
    while _BUILDING:
        try:
            _BUILDING.pop().wait()
        except RuntimeError as exc:  # not fatal: the tests then compile as they go, and the failing ones say why
            sys.stderr.write(f"conftest: {exc}\n")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids) -> None:  # noqa: ANN001 - xdist's hook
    """The controller hands out no test before the forms are built (xdist schedules after this hook)."""
    _wait_for_building()


def pytest_unconfigure(config: pytest.Config) -> None:
    _wait_for_building()  # a run that ended before any worker collected leaves no building process behind
    while _TRAINING:  # nor a training one (a run of a few files can end before it)
        _TRAINING.pop().stop()
    _CLUSTER.close()  # nor a cluster (a run stopped in a test on it)


#: The test files that play on a cluster of Dask worker processes, in the order their tests run: one unit of
#: ``--dist loadfile``'s schedule (:func:`pytest_xdist_make_scheduler`), so that they share one cluster.  The killed
#: worker's test (``test_cluster.py``'s last) comes last: the worker its nanny starts again is not waited for.
ON_DASK = ("test_experiment_workers.py", "test_plugin_helpers.py", "test_train_dask.py", "test_cluster.py")


class _Cluster:
    """The cluster of :data:`ON_DASK`'s files: two worker processes of one thread each, as ``--scheduler local``
    starts (its address reached as a real cluster's is).  Started when first asked for, closed by
    :func:`pytest_runtest_teardown` once the next test is not on it (a run of these files alone, or with ``-n
    0`` in pytest's order, starts one per run of adjacent files, as each file did)."""

    def __init__(self) -> None:
        self.cluster = None

    def address(self) -> str:
        if self.cluster is None:
            distributed = pytest.importorskip("distributed")
            self.cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                                    dashboard_address=":0")  # fmt: skip
        return self.cluster.scheduler_address

    def close(self) -> None:
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None


_CLUSTER = _Cluster()


@pytest.fixture
def scheduler() -> str:
    """The address of the running Dask cluster that :data:`ON_DASK`'s tests share (see :class:`_Cluster`)."""
    return _CLUSTER.address()


def _on_dask(item: pytest.Item | None) -> bool:
    return item is not None and item.nodeid.split("::")[0].rpartition("/")[2] in ON_DASK


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):  # noqa: ANN201 - a hook wrapper
    yield
    if not _on_dask(nextitem):
        _CLUSTER.close()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):  # noqa: ANN001, ANN201 - xdist's hook
    """``--dist loadfile`` with :data:`ON_DASK`'s files as one unit; None (xdist's own) for another ``--dist``."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class OneClusterScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return "the files on Dask" if scope.rpartition("/")[2] in ON_DASK else scope

    return OneClusterScheduling(config, log)


#: The test files that take the most processor time, most first (per file, a cold ``-n 2`` run's durations and
#: single-process measurements, issue 42): handed out first.  A file not named here follows them, most tests
#: first; a name of a file gone is ignored.  Files of few tests that take seconds are named here too (from
#: ``test_leaf_value.py`` on, a cold single-process run's processor time per file, 00:15-00:52 UTC): by their
#: count of tests they were handed out among the last, where a worker running one of them alone left the other
#: idle.
HEAVY_FIRST = (
    "test_learned.py",
    "test_tune.py",
    "test_cluster.py",
    "test_contract.py",
    "test_train_dask.py",  # after a few: it trains tests/shared_training.py's run, by then trained beside them
    "test_reference_agreement.py",
    "test_compiled.py",
    "test_learned_search.py",
    "test_rule_sets.py",
    "test_tune_rules.py",
    "test_manifest_commands.py",
    "test_luck.py",
    "test_startup.py",
    "test_code_cache.py",
    "test_train_ctrl_c.py",
    "test_shared_forms.py",
    "test_review.py",
    "test_train_resume.py",
    "test_plugin_cache.py",
    "test_leaf_value.py",
    "test_analyze.py",
    "test_review_runs.py",
    "test_strategies.py",
    "test_stored_runs.py",
    "test_learned_forms.py",
    "test_experiment_workers.py",
    "test_ismcts.py",
    "test_play_tui.py",
    "test_packaging.py",
    "test_luck_fit.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In an xdist worker, order the files as :data:`HEAVY_FIRST` says (each file's tests kept in their order;
    :data:`ON_DASK`'s in its order, where the first of them stands); the controller hands them out in that order
    (``--no-loadscope-reorder`` in pyproject.toml).  Every worker orders the same collection alike.  A run without
    workers keeps pytest's order."""
    if not hasattr(config, "workerinput"):
        return
    rank = {name: i for i, name in enumerate(HEAVY_FIRST)}
    on_dask = min(rank.get(name, len(rank)) for name in ON_DASK)
    rank.update({name: on_dask for name in ON_DASK})
    files = [item.nodeid.split("::")[0] for item in items]
    count = Counter(files)
    first = {f: i for i, f in reversed(list(enumerate(files)))}

    def key(f: str) -> tuple[int, int, int, int]:
        name = f.rpartition("/")[2]
        return (rank.get(name, len(rank)), ON_DASK.index(name) if name in ON_DASK else 0, -count[f], first[f])

    order = sorted(range(len(items)), key=lambda i: (key(files[i]), i))
    items[:] = [items[i] for i in order]
