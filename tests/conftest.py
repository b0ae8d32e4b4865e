"""Session set-up shared by every test file.

With ``-n 2`` (the README's command) each pytest worker compiles the forms of the compiled turn loop its
tests reach the first time, and on an empty cache both workers compile the same forms at the same time
(numba has no cross-process lock). The controller has the forms built once instead
(:class:`nines_sim.engine.build_forms.BuildForms`: two processes side by side, the classic shape's forms in one
and the general and traced ones in the other) while the workers start and collect the tests, and says so on
the terminal before "bringing up nodes", then each form as it is done; the tests are handed out once both
processes are done, and the workers then load the forms from numba's cache. On a warm cache this costs two
short processes (about a second each).  Once the classic group's process is done, its core trains the training
tests' shared run (``tests/shared_training.py``) beside the tests, into the cache.

The workers take whole files (``--dist loadfile``), handed out in the order :func:`pytest_collection_modifyitems`
puts them: the files that take the most processor time first, so that the last ones handed out are short and the
two workers end together (xdist's own order, most tests first, left the training and tuning files, few tests of
tens of seconds each, to the end, where one worker ran them while the other had nothing left).
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

import pytest

from nines_sim.engine.build_forms import GROUPS, BuildForms, Built

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
    _BUILDING.append(BuildForms(len(GROUPS), built))


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
    """In an xdist worker, order the files as :data:`HEAVY_FIRST` says (each file's tests kept in their order);
    the controller hands them out in that order (``--no-loadscope-reorder`` in pyproject.toml).  Every worker
    orders the same collection alike.  A run without workers keeps pytest's order."""
    if not hasattr(config, "workerinput"):
        return
    rank = {name: i for i, name in enumerate(HEAVY_FIRST)}
    files = [item.nodeid.split("::")[0] for item in items]
    count = Counter(files)
    first = {f: i for i, f in reversed(list(enumerate(files)))}

    def key(f: str) -> tuple[int, int, int]:
        return (rank.get(f.rpartition("/")[2], len(rank)), -count[f], first[f])

    order = sorted(range(len(items)), key=lambda i: (key(files[i]), i))
    items[:] = [items[i] for i in order]
