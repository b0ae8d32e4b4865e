"""Input files the user names (a plug-in's ``file.py:Class``, ``expert@FILE.json``, ``bench --against-c FILE.c``, a
saved match, ``--rules @FILE.json``) are looked up without an OSError: a name too long for the file system is one
line, exit 2, naming the path shortened and why, in every command that reads one (as ``--out`` is, issue 38 item
4). Before: pathlib's is_file raised OSError (File name too long), a traceback, exit 1."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.game.path_lookup import look_up

runner = CliRunner()
LONG = "y" * 300  # a name longer than any usual file system takes (255 bytes): ENAMETOOLONG

#: Every way a command reads a file the user names, each with a name too long.
READERS = {
    "plug-in in tournament": ["tournament", "expert", f"{LONG}.py:Mine", "-n", "2"],
    "plug-in in analyze": ["analyze", f"{LONG}.py:Mine", "random", "--match", "0", "--hand", "1", "--turn", "1"],
    "plug-in in review": ["review", f"{LONG}.py:Mine", "-n", "1"],
    "parameter file in tournament": ["tournament", "random", f"expert@{LONG}.json", "-n", "2"],
    "parameter file in review": ["review", f"expert@{LONG}.json", "-n", "1"],
    "parameter file in a folder too long": ["tournament", "random", f"expert@{LONG}/best.json", "-n", "2"],
    "C reference in bench": ["bench", "--against-c", f"{LONG}.c"],
    "saved match in replay": ["replay", f"{LONG}.json"],
    "saved match in review": ["review", f"{LONG}.json"],
    "saved match in play --resume": ["play", "--resume", f"{LONG}.json"],
    "rule set file": ["tournament", "random", "random", "-n", "2", "--rules", f"@{LONG}.json"],
}


@pytest.mark.parametrize("case", list(READERS))
def test_an_input_name_too_long_is_one_line_exit_2(case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(app, READERS[case])
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("Error: "), (r.exit_code, r.output[-600:])
    assert "..." in lines[0] and LONG not in lines[0], lines[0]  # the path shown shortened, not 300 characters
    assert list(tmp_path.iterdir()) == []


def test_look_up_says_why_a_path_cannot_be_read(tmp_path):
    (tmp_path / "f.py").write_text("x = 1\n")
    assert look_up(tmp_path / "f.py") == ("file", "")
    assert look_up(tmp_path) == ("folder", "")
    assert look_up(tmp_path / "nosuch.py") == ("missing", "")
    assert look_up(tmp_path / "f.py" / "under-a-file.py") == ("missing", "")
    kind, why = look_up(tmp_path / f"{LONG}.py")
    assert kind == "missing" and "a name in it has 303 characters" in why and "at most 255" in why, why
    assert look_up("/dev/null") == ("missing", "(not a regular file)")


def test_bench_against_c_of_a_folder_says_it_is_a_folder(tmp_path):
    """Before: 'no C reference at FOLDER', as if nothing were there."""
    r = runner.invoke(app, ["bench", "--against-c", str(tmp_path)])
    said = f"Error: {tmp_path} is a folder; name the C reference's .c file in it"
    assert r.exit_code == 2 and r.output.strip() == said, r.output


#: Every command that takes a strategy's name, each with a name of NAME_MAX + 1 characters in one seat.
NAMED = {
    "tournament": ["tournament", "-n", "2", "random", "{}"],
    "replay": ["replay", "random", "{}"],
    "tune": ["tune", "{}", "--opponents", "random"],
    "tune --opponents": ["tune", "expert", "--opponents", "{}"],
    "review": ["review", "{}"],
    "compare-rules": ["compare-rules", "random", "{}", "--rules", "classic", "--rules", "hard-nines", "-n", "2"],
    "play": ["play", "{}"],
    "design --skilled": ["tournament", "-n", "2", "random", "random", "--design", "2", "--skilled", "{}"],
}


@pytest.mark.parametrize("command", list(NAMED))
@pytest.mark.parametrize("length", [255, 256, 300])
def test_a_strategy_name_too_long_for_a_file_name_is_an_unknown_strategy(command, length, tmp_path, monkeypatch):
    """Before: at 256 characters and more, pathlib's is_file (is the name a file here?) raised OSError (File name
    too long), a traceback, exit 1; at 255 the unknown-strategy line."""
    monkeypatch.chdir(tmp_path)
    name = "a" * length
    r = runner.invoke(app, [a.format(name) for a in NAMED[command]])
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1, (r.exit_code, r.output[-600:])
    assert lines[0].startswith(f"Error: unknown strategy '{name}'; available: "), lines[0][:300]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("spec", [f"{LONG}:Mine", f"{LONG}.x:Mine"])
def test_a_module_name_too_long_for_a_file_name_is_one_line(spec, tmp_path, monkeypatch):
    """``NAME:Class`` without a slash or .py: the name is looked up as a file first. Before: OSError, exit 1."""
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(app, ["tournament", "-n", "2", "random", spec])
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and lines == [lines[0]] and lines[0].startswith(f"Error: module '{LONG}"), r.output[-600:]


def test_a_model_file_too_long_is_said_as_such_not_as_the_strategy_s_oserror(tmp_path, monkeypatch):
    """Before: "strategy 'learned@...' raised OSError in its __init__: [Errno 36] File name too long"."""
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(app, ["tournament", "-n", "2", "random", f"learned@{LONG}.npz"])
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1 and "OSError" not in lines[0], r.output[-600:]
    assert "no such model file: yyy" in lines[0] and "(a name in it has 304 characters" in lines[0], lines[0]
