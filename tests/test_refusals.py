"""Options that do not apply, disagree or hold an empty value are refused in one line, exit 2, never ignored
(issue 38, items 7 and 8)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from tests.test_output_paths import one_error_line

runner = CliRunner()

#: Every command that takes --players and --rule, each with a lineup of two seats.
TABLES = {
    "tournament": "tournament random random -q".split(),
    "compare-rules": "compare-rules random random --rules classic --rules hard-nines -q".split(),
    "replay": "replay random random".split(),
    "analyze": "analyze random random -m 0".split(),
    "review": "review random --against random".split(),
    "play": "play random".split(),
    "tune": "tune expert --opponents random".split(),
    "tune-rules": "tune-rules --maximize skill --space nine_penalty=0..50".split(),
    "train": ["train"],
}


@pytest.mark.parametrize("command", list(TABLES))
def test_players_and_a_rule_players_that_disagree_are_refused(command, tmp_path, monkeypatch):
    """Before: --players won and the --rule was dropped without a word (tournament played 2 seats)."""
    monkeypatch.chdir(tmp_path)
    line = one_error_line(runner.invoke(app, [*TABLES[command], "-p", "2", "--rule", "players=3"]))
    assert "--players 2 disagrees with --rule players=3" in line, line


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ("compare-rules random random --sweep nine_penalty=1,,2", "--sweep 'nine_penalty=1,,2' has an empty value"),
        ("compare-rules random random --sweep nine_penalty=1,2,", "--sweep 'nine_penalty=1,2,' has an empty value"),
        ("tournament random random --ranges 0:10,,20:30", "--ranges '0:10,,20:30' has an empty value"),
        ("tournament random random --rules classic:nine_penalty=20,,no_nine_out=true", "has an empty value"),
        ("tune expert --opponents random --params w_penalty,,w_follow", "--params 'w_penalty,,w_follow' has an empty"),
        (
            "tune-rules --maximize skill --space draw_rule=one,,until-playable",
            "--space 'draw_rule=one,,until-playable'",
        ),
    ],
)
def test_an_empty_value_in_a_list_is_refused_not_dropped(args, says, tmp_path, monkeypatch):
    """Before: the empty value was dropped, and the run started on the rest (a 100,000-match comparison)."""
    monkeypatch.chdir(tmp_path)
    line = one_error_line(runner.invoke(app, [*args.split(), "-n", "100"]))
    assert says in line, line
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def saved(tmp_path):
    """A finished match saved by nines play (the repository's test data), copied."""
    from nines_sim.game.rules import make_rules
    from nines_sim.play import SavedMatch, save

    path = tmp_path / "m.json"
    save(SavedMatch(make_rules("classic", players=2), 7, 0, ["person", "random"]), path)
    return path


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ("review {f} --matches 5", "a saved match is reviewed as it was played: give no --matches with it"),
        ("review {f} --seed 3 --rules hard-nines -w 2", "give no --seed, --rules, --workers with it"),
        ("review {f} --against expert -p 2", "give no --against, --players with it"),
        ("replay {f} --seed 3", "a saved match is replayed as it was played: give no --seed with it"),
        ("replay {f} -m 2 --rules hard-nines", "give no --match, --rules with it"),
        (
            "play --resume {f} --rules hard-nines --seat 1",
            "goes on with the saved match as it is: give no --seat, --rules",
        ),
        ("play --resume {f} --save x.json", "give no --save with it"),
        ("play random --resume {f}", "give no opponents with it"),
        ("analyze {f} --rules hard-nines", "a saved match is analysed as it was played, at --hand and --turn: give no"),
        ("analyze {f} --cards 5D --top 6D --sizes 7", "give no --cards, --top, --sizes with it"),
    ],
)
def test_options_that_do_not_apply_to_a_saved_match_are_refused(args, says, saved, tmp_path, monkeypatch):
    """Before: review took --matches and --seed, replay --seed and --match, play --resume --rules and --seat,
    and did nothing with them."""
    monkeypatch.chdir(tmp_path)
    line = one_error_line(runner.invoke(app, args.format(f=saved).split()))
    assert says in line, line


def test_analyze_names_an_unknown_strategy_before_counting_seats():
    line = one_error_line(runner.invoke(app, ["analyze", "nosuch", "-m", "0"]))
    assert "unknown strategy 'nosuch'" in line, line  # before: "players must be 2 to 6 (RULES.md D1), not 1"
    line = one_error_line(runner.invoke(app, ["analyze", "random", "-m", "0"]))
    assert "a table seats 2 to 6 players, one strategy each (RULES.md D1); 1 strategy given" in line


def test_analyze_help_and_check_agree_that_hands_and_turns_count_from_1():
    text = runner.invoke(app, ["analyze", "--help"]).output
    hand_turn = text[text.index("  --hand <") : text.index("  --cards <")]
    assert "x>=0" not in hand_turn and "from 1" in hand_turn  # before: [x>=0], while 0 is refused
    for flag in ("--hand", "--turn"):
        for value in ("0", "-1"):
            line = one_error_line(runner.invoke(app, ["analyze", "random", "random", "-m", "0", flag, value]))
            assert f"{flag} counts from 1" in line, line


@pytest.mark.parametrize(
    ("args", "suggested"),
    [
        (["compare-rules", "--bogus"], None),  # before: (Possible options: --out)
        (["tournament", "--bogus"], None),
        (["tournament", "--seeed", "1"], "--seed"),
        (["review", "x", "--matchs", "2"], "--matches"),
        (["tournament", "--player", "2"], "--players"),
    ],
)
def test_an_unknown_option_suggests_only_options_close_to_it(args, suggested):
    line = one_error_line(runner.invoke(app, args))
    assert f"No such option: {args[1] if args[0] != 'review' else args[2]}" in line
    if suggested is None:
        assert "Possible options" not in line, line
    else:
        assert f"(Possible options: {suggested}" in line, line


@pytest.mark.parametrize(
    "args",
    [
        "review {f} --luck",
        "review {f} --seed 3",
        "replay {f} --seed 3",
        "analyze {f} --rules hard-nines",
        "play --resume {f} --seat 1",
        "play random --resume {f}",
    ],
)
def test_a_missing_saved_match_is_said_before_the_options_that_do_not_apply(args, tmp_path, monkeypatch):
    """Before: a path to no file, given with an option, was told to drop the option ('give no --luck with it')."""
    monkeypatch.chdir(tmp_path)
    line = one_error_line(runner.invoke(app, args.format(f=tmp_path / "nosuch.json").split()))
    assert line == f"Error: no saved match at {tmp_path / 'nosuch.json'}", line


@pytest.mark.parametrize("command", ["tournament random random", "compare-rules random random --rules classic "
                                     "--rules hard-nines"])  # fmt: skip
@pytest.mark.parametrize(
    ("args", "says"),
    [
        ("--luck-fit 50", "--luck-fit 50 sets the fit of --luck: give --luck with it, or leave it out"),
        ("--luck -n 1", "--luck needs --matches 2 or more: its intervals and variance ratios come from the spread"),
    ],
)
def test_luck_options_that_cannot_work_are_refused(command, args, says, tmp_path, monkeypatch):
    """Before: --luck-fit without --luck was ignored, and --luck on 1 match printed nan intervals."""
    monkeypatch.chdir(tmp_path)
    line = one_error_line(runner.invoke(app, [*command.split(), *args.split()]))
    assert says in line, line


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["tournament", "random", "random", "--rule", "=5"], "an option name is missing before '=' in '=5'; write key"),
        (["tournament", "random", "random", "--rules", "classic:=5"], "an option name is missing before '=' in '=5'"),
        (["compare-rules", "random", "random", "--sweep", "=1,2"], "an option name is missing before '=' in '=1,2'"),
        (["tune-rules", "--maximize", "skill", "--space", "=1..10"], "missing before '=' in '=1..10'"),
        (
            ["tournament", "random", "random", "--rules", ":nine_penalty=3"],
            "a preset name is missing in ':nine_penalty=3'; write e.g. classic:nine_penalty=3",
        ),
        (
            ["tournament", "random", "random", "--rules", "hard-nines+:nine_penalty=3"],
            "a preset name is missing in 'hard-nines+:nine_penalty=3'",
        ),
        (["report", ""], "DIR is empty (''): give a run folder"),
        (["review", ""], "TARGET is empty (''): give a strategy to review or a match saved by 'nines play'"),
        (["replay", "", "random"], "a strategy name is missing ('' names none); available: "),
        (["tournament", "random", ""], "a strategy name is missing ('' names none); available: "),
        (["tournament", "random", ":k=1"], "a strategy name is missing before ':' in ':k=1'"),
        (["play", "--resume", ""], "--resume is empty (''); give the .json file"),
    ],
)
def test_an_empty_name_is_said_missing_quoting_what_was_typed(args, says, tmp_path, monkeypatch):
    """Before: "unknown rules option ''", "a preset name is missing in ''", "module '' does not import", ". is not
    a run folder", " is a folder: ... nines report " (the blank read as the current folder)."""
    monkeypatch.chdir(tmp_path)
    small = ["-n", "2"] if args[0] not in ("report", "play", "replay") else []
    line = one_error_line(runner.invoke(app, [*args, *small]))
    assert says in line, line
    assert list(tmp_path.iterdir()) == []
