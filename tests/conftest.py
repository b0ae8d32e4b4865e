"""Session set-up shared by every test file.

With ``-n 2`` (the README's command) each pytest worker compiles the forms of the compiled turn loop its
tests reach the first time, and on an empty cache both workers compile the same forms at the same time
(numba has no cross-process lock): about 100 s of processor time each. The controller compiles the four
forms once instead, in two processes side by side, before the workers start; the workers then load them
from numba's cache. On a warm cache this costs two short processes (about a second each).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

#: Each process loads (compiling where the cache lacks them) two forms of the turn loop: with and without
#: ``expert`` inlined, one in the classic shape and one general (skip-reverse reaches the general form).
_WARM = """
from nines_sim.engine.batch import warm_up
from nines_sim.game.rules import make_rules
classic, general = make_rules("classic"), make_rules("skip-reverse")
seats = {seats!r}
warm_up("fork", [(classic, seats), (general, seats)])
"""


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return  # an xdist worker, or a run without workers: each test compiles what it reaches, as before
    lineups = (["random"] * 4, ["expert"] + ["random"] * 3)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WARM.format(seats=seats)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        for seats in lineups
    ]
    for p in procs:
        _, err = p.communicate()
        if p.returncode:  # not fatal: the tests then compile as they go, and the failing ones will say why
            sys.stderr.write(f"conftest: warming the compiled kernel failed:\n{err.decode(errors='replace')}\n")
