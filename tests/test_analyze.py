"""``nines analyze``: estimates per legal play, each built-in's choice, one-line errors with exit code 2."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from nines_sim.cli import app


def run(*args: str):
    return CliRunner().invoke(app, ["analyze", *args])


def test_a_described_position_lists_every_legal_play_and_each_strategys_choice():
    res = run("--cards", "KC 9H 3D", "--top", "5D", "--sizes", "7,3,5", "--samples", "16")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    plays = [ln.split()[0] for ln in lines if ln.startswith("  ")]
    assert sorted(plays) == ["3D", "9H"]  # KC is not legal on 5D (T1)
    assert "expert 3D" in res.output  # expert keeps its 9 while a natural is legal
    assert "clairvoyant" not in res.output  # nothing true to see in a described position


def test_a_replayed_position_is_analysed():
    res = run("expert", "dump-faces", "--players", "2", "--seed", "3", "--match", "2", "--turn", "5", "--samples", "8")
    assert res.exit_code == 0, res.output
    assert "Seat " in res.output and "What each strategy plays" in res.output


@pytest.mark.parametrize(
    "args, words",
    [
        (["--cards", "KC KC", "--top", "5D", "--sizes", "3"], "appears 2 times"),
        (["--cards", "ZZ", "--top", "5D", "--sizes", "3"], "not a card"),
        (["--cards", "KC", "--top", "9D", "--sizes", "3", "--active", "X"], "is not one of C, D, H, S"),
        (["--cards", "KC", "--top", "5D"], "needs --top and --sizes"),
        (["--cards", "KC", "--top", "5D", "--sizes", "3", "--policy", "lookahead"], "--policy must be one of"),
        (["--cards", "KC 2C", "--top", "5D", "--sizes", "3"], "no legal card"),
        ([], "give either --match"),
        (["--match", "0", "--hand", "500"], "ends before hand 500"),
    ],
)
def test_bad_positions_and_options_get_one_line_and_exit_code_2(args, words):
    res = run(*args)
    assert res.exit_code == 2
    assert words in res.output
    assert len(res.output.strip().splitlines()) == 1
