"""Output paths (``--out``, ``--save``, ``--storage``) are checked before anything starts: one line, exit 2, and
nothing written (issue 38, item 4); a blank ``--study``/``--storage``/``--out`` is refused, not taken as the
default (item 7)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from nines_sim.cli import app

runner = CliRunner()
LONG = "x" * 300  # a name longer than any usual file system takes (255 bytes): ENAMETOOLONG

#: Every command that writes a run folder, each as small as it goes.
WRITERS = {
    "tournament": "tournament random random -n 2 -q --no-charts -w 1".split(),
    "compare-rules": "compare-rules random random --rules classic --rules hard-nines -n 2 -q --no-charts -w 1".split(),
    "review": "review random -n 1 --no-charts -w 1".split(),
    "tune": "tune expert --opponents random -n 2 --trials 1 --validate 0 -q -w 1".split(),
    "tune --versus": "tune expert --opponents random --versus random --validate 2 -w 1".split(),
    "tune-rules": "tune-rules --maximize skill --space nine_penalty=0..50 -n 2 --trials 1 --validate 0 -q -w 1".split(),
}


def one_error_line(r) -> str:  # noqa: ANN001
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("Error: "), (r.exit_code, r.output)
    return lines[0]


@pytest.mark.parametrize("command", list(WRITERS))
def test_a_run_folder_name_too_long_is_one_line_before_any_match(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = one_error_line(runner.invoke(app, [*WRITERS[command], "--out", LONG]))
    assert "--out is too long: a name in it has 300 characters" in line and "at most 255" in line, line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", list(WRITERS))
def test_an_empty_out_is_refused_by_every_command_not_taken_as_the_current_folder(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = one_error_line(runner.invoke(app, [*WRITERS[command], "--out", ""]))
    assert "--out is empty" in line, line
    assert list(tmp_path.iterdir()) == []  # before: review and tune wrote their results into the current folder


@pytest.mark.parametrize("command", list(WRITERS))
def test_an_out_under_a_file_is_one_line(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("a-file").write_text("not a folder")
    line = one_error_line(runner.invoke(app, [*WRITERS[command], "--out", "a-file/run"]))
    assert "a-file is a file, not a folder" in line or "cannot write" in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


@pytest.mark.parametrize(
    ("save", "says"),
    [
        ("", "--save is empty; give a file name (leave --save out for a new file in matches/)"),
        ("a-folder", "--save a-folder is a folder; give a file's name, e.g. a-folder/match.json"),
        (LONG + ".json", "--save is too long: a name in it has 305 characters"),
        (LONG[:253] + ".json", "(less 4 for the file NAME.tmp written beside it)"),  # the name fits, NAME.tmp not
        ("a-file/match.json", "--save a-file/match.json: a-file is a file, not a folder"),
    ],
)
def test_play_checks_save_before_the_table_opens(save, says, tmp_path, monkeypatch):
    """Before: the table opened and the first save raised IsADirectoryError, OSError or ValueError.  The check
    comes before the terminal's: here, without one, it is what is said."""
    monkeypatch.chdir(tmp_path)
    Path("a-folder").mkdir()
    Path("a-file").write_text("not a folder")
    line = one_error_line(runner.invoke(app, ["play", "random", "--save", save]))
    assert says in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "a-folder"]


def test_play_resume_refuses_save_which_it_would_ignore(tmp_path):
    (tmp_path / "m.json").write_text("{}")  # a file there: one that is not is said first (test_refusals)
    line = one_error_line(runner.invoke(app, ["play", "--resume", str(tmp_path / "m.json"), "--save", "x.json"]))
    assert "give no --save with it" in line


@pytest.mark.parametrize("command", ["tune", "tune-rules"])
@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--study", "", "--study is empty"),
        ("--study", " ", "--study is empty"),
        ("--storage", "", "--storage is empty"),
        ("--storage", f"sqlite:///{LONG}.db", "--storage is too long"),
        ("--storage", f"journal:{LONG[:250]}.log", "(less 10 for the file NAME.tune-lock written beside it)"),
    ],
)
def test_a_study_option_blank_or_too_long_is_refused(command, option, value, says, tmp_path, monkeypatch):
    """Before: a blank --study or --storage meant the default, silently; a long --storage raised OSError."""
    monkeypatch.chdir(tmp_path)
    line = one_error_line(runner.invoke(app, [*WRITERS[command], option, value]))
    assert says in line, line
    assert list(tmp_path.iterdir()) == []


def test_the_library_refuses_a_long_out_as_a_run_setup_error(tmp_path):
    from nines_sim.experiments import run_tournament
    from nines_sim.runs.errors import RunSetupError

    with pytest.raises(RunSetupError, match="--out is too long"):
        run_tournament(["random", "random"], matches=2, workers=1, out=tmp_path / LONG)
    assert list(tmp_path.iterdir()) == []


def test_report_of_a_folder_name_too_long_is_one_line(tmp_path, monkeypatch):
    """Before: Path.exists raised OSError (File name too long), a traceback."""
    monkeypatch.chdir(tmp_path)
    line = one_error_line(runner.invoke(app, ["report", LONG]))
    assert line == f"Error: {LONG} does not exist"


@pytest.mark.parametrize(("out", "says"), [(LONG, "--out is too long: a name in it has 300"), ("", "--out is empty")])
def test_a_training_folder_is_checked_as_every_run_folder(out, says, tmp_path, monkeypatch):
    """Before: a name too long raised OSError (File name too long) as train looked for its progress file, a
    traceback; an empty --out trained into the current folder."""
    monkeypatch.chdir(tmp_path)
    line = one_error_line(runner.invoke(app, ["train", "--rounds", "1", "-n", "2", "-w", "1", "--out", out]))
    assert says in line, line
    assert list(tmp_path.iterdir()) == []
