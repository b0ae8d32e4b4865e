"""``nines train`` resumed (issue 40): a run stopped by Ctrl-C (here its event) and rerun into the same folder
continues after the last finished round and ends with the numbers of a run never stopped; a folder that holds
a run with other settings is refused in one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.game.rules import make_rules
from nines_sim.learn.model import load
from nines_sim.learn.train import PROGRESS, train
from tests.shared_training import SEED, SETTINGS

RULES = make_rules("classic", players=2)

# The shared run (test_train_ctrl_c.py's with a third round): its models' compiled decisions are in numba's disk
# cache once tests/conftest.py has trained it; the third round is the first whose fit's window (keep 2) leaves a
# round out after the rerun.


def _stop_in_round_2(folder):  # noqa: ANN001, ANN202
    """Ctrl-C's event: true at the third time it is asked after round 1 was recorded, which is during round
    2's self-play (the first two are at round 1's end and round 2's start)."""
    asked = []

    def stop() -> bool:
        if (folder / PROGRESS).is_file():
            asked.append(1)
        return len(asked) >= 3

    return stop


@pytest.fixture(scope="module")
def stopped(tmp_path_factory):  # noqa: ANN001, ANN201
    """The shared run stopped in round 2's self-play (round 1 kept): the folder each test here copies."""
    folder = tmp_path_factory.mktemp("stopped") / "run"
    stop = _stop_in_round_2(folder)
    assert not train(RULES, folder, SEED, SETTINGS, "nines train (test)", should_stop=stop, report=lambda line: None)
    return folder


def test_a_stopped_run_rerun_into_its_folder_ends_as_a_run_never_stopped(stopped, tmp_path):  # noqa: ANN001
    quiet = {"report": lambda line: None}
    assert train(RULES, tmp_path / "whole", SEED, SETTINGS, "nines train (test)", **quiet)
    assert pd.read_csv(stopped / "learning_curve.csv")["round"].tolist() == [1]
    assert not (stopped / "models" / "round-2.npz").exists()
    stopped = Path(shutil.copytree(stopped, tmp_path / "stopped"))
    lines: list[str] = []
    assert train(RULES, stopped, SEED, SETTINGS, "nines train (test)", report=lines.append)
    assert [line.split(":")[0] for line in lines] == ["round 2/3", "round 3/3"]  # round 1 is not played again
    for rnd in (1, 2, 3):
        assert (
            load(stopped / "models" / f"round-{rnd}.npz").digest
            == load(tmp_path / "whole" / "models" / f"round-{rnd}.npz").digest
        )
    curves = [
        pd.read_csv(tmp_path / run / "learning_curve.csv").drop(columns="cpu_seconds") for run in ("whole", "stopped")
    ]
    pd.testing.assert_frame_equal(*curves)
    assert load(stopped / "model.npz").digest == load(tmp_path / "whole" / "model.npz").digest
    assert json.loads((stopped / "manifest.json").read_text())["partial"] is False
    assert not (stopped / PROGRESS).exists() and not (stopped / "data").exists()


def test_a_folder_with_a_run_of_other_settings_is_refused_in_one_line(stopped, tmp_path):  # noqa: ANN001
    folder = Path(shutil.copytree(stopped, tmp_path / "run"))
    res = CliRunner().invoke(app, ["train", "--seed", "6", "--rounds", "3", "-n", "4", "--samples", "2",
                                   "--eval-matches", "10", "--keep", "2", "--out", str(folder)])  # fmt: skip
    assert res.exit_code == 2
    assert res.output.strip().count("\n") == 0 and "other settings, seed or rules (seed 3, not 6)" in res.output


def test_a_report_at_three_seats_names_the_even_share_a_rate_is_judged_by(tmp_path):
    # At 3 seats a model that wins 0.40 against two expert seats beats them; the report says what even is.
    from nines_sim.learn.report import write_report

    manifest = {"partial": False, "command": "nines train --players 3", "preset": "classic", "players": 3, "seed": 0}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    (tmp_path / "learning_curve.csv").write_text("")
    write_report(tmp_path, charts=False)
    text = (tmp_path / "report.md").read_text()
    assert "Rules classic, 3 players; seed 0; an even share against expert: 0.333." in text
