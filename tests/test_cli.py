"""The nines command line: each command runs, and usage errors exit with code 2."""

from __future__ import annotations

import json

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
