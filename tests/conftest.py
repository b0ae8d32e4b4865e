"""Session set-up shared by every test file.

With ``-n 2`` (the README's command) each pytest worker compiles the forms of the compiled turn loop its
tests reach the first time, and on an empty cache both workers compile the same forms at the same time
(numba has no cross-process lock): about 100 s of processor time each. The controller compiles the forms
once instead, in two processes side by side, while the workers start and collect the tests; the tests are
handed out once both processes are done, and the workers then load the forms from numba's cache. On a warm
cache this costs two short processes (about a second each).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

#: Each process loads (compiling where the cache lacks them) two forms of the turn loop: with and without
#: ``expert`` inlined, one in the classic shape and one general (skip-reverse reaches the general form). The
#: process without ``expert``, the quicker one, also loads the traced form (replays, analysis, the reference
#: agreement suite), which one worker would otherwise compile alone while the tests run.
_WARM = """
from nines_sim.engine.batch import CompiledEngine, warm_up
from nines_sim.game.rules import make_rules
from nines_sim.strategy.registry import make_lineup
classic, general = make_rules("classic"), make_rules("skip-reverse")
seats = {seats!r}
warm_up("fork", [(classic, seats), (general, seats)])
if {trace!r}:
    CompiledEngine(make_rules("classic", players=2), make_lineup(["random"] * 2), 1, 0, 1, trace=True).run()
"""

_WARMING: list[subprocess.Popen] = []


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return  # an xdist worker, or a run without workers: each test compiles what it reaches, as before
    lineups = ((["random"] * 4, True), (["expert"] + ["random"] * 3, False))
    _WARMING.extend(
        subprocess.Popen(
            [sys.executable, "-c", _WARM.format(seats=seats, trace=trace)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for seats, trace in lineups
    )


def _wait_for_warming() -> None:
    while _WARMING:
        p = _WARMING.pop()
        _, err = p.communicate()
        if p.returncode:  # not fatal: the tests then compile as they go, and the failing ones will say why
            sys.stderr.write(f"conftest: warming the compiled kernel failed:\n{err.decode(errors='replace')}\n")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids) -> None:  # noqa: ANN001 - xdist's hook
    """The controller hands out no test before the forms are compiled (xdist schedules after this hook)."""
    _wait_for_warming()


def pytest_unconfigure(config: pytest.Config) -> None:
    _wait_for_warming()  # a run that ended before any worker collected leaves no compiling process behind
