"""Ctrl-C during a first run's compile stops the run as any Ctrl-C before a kept match does: exit 130, one line.

numba compiles a first run's code and writes it to its cache through llvmlite's callbacks; a KeyboardInterrupt
raised inside one is printed and dropped there, and numba then fails with its own error (``RuntimeError: no
compiled object yet for <Library ...>``): the run ended in a long traceback, exit 1.  Driven by events: the compile
step raises SIGINT in this process, drops the KeyboardInterrupt as the callback does, then fails as numba did.
"""

from __future__ import annotations

import signal

import pytest
from typer.testing import CliRunner

from nines_sim.cli import app

runner = CliRunner()


def compile_step(ctrl_c: bool, numba_fails: bool):  # noqa: ANN201 - a stand-in for warm_up
    """A compile that hears a Ctrl-C and drops it, as a ctypes callback does ("Exception ignored on calling ctypes
    callback function"), then fails as numba did, or carries on."""

    def step(*_args, **_kwargs) -> None:  # noqa: ANN002, ANN003
        if ctrl_c:
            try:
                signal.raise_signal(signal.SIGINT)  # Ctrl-C, heard while the compile writes numba's cache
            except KeyboardInterrupt:
                pass
        if numba_fails:
            raise RuntimeError("no compiled object yet for <Library '_expert_threat' (finalized)>")

    return step


def tournament_compiling(step, out):  # noqa: ANN001, ANN201
    """A two-worker tournament of two chunks (a pool: its warm-up compiles in this process), warm-up replaced."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("nines_sim.engine.batch.warm_up", step)
        return runner.invoke(app, ["tournament", "expert", "random", "-n", "8", "--chunk-size", "4", "-w", "2",
                                   "-q", "--no-charts", "--out", str(out)])  # fmt: skip


@pytest.mark.parametrize("numba_fails", [True, False])
def test_a_ctrl_c_dropped_in_the_compile_ends_the_run_as_a_ctrl_c(numba_fails, tmp_path):
    """numba's error after the dropped Ctrl-C is the Ctrl-C's doing; where numba carries on, the run stops before
    its pool plays (it played every match, the Ctrl-C lost)."""
    out = tmp_path / "run"
    r = tournament_compiling(compile_step(ctrl_c=True, numba_fails=numba_fails), out)
    assert r.exit_code == 130, r.output
    assert r.output.strip().splitlines() == ["Stopped before any match was kept: no results were written."]
    assert not out.exists()  # nothing half-written


def test_the_same_error_without_a_ctrl_c_is_still_raised(tmp_path):
    """Only an error after a Ctrl-C is taken for the Ctrl-C: numba's error alone is not hidden as a stop."""
    r = tournament_compiling(compile_step(ctrl_c=False, numba_fails=True), tmp_path / "run")
    assert r.exit_code == 1 and isinstance(r.exception, RuntimeError), r.output
    assert not (tmp_path / "run").exists()
