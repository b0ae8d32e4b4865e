"""The nines command line: each command runs, and usage errors exit with code 2."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nines_sim.cli import app

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
