"""nines compare-rules: common random numbers, sweeps, outputs and errors."""

from __future__ import annotations

import json
import shlex

import pandas as pd
import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.engine.batch import CompiledEngine
from nines_sim.experiments.compare_rules.rule_sets import deals_coupled, rule_sets_from
from nines_sim.experiments.tournament.plan import DEFAULT_LINEUP
from nines_sim.game.rules import make_rules
from nines_sim.strategy.registry import make_lineup

runner = CliRunner()
LINEUP = ["random", "hold-nines", "dump-faces", "suit-majority"]


def first_deals(preset: str, n: int = 30) -> list[tuple]:
    e = CompiledEngine(make_rules(preset), make_lineup(LINEUP), 17, 0, n, trace=True)
    e.run()
    return [e.trace[m][0] for m in range(n)]


def test_common_random_numbers_classic_and_hard_nines_deal_identical_first_hands():
    a, b = first_deals("classic"), first_deals("hard-nines")
    assert a == b and all(ev[0] == "deal" for ev in a)
    assert deals_coupled(make_rules("classic"), make_rules("hard-nines"))


def test_a_double_deck_breaks_the_coupling():
    assert first_deals("classic") != first_deals("double-nines")
    assert not deals_coupled(make_rules("classic"), make_rules("double-nines"))
    assert not deals_coupled(make_rules("classic"), make_rules("classic", hand_sizes=(7, 7, 6, 5, 5)))


def run(*args: str, tmp_path, name: str = "c"):
    return runner.invoke(app, ["compare-rules", *args, "--out", str(tmp_path / name), "--quiet"])


@pytest.fixture(scope="module")
def pair_runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("cmp")
    out = {}
    for w in ("1", "2"):
        # the second run's charts are never read (its CSVs are compared, its report redrawn by `nines report`)
        charts = ["--no-charts"] if w == "2" else []
        r = runner.invoke(app, ["compare-rules", "--rules", "classic", "--rules", "hard-nines", "-n", "2000",
                                "--workers", w, "--out", str(base / w), "--quiet", *charts])  # fmt: skip
        assert r.exit_code == 0, r.output
        out[w] = base / w
    return out


def test_comparison_csv_and_manifest(pair_runs):
    d = pair_runs["1"]
    df = pd.read_csv(d / "comparison.csv")
    seats = len(DEFAULT_LINEUP)  # no lineup given: the default one
    assert df["rule_set"].tolist() == ["classic"] * seats + ["hard-nines"] * seats
    assert (df["matches"] == 2000).all()
    ref = df[df.rule_set == "classic"]
    assert (ref["delta_win_rate"] == 0).all() and not ref["significant"].any()
    hn = df[df.rule_set == "hard-nines"]
    assert ((hn["delta_low"] <= hn["delta_win_rate"]) & (hn["delta_win_rate"] <= hn["delta_high"])).all()
    # shifts sum to zero over the seats: one win per match under each rule set
    assert abs(hn["delta_win_rate"].sum()) < 1e-9
    m = json.loads((d / "manifest.json").read_text())
    assert [r["label"] for r in m["rule_sets"]] == ["classic", "hard-nines"]
    assert m["rule_sets"][1]["rules"]["nine_penalty"] == 25 and m["rule_sets"][1]["deals_coupled"]
    assert (d / "report.md").exists() and (d / "win_rates_by_rule_set.png").exists()


def test_comparison_is_identical_for_one_and_two_workers(pair_runs):
    for name in ("comparison.csv", "score_distribution.csv"):
        assert (pair_runs["1"] / name).read_bytes() == (pair_runs["2"] / name).read_bytes()


def test_paired_interval_is_narrower_than_independent_runs(pair_runs):
    df = pd.read_csv(pair_runs["1"] / "comparison.csv")
    hn = df[df.rule_set == "hard-nines"]
    paired = (hn["delta_high"] - hn["delta_low"]) / 2
    p = hn["win_rate"]
    independent = 1.96 * ((2 * p * (1 - p) / hn["matches"]) ** 0.5)
    assert (paired < independent).all()


def test_sweep_runs_one_rule_set_per_value(tmp_path):
    r = run("--sweep", "nine_penalty=10,20,30", "-n", "600", "--workers", "1", tmp_path=tmp_path)
    assert r.exit_code == 0, r.output
    df = pd.read_csv(tmp_path / "c" / "comparison.csv")
    assert df["rule_set"].unique().tolist() == ["nine_penalty=10", "nine_penalty=20", "nine_penalty=30"]
    assert sorted(df["sweep_value"].unique().tolist()) == [10, 20, 30]
    m = json.loads((tmp_path / "c" / "manifest.json").read_text())
    assert m["sweep"]["option"] == "nine_penalty" and m["sweep"]["values"] == [10, 20, 30]
    assert (tmp_path / "c" / "sweep.png").exists()


def test_sweep_of_the_target(tmp_path):
    r = run("random", "dump-faces", "--sweep", "target=50,100", "-n", "300", "--workers", "1", "--no-charts",
            tmp_path=tmp_path)  # fmt: skip
    assert r.exit_code == 0, r.output
    df = pd.read_csv(tmp_path / "c" / "comparison.csv")
    short, long = (df[df.rule_set == f"target={t}"]["mean_hands_per_match"].iloc[0] for t in (50, 100))
    assert short < long


@pytest.mark.parametrize(
    "args,message",
    [
        (["--rules", "classic"], "at least two rule sets"),
        (["--rules", "classic", "--rules", "nosuch"], "unknown preset 'nosuch'"),
        (["--rules", "classic", "--rules", "classic:colour=red"], "unknown rules option 'colour'"),
        (["--rules", "classic", "--rules", "classic:nine_penalty=abc"], "takes a whole number"),
        (["--rules", "classic", "--rules", "classic:nine_penalty=-5"], "nine_penalty must be 0 to 1000"),
        (["--rules", "classic", "--rules", "classic:players=9"], "players must be 2 to 6"),
        (["--sweep", "colour=1,2"], "unknown rules option 'colour'"),
        (["--sweep", "target=100"], "at least two values"),
        (["--sweep", "target"], "option=v1,v2"),
        (["--sweep", "target=0,100"], "target must be > 0 and at most"),
        (["--rules", "a", "--rules", "b", "--sweep", "target=50,100"], "at most one --rules"),
        (["nosuch", "random", "--rules", "classic", "--rules", "hard-nines"], "unknown strategy 'nosuch'"),
    ],
)
def test_errors_exit_2_with_one_line(args, message, tmp_path):
    r = run(*args, tmp_path=tmp_path)
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output


def test_every_preset_can_be_compared():
    from nines_sim.game.rules import PRESETS

    sets, _ = rule_sets_from(list(PRESETS), None, 4)
    assert [s.label for s in sets] == list(PRESETS)


def test_every_preset_runs_in_one_comparison(tmp_path):
    from nines_sim.game.rules import PRESETS

    args = [x for p in PRESETS for x in ("--rules", p)]
    r = run(*args, "-n", "60", "--workers", "1", "--no-charts", tmp_path=tmp_path)
    assert r.exit_code == 0, r.output
    df = pd.read_csv(tmp_path / "c" / "comparison.csv")
    assert df["rule_set"].unique().tolist() == list(PRESETS)
    m = json.loads((tmp_path / "c" / "manifest.json").read_text())
    coupled = {r["label"]: r["deals_coupled"] for r in m["rule_sets"]}
    assert not coupled["double-nines"] and coupled["hard-nines"] and coupled["skip-reverse"]


def test_report_redraws_a_comparison_folder(pair_runs):
    d = pair_runs["2"]
    (d / "report.md").unlink()
    r = runner.invoke(app, ["report", str(d), "--no-charts"])  # the report text is read, no chart
    assert r.exit_code == 0, r.output
    assert "hard-nines" in (d / "report.md").read_text()


def test_ctrl_c_keeps_whole_paired_chunks_and_marks_the_report_partial(tmp_path):
    from tests.interrupt import ctrl_c_once_kept

    d = tmp_path / "cc"
    # 2,000,000 matches in chunks of 1,000: Ctrl-C comes once the bar shows a kept chunk, with nearly all
    # the work still queued, which a stop must not wait for
    args = ["compare-rules", "--rules", "classic", "--rules", "hard-nines", "-n", "2000000", "--chunk-size", "1000",
            "--workers", "2", "--out", str(d), "--no-charts"]  # fmt: skip
    rc, out, err = ctrl_c_once_kept(args)
    assert rc == 130, out + err[-2000:]
    assert "Stopping (Ctrl-C)" in err and "Traceback" not in out + err
    m = json.loads((d / "manifest.json").read_text())
    kept = m["kept_ranges"]
    assert m["partial"] and 0 < m["matches_played"] < 2_000_000
    assert all(a % 1000 == 0 and b % 1000 == 0 for a, b in kept)  # whole chunks only
    assert sum(b - a for a, b in kept) == m["matches_played"]
    df = pd.read_csv(d / "comparison.csv")
    assert (df["matches"] == m["matches_played"]).all()
    report = (d / "report.md").read_text()
    assert "PARTIAL" in report and m["kept_command"] in report
    # the kept_command plays exactly the kept chunks again, to the same bytes (here on one worker)
    args = shlex.split(m["kept_command"])
    r = runner.invoke(app, [*args[1:], "--workers", "1", "--out", str(tmp_path / "again"), "--quiet", "--no-charts"])
    assert r.exit_code == 0, r.output
    for name in ("comparison.csv", "score_distribution.csv"):
        assert (d / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name


@pytest.mark.parametrize(
    "args,message",
    [
        (["--rules", "classic", "--rules", "classic:players=2"], "the lineup decides the table size"),
        (["--sweep", "players=2,4"], "players cannot be swept"),
        (["--rules", "classic", "--rules", "classic"], "given twice"),
        (["--sweep", "nine_penalty=15,15"], "swept twice"),
        (["--rules", "classic", "--rules", "classic:nine_penalty=20,nine_penalty=30"], "set twice"),
    ],
)
def test_rule_sets_that_cannot_be_compared(args, message, tmp_path):
    r = run(*args, tmp_path=tmp_path)
    assert r.exit_code == 2 and message in r.output, r.output


def test_hand_sizes_of_other_tables_keep_the_coupling():
    a, b = make_rules("classic"), make_rules("classic", hand_sizes=(7, 7, 7, 5, 6))
    assert deals_coupled(a, b)  # 4 players: only the sizes for 2-4 players can be dealt


def test_the_work_module_holds_the_work_on_the_driver_and_the_tables_their_own_module():
    """compare-rules' home as the tournament's: set-up, work, tables apart (issue 39); the names that left
    ``work`` still import from it, with a warning naming their module, until 0.3.0."""
    import ast
    import importlib
    import warnings
    from pathlib import Path

    from nines_sim.experiments.compare_rules import tables, work

    tree = ast.parse(Path(work.__file__).read_text(encoding="utf-8"))
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    assert defined == {"__getattr__", "CompareChunk", "compare_range", "paired_counts", "CompareOutcome",
                       "compare_units", "CompareCollector", "ComparisonWork", "run_comparison"}  # fmt: skip
    vars(work).pop("terminal_table", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert importlib.import_module("nines_sim.experiments.compare_rules.work").terminal_table is (
            tables.terminal_table
        )
    assert "moved to nines_sim.experiments.compare_rules.tables.terminal_table" in str(caught[0].message)


def test_one_match_is_said_in_the_singular(tmp_path):
    """Before: '1 matches x 2 rule sets' (and '1 matches in' from a tournament)."""
    compare = runner.invoke(app, ["compare-rules", "random", "random", "--rules", "classic", "--rules", "hard-nines",
                                  "-n", "1", "-q", "--no-charts", "--out", str(tmp_path / "c")])  # fmt: skip
    tournament = runner.invoke(app, ["tournament", "random", "random", "-n", "1", "-q", "--no-charts",
                                     "--out", str(tmp_path / "t")])  # fmt: skip
    assert compare.exit_code == 0 and tournament.exit_code == 0, (compare.output, tournament.output)
    assert "1 match x 2 rule sets" in compare.output and "1 match in" in tournament.output


def test_a_misspelt_preset_alone_is_told_as_unknown_not_as_too_few_rule_sets():
    from typer.testing import CliRunner

    from nines_sim.cli import app

    r = CliRunner().invoke(app, ["compare-rules", "--rules", "hardnine"])
    assert r.exit_code == 2 and "unknown preset 'hardnine'" in r.output, r.output
