"""A Ctrl-C outside a run's own handler says how far the run got: after the results were written (the closing
lines) it is not 'while starting: no match was played' (a review of 400 matches, Ctrl-C'd as its closing table
printed, said so, exit 130, its folder whole). Driven by events: the Ctrl-C is raised where the stage is."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.runs.stages import PLAYED_STOPPED, STARTING_STOPPED, WRITTEN_STOPPED

runner = CliRunner()


def ctrl_c(*_args, **_kwargs):  # noqa: ANN002, ANN003, ANN201
    raise KeyboardInterrupt


def error_lines(r) -> list[str]:  # noqa: ANN001
    return [line for line in r.output.splitlines() if line.startswith("Error:")]


@pytest.mark.parametrize(
    ("command", "closing"),
    [
        (
            "tournament random random -n 4 -w 1 -q --no-charts",
            "nines_sim.experiments.tournament.setup.TournamentRun.summary",
        ),
        ("review random -n 1 --samples 2 -w 1 --no-charts", "nines_sim.experiments.review.report.terminal_lines"),
    ],
)
def test_a_ctrl_c_after_the_results_are_written_says_so(command, closing, tmp_path, monkeypatch):
    monkeypatch.setattr(closing, ctrl_c)
    r = runner.invoke(app, [*command.split(), "--out", str(tmp_path / "run")])
    assert r.exit_code == 130 and error_lines(r) == [f"Error: {WRITTEN_STOPPED}"], r.output
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["partial"] is False  # whole, as the line says


def test_a_ctrl_c_between_play_and_writing_does_not_say_no_match_was_played(tmp_path, monkeypatch):
    monkeypatch.setattr("nines_sim.experiments.tournament.setup._rate", ctrl_c)
    r = runner.invoke(app, ["tournament", "random", "random", "-n", "4", "-w", "1", "-q", "--out", str(tmp_path)])
    assert r.exit_code == 130 and error_lines(r) == [f"Error: {PLAYED_STOPPED}"], r.output
    assert not (tmp_path / "manifest.json").exists()  # nothing was written, as the line says


def test_the_next_command_in_the_same_process_starts_afresh(monkeypatch):
    """The stage is the command's own: one run's 'written' does not leak into the next command's words."""
    monkeypatch.setattr("nines_sim.experiments.tournament.setup.tournament_setup", ctrl_c)
    r = runner.invoke(app, ["tournament", "random", "random", "-n", "4"])
    assert r.exit_code == 130 and error_lines(r) == [f"Error: {STARTING_STOPPED}"], r.output
