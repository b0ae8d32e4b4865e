"""A run folder from one library call (issue 24 part 3): the folder ``nines tournament`` or
``nines compare-rules`` writes, the CSVs byte for byte, from :mod:`nines_sim.experiments`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.experiments import RunSetupError, run_rule_comparison, run_tournament
from nines_sim.runs.output import OutputExists


def _cli(*args: str) -> None:
    r = CliRunner().invoke(app, [*args, "--workers", "1", "--no-charts", "--quiet"])
    assert r.exit_code == 0, r.output


def _csvs(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.csv"))}


def _same_folder(lib: Path, cli: Path, csvs: set[str]) -> None:
    """The CSVs equal byte for byte; the manifests record the same command, digests and run."""
    assert set(_csvs(cli)) == csvs
    assert _csvs(lib) == _csvs(cli)
    a, b = (json.loads((f / "manifest.json").read_text()) for f in (lib, cli))
    for key in ("command", "sha256", "seed", "matches", "matches_played", "ranges", "specs_given", "partial"):
        assert a[key] == b[key], key
    assert (lib / "report.md").is_file()


def test_run_tournament_writes_the_folder_the_cli_writes(tmp_path) -> None:
    lineup = ["expert", "random", "hold-nines"]
    _cli("tournament", *lineup, "-n", "300", "--seed", "7", "--rule", "target=50", "--out", str(tmp_path / "cli"))
    folder = run_tournament(lineup, matches=300, seed=7, rule=["target=50"], workers=1, out=tmp_path / "lib")
    assert folder == tmp_path / "lib"
    _same_folder(folder, tmp_path / "cli", {"summary.csv", "hands.csv", "score_distribution.csv",
                                            "seat_go_out.csv", "pairwise.csv"})  # fmt: skip
    command = json.loads((folder / "manifest.json").read_text())["command"]
    assert command == "nines tournament expert random hold-nines --format table --players 3 --matches 300 " \
                      "--seed 7 --rules classic --rule target=50"  # fmt: skip
    assert (folder / "win_rates.png").is_file()  # charts by default; the CLI's --no-charts drew none
    assert not (tmp_path / "cli" / "win_rates.png").exists()


def test_a_rated_round_robin_writes_the_same_ratings(tmp_path) -> None:
    lineup = ["random", "hold-nines", "dump-faces"]
    _cli("tournament", *lineup, "--format", "round-robin", "-n", "200", "--seed", "3", "--ranges", "0:120",
         "--out", str(tmp_path / "cli"))  # fmt: skip
    folder = run_tournament(lineup, format="round-robin", matches=200, seed=3, ranges="0:120", workers=1,
                            charts=False, out=tmp_path / "lib")  # fmt: skip
    _same_folder(folder, tmp_path / "cli", {"summary.csv", "hands.csv", "score_distribution.csv", "seat_go_out.csv",
                                            "pairwise.csv", "head_to_head.csv", "ratings.csv",
                                            "rating_differences.csv", "calibration.csv"})  # fmt: skip
    assert json.loads((folder / "manifest.json").read_text())["matches_played"] == 3 * 120  # three pairs


def test_run_rule_comparison_writes_the_folder_the_cli_writes(tmp_path) -> None:
    lineup = ["expert", "random"]
    _cli("compare-rules", *lineup, "--rules", "classic", "--rules", "hard-nines", "-n", "400", "--seed", "5",
         "--out", str(tmp_path / "cli"))  # fmt: skip
    folder = run_rule_comparison(lineup, rules=["classic", "hard-nines"], matches=400, seed=5, workers=1,
                                 charts=False, out=tmp_path / "lib")  # fmt: skip
    _same_folder(folder, tmp_path / "cli", {"comparison.csv", "score_distribution.csv"})


@pytest.mark.parametrize(
    ("out", "error", "says"),
    [("", RunSetupError, "--out is empty"), ("a-file", OutputExists, "is not a folder")],
)
def test_an_unusable_folder_is_refused_before_any_match(out, error, says, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("a-file").write_text("not a folder")
    with pytest.raises(error, match=says):
        run_tournament(["random", "random"], matches=10, workers=1, out=out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]  # nothing written, no reports/ folder
