"""The nines command line: each command runs, and usage errors exit with code 2."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.game.rules import make_rules

runner = CliRunner()


def test_bench_json_reports_each_workload():
    r = runner.invoke(app, ["bench", "W1", "W5", "--matches", "200", "--repeat", "1", "--json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    assert [x["workload"] for x in rows] == ["W1", "W5"]
    for x in rows:
        assert x["matches"] == 200 and x["workers"] == 1 and x["matches_per_s"] > 0
        assert set(x) >= {"workload", "matches", "workers", "seconds", "matches_per_s", "hands_per_s", "turns_per_s"}
        assert x["turns_per_s"] > x["hands_per_s"] > x["matches_per_s"]


@pytest.mark.parametrize("workers", [1, 2])
def test_bench_plays_and_counts_every_hand_as_a_tournament_does(workers):
    """The bench times a one-table tournament (tallies in the workers): every match and hand is still played
    and counted, the same hands and turns as the full hand records of ``simulate``."""
    from nines_sim.experiments.bench.work import WORKLOADS, run_workload
    from nines_sim.runs.simulate import simulate

    r = run_workload("W2", 400, workers=workers, repeat=1)
    _, preset, players, lineup = WORKLOADS["W2"]
    hr = simulate(make_rules(preset, players=players), list(lineup), 400, seed=0).hand_records
    assert r.matches == 400 and r.workers == workers
    assert round(r.hands_per_s * r.seconds) == len(hr)
    assert round(r.turns_per_s * r.seconds) == int(hr.turns.sum())


@pytest.mark.skipif(shutil.which("gcc") is None, reason="the C reference is built with gcc")
def test_against_c_pairs_each_run_with_a_run_of_c_just_before_it(tmp_path):
    """--against-c: the ratio to C is the median over runs of (C's matches/s just before the run) over the run's."""
    fake = tmp_path / "nines_c.c"  # a stand-in reference that always reports 1,000 matches/s
    fake.write_text('#include <stdio.h>\nint main(void) { puts("RESULT C match players=4: median 1000 matches/s"); }\n')
    r = runner.invoke(app, ["bench", "W2", "-n", "300", "-r", "3", "--against-c", str(fake), "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["references"] == {"C": 1000.0}
    (row,) = out["workloads"]
    per_run = row["c_over_this_per_run"]
    assert len(per_run) == 3 and all(x > 0 for x in per_run)
    assert row["ratio_to_C"] == pytest.approx(1 / sorted(per_run)[1])
    text = runner.invoke(app, ["bench", "W2", "-n", "300", "-r", "1", "--against-c", str(fake)]).output
    assert "pairs each run with 1.5 s of C just before it" in text and " of C" in text.splitlines()[-1]


@pytest.mark.skipif(shutil.which("gcc") is None, reason="the C reference is built with gcc")
def test_the_c_reference_the_readme_names_ships_in_the_repository_and_runs():
    from nines_sim.experiments.bench.work import reference_speeds

    root = Path(__file__).resolve().parents[1]
    pages = [root / "README.md", *(root / "docs").rglob("*.md")]  # the README and the documentation site
    named = set(re.findall(r"--against-c ([\w./-]+)", "\n".join(p.read_text() for p in pages)))
    assert named - {"PATH"} == {"bench/nines_c.c"}  # a path a clone has, not one outside the repository
    speeds = reference_speeds(root / "bench" / "nines_c.c", seconds=0.05)  # nines_py.py beside it runs too
    assert set(speeds) == {"C", "plain Python"} and all(v > 0 for v in speeds.values())


@pytest.mark.skipif(shutil.which("gcc") is None, reason="the C reference is built with gcc")
def test_against_c_that_does_not_compile_is_a_one_line_usage_error(tmp_path):
    bad = tmp_path / "nines_c.c"
    bad.write_text("not c\n")
    r = runner.invoke(app, ["bench", "W1", "-n", "10", "--against-c", str(bad)], prog_name="nines")
    assert r.exit_code == 2
    assert len(r.output.strip().splitlines()) == 1 and "gcc failed on" in r.output and "error" in r.output


def test_a_bench_run_stopped_by_ctrl_c_reports_no_speed(monkeypatch):
    """The tournament machinery keeps a stopped run's finished matches; the bench must not time them as a run."""
    import signal

    import nines_sim.experiments.bench.work as bench

    real = bench.run_plan

    def ctrl_c_at_first_matches(*args, **kw):
        def on_progress(played: int, kept: int) -> None:
            if played:
                signal.raise_signal(signal.SIGINT)  # heard by the run's own Ctrl-C handler

        return real(*args, on_progress=on_progress, **kw)

    monkeypatch.setattr(bench, "run_plan", ctrl_c_at_first_matches)
    with pytest.raises(KeyboardInterrupt):
        bench.run_workload("W1", 100_000, workers=1, repeat=1)


def test_bench_table_names_cores_and_processes():
    r = runner.invoke(app, ["bench", "W2", "-n", "100", "-r", "1"])
    assert r.exit_code == 0, r.output
    assert "matches/s" in r.output and "cores" in r.output and "1 process" in r.output


def test_bench_unknown_workload_is_a_usage_error():
    r = runner.invoke(app, ["bench", "W9"])
    assert r.exit_code == 2
    assert "unknown workload 'W9'" in r.output


def test_rules_lists_presets_and_options_with_clauses():
    r = runner.invoke(app, ["rules"])
    assert r.exit_code == 0, r.output
    for text in ("classic", "free-nines", "hard-nines", "double-nines", "nine_penalty", "T7", "turn_cap"):
        assert text in r.output


def test_strategies_lists_the_builtins():
    r = runner.invoke(app, ["strategies"])
    assert r.exit_code == 0, r.output
    for name in ("random", "hold-nines", "dump-faces", "suit-majority"):
        assert name in r.output
    listed = [line.split()[0] for line in r.output.splitlines() if "[built-in" in line]
    assert listed == sorted(listed) and "expert" in listed
    # an alias is a seat's name like any built-in's (README: "every available strategy")
    assert "tuned-expert" in listed
    # clairvoyant sees the cards: nothing to infer, so no `infer` setting is listed under it
    block = ("\n" + r.output).split("\nclairvoyant", 1)[1].split("\ndump-faces", 1)[0]
    assert "samples" in block and "infer" not in block


@pytest.mark.parametrize(
    "args,says",
    [
        (["tournament", "-n", "0"], "'--matches' / '-n': Input should be greater than or equal to 1"),
        (["tournament", "--seed", "-1"], "'--seed': Input should be greater than or equal to 0"),
        (["tournament", "--workers", "abc"], "'--workers' / '-w': Input should be a valid integer"),
        (["tournament", "--format", "roundrobin"], "'roundrobin' is not one of 'table', 'round-robin', 'field'"),
        (["tournament", "--matchs", "3"], "No such option: --matchs"),
        (["replay", "--match", "-1"], "'--match' / '-m': Input should be greater than or equal to 0"),
        (["compare-rules", "-n", "0"], "'--matches' / '-n'"),
        (["bench", "--repeat", "0"], "'--repeat' / '-r'"),
        # beyond a 64-bit match index: an overflow deep in numpy before
        (["tournament", "-n", "99999999999999999999999"], "at most 10,000,000,000 matches a run"),
        (["compare-rules", "-n", "4611686018427387904"], "at most 10,000,000,000 matches a run"),  # hung
        (["tournament", "--design", "10000000001"], "'--design': at most 10,000,000,000"),
        (["replay", "--match", "99999999999999999999999"], "'--match' / '-m': at most 4,611,686,018,427,387,904"),
        (["analyze", "--match", "99999999999999999999999"], "'--match' / '-m': at most 4,611,686,018,427,387,904"),
        (["tune", "expert", "--validate", "99999999999999999999999"], "'--validate': at most"),
        (["compare-rules", "-n", "99999999999999999999999"], "'--matches' / '-n': at most"),
        (["report"], "Missing argument"),
        (["nosuch"], "No such command 'nosuch'"),
    ],
)
def test_click_range_and_type_errors_are_one_line_usage_errors(args, says):
    r = runner.invoke(app, args, prog_name="nines")
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and says in lines[0], r.output
    assert f"(see 'nines {args[0]} --help')" in lines[0] or args[0] == "nosuch"
    assert "╭" not in r.output and "Traceback" not in r.output


def test_usage_errors_are_one_line_through_the_console_script_too():
    nines = Path(sys.executable).with_name("nines")  # the console script installed next to this Python
    r = subprocess.run([str(nines), "tournament", "-n", "0"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [
        "Error: Invalid value for '--matches' / '-n': Input should be greater than or equal to 1 "
        "(see 'nines tournament --help')"
    ]


@pytest.mark.parametrize("command", ["tournament", "compare-rules", "bench", "replay", "report"])
def test_help_shows_switches_as_flags(command):
    r = runner.invoke(app, [command, "--help"])
    assert r.exit_code == 0, r.output
    assert "<bool>" not in r.output and "[OPTIONS]" in r.output
    if command == "tournament":
        assert re.search(r"^\s+-q, --quiet\s+No progress bar", r.output, re.M), r.output
        assert re.search(r"^\s+--force\s+Overwrite", r.output, re.M), r.output


def one_error_line(r) -> str:  # noqa: ANN001 - a click Result
    """The output's single line, which must be an error."""
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("Error: "), r.output
    return lines[0]


@pytest.mark.parametrize(
    "args,says",
    [
        (["replay", "randm"], "Error: unknown strategy 'randm' (did you mean 'random'?); available: "),
        (
            ["tournament", "--rules", "hard-nine"],
            "Error: unknown preset 'hard-nine' (did you mean 'hard-nines'?); presets",
        ),
        (["tournament", "--rules", "xyzzy"], "Error: unknown preset 'xyzzy'; presets are: classic, "),
        (
            ["tournament", "--rule", "nine_penlty=20"],
            "Error: unknown rules option 'nine_penlty' (did you mean 'nine_penalty'?); options are: players, ",
        ),
        (["replay", "random"], "a table seats 2 to 6 players, one strategy each (RULES.md D1); 1 strategy given"),
        (["tournament", "random", "-p", "2"], "--players 2 disagrees with the 1 strategy given"),
        (
            ["tournament", "-p", "2"],
            "--players 2 needs 2 strategies, one per seat: name them (the default lineup is 5:",
        ),
        (["replay", "-p", "2"], "--players 2 needs 2 strategies"),
        (["compare-rules", "-p", "2", "--rules", "classic", "--rules", "hard-nines"], "--players 2 needs 2 strategies"),
        (["tournament", "random", "random", "--rule", "players=3"], "--rule players=3 disagrees with the 2 strategies"),
        (["replay", "random", "random", "--rule", "players=3"], "--rule players=3 disagrees with the 2 strategies"),
        (["tournament", "--out", ""], "--out is empty; give a folder name"),
        (["compare-rules", "--rules", "classic", "--rules", "hard-nines", "--out", " "], "--out is empty"),
    ],
)
def test_messages_say_what_is_wrong(args, says, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = one_error_line(runner.invoke(app, [*args, "-q"] if args[0] != "replay" else args))
    assert says in line, line
    assert list(tmp_path.iterdir()) == []  # nothing written, not even into the current folder


@pytest.mark.parametrize("command,name", [("report", "DIR"), ("review", "TARGET")])
def test_a_missing_argument_is_named_as_the_help_names_it(command, name):
    """``nines report`` alone said "Missing argument 'run_dir'" where its help says DIR (a new user's)."""
    line = one_error_line(runner.invoke(app, [command]))
    assert line.startswith(f"Error: Missing argument '{name}' (see "), line
    assert name in runner.invoke(app, [command, "--help"]).output.splitlines()[0]


def test_a_tie_break_hand_size_that_does_not_fit_is_named_as_such_rule_s4():
    line = one_error_line(runner.invoke(app, ["tournament", "--rule", "hand_sizes=7,20,7,5,5", "-q"]))
    # 4 players: 3 tied players would be dealt 20 cards each in a tie-break hand (RULES.md S4)
    assert "a tie-break hand among 3 tied players" in line and "RULES.md S4" in line and "tie_rule=share" in line
    assert "61 cards" in line and "hold 52" in line


def test_tie_rule_share_deals_no_tie_break_hand_so_its_hand_size_is_not_checked_rule_s4(tmp_path):
    r = runner.invoke(app, ["tournament", "--rule", "hand_sizes=7,20,7,5,5", "--rule", "tie_rule=share", "-n", "30",
                            "--out", str(tmp_path / "o"), "-q", "--no-charts", "--workers", "1"])  # fmt: skip
    assert r.exit_code == 0, r.output
    line = one_error_line(runner.invoke(app, ["tournament", "-p", "3", "random", "random", "random", "--rule",
                                              "hand_sizes=7,20,7,5,5", "--rule", "tie_rule=share", "-q"]))  # fmt: skip
    assert "dealing 20 cards to 3 players needs 61 cards with the starter" in line and "D4" in line


def test_a_hand_size_only_a_larger_table_deals_does_not_stop_a_smaller_one_rule_d4(tmp_path):
    r = runner.invoke(app, ["tournament", "random", "random", "--rule", "hand_sizes=7,20,7,5,5", "-n", "30",
                            "--out", str(tmp_path / "o"), "-q", "--no-charts", "--workers", "1"])  # fmt: skip
    assert r.exit_code == 0, r.output


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("run") / "t"
    r = runner.invoke(app, ["tournament", "-n", "40", "--out", str(d), "-q", "--no-charts", "--workers", "1"])
    assert r.exit_code == 0, r.output
    return d


@pytest.fixture
def run_copy(small_run, tmp_path):
    d = tmp_path / "copy"
    shutil.copytree(small_run, d)
    return d


def without_digests(folder):
    """The folder as written before manifests carried digests, so that the tables' own checks are reached
    (with digests, any edit of a table is refused first as an edit: tests/test_run_digests.py)."""
    path = folder / "manifest.json"
    m = json.loads(path.read_text())
    m.pop("sha256"), m.pop("manifest_sha256")
    path.write_text(json.dumps(m, indent=2))
    return folder


def test_report_on_a_missing_folder_says_it_does_not_exist(tmp_path):
    assert one_error_line(runner.invoke(app, ["report", str(tmp_path / "nope")])) == (
        f"Error: {tmp_path / 'nope'} does not exist"
    )


def test_report_on_a_broken_csv_names_the_file(run_copy):
    without_digests(run_copy)
    path = run_copy / "summary.csv"
    path.write_text(path.read_text().replace("strategy", "strat", 1))
    line = one_error_line(runner.invoke(app, ["report", str(run_copy)]))
    assert f"{path} is not a nines-sim table: it lacks the column(s) strategy" in line and "KeyError" not in line


def test_report_refuses_a_summary_cut_short_of_the_manifests_lineup(run_copy):
    without_digests(run_copy)
    path = run_copy / "summary.csv"
    before = (run_copy / "report.md").read_text()
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:2]))  # header and 1 of 5 rows
    line = one_error_line(runner.invoke(app, ["report", str(run_copy)]))
    assert f"{path} does not match manifest.json: 1 row(s), but the run ranks 5" in line
    assert (run_copy / "report.md").read_text() == before  # nothing rewritten


def test_report_refuses_a_summary_whose_matches_disagree_with_the_manifest(run_copy):
    without_digests(run_copy)
    df = pd.read_csv(run_copy / "summary.csv")
    df.loc[2, "matches"] = 39
    df.to_csv(run_copy / "summary.csv", index=False)
    line = one_error_line(runner.invoke(app, ["report", str(run_copy)]))
    assert "does not match manifest.json: position 2 has 39 matches, the manifest 40" in line


def test_report_that_cannot_write_says_so_not_unreadable(run_copy):
    (run_copy / "report.md").unlink()
    (run_copy / "report.md").mkdir()  # the report's own file cannot be written (permissions do not bind root)
    line = one_error_line(runner.invoke(app, ["report", str(run_copy)]))
    assert f"cannot write the report into {run_copy}" in line and "not a readable run folder" not in line


def test_report_refuses_a_comparison_cut_short(tmp_path):
    d = tmp_path / "c"
    r = runner.invoke(app, ["compare-rules", "random", "random", "--rules", "classic", "--rules", "hard-nines", "-n",
                            "20", "--out", str(d), "-q", "--no-charts", "--workers", "1"])  # fmt: skip
    assert r.exit_code == 0, r.output
    assert runner.invoke(app, ["report", str(d)]).exit_code == 0
    without_digests(d)
    path = d / "comparison.csv"
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:3]))
    line = one_error_line(runner.invoke(app, ["report", str(d)]))
    assert f"{path} does not match manifest.json: 2 row(s), but 2 rule sets x 2 strategies make 4" in line


def test_an_error_after_a_progress_bar_starts_on_a_line_of_its_own(tmp_path):
    f = tmp_path / "boom.py"
    f.write_text("from nines_sim.strategies.random_play import *\n"
                 "class Boom(RandomPlay):\n    name = 'boom'\n"
                 "    def play(self, obs):\n        raise RuntimeError('boom')\n")  # fmt: skip
    r = runner.invoke(app, ["tournament", f"{f}:Boom", "random", "-n", "20", "--out", str(tmp_path / "o"),
                            "--workers", "1"])  # fmt: skip
    assert r.exit_code == 1, r.output
    assert "matches" in r.output  # the bar was drawn (stderr is not a terminal here)
    assert any(line.startswith("Error: strategy 'boom' raised RuntimeError: boom") for line in r.output.splitlines())


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ["tournament", "--rules", "classic:nine_penalty=20", "--rules", "classic:nine_penalty=25"],
            "--rules is given 2 times; give it once (compare rule sets with 'nines compare-rules')",
        ),
        (["tournament", "-n", "5", "--matches=6"], "--matches is given 2 times; give it once"),
        (["replay", "--seed", "1", "--seed", "2", "--match", "0"], "--seed is given 2 times; give it once"),
    ],
)
def test_an_option_of_one_value_given_twice_is_refused_not_the_last_kept(args, says, tmp_path):
    r = runner.invoke(app, [*args, "--out", str(tmp_path / "x")] if args[0] == "tournament" else args)
    assert one_error_line(r) == f"Error: {says}"
    assert not (tmp_path / "x").exists()


def test_options_that_take_several_values_may_repeat(tmp_path):
    r = runner.invoke(app, ["compare-rules", "random", "random", "--rules", "classic", "--rules", "hard-nines",
                            "--rule", "target=50", "-n", "20", "-q", "--no-charts", "--workers", "1",
                            "--out", str(tmp_path / "c")])  # fmt: skip
    assert r.exit_code == 0, r.output
