"""The tournament command end to end: outputs, reproducibility, replay, formats, errors, Ctrl-C."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from nines_sim.cli import app

runner = CliRunner()
CSVS = ("summary.csv", "hands.csv", "score_distribution.csv", "seat_go_out.csv", "pairwise.csv")


def invoke(*args: str):
    return runner.invoke(app, list(args))


def run_ok(*args: str):
    r = invoke(*args)
    assert r.exit_code == 0, r.output
    return r


@pytest.fixture(scope="module")
def default_runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("runs")
    out = {}
    for key, extra in {
        "w1": ["--workers", "1"],
        "w2": ["--workers", "2"],
        "b64": ["--workers", "1", "--batch-size", "64"],
    }.items():
        d = base / key
        # charts in w1 alone: w2's and b64's CSVs are compared, b64 redrawn by `nines report`; no test reads w2's charts
        charts = [] if key == "w1" else ["--no-charts"]
        run_ok("tournament", "-n", "3000", "--out", str(d), "--quiet", *extra, *charts)
        out[key] = d
    return out


def test_default_tournament_is_the_heuristics_and_expert_at_one_table(default_runs):
    d = default_runs["w1"]
    s = pd.read_csv(d / "summary.csv")
    assert list(s.columns) == ["position", "rank", "strategy", "matches", "wins", "win_rate", "win_rate_low",
                               "win_rate_high", "mean_total", "sd_total", "go_out_rate",
                               "mean_hand_penalty"]  # fmt: skip
    assert s["strategy"].tolist() == ["random", "hold-nines", "dump-faces", "suit-majority", "expert"]
    assert (s["matches"] == 3000).all()
    assert abs(s["wins"].sum() - 3000) < 1e-6  # every match has exactly one win in total
    assert ((s["win_rate_low"] <= s["win_rate"]) & (s["win_rate"] <= s["win_rate_high"])).all()
    m = json.loads((d / "manifest.json").read_text())
    assert m["seed"] == 0 and m["matches_played"] == 3000 and m["rules"]["tie_rule"] == "playoff"
    assert m["lineup"] == ["random", "hold-nines", "dump-faces", "suit-majority", "expert"] and not m["partial"]
    assert m["command"].startswith("nines tournament random hold-nines dump-faces suit-majority expert")
    h = pd.read_csv(d / "hands.csv")
    assert list(h.columns) == ["hands", "mean_turns_per_hand", "mean_hands_per_match", "blocked_rate",
                               "capped_hands", "reshuffles_per_hand", "nine_starter_rate",
                               "first_player_go_out_rate"]  # fmt: skip
    dist = pd.read_csv(d / "score_distribution.csv")
    finals = dist[dist.kind == "final_total"].groupby("strategy")["count"].sum()
    assert (finals == 3000).all()


def test_csvs_are_byte_identical_for_one_or_two_workers_and_any_batch_size(default_runs):
    for name in CSVS:
        a = (default_runs["w1"] / name).read_bytes()
        assert a == (default_runs["w2"] / name).read_bytes(), name
        assert a == (default_runs["b64"] / name).read_bytes(), name


def test_charts_and_report_are_written(default_runs):
    d = default_runs["w1"]
    for png in ("win_rates.png", "final_totals.png", "hand_penalties.png", "go_out_by_seat.png"):
        assert (d / png).read_bytes()[:4] == b"\x89PNG", png
    text = (d / "report.md").read_text()
    assert "win_rates.png" in text and "significant" in text.lower()
    assert not (default_runs["b64"] / "win_rates.png").exists()  # --no-charts


def test_terminal_summary_is_ranked_with_intervals(tmp_path):
    r = run_ok("tournament", "-n", "500", "--workers", "1", "--out", str(tmp_path / "t"), "--no-charts")
    lines = [x for x in r.output.splitlines() if x.strip().startswith(("1 ", "2 ", "3 ", "4 "))]
    assert len(lines) == 4 and "[" in lines[0]
    assert "matches/s" in r.output and str(tmp_path / "t") in r.output


def test_replay_equals_its_row_from_save_matches(tmp_path):
    d = tmp_path / "s"
    run_ok("tournament", "random", "dump-faces", "-n", "200", "--seed", "5", "--out", str(d), "--save-matches",
           "--no-charts", "--quiet", "--workers", "1")  # fmt: skip
    with gzip.open(d / "matches.csv.gz", "rt") as fh:
        rows = pd.read_csv(fh)
    assert len(rows) == 200 and rows["match"].tolist() == list(range(200))
    row = rows[rows.match == 137].iloc[0]
    r = run_ok("replay", "random", "dump-faces", "--seed", "5", "--match", "137")
    assert f"final totals [{row.total_0}, {row.total_1}]" in r.output
    assert f"regular hands {row.hands}" in r.output
    assert "deals; starter" in r.output and "plays" in r.output


def test_round_robin_writes_the_head_to_head_matrix(tmp_path):
    d = tmp_path / "rr"
    run_ok("tournament", "random", "hold-nines", "dump-faces", "--format", "round-robin", "-n", "400",
           "--out", str(d), "--quiet", "--workers", "2")  # fmt: skip
    h = pd.read_csv(d / "head_to_head.csv")
    assert list(h.columns) == ["strategy", "opponent", "matches", "win_rate", "win_rate_low", "win_rate_high"]
    assert len(h) == 6 and (h["matches"] == 400).all()
    pair = h.set_index(["strategy", "opponent"])["win_rate"]
    assert abs(pair[("random", "dump-faces")] + pair[("dump-faces", "random")] - 1) < 1e-9
    assert (d / "head_to_head.png").exists()
    s = pd.read_csv(d / "summary.csv")
    assert s["strategy"].tolist() == ["random", "hold-nines", "dump-faces"] and (s["matches"] == 800).all()


def test_field_seats_each_strategy_against_the_baseline(tmp_path):
    d = tmp_path / "f"
    run_ok("tournament", "hold-nines", "dump-faces", "--format", "field", "--baseline", "random", "-p", "3",
           "-n", "300", "--out", str(d), "--quiet", "--no-charts")  # fmt: skip
    m = json.loads((d / "manifest.json").read_text())
    assert [g["lineup"] for g in m["games"]] == [["hold-nines", "random", "random"], ["dump-faces", "random", "random"]]
    s = pd.read_csv(d / "summary.csv")
    assert s["strategy"].tolist() == ["hold-nines", "dump-faces"]


@pytest.mark.parametrize(
    "args,message",
    [
        (["tournament", "nosuch"], "unknown strategy 'nosuch'"),
        (["tournament", "--rules", "nosuch"], "unknown preset 'nosuch'"),
        (["tournament", "--rule", "nine_penalty=abc"], "nine_penalty takes a whole number"),
        (["tournament", "--rule", "colour=red"], "unknown rules option 'colour'"),
        (["tournament", "--rule", "nine_penalty"], "key=value"),
        (["tournament", "random", "random", "-p", "3"], "--players 3 disagrees"),
        (["tournament", "-p", "7", "--format", "field"], "players must be 2 to 6"),
        (["tournament", "random", "--format", "round-robin"], "at least two strategies"),
        (["tournament", "--format", "pyramid"], "pyramid"),
        (["replay", "random", "nosuch"], "unknown strategy"),
    ],
)
def test_usage_errors_exit_2_with_one_line(args, message, tmp_path):
    r = invoke(*args, "--out", str(tmp_path / "x")) if args[0] == "tournament" else invoke(*args)
    assert r.exit_code == 2, r.output
    assert message in r.output
    assert "Traceback" not in r.output


def test_existing_output_folder_needs_force(tmp_path):
    d = tmp_path / "o"
    run_ok("tournament", "-n", "100", "--out", str(d), "--quiet", "--no-charts", "--workers", "1")
    before = (d / "summary.csv").read_bytes()
    r = invoke("tournament", "-n", "100", "--seed", "1", "--out", str(d), "--quiet", "--no-charts")
    assert r.exit_code == 2 and "--force" in r.output
    assert (d / "summary.csv").read_bytes() == before
    run_ok("tournament", "-n", "100", "--seed", "1", "--out", str(d), "--quiet", "--no-charts", "--force")
    assert (d / "summary.csv").read_bytes() != before


def test_report_redraws_from_the_csvs(default_runs, tmp_path):
    d = default_runs["b64"]
    r = run_ok("report", str(d))
    assert (d / "win_rates.png").exists() and (d / "report.md").exists()
    r = invoke("report", str(tmp_path))
    assert r.exit_code == 2 and "not a run folder" in r.output


def test_ctrl_c_keeps_what_finished_and_marks_the_report_partial(tmp_path):
    from tests.interrupt import ctrl_c_once_kept

    d = tmp_path / "cc"
    # Ctrl-C as soon as the bar shows kept matches: by an event, with nearly all of the run still to play
    args = ["tournament", "-n", "3000000", "--workers", "2", "--chunk-size", "5000", "--batch-size", "1000",
            "--out", str(d), "--no-charts", "--save-matches"]  # fmt: skip
    rc, out, err = ctrl_c_once_kept(args)
    assert rc == 130, out + err[-2000:]
    assert "PARTIAL" in out and "Stopping (Ctrl-C)" in err and "Traceback" not in out + err
    m = json.loads((d / "manifest.json").read_text())
    assert m["partial"] and 0 < m["matches_played"] < 3_000_000
    s = pd.read_csv(d / "summary.csv")
    assert (s["matches"] == m["matches_played"]).all()
    assert abs(s["wins"].sum() - m["matches_played"]) < 1e-6
    assert "PARTIAL" in (d / "report.md").read_text()
    # each chunk keeps a whole block of match indices from its start (no bias to short matches), and the
    # manifest lists exactly the matches kept
    with gzip.open(d / "matches.csv.gz", "rt") as fh:
        kept = pd.read_csv(fh)["match"].to_numpy()
    ranges = m["kept_ranges"]
    assert all(a % 5000 == 0 for a, _ in ranges)
    assert (kept == np.concatenate([np.arange(a, b) for a, b in ranges])).all()
    assert f"--ranges {','.join(f'{a}:{b}' for a, b in ranges)}" in m["kept_command"]


def test_the_kept_command_of_a_luck_run_stopped_while_playing_is_one_the_command_takes(tmp_path, monkeypatch):
    # --luck adjusts a whole run and refuses --ranges: a partial run's kept_command that kept --luck was refused.
    # The Ctrl-C is raised in this process once a chunk is kept (a terminal's, to the whole process group, is the
    # test above's): the command's own process start and imports were most of this test's cost.
    import shlex

    from tests.interrupt import ctrl_c_in_process

    d = tmp_path / "cc"
    args = ["tournament", "expert", "random", "-n", "3000000", "--workers", "2", "--chunk-size", "2000",
            "--batch-size", "500", "--luck", "--out", str(d), "--no-charts"]  # fmt: skip
    ctrl_c_in_process(monkeypatch, lambda played, kept: kept > 0)
    r = invoke(*args)
    monkeypatch.undo()
    assert r.exit_code == 130, r.output[-2000:]
    m = json.loads((d / "manifest.json").read_text())
    assert m["partial"] and "--luck" in m["command"] and "--luck" not in m["kept_command"]
    assert m["luck"]["computed"] is False and "whole run" in m["luck"]["why"]
    again = shlex.split(m["kept_command"])[1:]
    r = invoke(*again, "--out", str(tmp_path / "again"), "--no-charts", "-q")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "again" / "summary.csv").read_bytes() == (d / "summary.csv").read_bytes()


def test_baseline_outside_field_format_is_a_usage_error(tmp_path):
    r = invoke("tournament", "--baseline", "dump-faces", "--out", str(tmp_path / "b"))
    assert r.exit_code == 2 and "--baseline applies to --format field only" in r.output


def test_force_replaces_only_nines_sim_files(tmp_path):
    d = tmp_path / "mine"
    d.mkdir()
    (d / "holiday.png").write_bytes(b"not ours")
    (d / "summary.csv").write_text("old")
    run_ok("tournament", "-n", "50", "--out", str(d), "--quiet", "--no-charts", "--force", "--workers", "1")
    assert (d / "holiday.png").read_bytes() == b"not ours"
    assert (d / "summary.csv").read_text().startswith("position,rank,strategy")


@pytest.mark.parametrize("where", ["/proc/nines-x", "{tmp}/a-file/sub"])
def test_an_unwritable_output_folder_is_refused_before_any_match(tmp_path, where):
    (tmp_path / "a-file").write_text("x")
    r = invoke("tournament", "-n", "100000", "--out", where.format(tmp=tmp_path), "--quiet")
    assert r.exit_code == 2 and "choose another --out" in r.output and "Traceback" not in r.output


def test_a_failed_run_leaves_no_empty_folder(tmp_path):
    d = tmp_path / "never"
    f = tmp_path / "bad.py"
    f.write_text("import numpy as np\nfrom nines_sim.strategy.base import Strategy\n"
                 "class Bad(Strategy):\n    name = 'bad'\n"
                 "    def play(self, obs):\n        return np.full(obs.n, 99)\n"
                 "    def declare(self, obs):\n        return np.zeros(obs.n, dtype=int)\n")  # fmt: skip
    r = invoke("tournament", f"{f}:Bad", "random", "-n", "100", "--out", str(d), "--quiet", "--workers", "1")
    assert r.exit_code == 1 and "not a legal play" in r.output
    assert not d.exists()


@pytest.mark.parametrize(
    "args,message",
    [
        (["random", "random", "--rule", "players=3"], "--rule players=3 disagrees with the 2 strategies given"),
        (["-p", "7"], "players must be 2 to 6"),
        (["--rule", "nine_penalty=99999999999999999999"], "nine_penalty must be 0 to 1000"),
        (["--rule", "target=9223372036854775808"], "target must be > 0 and at most"),
        (["--rules", "hard-nines+hard-nines"], "named twice"),
        (["--rules", ""], "a preset name is missing"),
    ],
)
def test_more_usage_errors(args, message, tmp_path):
    r = invoke("tournament", *args, "--out", str(tmp_path / "x"))
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output


def test_manifest_command_is_shell_quoted(tmp_path):
    import shlex

    d = tmp_path / "q"
    run_ok("tournament", "-n", "20", "--rule", "hand_sizes=6,6,6,5,5", "--out", str(d), "--quiet", "--no-charts")
    cmd = json.loads((d / "manifest.json").read_text())["command"]
    assert shlex.split(cmd)[:2] == ["nines", "tournament"] and "hand_sizes=6,6,6,5,5" in shlex.split(cmd)


def test_a_seat_that_never_wins_still_gets_its_chart(tmp_path):
    d = tmp_path / "z"
    run_ok("tournament", "random", "expert", "expert", "expert", "expert", "expert", "-n", "3", "--out", str(d),
           "--quiet", "--workers", "1")  # fmt: skip
    s = pd.read_csv(d / "summary.csv")
    assert ((s["win_rate_low"] <= s["win_rate"]) & (s["win_rate"] <= s["win_rate_high"])).all()
    assert (s.loc[s["wins"] == 0, "win_rate_low"] == 0).all()
    assert (d / "win_rates.png").exists() and (d / "report.md").exists()


def test_a_tally_run_takes_the_same_memory_for_10000_or_60000_matches(monkeypatch):
    """Memory flat in the number of matches (issue 12): a worker's peak of traced allocations (numpy's
    arrays included) is set by its buffers and batch, not by the matches it plays.  A per-match leak of the
    16 bytes of a match's keys would add 0.8 MB over the 50,000 extra matches; keeping the hand records,
    about 40 MB."""
    import tracemalloc

    import nines_sim.engine.batch as compiled
    from nines_sim.experiments.tournament.games import play_range
    from nines_sim.game.rules import make_rules

    monkeypatch.setattr(compiled, "KEY_WINDOW", 4096)  # both runs are past one window of match keys
    rules = make_rules("classic")
    lineup = ("random", "hold-nines", "dump-faces", "suit-majority")
    play_range(rules, lineup, 0, 0, 100, 32768, False)  # load the kernel and fill caches first
    peaks = {}
    for n in (10_000, 60_000):
        tracemalloc.start()
        try:
            tally, _ = play_range(rules, lineup, 0, 0, n, 32768, False)
            peaks[n] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert tally.matches == n
    assert peaks[60_000] - peaks[10_000] < 256 * 1024, peaks


def test_a_compiled_table_is_cut_into_several_chunks_per_worker_with_the_same_tallies():
    """Several chunks per worker balance two workers when one is slowed (issue 12); a Python seat's table keeps
    one chunk per worker (its batch stays full).  The tallies do not depend on it."""
    from dataclasses import fields

    from nines_sim.experiments.bench.work import PLUGIN
    from nines_sim.experiments.tournament.work import chunk_size, plan_tournament, run_plan
    from nines_sim.game.rules import make_rules

    rules = make_rules("classic")
    plan = plan_tournament("table", ["random", "expert", "hold-nines", "dump-faces"], rules)
    assert chunk_size(plan, [(0, 200_000)], 2) == 6_250  # 16 per worker
    assert chunk_size(plan, [(0, 200_000)], 1) == 200_000
    assert chunk_size(plan, [(0, 6_000)], 2) == 2_000  # at least MIN_COMPILED_CHUNK
    assert chunk_size(plan, [(0, 3_999)], 2) == 3_999  # less than two of those: one chunk, played in this process
    with_plugin = plan_tournament("table", [PLUGIN, "random", "random", "random"], rules)
    assert chunk_size(with_plugin, [(0, 200_000)], 2) == 100_000
    one = run_plan(plan, 6_000, seed=3, workers=1)
    two = run_plan(plan, 6_000, seed=3, workers=2)
    assert two.kept == [(0, 6_000)] and not two.partial
    a, b = one.tallies["table"], two.tallies["table"]
    for f in fields(a):
        assert np.array_equal(getattr(a, f.name), getattr(b, f.name)), f.name


def _process_id(*args, on_matches=None, should_stop=None) -> int:  # noqa: ANN002 - a unit of run_units
    import os

    return os.getpid()


def test_a_run_of_one_unit_plays_in_this_process_and_more_units_in_the_pool():
    """Starting worker processes for one unit would only delay it (issue 22, start-up): it plays here."""
    import os

    from nines_sim.runs.pool import run_units

    got: list[tuple[str, int]] = []
    run_units(_process_id, [("only", ())], 2, lambda tag, pid: got.append((tag, pid)))
    assert got == [("only", os.getpid())]
    got.clear()
    run_units(_process_id, [("a", ()), ("b", ())], 2, lambda tag, pid: got.append((tag, pid)))
    # units are taken as they complete (run_units' contract), so in either order: the order is timing's
    assert sorted(tag for tag, _ in got) == ["a", "b"] and os.getpid() not in {pid for _, pid in got}
