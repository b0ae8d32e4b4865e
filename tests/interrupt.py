"""Interrupting runs by events, never by the clock.

``ctrl_c_once_kept`` starts a ``nines`` command as a terminal would (its own
process group), reads its progress bar until the bar says a chunk is kept,
then sends SIGINT to the whole group, as a terminal's Ctrl-C does.
``ctrl_c_in_process`` raises SIGINT inside this process from the progress
callback, for runs with ``--workers 1`` under ``CliRunner``.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
from collections.abc import Callable

from nines_sim.runs import progress

#: What the bar shows once a chunk (or a tournament's finished block) is kept.
KEPT = re.compile(rb"kept [1-9]")
#: A guard against a hung run, not a measure of speed: no assertion depends on it.
HANG_GUARD_S = 600


def ctrl_c_once_kept(args: list[str]) -> tuple[int, str, str]:
    """Run ``python -m nines_sim *args``, Ctrl-C it once the bar shows kept matches.

    Returns
    -------
    (int, str, str)
        Exit code, stdout, stderr (the bar's text included).
    """
    cmd = [sys.executable, "-m", "nines_sim", *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    seen = b""
    fd = proc.stderr.fileno()
    while not KEPT.search(seen):
        ready, _, _ = select.select([fd], [], [], HANG_GUARD_S)
        chunk = os.read(fd, 65536) if ready else b""
        if not chunk:  # the run ended (or hung) before keeping anything: the asserts will say
            break
        seen += chunk
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=HANG_GUARD_S)
    return proc.returncode, out.decode(), (seen + err).decode(errors="replace")


def ctrl_c_in_process(monkeypatch, when: Callable[[int, int], bool]) -> list[tuple[int, int]]:  # noqa: ANN001
    """Make the progress bar raise SIGINT in this process the first time ``when(played, kept)`` holds.

    Returns the list of (played, kept) totals seen, filled in as the run goes.
    """
    seen: list[tuple[int, int]] = []
    totals = [0, 0]
    call = progress.RunProgress.__call__

    def hooked(self: progress.RunProgress, played: int, kept: int) -> None:
        call(self, played, kept)
        before = (totals[0], totals[1])
        totals[0] += played
        totals[1] += kept
        seen.append((totals[0], totals[1]))
        if not when(*before) and when(*seen[-1]):
            signal.raise_signal(signal.SIGINT)  # the run's own Ctrl-C handler hears it at once

    monkeypatch.setattr(progress.RunProgress, "__call__", hooked)
    return seen


def built_ins_as_python_seats(monkeypatch) -> None:  # noqa: ANN001 - pytest's MonkeyPatch
    """Make this process's engines ask every built-in strategy in Python, through the broker, instead of its
    compiled twin: a batch of games then advances a turn at a time and matches finish out of index order (the
    case a stopped run's kept block is about).  Results are the same as the compiled twins' (the twins are
    checked move for move against the classes; ``learned``, a compiled plug-in, decides by the same compiled
    function either way)."""
    import numpy as np

    from nines_sim.engine import seats
    from nines_sim.game.codes import SID_PYTHON
    from nines_sim.strategy.registry import builtin_classes

    monkeypatch.setattr(seats, "builtin_ids", lambda: {})
    compiled_ids = seats.seat_ids
    builtins = set(builtin_classes().values())

    def ids(lineup):  # noqa: ANN001, ANN202
        return np.where([type(s) in builtins for s in lineup], SID_PYTHON, compiled_ids(lineup))

    monkeypatch.setattr(seats, "seat_ids", ids)
