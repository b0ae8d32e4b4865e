"""One syntax for rule sets in every command: ``--rules preset[+preset][:key=value,...]`` and ``--rule key=value``.

Each command that takes rules gets the same rules from ``--rules 'classic:key=value'`` as from ``--rules classic
--rule key=value``, and refuses an unknown option either way in one line with exit code 2.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from nines_sim.experiments.compare_rules.rule_sets import rule_sets_from
from nines_sim.game.rules import RulesError, make_rules, parse_rule_set

runner = CliRunner()


def invoke(*args: str):  # noqa: ANN201 - a click Result
    from nines_sim.cli import app

    return runner.invoke(app, list(args))


def one_line_error(result) -> str:  # noqa: ANN001
    assert result.exit_code == 2, result.output
    lines = [x for x in result.output.splitlines() if x.strip()]
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


def test_a_rule_set_takes_options_after_the_preset_and_more_on_top():
    assert parse_rule_set("classic:nine_penalty=20") == make_rules("classic", nine_penalty=20)
    assert parse_rule_set("hard-nines+no-nine-out:target=50", {"tie_rule": "share"}, 3) == make_rules(
        "hard-nines+no-nine-out", target=50, tie_rule="share", players=3
    )
    assert parse_rule_set("classic:hand_sizes=7,7,6,5,5,target=80").hand_sizes == (7, 7, 6, 5, 5)
    with pytest.raises(RulesError, match="nine_penalty is set both in the rule set 'classic:nine_penalty=20' and by"):
        parse_rule_set("classic:nine_penalty=20", {"nine_penalty": 30})
    with pytest.raises(RulesError, match="rule set 'classic:' has no option after ':'; write classic:key=value"):
        parse_rule_set("classic:")  # a ':' left dangling was taken silently as plain classic
    with pytest.raises(RulesError, match="seats 3 players but the lineup has 4 strategies"):
        parse_rule_set("classic:players=3", None, 4)
    with pytest.raises(RulesError, match="unknown rules option 'bogus'"):
        parse_rule_set("classic:bogus=1")


def test_compare_applies_rule_overrides_to_every_rule_set_and_each_swept_value():
    sets, _ = rule_sets_from(["classic", "hard-nines:target=80"], None, 4, {"no_nine_out": True})
    assert [s.rules for s in sets] == [
        make_rules("classic", no_nine_out=True),
        make_rules("hard-nines", target=80, no_nine_out=True),
    ]
    swept, _ = rule_sets_from([], "nine_penalty=10,20", 3, {"target": 50})
    assert [s.rules for s in swept] == [make_rules("classic", players=3, target=50, nine_penalty=v) for v in (10, 20)]
    with pytest.raises(RulesError, match="nine_penalty is both swept and set by --rule"):
        rule_sets_from([], "nine_penalty=10,20", 3, {"nine_penalty": 5})


# Per command: its arguments before the rules, and where its run folder would go (None: it writes none).
COMMANDS = {
    "tournament": (["tournament", "-n", "5", "--workers", "1"], True),
    "compare-rules": (["compare-rules", "--rules", "hard-nines", "-n", "5", "--workers", "1"], True),
    "replay": (["replay"], False),
    "analyze": (["analyze", "--match", "0", "--samples", "4"], False),
    "tune": (
        ["tune", "expert", "--opponents", "hold-nines", "--trials", "1", "--matches", "8", "--validate", "0"],
        True,
    ),
}


@pytest.mark.parametrize("cmd", list(COMMANDS))
@pytest.mark.parametrize(
    "rules",
    [["--rules", "classic:bogus=1"], ["--rules", "classic", "--rule", "bogus=1"]],
    ids=["in --rules", "--rule"],
)
def test_an_unknown_rules_option_is_one_line_exit_2_in_every_command(cmd, rules, tmp_path):
    args, writes = COMMANDS[cmd]
    out = ["--out", str(tmp_path / "o")] if writes else []
    line = one_line_error(invoke(*args, *rules, *out))
    assert line.startswith("Error: unknown rules option 'bogus'; options are: players, nine_penalty,"), line
    assert not (tmp_path / "o").exists()


def test_tournament_takes_options_in_the_rule_set_as_with_rule(tmp_path):
    runs = {
        "inline": ["--rules", "classic:nine_penalty=20"],
        "rule": ["--rules", "classic", "--rule", "nine_penalty=20"],
        "plain": ["--rules", "classic"],
    }
    for name, rules in runs.items():
        r = invoke("tournament", "-n", "300", "--workers", "1", "--no-charts", "-q", "--out", str(tmp_path / name),
                   *rules)  # fmt: skip
        assert r.exit_code == 0, r.output
    manifest = json.loads((tmp_path / "inline" / "manifest.json").read_text())
    assert manifest["rules"]["nine_penalty"] == 20 and "--rules classic:nine_penalty=20" in manifest["command"]
    summary = (tmp_path / "inline" / "summary.csv").read_bytes()
    assert summary == (tmp_path / "rule" / "summary.csv").read_bytes()
    assert summary != (tmp_path / "plain" / "summary.csv").read_bytes()  # the 9s' penalty was applied


def test_compare_rules_takes_rule_for_every_rule_set(tmp_path):
    base = ["compare-rules", "-n", "300", "--workers", "1", "--no-charts", "-q"]
    r = invoke(
        *base, "--rules", "classic", "--rules", "hard-nines", "--rule", "target=50", "--out", str(tmp_path / "a")
    )
    assert r.exit_code == 0, r.output
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert [s["rules"]["target"] for s in manifest["rule_sets"]] == [50, 50]
    assert [s["rules"]["nine_penalty"] for s in manifest["rule_sets"]] == [15, 25]
    assert manifest["command"].endswith("--rule target=50 --rules classic --rules hard-nines")
    r = invoke(*base, "--rules", "classic:target=50", "--rules", "hard-nines:target=50", "--out", str(tmp_path / "b"))
    assert r.exit_code == 0, r.output
    a, b = (pd.read_csv(tmp_path / d / "comparison.csv").drop(columns="rule_set") for d in "ab")
    pd.testing.assert_frame_equal(a, b)
    help_text = invoke("compare-rules", "--help").output
    assert "--rule" in help_text and "in every rule set" in help_text


def test_replay_takes_options_in_the_rule_set_as_with_rule():
    inline = invoke("replay", "--match", "2", "--rules", "classic:target=40")
    assert inline.exit_code == 0, inline.output
    with_rule = invoke("replay", "--match", "2", "--rules", "classic", "--rule", "target=40")
    plain = invoke("replay", "--match", "2")
    assert inline.output == with_rule.output
    assert inline.output.splitlines()[-1] != plain.output.splitlines()[-1]  # the match ends sooner


def test_analyze_takes_options_in_the_rule_set_as_with_rule():
    position = ["analyze", "--cards", "9H 9S KC 3D", "--top", "5D", "--sizes", "2,6,6", "--samples", "16"]
    inline = invoke(*position, "--rules", "classic:nine_penalty=60")
    assert inline.exit_code == 0, inline.output
    assert inline.output == invoke(*position, "--rules", "classic", "--rule", "nine_penalty=60").output
    assert inline.output != invoke(*position).output  # the 9s held cost more


def test_tune_takes_options_in_the_rule_set(tmp_path):
    args, _ = COMMANDS["tune"]
    r = invoke(*args, "--workers", "1", "--quiet", "--no-charts", "--rules", "classic:target=50", "--out",
               str(tmp_path / "t"))  # fmt: skip
    assert r.exit_code == 0, r.output
    manifest = json.loads((tmp_path / "t" / "manifest.json").read_text())
    assert manifest["setup"]["rules"]["target"] == 50 and "--rules classic:target=50" in manifest["command"]


def test_a_rule_set_file_error_names_the_file_and_a_bare_at_asks_for_one(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text(json.dumps({"rule_set": "classic:nine_penalty=abc"}))
    with pytest.raises(RulesError, match=r"^in .*x\.json: nine_penalty takes a whole number, not 'abc'$"):
        parse_rule_set(f"@{bad}")
    good = tmp_path / "g.json"
    good.write_text(json.dumps({"rule_set": "classic:nine_penalty=40"}))
    assert parse_rule_set(f"@{good}") == make_rules(nine_penalty=40)
    with pytest.raises(RulesError, match=r"^in .*g\.json: nine_penalty is set both"):
        parse_rule_set(f"@{good}", {"nine_penalty": 3})
    for args in (["tournament", "random", "random", "-n", "5"], ["tune-rules", "--space", "nine_penalty=0..9",
                                                                 "--maximize", "skill"]):  # fmt: skip
        line = one_line_error(invoke(*args, "--rules", "@", "--out", str(tmp_path / "o")))
        assert line == "Error: `--rules @` needs a file name: --rules @best-rules.json", line
        line = one_line_error(invoke(*args, "--rules", f"@{bad}", "--out", str(tmp_path / "o")))
        assert line == f"Error: in {bad}: nine_penalty takes a whole number, not 'abc'", line
        assert not (tmp_path / "o").exists()


def test_a_rule_set_file_plays_only_at_the_table_size_it_names(tmp_path):
    """``best-rules.json`` records the table its search measured (``"players"``): another table is refused in
    one line that names both sizes and the ways on, as a rule set's own ``players=N`` would be."""
    f = tmp_path / "best-rules.json"
    f.write_text(json.dumps({"rule_set": "classic:nine_penalty=40", "trial": 3, "players": 4}))
    assert parse_rule_set(f"@{f}", None, 4) == parse_rule_set(f"@{f}") == make_rules(nine_penalty=40)
    with pytest.raises(RulesError, match=r"is for 4 players .* this table seats 5: seat 4 .*--players 5"):
        parse_rule_set(f"@{f}", None, 5)
    with pytest.raises(RulesError, match="this table seats 3"):
        parse_rule_set(f"@{f}", {"players": 3})  # a --rule players=N seats the table as well
    want = (f'Error: the rule set file {f} is for 4 players (its "players") but this table seats 5: seat 4 '
            f"(--players 4 or a lineup of 4), tune again with --players 5, or play its rule set at 5 as "
            f"--rules classic:nine_penalty=40")  # fmt: skip
    out = str(tmp_path / "o")
    assert one_line_error(invoke("tournament", "-n", "5", "--rules", f"@{f}", "--out", out)) == want  # 5 by default
    line = one_line_error(invoke("compare-rules", "random", "random", "--rules", "classic", "--rules", f"@{f}",
                                 "--out", out))  # fmt: skip
    assert "this table seats 2" in line
    line = one_line_error(invoke("tune-rules", "--space", "nine_penalty=0..9", "--maximize", "skill", "-p", "3",
                                 "--rules", f"@{f}", "--out", out))  # fmt: skip
    assert "this table seats 3" in line
    assert not (tmp_path / "o").exists()
    for bad in ("7", "true", '"4"'):
        f.write_text(f'{{"rule_set": "classic", "players": {bad}}}')
        with pytest.raises(RulesError, match=f'has "players": {bad}; give 2 to 6'):
            parse_rule_set(f"@{f}", None, 4)
    f.write_text(json.dumps({"rule_set": "classic:nine_penalty=40"}))  # a file that names no table plays at any
    assert parse_rule_set(f"@{f}", None, 5) == make_rules(nine_penalty=40, players=5)


@pytest.mark.parametrize("cmd", ["tournament", "compare-rules"])
def test_the_manifest_command_of_a_rule_set_file_replays_after_the_file_changes(cmd, tmp_path):
    """The command records the rule set the file held, not ``@FILE``: editing the file changes no replay."""
    import shlex

    from nines_sim.cli import app

    rules_file = tmp_path / "best-rules.json"
    rules_file.write_text(json.dumps({"rule_set": "classic:nine_penalty=40", "trial": 3}))
    rules = ["--rules", f"@{rules_file}"] + (["--rules", "classic"] if cmd == "compare-rules" else [])
    r = invoke(cmd, "random", "random", "-n", "200", "--workers", "1", "-q", "--no-charts", *rules, "--out",
               str(tmp_path / "a"))  # fmt: skip
    assert r.exit_code == 0, r.output
    command = json.loads((tmp_path / "a" / "manifest.json").read_text())["command"]
    assert "@" not in command and "--rules classic:nine_penalty=40" in command, command
    rules_file.write_text(json.dumps({"rule_set": "hard-nines"}))  # edited after the run
    words = shlex.split(command)
    assert words[0] == "nines" and "--out" not in words
    r = runner.invoke(app, [*words[1:], "--workers", "1", "-q", "--no-charts", "--out", str(tmp_path / "b")])
    assert r.exit_code == 0, r.output
    csvs = sorted(p.name for p in (tmp_path / "a").glob("*.csv"))
    assert csvs and csvs == sorted(p.name for p in (tmp_path / "b").glob("*.csv"))
    for name in csvs:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    if cmd == "compare-rules":  # the rule set is labelled with what it played, as the command says it
        assert pd.read_csv(tmp_path / "a" / "comparison.csv")["rule_set"].iloc[0] == "classic:nine_penalty=40"


@pytest.mark.parametrize("cmd", ["tune", "tune-rules"])
def test_the_manifest_command_of_a_tuning_run_holds_the_rule_set_a_file_held(cmd, tmp_path):
    rules_file = tmp_path / "r.json"
    rules_file.write_text(json.dumps({"rule_set": "classic:target=50"}))
    if cmd == "tune":
        args = [*COMMANDS["tune"][0], "--workers", "1", "--quiet", "--no-charts"]
    else:
        args = ["tune-rules", "--space", "nine_penalty=0..60", "--maximize", "skill", "--skilled", "random", "-n",
                "10", "--trials", "1", "--validate", "0", "--workers", "1", "-q", "--no-charts"]  # fmt: skip
    r = invoke(*args, "--rules", f"@{rules_file}", "--rule", "nine_penalty=20", "--out", str(tmp_path / "t"))
    assert r.exit_code == 0, r.output
    command = json.loads((tmp_path / "t" / "manifest.json").read_text())["command"]
    assert "--rules classic:target=50 " in command and "--rule nine_penalty=20" in command and "@" not in command
