"""Ctrl-C during a first run's compile stops the run as any Ctrl-C before a kept match does: exit 130, one line.

numba compiles a first run's code and writes it to its cache through llvmlite's callbacks; a KeyboardInterrupt
raised inside one is printed and dropped there, and numba then fails with its own error (``RuntimeError: no
compiled object yet for <Library ...>``): the run ended in a long traceback, exit 1.  Driven by events: the compile
step raises SIGINT in this process, drops the KeyboardInterrupt as the callback does, then fails as numba did.
"""

from __future__ import annotations

import signal

from typer.testing import CliRunner

from nines_sim.cli import app

runner = CliRunner()


def compile_step_hit_by_ctrl_c(*_args, **_kwargs) -> None:  # noqa: ANN002, ANN003
    try:
        signal.raise_signal(signal.SIGINT)  # Ctrl-C, heard while the compile writes numba's cache
    except KeyboardInterrupt:
        pass  # as a ctypes callback drops it ("Exception ignored on calling ctypes callback function")
    raise RuntimeError("no compiled object yet for <Library '_expert_threat' (finalized)>")


def test_an_error_after_a_ctrl_c_dropped_in_the_compile_ends_as_the_ctrl_c(tmp_path, monkeypatch):
    monkeypatch.setattr("nines_sim.engine.batch.warm_up", compile_step_hit_by_ctrl_c)
    out = tmp_path / "run"
    r = runner.invoke(app, ["tournament", "expert", "random", "-n", "8", "--chunk-size", "4", "-w", "2", "-q",
                            "--no-charts", "--out", str(out)])  # fmt: skip
    assert r.exit_code == 130, r.output
    assert r.output.strip().splitlines() == ["Stopped before any match was kept: no results were written."]
    assert not out.exists()  # nothing half-written


def test_a_ctrl_c_dropped_in_a_compile_that_then_succeeds_still_stops_the_run(tmp_path, monkeypatch):
    """Where numba carries on after the dropped KeyboardInterrupt, the run stops before its pool plays: the
    Ctrl-C was heard, and is not lost (the run played all its matches)."""

    def compile_step_that_drops_the_ctrl_c(*_args, **_kwargs) -> None:  # noqa: ANN002, ANN003
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            pass

    monkeypatch.setattr("nines_sim.engine.batch.warm_up", compile_step_that_drops_the_ctrl_c)
    out = tmp_path / "run"
    r = runner.invoke(app, ["tournament", "expert", "random", "-n", "8", "--chunk-size", "4", "-w", "2", "-q",
                            "--no-charts", "--out", str(out)])  # fmt: skip
    assert r.exit_code == 130, r.output
    assert r.output.strip().splitlines() == ["Stopped before any match was kept: no results were written."]
    assert not out.exists()


def test_the_same_error_without_a_ctrl_c_is_still_raised(tmp_path, monkeypatch):
    """Only an error after a Ctrl-C is taken for the Ctrl-C: numba's error alone is not hidden as a stop."""

    def fails(*_args, **_kwargs) -> None:  # noqa: ANN002, ANN003
        raise RuntimeError("no compiled object yet")

    monkeypatch.setattr("nines_sim.engine.batch.warm_up", fails)
    r = runner.invoke(app, ["tournament", "expert", "random", "-n", "8", "--chunk-size", "4", "-w", "2", "-q",
                            "--no-charts", "--out", str(tmp_path / "run")])  # fmt: skip
    assert r.exit_code == 1 and isinstance(r.exception, RuntimeError), r.output
    assert not (tmp_path / "run").exists()
