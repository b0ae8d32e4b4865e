"""A run folder has one writer at a time (issue 38, item 5): a second run into a folder another run is writing
is refused in one line (exit 2) and leaves the folder as it was; what a finished run says is in its folder stays
true.  Driven by events (a lock held here, a run that says it holds the folder), never by sleeps."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.runs.folder_lock import FolderInUse, one_writer
from tests.test_output_paths import WRITERS, one_error_line

runner = CliRunner()


@pytest.mark.parametrize("command", list(WRITERS))
def test_a_run_into_a_folder_another_run_holds_is_refused_and_changes_nothing(command, tmp_path):
    """The lock is held here as another run holds it (flock belongs to the open folder, so a second open of it
    in this process is kept out as another process would be); every command that writes a folder refuses."""
    folder = tmp_path / "D"
    folder.mkdir()
    (folder / "summary.csv").write_text("the first run's results\n")
    with one_writer(folder):
        line = one_error_line(runner.invoke(app, [*WRITERS[command], "--out", str(folder), "--force"]))
    assert f"{folder} is in use: another run is writing into it (a run folder has one writer at a time)" in line
    assert [p.name for p in folder.iterdir()] == ["summary.csv"]
    assert (folder / "summary.csv").read_text() == "the first run's results\n"


def test_report_does_not_redraw_a_folder_a_run_is_writing(tmp_path):
    folder = tmp_path / "D"
    folder.mkdir()
    with one_writer(folder):
        line = one_error_line(runner.invoke(app, ["report", str(folder)]))
    assert line == (
        f"Error: {folder} is in use: another run is writing into it (a run folder has one writer at a time); "
        "wait for that run to end"
    )


def test_the_processes_of_one_study_share_a_folder_that_a_lone_writer_cannot(tmp_path):
    folder = tmp_path / "D"
    folder.mkdir()
    with one_writer(folder, shared=True), one_writer(folder, shared=True):  # two processes of one tuning study
        with pytest.raises(FolderInUse, match="is in use"):
            with one_writer(folder):
                pass
    with one_writer(folder):  # released: the folder is free again
        with pytest.raises(FolderInUse):
            with one_writer(folder, shared=True):
                pass


def test_a_forked_worker_does_not_keep_the_folder_held(tmp_path):
    """flock belongs to the open folder, which a fork shares: a worker that outlived its run would keep it."""
    folder = tmp_path / "D"
    folder.mkdir()
    ready_r, ready_w = os.pipe()
    read, write = os.pipe()
    with one_writer(folder):
        pid = os.fork()
        if pid == 0:  # the worker (its fork hooks have run): says so, then blocks until the test is done
            os.close(write)
            os.write(ready_w, b"r")
            os.read(read, 1)
            os._exit(0)
        assert os.read(ready_r, 1) == b"r"
    os.close(read)
    try:
        with one_writer(folder):  # the worker still runs, and the folder is free
            pass
    finally:
        os.close(write)
        os.waitpid(pid, 0)
        os.close(ready_r)
        os.close(ready_w)


#: A plug-in whose first decision tells the test that its run holds the folder, then waits for the test's word.
WAITING_PLUGIN = textwrap.dedent(
    """
    import os

    import numpy as np

    from nines_sim.strategy.base import Strategy

    _told = False


    class Waits(Strategy):
        name = "waits"

        def play(self, obs):
            global _told
            if not _told:
                _told = True
                os.write(int(os.environ["NINES_TEST_HOLDING"]), b"x")
                os.read(int(os.environ["NINES_TEST_GO"]), 1)
            low = obs.legal & (~obs.legal + np.uint64(1))
            return np.where(obs.legal != 0, np.log2(np.maximum(low, 1).astype(np.float64)).astype(np.int64), -1)

        def declare(self, obs):
            return np.argmax(obs.suit_counts(), axis=1)
    """
)


def test_two_runs_started_together_into_one_folder(tmp_path):
    """The issue's case: a tournament is playing into D with --force when a compare-rules (or another
    tournament) is started into D with --force.  Before, both wrote into D (KeyError 'rule_set', a mixed folder),
    or the second silently replaced the first; now the second says in one line that D is in use, and the first
    finishes with D holding what it says.  Both second commands are tried against the one first run while it holds
    D (each case started its own first process, the same run); neither refusal may let go of D."""
    plugin = tmp_path / "waits.py"
    plugin.write_text(WAITING_PLUGIN)
    folder = tmp_path / "D"
    holding_r, holding_w = os.pipe()
    go_r, go_w = os.pipe()
    env = dict(os.environ, NINES_TEST_HOLDING=str(holding_w), NINES_TEST_GO=str(go_r))
    first = subprocess.Popen(
        [sys.executable, "-m", "nines_sim", "tournament", f"{plugin}:Waits", "random", "-n", "4", "--seed", "3",
         "-w", "1", "-q", "--no-charts", "--out", str(folder), "--force"],
        env=env, pass_fds=(holding_w, go_r), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    os.close(holding_w)
    os.close(go_r)
    try:
        said = os.read(holding_r, 1)  # b"" (end of file) if the first run ended without reaching play
        assert said == b"x", first.communicate()
        for second in ("compare-rules", "tournament"):
            line = one_error_line(runner.invoke(app, [*WRITERS[second], "--out", str(folder), "--force"]))
            assert f"{folder} is in use" in line, second
    finally:
        os.write(go_w, b"x")
        os.close(go_w)
        os.close(holding_r)
        out, err = first.communicate()
    assert first.returncode == 0, err
    assert f"results in {folder}" in out
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["command"].startswith("nines tournament ") and "rule_set" not in manifest
    from nines_sim.reporting.check import check_run_folder

    check_run_folder(folder)  # the folder is whole: nines report takes it
