"""The "did you mean" hint is one rule for every name a user types (nines_sim.spelling): case does not hide a
name, a prefix of one name or a few names them all, a tie names every name tied, and every unknown name the
commands refuse carries it (a rules option, a measure, a strategy parameter, a class in a strategy file, a
workload, a rollout policy). Before: difflib alone, case-sensitive, one name of a tie picked by its spelling,
and several refusals had no hint at all."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.game.rules import OPTION_NAMES, PRESETS
from nines_sim.spelling import MOST_NAMED, close_names, did_you_mean
from tests.test_output_paths import one_error_line

runner = CliRunner()


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("HARD-NINES", ["hard-nines"]),  # case alone (before: none)
        ("Classic", ["classic"]),
        ("hard", ["hard-nines"]),  # a prefix of one preset (before: none)
        ("skip", ["skip-reverse"]),
        ("draw", ["draw-until-playable"]),
        ("free", ["free-nines"]),
        ("no-s", ["no-stacking"]),
        ("fixed-hands", ["fixed-hands-5", "fixed-hands-7", "fixed-hands-10"]),  # before: 'fixed-hands-7' alone
        ("fixed-hands-8", ["fixed-hands-5", "fixed-hands-7"]),  # a tie: both, in the presets' order
        ("hard-nine", ["hard-nines"]),  # as before
        ("f", []),  # a prefix of four presets: the error's list says them
        ("", []),
        ("zzzz", []),
    ],
)
def test_the_presets_a_name_may_mean(typed, meant):
    assert close_names(typed, PRESETS) == meant


def test_the_hint_names_one_two_or_three():
    assert did_you_mean("NINE_PENALTY", OPTION_NAMES) == " (did you mean 'nine_penalty'?)"
    assert did_you_mean("nine", OPTION_NAMES) == " (did you mean 'nine_penalty' or 'nine_on_nine'?)"
    three = " (did you mean 'fixed-hands-5', 'fixed-hands-7' or 'fixed-hands-10'?)"
    assert did_you_mean("Fixed-Hands", PRESETS) == three and MOST_NAMED == 3
    assert did_you_mean("nine_penlty", OPTION_NAMES) == " (did you mean 'nine_penalty'?)"
    # three letters of five in order are not a misspelling: no hint rather than a misleading one
    assert did_you_mean("infer", ["samples", "policy", "outcome", "leaf", "depth", "rounds", "nines"]) == ""
    assert did_you_mean("qqq", OPTION_NAMES) == ""


@pytest.fixture
def plug_in(tmp_path, monkeypatch):
    """The README's plug-in copied as file.py into the current folder."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(Path(__file__).resolve().parents[1] / "nines_sim" / "lowest_first.py", tmp_path / "file.py")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ("tournament random random --rules HARD-NINES", "unknown preset 'HARD-NINES' (did you mean 'hard-nines'?)"),
        ("tournament random random --rule NINE_PENALTY=3", "(did you mean 'nine_penalty'?); options are"),
        ("tournament random EXPERT", "unknown strategy 'EXPERT' (did you mean 'expert'?)"),
        ("tournament random random --rules no-s", "unknown preset 'no-s' (did you mean 'no-stacking'?)"),
        ("tournament random random --rules fixed-hands", "'fixed-hands-5', 'fixed-hands-7' or 'fixed-hands-10'?)"),
        ("tune-rules --space nine_penalt=1..10 --maximize skill", "'nine_penalt' (did you mean 'nine_penalty'?)"),
        ("tune-rules --space nine_penalty=1..10 --maximize skil", "'skil' (did you mean 'skill' or 'skill-heads-up'?)"),
        ("tournament random expert:w_penalt=3", "'w_penalt' (did you mean 'w_penalty' or 'w_penalty_end'?)"),
        ("tune expert --opponents random --params w_penalt", "(did you mean 'w_penalty' or 'w_penalty_end'?)"),
        ("tournament random file.py:LowestFirts", "file.py has no class 'LowestFirts' (did you mean 'LowestFirst'?)"),
        ("bench w1", "unknown workload 'w1' (did you mean 'W1'?)"),
        ("review random --policy Expert", "not 'Expert' (did you mean 'expert'?)"),
    ],
)
def test_every_unknown_name_a_command_refuses_carries_the_hint(args, says, plug_in):
    line = one_error_line(runner.invoke(app, [*args.split(), "-n", "2"] if "bench" not in args else args.split()))
    assert says in line, line
