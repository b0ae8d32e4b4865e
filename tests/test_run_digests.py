"""``manifest.json`` records the SHA-256 of each data file a run wrote; ``nines report`` refuses a folder whose
files differ from them, naming the file.

Issue 22: a ``summary.csv`` with raised wins was redrawn as ``49.80% (42.63% to 46.99%)``, a ``comparison.csv``
win rate of 0.9 as ``90.00% (24.27% to 28.12%)``; 1,000 extra hands in ``hands.csv``, an edited ``trials.csv``
and a deleted ``pairwise.csv`` were accepted.  Every kind of run folder is written here by its command (tiny
runs), then edited as a user might.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.runs.output import DATA_FILES, manifest_digest, write_manifest

runner = CliRunner()
STORED = Path(__file__).parent / "data" / "runs"

COMMANDS = {
    "round-robin": ["tournament", "random", "hold-nines", "dump-faces", "--format", "round-robin", "-n", "60",
                    "--workers", "1", "--no-charts", "-q", "--seed", "2"],
    "compare": ["compare-rules", "random", "hold-nines", "dump-faces", "--rules", "classic", "--rules",
                "hard-nines", "-n", "60", "--workers", "1", "--no-charts", "-q", "--seed", "4"],
    "tune": ["tune", "expert", "--opponents", "hold-nines", "--params", "shed_nine_at,w_follow", "--matches", "8",
             "--validate", "8", "--workers", "1", "--seed", "4", "--trials", "2", "--no-charts", "--quiet"],
}  # fmt: skip


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One folder of each kind, as its command wrote it."""
    root = tmp_path_factory.mktemp("runs")
    out = {}
    for kind, args in COMMANDS.items():
        result = runner.invoke(app, [*args, "--out", str(root / kind)])
        assert result.exit_code == 0, result.output
        out[kind] = root / kind
    return out


def _copy(folders: dict[str, Path], kind: str, tmp_path: Path) -> Path:
    dst = tmp_path / kind
    shutil.copytree(folders[kind], dst)
    return dst


def _refusal(run: Path) -> str:
    """``nines report`` on the folder: one line, exit code 2; the line."""
    result = runner.invoke(app, ["report", str(run)])
    assert result.exit_code == 2, result.output
    lines = [x for x in result.output.splitlines() if x.strip()]
    assert len(lines) == 1, result.output
    return lines[0]


@pytest.mark.parametrize("kind", sorted(COMMANDS))
def test_the_manifest_holds_the_digest_of_every_data_file_and_the_folder_redraws(
    kind: str, folders: dict[str, Path], tmp_path: Path
) -> None:
    run = _copy(folders, kind, tmp_path)
    digests = json.loads((run / "manifest.json").read_text())["sha256"]
    data = sorted(p.name for p in run.iterdir() if p.name in DATA_FILES)
    assert sorted(digests) == data and data  # every data file, and nothing else (no report, chart or study.db)
    for name, digest in digests.items():
        assert digest == hashlib.sha256((run / name).read_bytes()).hexdigest(), name
    # the report and charts a redraw writes are no data: the folder stays valid for the next redraw, which with
    # --no-charts rewrites the report alone, embedding the charts the first drew from the same files
    result = runner.invoke(app, ["report", str(run)])
    assert result.exit_code == 0, result.output
    drawn = _charts(run)
    result = runner.invoke(app, ["report", str(run), "--no-charts"])
    assert result.exit_code == 0, result.output
    assert drawn and _charts(run) == drawn  # none drawn again, none removed
    report = (run / "report.md").read_text()
    assert all(f"]({name})" in report for name in drawn), report


def _charts(run: Path) -> dict[str, tuple[int, int]]:
    """Each chart file of the folder: its inode and modification time (a chart drawn again changes them)."""
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in run.glob("*.png")}


def _raise_wins(path: Path) -> None:
    """Raise the last row's wins and win rate, as in the issue (the interval left as it was)."""
    df = pd.read_csv(path)
    df.loc[df.index[-1], "wins"] += 100
    df.loc[df.index[-1], "win_rate"] = df.loc[df.index[-1], "wins"] / df.loc[df.index[-1], "matches"]
    df.to_csv(path, index=False, lineterminator="\n")


def _win_rate_09(path: Path) -> None:
    df = pd.read_csv(path)
    df.loc[0, "win_rate"] = 0.9
    df.to_csv(path, index=False, lineterminator="\n")


def _extra_hands(path: Path) -> None:
    df = pd.read_csv(path)
    df.loc[0, "hands"] += 1000
    df.to_csv(path, index=False, lineterminator="\n")


def _edit_trial(path: Path) -> None:
    df = pd.read_csv(path)
    df.loc[df.index[-1], "win_rate"] = 0.99
    df.to_csv(path, index=False, lineterminator="\n")


EDITS = {
    "summary.csv": ("round-robin", _raise_wins),
    "comparison.csv": ("compare", _win_rate_09),
    "hands.csv": ("round-robin", _extra_hands),
    "trials.csv": ("tune", _edit_trial),
    "best.json": ("tune", lambda p: p.write_text(p.read_text().replace('"trial": ', '"trial":  '))),
    "score_distribution.csv": ("compare", lambda p: p.write_text(p.read_text() + "\n")),
    # a strategy renamed in summary.csv alone: named as edited, not as score_distribution.csv disagreeing with it
    "summary.csv (renamed)": ("round-robin", lambda p: p.write_text(p.read_text().replace("random", "randon", 1))),
}


@pytest.mark.parametrize("name", sorted(EDITS))
def test_an_edited_data_file_is_refused_naming_it(name: str, folders: dict[str, Path], tmp_path: Path) -> None:
    kind, edit = EDITS[name]
    run = _copy(folders, kind, tmp_path)
    name = name.split(" ")[0]
    before = (run / name).read_bytes()
    edit(run / name)
    assert (run / name).read_bytes() != before
    line = _refusal(run)
    assert str(run / name) in line and "changed after the run wrote it" in line, line


DELETIONS = [("round-robin", "pairwise.csv"), ("round-robin", "head_to_head.csv"),
             ("compare", "score_distribution.csv"), ("tune", "importances.csv")]  # fmt: skip


@pytest.mark.parametrize(("kind", "name"), DELETIONS)
def test_a_deleted_data_file_is_refused_naming_it(
    kind: str, name: str, folders: dict[str, Path], tmp_path: Path
) -> None:
    run = _copy(folders, kind, tmp_path)
    (run / name).unlink()
    line = _refusal(run)
    assert str(run / name) in line and "is missing" in line, line


def test_a_data_file_the_run_did_not_write_is_refused(tmp_path: Path) -> None:
    # A table run has no head-to-head table; one added would be drawn as the run's.
    run = tmp_path / "table"
    shutil.copytree(STORED / "table", run)
    write_manifest(run, json.loads((run / "manifest.json").read_text()))
    shutil.copy(STORED / "round-robin" / "head_to_head.csv", run / "head_to_head.csv")
    line = _refusal(run)
    assert str(run / "head_to_head.csv") in line and "does not list it" in line, line


@pytest.mark.parametrize(("field", "value"), [("seed", 1), ("players", 3), ("matches", 999)])
def test_an_edited_manifest_is_refused(field: str, value: int, folders: dict[str, Path], tmp_path: Path) -> None:
    run = _copy(folders, "round-robin", tmp_path)
    m = json.loads((run / "manifest.json").read_text())
    assert m[field] != value
    m[field] = value
    (run / "manifest.json").write_text(json.dumps(m, indent=2))
    line = _refusal(run)
    assert str(run / "manifest.json") in line and "changed after the run wrote it" in line, line


def test_a_manifest_without_digests_is_checked_as_before(tmp_path: Path) -> None:
    # The stored folders predate the digests: they stay readable, and their tables are still checked.
    run = tmp_path / "table"
    shutil.copytree(STORED / "table", run)
    assert "sha256" not in json.loads((run / "manifest.json").read_text())
    assert runner.invoke(app, ["report", str(run), "--no-charts"]).exit_code == 0
    summary = pd.read_csv(run / "summary.csv")
    summary.iloc[:1].to_csv(run / "summary.csv", index=False)
    assert "summary.csv does not match manifest.json" in _refusal(run)


def test_write_manifest_records_named_files_only_and_refuses_files_elsewhere(tmp_path: Path) -> None:
    (tmp_path / "summary.csv").write_text("a\n1\n")
    (tmp_path / "hands.csv").write_text("b\n2\n")
    data = json.loads(write_manifest(tmp_path, {"seed": 1}, files=["summary.csv"]).read_text())
    assert data.pop("manifest_sha256") == manifest_digest(data)
    assert data == {"seed": 1, "sha256": {"summary.csv": hashlib.sha256(b"a\n1\n").hexdigest()}}
    with pytest.raises(ValueError, match="not a file of the run folder"):
        write_manifest(tmp_path, {}, files=[tmp_path.parent / "x.csv"])
    with pytest.raises(FileNotFoundError):
        write_manifest(tmp_path, {}, files=["pairwise.csv"])
