"""A file plug-in whose logic sits in a helper module beside it (issue 22): found without PYTHONPATH, in this
process, in fresh processes and on Dask's workers."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.strategy.registry import load_class
from tests.test_plugins import GOOD

runner = CliRunner()


# A plug-in whose logic sits in a helper module beside it (issue 22): the helper's name is unique to this
# test, so nothing but the plug-in's own folder can provide it.
HELPER = textwrap.dedent(
    """
    from nines_sim.strategy.choice import pick_card

    def any_legal(obs):
        return pick_card([w & obs.legal for w in obs.hand], obs.random())
    """
)
WITH_HELPER = GOOD.replace(
    "from nines_sim.strategy.choice import pick_card", "from nines_helper_beside_plugin import any_legal"
)
WITH_HELPER = WITH_HELPER.replace("return pick_card([w & obs.legal for w in obs.hand], obs.random())",
                                  "return any_legal(obs)")  # fmt: skip


def _plugin_with_helper(folder: Path) -> Path:
    folder.mkdir()
    (folder / "nines_helper_beside_plugin.py").write_text(HELPER)
    (folder / "helped.py").write_text(WITH_HELPER)
    return folder / "helped.py"


def _wins(run: Path) -> list[int]:
    return pd.read_csv(run / "summary.csv")["wins"].tolist()


def test_a_file_plugin_imports_a_helper_from_its_own_folder_without_pythonpath(tmp_path):
    plugin = _plugin_with_helper(tmp_path / "mine")
    before = list(sys.path)
    cls = load_class(f"{plugin}:Cheapest")
    assert sys.path == before  # the folder was importable while the file loaded, and only then
    assert sys.modules["nines_helper_beside_plugin"].__file__ == str(plugin.parent / "nines_helper_beside_plugin.py")
    assert cls.name == "cheapest"
    # worker processes load it too, and it plays as the same logic written in one file does
    (tmp_path / "whole.py").write_text(GOOD)
    args = ["random", "-n", "400", "--quiet", "--no-charts"]
    r = runner.invoke(app, ["tournament", f"{plugin}:Cheapest", *args, "--workers", "2", "--out", str(tmp_path / "a")])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["tournament", f"{tmp_path / 'whole.py'}:Cheapest", *args, "--workers", "1",
                            "--out", str(tmp_path / "b")])  # fmt: skip
    assert r.exit_code == 0, r.output
    assert _wins(tmp_path / "a") == _wins(tmp_path / "b") and sum(_wins(tmp_path / "a")) >= 400


def test_a_file_plugin_with_a_helper_runs_in_fresh_processes_and_on_dask(tmp_path, request):  # noqa: ANN001
    """A new process (the CLI from another folder, Dask's spawned workers) finds the helper with no PYTHONPATH.
    The workers: the running cluster's that the files on Dask share (``scheduler``, tests/conftest.py), which
    never saw this folder."""
    plugin = _plugin_with_helper(tmp_path / "mine")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    args = [f"{plugin}:Cheapest", "random", "-n", "400", "--quiet", "--no-charts"]
    local = subprocess.run([sys.executable, "-m", "nines_sim", "tournament", *args, "--workers", "1", "--out", "a"],
                           cwd=elsewhere, env=env, capture_output=True, text=True)  # fmt: skip
    assert local.returncode == 0, local.stderr[-3000:]
    pytest.importorskip("distributed")
    r = runner.invoke(app, ["tournament", *args, "--scheduler", request.getfixturevalue("scheduler"),
                            "--out", str(tmp_path / "dask")])  # fmt: skip
    assert r.exit_code == 0, r.output
    for name in ("summary.csv", "hands.csv"):
        assert (elsewhere / "a" / name).read_bytes() == (tmp_path / "dask" / name).read_bytes(), name
