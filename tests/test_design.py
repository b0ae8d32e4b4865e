"""The rules lab: game-design measures against values known by construction, and ``nines tune-rules``."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.game.rules import make_rules, parse_rule_set
from nines_sim.runs.design import (
    INDEX,
    DesignSet,
    DesignSetup,
    _tension,
    design_frame,
    estimate,
    run_design,
)

runner = CliRunner()
#: Seats are judged on identical players; random plays fastest.
SAME_RANDOM = DesignSetup("random", "random", "random")


def row(frame, rule_set: str, measure: str):
    got = frame[(frame["rule_set"] == rule_set) & (frame["measure"] == measure)]
    assert len(got) == 1, (rule_set, measure)
    return got.iloc[0]


def test_tension_counts_a_known_match():
    # 2 seats, hands (0, 5), (10, 0), (0, 0), (0, 5): leaders 0, 1, 1, then a tie; seat 1 wins the match.
    row_of = np.zeros(4, dtype=np.int64)
    penalty = np.array([[0, 5], [10, 0], [0, 0], [0, 5]], dtype=np.int64)
    share60 = np.array([[0, 60]], dtype=np.int64)
    changes, num, den = _tension(row_of, penalty, share60, 5)
    assert changes.tolist() == [1]
    assert den[0].tolist() == [60, 60, 60, 0, 0]  # hand 4 leaves a tie: no sole leader
    assert num[0].tolist() == [60, 0, 0, 0, 0]  # the leader after hand 1 lost; after hands 2, 3 it won


def test_identical_strategies_are_fair_to_every_seat_within_their_standard_error():
    out = run_design([DesignSet("classic", make_rules())], SAME_RANDOM, 3000, seed=5, kinds=("same",))
    frame = design_frame(out)
    z = stats.t.ppf(0.975, 2999)
    for k in range(4):
        r = row(frame, "classic", f"seat_{k}")  # win rate above the fair share 1/4
        se = (r["high"] - r["low"]) / (2 * z)
        assert abs(r["value"]) < 4 * se, (k, r["value"], se)
    u = row(frame, "classic", "seat_unfairness")  # the largest of those deviations
    assert u["value"] == pytest.approx(max(abs(row(frame, "classic", f"seat_{k}")["value"]) for k in range(4)))
    # the seats' win rates sum to 1: one winner per match (shares when tied)
    total = sum(row(frame, "classic", f"seat_{k}")["value"] + 0.25 for k in range(4))
    assert total == pytest.approx(1.0)


def test_a_rule_set_against_itself_changes_nothing():
    a, b = make_rules(), parse_rule_set("classic:turn_cap=10000,target=100")
    out = run_design([DesignSet("a", a), DesignSet("b", b)], SAME_RANDOM, 400, seed=2)
    frame = design_frame(out)
    deltas = frame[frame["rule_set"] == "b"].dropna(subset=["delta"])
    assert len(deltas) >= 20
    assert (deltas["delta"] == 0).all() and not deltas["significant"].any()
    assert (deltas["p_value"] == 1).all()


def test_fixed_hands_1_plays_exactly_one_hand_per_match():
    out = run_design([DesignSet("one", make_rules(fixed_hands=1))], SAME_RANDOM, 300, seed=3, kinds=("same",))
    e = estimate(out.sums, 0, "hands")
    assert (e.value, e.low, e.high) == (1.0, 1.0, 1.0)
    assert out.sums.hists["hands"][0].tolist() == [0, 300]
    assert estimate(out.sums, 0, "lead_changes").value == 0.0  # one hand: no lead to change


def test_chunks_merge_to_the_same_sums():
    sets = [DesignSet("classic", make_rules()), DesignSet("hard", make_rules("hard-nines"))]
    whole = run_design(sets, SAME_RANDOM, 300, seed=4).sums
    cut = run_design(sets, SAME_RANDOM, 300, seed=4, chunk_size=70).sums
    assert np.array_equal(whole.s, cut.s) and np.array_equal(whole.x, cut.x)
    assert np.array_equal(whole.matches, cut.matches)
    assert all(np.array_equal(whole.hists[k], cut.hists[k]) for k in whole.hists)


def test_skill_of_holding_nines_falls_when_a_nine_left_in_hand_costs_more():
    # never plays a 9 unless nothing else is legal, against one that plays a 9 as soon as it may
    setup = DesignSetup("expert:shed_nine_at=0,switch_against=0", "expert:shed_nine_at=8")
    sets = [DesignSet("free", make_rules(nine_penalty=0)), DesignSet("dear", make_rules(nine_penalty=50))]
    frame = design_frame(run_design(sets, setup, 300, seed=1, kinds=("heads-up",)))
    free, dear = row(frame, "free", "skill_heads_up"), row(frame, "dear", "skill_heads_up")
    assert free["value"] > dear["value"]
    assert dear["delta_high"] < 0 and dear["significant"], dear.to_dict()
    assert dear["delta"] == pytest.approx(dear["value"] - free["value"])


# ---------------------------------------------------------------- the commands


def test_compare_rules_design_writes_the_measures_and_a_report_section(tmp_path):
    out = tmp_path / "c"
    args = ["compare-rules", "random", "random", "--rules", "classic", "--rules", "fixed-hands-5", "-n", "200",
            "--design", "200", "--skilled", "random", "--out", str(out), "--quiet"]  # fmt: skip
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert {"design.csv", "design_distribution.csv"} <= set(manifest["sha256"])
    assert "--design 200" in manifest["command"]
    report = (out / "report.md").read_text()
    assert "## Game design" in report and "Fewest hands per match: fixed-hands-5" in report
    assert (out / "design.png").is_file()
    r = runner.invoke(app, ["report", str(out)])
    assert r.exit_code == 0, r.output
    assert (out / "report.md").read_text().count("## Game design") == 1


def test_tune_rules_on_an_option_that_changes_nothing_finds_nothing_after_validation(tmp_path):
    out = tmp_path / "t"
    # turn_cap far above any hand's turns: every trial plays the same games as the base (turn_cap 10000)
    args = ["tune-rules", "--space", "turn_cap=5000..9000", "--maximize", "skill", "--skilled", "random", "--trials",
            "3", "-n", "100", "--validate", "300", "--out", str(out), "--quiet", "--workers", "1"]  # fmt: skip
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    val = __import__("pandas").read_csv(out / "validation.csv")
    tested = val[val["rule_set"] != "base"]
    assert len(tested) and (tested["delta"] == 0).all() and not tested["significant"].any()
    best = json.loads((out / "best-rules.json").read_text())
    assert best["rule_set"].startswith("classic:turn_cap=")
    for name in ("trials.csv", "front.csv", "report.md", "front.png", "options.png"):
        assert (out / name).is_file(), name
    written = (out / "report.md").read_text()
    assert "no significant change" in written and "a significant change" not in written
    r = runner.invoke(app, ["report", str(out)])  # from the folder's files alone: the same report
    assert r.exit_code == 0, r.output
    assert (out / "report.md").read_text() == written
    # the best rules play anywhere a rule set is named
    best_file = f"@{out / 'best-rules.json'}"
    r = runner.invoke(app, ["compare-rules", *["random"] * 4, "--rules", "classic", "--rules", best_file, "-n",
                            "50", "--out", str(tmp_path / "c"), "--quiet"])  # fmt: skip  # the 4 seats searched at
    assert r.exit_code == 0, r.output
    # the same command resumes: the study already holds its trials, none is run again
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "3 trials (0 run now" in r.output


def test_a_stopped_trial_is_failed_and_played_again_on_resumption(tmp_path, monkeypatch):
    from nines_sim.runs import tune_rules as tr
    from nines_sim.runs.tune import STOPPED_BY_CTRL_C, TuneInterrupted

    objectives, constraints = tr.parse_goals(["skill"], [], [], [])
    setup = tr.RulesSetup(make_rules(), "classic", 50, 0, tr.parse_space(["nine_penalty=0..40"]), objectives,
                          constraints, DesignSetup("random", "random"))  # fmt: skip
    study = tr.open_rules_study(f"sqlite:///{tmp_path / 's.db'}", "s", setup)
    real = tr.measure_trial

    def stop(*a, **k):
        raise TuneInterrupted("interrupted")

    monkeypatch.setattr(tr, "measure_trial", stop)
    with pytest.raises(TuneInterrupted):
        tr.search(study, setup, 2, 1, 1024)
    assert study.trials[0].state.name == "FAIL" and study.trials[0].user_attrs["note"] == STOPPED_BY_CTRL_C
    monkeypatch.setattr(tr, "measure_trial", real)
    tr.search(study, setup, 2, 1, 1024)
    assert study.trials[1].params == study.trials[0].params  # the stopped baseline is played first
    assert [t.state.name for t in study.trials] == ["FAIL", "COMPLETE", "COMPLETE"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--space", "nine_penalty=0..50"], "give an objective"),
        (["--space", "nine_penalty=0..50", "--maximize", "fun"], "unknown measure 'fun'"),
        (["--maximize", "skill"], "name the options to search"),
        (["--space", "colour=1..2", "--maximize", "skill"], "cannot search 'colour'"),
        (["--space", "nine_penalty=50..0", "--maximize", "skill"], "LOW < HIGH"),
        (["--space", "target", "--maximize", "skill"], "needs values"),
        (["--space", "nine_penalty=0..50", "--maximize", "skill", "--require", "hands=8"], "--require is written"),
        (["--space", "nine_penalty=0..50", "--target", "hands"], "--target is written"),
        (["--space", "nine_penalty=0..50", "--maximize", "skill", "--skilled", "nosuch"], "unknown strategy"),
        (["--space", "nine_penalty=0..50", "--maximize", "skill", "--rules", "@nofile.json"], "cannot read"),
        (["--space", "nine_penalty=0..50", "--maximize", "skill", "--storage", "postgres://x"], "--storage must be"),
        (["--space", "nine_penalty=0..50", "--maximize", "skill", "--minimize", "skill"], "two objectives"),
        (["--space", "nine_penalty=0..5000", "--maximize", "skill"], "nine_penalty must be 0 to 1000"),
    ],
)
def test_tune_rules_usage_errors_are_one_line_exit_2_and_write_nothing(args, message, tmp_path):
    out = tmp_path / "t"
    r = runner.invoke(app, ["tune-rules", *args, "--out", str(out)])
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1
    assert not out.exists()


def test_compare_rules_design_with_an_unknown_strategy_is_a_usage_error(tmp_path):
    r = runner.invoke(app, ["compare-rules", "--rules", "classic", "--rules", "hard-nines", "--design", "10",
                            "--weak", "nosuch", "--out", str(tmp_path / "c")])  # fmt: skip
    assert r.exit_code == 2 and "unknown strategy 'nosuch'" in r.output
    assert not (tmp_path / "c").exists()


def test_a_rule_set_file_names_its_rule_set(tmp_path):
    f = tmp_path / "r.json"
    f.write_text(json.dumps({"rule_set": "hard-nines:target=80", "note": "anything"}))
    r = parse_rule_set(f"@{f}")
    assert (r.nine_penalty, r.target) == (25, 80)
    f.write_text("[1]")
    with pytest.raises(ValueError, match='needs a "rule_set"'):
        parse_rule_set(f"@{f}")
    assert math.isfinite(INDEX["hands"])


def test_a_tournament_report_gets_its_rule_sets_design_measures(tmp_path):
    out = tmp_path / "t"
    args = ["tournament", "random", "random", "random", "--rules", "hard-nines", "-n", "100", "--design", "150",
            "--skilled", "random", "--out", str(out), "--quiet"]  # fmt: skip
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    frame = __import__("pandas").read_csv(out / "design.csv")
    assert set(frame["rule_set"]) == {"hard-nines"} and frame["delta"].isna().all()
    hands = row(frame, "hard-nines", "hands")
    assert hands["matches"] == 150 and hands["low"] <= hands["value"] <= hands["high"]
    assert "## Game design" in (out / "report.md").read_text()
    assert "design.csv" in json.loads((out / "manifest.json").read_text())["sha256"]


def test_the_library_calls_write_the_design_measures_the_commands_write(tmp_path):
    from nines_sim.experiments import run_rule_comparison, run_tournament

    lib = run_rule_comparison(["random", "random"], rules=["classic", "fixed-hands-5"], matches=60, seed=3,
                              out=tmp_path / "lib", workers=1, charts=False, design=80, skilled="random")  # fmt: skip
    args = ["compare-rules", "random", "random", "--rules", "classic", "--rules", "fixed-hands-5", "-n", "60",
            "--seed", "3", "--design", "80", "--skilled", "random", "--workers", "1", "--no-charts", "--quiet",
            "--out", str(tmp_path / "cli")]  # fmt: skip
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    for name in ("design.csv", "design_distribution.csv"):
        assert (lib / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    lib_manifest = json.loads((lib / "manifest.json").read_text())
    assert lib_manifest["command"] == json.loads((tmp_path / "cli" / "manifest.json").read_text())["command"]
    assert lib_manifest["command"].endswith("--design 80 --skilled random --weak random")
    folder = run_tournament(["random", "random"], matches=50, out=tmp_path / "t", workers=1, charts=False,
                            design=70, skilled="random")  # fmt: skip
    frame = __import__("pandas").read_csv(folder / "design.csv")
    assert row(frame, "classic", "hands")["matches"] == 70
    assert "--design 70" in json.loads((folder / "manifest.json").read_text())["command"]


def test_ctrl_c_in_the_design_part_keeps_the_comparison_writes_no_measures_and_exits_130(tmp_path, monkeypatch):
    import dataclasses

    import nines_sim.runs.design as design

    real = design.run_design
    monkeypatch.setattr(design, "run_design", lambda *a, **k: dataclasses.replace(real(*a, **k), partial=True))
    out = tmp_path / "c"
    args = ["compare-rules", "random", "random", "--rules", "classic", "--rules", "hard-nines", "-n", "50",
            "--design", "40", "--workers", "1", "--no-charts", "--quiet", "--out", str(out)]  # fmt: skip
    r = runner.invoke(app, args)
    assert r.exit_code == 130, r.output
    assert "Interrupted: the design measures were not finished and are not written." in r.output
    assert (out / "comparison.csv").is_file() and not (out / "design.csv").exists()
    manifest = json.loads((out / "manifest.json").read_text())
    assert "design.csv" not in manifest["sha256"] and "--design 40" in manifest["command"]
