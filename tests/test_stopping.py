"""Stopping runs: Ctrl-C keeps the finished chunks, and the manifest's kept_command plays exactly them again.

Every interruption here is driven by an event (the progress callback raising
SIGINT in this process once something is played or kept), never by a sleep.
"""

from __future__ import annotations

import gzip
import json
import shlex
import signal
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.results.stats import MIN_MATCHES_TO_RANK
from nines_sim.runs.pool import drive
from nines_sim.runs.progress import WITH_ETA, WITHOUT_ETA, RunProgress
from nines_sim.runs.ranges import cut, format_ranges, merge, parse_ranges
from tests.interrupt import built_ins_as_python_seats, ctrl_c_in_process

runner = CliRunner()
CSVS = ("summary.csv", "hands.csv", "score_distribution.csv", "seat_go_out.csv", "pairwise.csv")


def invoke(*args: str):
    return runner.invoke(app, list(args))


def manifest(d: Path) -> dict:
    return json.loads((d / "manifest.json").read_text())


def kept_matches(d: Path) -> np.ndarray:
    with gzip.open(d / "matches.csv.gz", "rt") as fh:
        return pd.read_csv(fh)["match"].to_numpy()


def rerun_kept(d: Path, out: Path, *extra: str):
    """Run the manifest's kept_command (as a user would paste it) into ``out``."""
    args = shlex.split(manifest(d)["kept_command"])
    assert args[:1] == ["nines"]
    return invoke(*args[1:], "--out", str(out), "--quiet", "--no-charts", *extra)


# ------------------------------------------------------------------ ranges


def test_ranges_read_write_merge_and_cut():
    assert parse_ranges("0:10, 20:30", 30) == [(0, 10), (20, 30)]
    assert parse_ranges("20:30,0:10", 30) == [(0, 10), (20, 30)]  # any order, sorted
    assert format_ranges([(0, 10), (20, 30)]) == "0:10,20:30"
    assert merge([(5, 8), (0, 5), (10, 12), (11, 11)]) == [(0, 8), (10, 12)]
    assert cut([(0, 5), (10, 13)], 2) == [(0, 2), (2, 2), (4, 1), (10, 2), (12, 1)]


@pytest.mark.parametrize(
    "text,message",
    [
        ("5:3", "is empty"),
        ("0:200", "beyond the 100 matches"),
        ("0:10,5:20", "overlap"),
        ("abc", "START:END pairs"),
        ("-1:5", "START:END pairs"),
        (",", "needs START:END pairs"),
    ],
)
def test_bad_ranges_are_one_line_usage_errors(tmp_path, text, message):
    r = invoke("tournament", "-n", "100", "--ranges", text, "--out", str(tmp_path / "r"), "--quiet")
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output and len(r.output.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()


def test_ranges_play_exactly_those_matches_with_their_numbers_in_a_whole_run(tmp_path):
    args = ["tournament", "-n", "300", "--workers", "1", "--quiet", "--no-charts", "--save-matches"]
    assert invoke(*args, "--out", str(tmp_path / "all")).exit_code == 0
    r = invoke(*args, "--ranges", "40:100,250:270", "--out", str(tmp_path / "some"))
    assert r.exit_code == 0, r.output
    with gzip.open(tmp_path / "all" / "matches.csv.gz", "rt") as fh:
        everything = pd.read_csv(fh)
    with gzip.open(tmp_path / "some" / "matches.csv.gz", "rt") as fh:
        some = pd.read_csv(fh)
    wanted = list(range(40, 100)) + list(range(250, 270))
    assert some["match"].tolist() == wanted
    expected = everything[everything["match"].isin(wanted)].reset_index(drop=True)
    pd.testing.assert_frame_equal(some, expected)
    m = manifest(tmp_path / "some")
    assert m["matches"] == 80 and m["ranges"] == [[40, 100], [250, 270]] and m["kept_ranges"] == m["ranges"]
    assert not m["partial"] and "--ranges 40:100,250:270" in m["command"]


# ------------------------------------------------------------------ stopping in process, by events


def test_ctrl_c_in_a_tournament_keeps_the_finished_block_and_its_command_replays_it(tmp_path, monkeypatch):
    # Python seats play a batch of matches a turn at a time, so matches finish out of index order and a stop can
    # come with matches finished above the first unfinished one: the case the kept block is about. (A table of
    # compiled built-ins finishes in index order, a block of matches per advance.)
    built_ins_as_python_seats(monkeypatch)
    seen = ctrl_c_in_process(monkeypatch, lambda played, kept: kept > 0)
    d = tmp_path / "cc"
    r = invoke("tournament", "-n", "1500", "--batch-size", "100", "--workers", "1", "--save-matches", "--no-charts",
               "--out", str(d))  # fmt: skip
    assert r.exit_code == 130, r.output
    assert "Stopping (Ctrl-C)" in r.output and "PARTIAL" in r.output and "Traceback" not in r.output
    m = manifest(d)
    k = m["matches_played"]
    assert m["partial"] and 0 < k < 1500 and k >= seen[0][1]  # at least what was kept when Ctrl-C came
    assert m["kept_ranges"] == [[0, k]] and m["ranges"] == [[0, 1500]]
    assert (kept_matches(d) == np.arange(k)).all()  # a whole block from the first match: no bias to short ones
    assert f"--ranges 0:{k}" in m["kept_command"] and m["command"].count("--ranges") == 0
    assert m["kept_command"] in (d / "report.md").read_text()
    assert f"kept matches 0:{k}" in r.output
    monkeypatch.undo()
    r = rerun_kept(d, tmp_path / "again", "--workers", "2", "--save-matches")
    assert r.exit_code == 0, r.output
    assert not manifest(tmp_path / "again")["partial"]
    for name in (*CSVS, "matches.csv.gz"):
        if name == "pairwise.csv" and m["too_small_to_rank"]:
            # a stopped run this small claims no significance; the complete rerun of its matches does
            a, b = (pd.read_csv(x / name).drop(columns="significant") for x in (d, tmp_path / "again"))
            pd.testing.assert_frame_equal(a, b)
            continue
        assert (d / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name


def test_ctrl_c_before_any_match_finished_writes_nothing(tmp_path, monkeypatch):
    # A comparison keeps the block of matches every rule set finished from the chunk's start: with Python seats
    # matches finish out of order, so the first ones played leave that block empty.
    built_ins_as_python_seats(monkeypatch)
    ctrl_c_in_process(monkeypatch, lambda played, kept: played > 0)
    d = tmp_path / "none"
    r = invoke("compare-rules", "--rules", "classic", "--rules", "hard-nines", "-n", "4000", "--batch-size", "4000",
               "--workers", "1", "--out", str(d))  # fmt: skip
    assert r.exit_code == 130, r.output
    assert "Stopped before any match was kept: no results were written." in r.output
    assert "Traceback" not in r.output and "(reference)" not in r.output
    assert not d.exists()


def test_ctrl_c_before_anything_finished_leaves_an_old_run_folder_alone(tmp_path, monkeypatch):
    d = tmp_path / "old"
    assert invoke("tournament", "-n", "30", "--workers", "1", "--quiet", "--no-charts", "--out", str(d)).exit_code == 0
    before = {p.name: p.read_bytes() for p in d.iterdir()}
    built_ins_as_python_seats(monkeypatch)  # matches finish out of order: some played, none kept yet
    ctrl_c_in_process(monkeypatch, lambda played, kept: played > 0)
    r = invoke("tournament", "-n", "3000", "--batch-size", "3000", "--workers", "1", "--force", "--out", str(d))
    assert r.exit_code == 130 and "no results were written" in r.output, r.output
    assert {p.name: p.read_bytes() for p in d.iterdir()} == before


def test_a_comparison_stopped_after_its_first_chunk_keeps_it_whole_and_replays_it(tmp_path, monkeypatch):
    ctrl_c_in_process(monkeypatch, lambda played, kept: kept > 0)
    d = tmp_path / "cmp"
    r = invoke("compare-rules", "--rules", "classic", "--rules", "hard-nines", "-n", "6000", "--chunk-size", "1000",
               "--workers", "1", "--no-charts", "--out", str(d))  # fmt: skip
    assert r.exit_code == 130, r.output
    m = manifest(d)
    assert m["partial"] and m["matches_played"] == 1000 and m["kept_ranges"] == [[0, 1000]]
    assert (pd.read_csv(d / "comparison.csv")["matches"] == 1000).all()
    assert "--ranges 0:1000" in m["kept_command"]
    monkeypatch.undo()
    r = rerun_kept(d, tmp_path / "again", "--workers", "2")
    assert r.exit_code == 0, r.output
    for name in ("comparison.csv", "score_distribution.csv"):
        assert (d / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name


def test_a_comparison_stopped_inside_a_chunk_keeps_the_block_every_rule_set_finished(tmp_path, monkeypatch):
    # One chunk of 2,400 matches, three rule sets in lockstep with Python seats (matches finish out of order,
    # a turn per advance): a Ctrl-C once a block is kept must keep that block under every rule set, not drop
    # the chunk, and the block must equal the same matches played whole.
    built_ins_as_python_seats(monkeypatch)
    seen = ctrl_c_in_process(monkeypatch, lambda played, kept: kept > 0)
    d = tmp_path / "sweep"
    r = invoke("compare-rules", "--sweep", "nine_penalty=10,25,40", "-n", "2400", "--chunk-size", "2400",
               "--batch-size", "200", "--workers", "1", "--no-charts", "--out", str(d))  # fmt: skip
    assert r.exit_code == 130, r.output
    m = manifest(d)
    k = m["matches_played"]
    first_kept = next(kept for _, kept in seen if kept > 0)
    assert m["partial"] and 0 < k < 2400 and 3 * k >= first_kept and m["kept_ranges"] == [[0, k]]
    assert (pd.read_csv(d / "comparison.csv")["matches"] == k).all()  # the same matches under every rule set
    assert f"kept matches 0:{k}" in r.output
    monkeypatch.undo()
    r = rerun_kept(d, tmp_path / "again", "--workers", "2")
    assert r.exit_code == 0, r.output
    for name in ("comparison.csv", "score_distribution.csv"):
        if name == "comparison.csv" and m["too_small_to_rank"]:
            # a stopped run this small claims no significance; the complete rerun of its matches does
            a, b = (pd.read_csv(x / name).drop(columns="significant") for x in (d, tmp_path / "again"))
            pd.testing.assert_frame_equal(a, b)
            continue
        assert (d / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name


def test_a_stopped_round_robin_keeps_the_same_matches_for_every_game(tmp_path, monkeypatch):
    ctrl_c_in_process(monkeypatch, lambda played, kept: kept > 0)
    d = tmp_path / "rr"
    r = invoke("tournament", "random", "dump-faces", "hold-nines", "--format", "round-robin", "-n", "3000",
               "--chunk-size", "500", "--workers", "1", "--no-charts", "--out", str(d))  # fmt: skip
    assert r.exit_code == 130, r.output
    m = manifest(d)
    assert m["kept_ranges"] == [[0, 500]]
    assert [g["matches_played"] for g in m["games"]] == [500, 500, 500] and m["matches_played"] == 1500
    assert (pd.read_csv(d / "head_to_head.csv")["matches"] == 500).all()


# ------------------------------------------------------------------ too few to rank


def test_a_stopped_run_too_small_to_rank_is_written_without_ranks_or_significance(tmp_path, monkeypatch):
    ctrl_c_in_process(monkeypatch, lambda played, kept: kept > 0)
    d = tmp_path / "small"
    r = invoke("tournament", "-n", "6000", "--chunk-size", "60", "--batch-size", "60", "--workers", "1",
               "--no-charts", "--out", str(d))  # fmt: skip
    assert r.exit_code == 130, r.output
    m = manifest(d)
    assert m["partial"] and m["matches_played"] < MIN_MATCHES_TO_RANK
    assert m["too_small_to_rank"] and m["min_matches_to_rank"] == MIN_MATCHES_TO_RANK
    pw = pd.read_csv(d / "pairwise.csv")
    assert len(pw) and pw["significant"].isna().all() and pw["p_value"].notna().all()
    text = (d / "report.md").read_text()
    assert "TOO FEW MATCHES TO RANK" in text and "None is claimed" in text
    assert "| 1 |" not in text and "won more often" not in text
    assert "too few matches to rank" in r.output and "\n   1  " not in r.output


def test_a_stopped_comparison_too_small_to_test_makes_no_significance_claim(tmp_path, monkeypatch):
    ctrl_c_in_process(monkeypatch, lambda played, kept: kept > 0)
    d = tmp_path / "small"
    r = invoke("compare-rules", "--rules", "classic", "--rules", "hard-nines", "-n", "8000", "--chunk-size", "80",
               "--workers", "1", "--no-charts", "--out", str(d))  # fmt: skip
    assert r.exit_code == 130, r.output
    df = pd.read_csv(d / "comparison.csv")
    assert df["significant"].isna().all() and manifest(d)["too_small_to_rank"]
    assert " *" not in r.output and "too few matches to test the shifts" in r.output
    text = (d / "report.md").read_text()
    assert "TOO FEW MATCHES TO RANK" in text and "None is claimed" in text and "Holm correction across" not in text


def test_a_small_run_asked_for_is_ranked_with_exact_tests(tmp_path):
    d = tmp_path / "asked"
    r = invoke("tournament", "-n", "60", "--workers", "1", "--no-charts", "--out", str(d))
    assert r.exit_code == 0, r.output
    assert not manifest(d)["too_small_to_rank"] and "TOO FEW" not in (d / "report.md").read_text()
    pw = pd.read_csv(d / "pairwise.csv")
    assert pw["significant"].notna().all() and set(pw["test"]) <= {"exact binomial", "exact McNemar"}


def test_enough_matches_are_ranked(tmp_path):
    d = tmp_path / "ok"
    r = invoke("tournament", "-n", str(MIN_MATCHES_TO_RANK), "--workers", "1", "--no-charts", "--out", str(d))
    assert r.exit_code == 0, r.output
    assert not manifest(d)["too_small_to_rank"] and "TOO FEW" not in (d / "report.md").read_text()
    assert pd.read_csv(d / "pairwise.csv")["significant"].notna().all()


# ------------------------------------------------------------------ the progress bar and the scheduling


def test_progress_shows_played_and_kept_and_no_eta_until_a_chunk_is_kept():
    with RunProgress(10_000) as p:
        p(300, 0)  # 3% played, nothing kept: the rate still holds the start
        assert p.bar.bar_format == WITHOUT_ETA and "300/10k played, kept 0" in str(p.bar)
        p(100, 400)
        assert p.bar.bar_format == WITH_ETA and "400/10k played, kept 400" in str(p.bar)
        p(2000, 2000)
        assert "2.4k/10k played, kept 2.4k" in str(p.bar)


def test_a_training_rounds_bar_shows_no_kept_count(monkeypatch):
    # a round of nines train is kept whole at its end: its bar said "kept 0" throughout (a new user's report)
    from types import SimpleNamespace

    from nines_sim.cli.train import bar_of

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    with bar_of(SimpleNamespace(matches=100))(2) as p:
        p(40, 0)
        assert "round 2 self-play" in str(p.bar) and "40/100 played [" in str(p.bar) and "kept" not in str(p.bar)


def test_the_bar_counts_whole_matches():
    # tqdm's unit_scale wrote 0.00/100k while compiling and 5.00/100k after five matches (issue 22)
    with RunProgress(100_000) as p:
        assert "| 0/100k played" in str(p.bar)
        p(5, 0)
        assert "| 5/100k played" in str(p.bar)
        p(99_945, 99_950)
        assert "| 99.9k/100k played, kept 99.9k" in str(p.bar)  # cut, not rounded up to the total
        p(50, 50)
        assert "| 100k/100k played, kept 100k" in str(p.bar)
    from nines_sim.runs.progress import count_text

    counts = (0, 999, 1000, 1234, 10_000, 2_500_000)
    assert [count_text(n) for n in counts] == ["0", "999", "1k", "1.23k", "10k", "2.5M"]


def test_units_are_handed_out_lazily_and_none_after_a_stop():
    submitted: list[int] = []
    taken: list[int] = []
    stop_asked: list[bool] = []

    def units():
        for i in range(1000):
            yield i, (i,)

    def wait_done(handles: list[int]) -> list[int]:
        assert len(handles) <= 3  # never more than the limit in flight
        return handles[:1]

    drive(units(), 3, lambda args: submitted.append(args[0]) or args[0], wait_done, lambda h: h * 10,
          lambda: len(taken) >= 5, lambda: stop_asked.append(True), lambda tag, v: taken.append(v))  # fmt: skip
    assert submitted == list(range(7))  # 5 taken before the stop + 2 in flight, none queued after it
    assert taken == [10 * i for i in range(7)] and stop_asked == [True]


def test_a_failing_unit_stops_the_others_and_is_raised():
    stop_asked: list[bool] = []

    def result(h: int) -> int:
        if h == 2:
            raise RuntimeError("unit 2 failed")
        return h

    with pytest.raises(RuntimeError, match="unit 2 failed"):
        drive(((i, (i,)) for i in range(10)), 2, lambda a: a[0], lambda hs: hs[:1], result, lambda: False,
              lambda: stop_asked.append(True), lambda tag, v: None)  # fmt: skip
    assert stop_asked == [True]


def test_ctrl_c_while_a_command_checks_its_input_is_one_line_and_exit_130(tmp_path, monkeypatch):
    """Before the run takes charge of Ctrl-C (here: while the lineup is checked), Typer would exit 130 silently."""
    from nines_sim.strategy import registry

    def ctrl_c(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(registry, "make_lineup", ctrl_c)  # the command imports it when it runs
    r = invoke("tournament", "-n", "100", "--out", str(tmp_path / "run"))
    assert r.exit_code == 130
    assert r.output.strip() == "Error: interrupted (Ctrl-C) while starting: no match was played"
    assert not (tmp_path / "run").exists()


def test_ctrl_c_while_the_cli_loads_is_one_line_and_exit_130(monkeypatch, capsys):
    import nines_sim.cli
    from nines_sim.console import main

    def ctrl_c() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(nines_sim.cli, "main", ctrl_c)
    previous = signal.getsignal(signal.SIGINT)
    try:
        with pytest.raises(SystemExit) as stop:
            main()
    finally:  # main ignores SIGINT once the command is over (the process then ends): not this test process
        signal.signal(signal.SIGINT, previous)
    assert stop.value.code == 130
    assert capsys.readouterr().err == "Error: interrupted (Ctrl-C) while starting: no match was played\n"


def test_an_error_line_after_a_progress_bar_caught_half_built(capsys):
    """A Ctrl-C inside tqdm's constructor leaves a registered bar without ``disable``: the line still prints."""
    from tqdm import tqdm

    from nines_sim.cli.app import echo_error

    bar = tqdm.__new__(tqdm)  # registered in tqdm._instances, __init__ never ran
    try:
        assert bar in tqdm._instances and not hasattr(bar, "disable")
        echo_error("interrupted")
    finally:
        tqdm._instances.discard(bar)
    assert capsys.readouterr().err == "Error: interrupted\n"
