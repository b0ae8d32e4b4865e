"""Charts and report of a rule comparison, drawn from a hand-made run folder (no simulation)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from nines_sim.experiments.compare_rules import report as compare_report  # noqa: E402
from nines_sim.game.rules import make_rules  # noqa: E402
from nines_sim.reporting import charts, folders  # noqa: E402
from nines_sim.results.stats import holm, wilson_array  # noqa: E402
from tests.run_fixtures import Drawn, draw_once  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
Z95 = 1.959963984540054

LINEUP = ["random", "hold-nines", "dump-faces", "random"]
#: Win rate of each seat under the first rule set; a shift adds to it.
BASE_RATES = np.array([0.22, 0.30, 0.26, 0.22])
REQUESTED = 4000

#: classic vs hard-nines: seats 1 and 2 shift significantly, seats 0 and 3 do not.
TWO_SET_SHIFTS = {1: [(0.0012, 0.004), (-0.031, 0.005), (0.0231, 0.002), (0.0057, 0.004)]}
SWEEP_VALUES = [5, 10, 15, 20, 25]
#: nine_penalty sweep: hold-nines loses ground as the penalty grows, dump-faces gains.
SWEEP_SHIFTS = {
    k: [(0.0005 * k, 0.003), (-0.004 * k, 0.003), (0.003 * k, 0.003), (0.0005 * k, 0.003)]
    for k in range(1, len(SWEEP_VALUES))
}


# --------------------------------------------------------------------------- fixture run folders


def _rules_entry(label: str, preset: str, overrides: dict, reference: dict | None) -> dict:
    rules = make_rules(preset, **overrides).options()
    rules["hand_sizes"] = list(rules["hand_sizes"])
    coupled = reference is None or all(rules[k] == reference[k] for k in ("decks", "players", "hand_sizes"))
    return {"label": label, "preset": preset, "rules": rules, "deals_coupled": coupled}


def make_comparison(
    folder: Path,
    rule_sets: list[tuple[str, str, dict]],
    shifts: dict[int, list[tuple[float, float]]],
    sweep: dict | None = None,
    partial: bool = False,
) -> Path:
    """Write a comparison run folder as ``nines compare-rules`` would.

    ``rule_sets``: (label, preset, overrides) each, the first the reference.
    ``shifts``: rule set index -> (delta, se) per seat; missing rule sets do not shift.
    """
    rng = np.random.default_rng(11)
    folder.mkdir(parents=True, exist_ok=True)
    played = 2400 if partial else REQUESTED
    rows = []
    for r, (label, _, _) in enumerate(rule_sets):
        for p, name in enumerate(LINEUP):
            d, se = shifts.get(r, [(0.0, 0.003)] * len(LINEUP))[p] if r else (0.0, 0.0)
            rate = BASE_RATES[p] + d
            lo, hi = wilson_array(np.array([rate * played]), np.array([played]))
            rows.append(
                {
                    "rule_set": label,
                    "sweep_value": SWEEP_VALUES[r] if sweep else None,
                    "position": p,
                    "strategy": name,
                    "matches": played,
                    "win_rate": rate,
                    "win_rate_low": lo[0],
                    "win_rate_high": hi[0],
                    "mean_total": 80 + 5 * r + p,
                    "mean_hands_per_match": 6.5 + 0.1 * r,
                    "mean_turns_per_hand": 23.4,
                    "delta_win_rate": d,
                    "delta_low": d - Z95 * se,
                    "delta_high": d + Z95 * se,
                    "test": "exact McNemar" if r else "reference",
                    "delta_p_value": math.erfc(abs(d / se) / math.sqrt(2)) if r else math.nan,
                }
            )
    table = pd.DataFrame(rows)
    tested = table["delta_p_value"].notna()
    table["delta_p_holm"] = math.nan
    table.loc[tested, "delta_p_holm"] = holm(table.loc[tested, "delta_p_value"].tolist())
    table["significant"] = tested & (table["delta_p_holm"] < 0.05)
    table.to_csv(folder / "comparison.csv", index=False)

    scores = []
    for r, (label, _, _) in enumerate(rule_sets):
        for name in dict.fromkeys(LINEUP):
            for points in range(60 + 5 * r, 140 + 5 * r, 2):
                scores.append((label, name, "final_total", points, int(rng.integers(1, 30))))
            for points in range(0, 60):
                scores.append((label, name, "hand_penalty", points, 500 if points == 0 else int(rng.integers(1, 40))))
    pd.DataFrame(scores, columns=["rule_set", "strategy", "kind", "points", "count"]).to_csv(
        folder / "score_distribution.csv", index=False
    )

    entries = []
    for label, preset, overrides in rule_sets:
        entries.append(_rules_entry(label, preset, overrides, entries[0]["rules"] if entries else None))
    command = f"nines compare-rules {' '.join(LINEUP)} --players 4 -n {REQUESTED} --seed 7"
    command += f" --sweep nine_penalty={','.join(map(str, SWEEP_VALUES))}" if sweep else ""
    command += "".join(f" --rules {label}" for label, _, _ in rule_sets) if not sweep else ""
    manifest = {
        "command": command,
        "version": "0.1.0",
        "seed": 7,
        "rule_sets": entries,
        "sweep": sweep,
        "lineup": LINEUP,
        "players": 4,
        "matches": REQUESTED,
        "matches_played": played,
        "workers": 8,
        "batch_size": 32768,
        "wall_seconds": 125.0,
        "matches_per_s": played * len(rule_sets) / 125.0,
        "partial": partial,
        "python": "3.11.2",
        "numpy": np.__version__,
        "started": "2025-01-01T12:00:00+00:00",
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return folder


TWO_SETS = [("classic", "classic", {}), ("hard-nines", "hard-nines", {})]
SWEEP_SETS = [(f"nine_penalty={v}", "classic", {"nine_penalty": v}) for v in SWEEP_VALUES]
SWEEP = {"option": "nine_penalty", "values": SWEEP_VALUES, "base": "classic"}


@pytest.fixture
def two_sets(tmp_path: Path) -> Path:
    return make_comparison(tmp_path / "two", TWO_SETS, TWO_SET_SHIFTS)


@pytest.fixture
def sweep_run(tmp_path: Path) -> Path:
    return make_comparison(tmp_path / "sweep", SWEEP_SETS, SWEEP_SHIFTS, sweep=SWEEP)


@pytest.fixture(scope="module")
def drawn_two_sets(tmp_path_factory: pytest.TempPathFactory) -> Drawn:
    """A two rule set folder with its charts drawn once; the tests that change the folder change a copy."""
    return draw_once(charts.save_all_comparison, make_comparison(tmp_path_factory.mktemp("drawn") / "two", TWO_SETS,
                                                                 TWO_SET_SHIFTS))  # fmt: skip


@pytest.fixture(scope="module")
def drawn_sweep(tmp_path_factory: pytest.TempPathFactory) -> Drawn:
    """A sweep folder with its charts drawn once for the three tests that read them, not three times; the tests
    that change it change a copy."""
    folder = make_comparison(tmp_path_factory.mktemp("drawn") / "sweep", SWEEP_SETS, SWEEP_SHIFTS, sweep=SWEEP)
    return draw_once(charts.save_all_comparison, folder)


def _assert_png(path: Path) -> None:
    assert path.is_file(), path
    assert path.read_bytes()[:8] == PNG_MAGIC, path


# --------------------------------------------------------------------------- charts


def test_save_all_two_rule_sets_writes_no_sweep_chart(drawn_two_sets) -> None:
    two_sets, paths = drawn_two_sets.folder, drawn_two_sets.paths
    assert [p.name for p in paths] == [
        "win_rates_by_rule_set.png",
        "shifts_by_rule_set.png",
        "final_totals_by_rule_set.png",
    ]
    for p in paths:
        assert p.parent == two_sets
        _assert_png(p)
    assert not (two_sets / "sweep.png").exists()
    assert drawn_two_sets.open_after == drawn_two_sets.open_before, "save_all_comparison must close its figures"


def test_save_all_sweep_adds_sweep_chart(drawn_sweep) -> None:
    paths = drawn_sweep.paths
    assert [p.name for p in paths] == list(charts.COMPARISON_CHART_FILES)
    for p in paths:
        _assert_png(p)


def test_grouped_win_rate_data(two_sets: Path) -> None:
    run = folders.load_comparison(two_sets)
    assert run.rule_sets == ["classic", "hard-nines"] and run.reference == "classic"
    g = charts.win_rates_by_rule_set_data(run.comparison, run.rule_sets, run.players)
    assert g.seat_labels == ["seat 0\nrandom", "seat 1\nhold-nines", "seat 2\ndump-faces", "seat 3\nrandom"]
    assert g.rate.shape == (2, 4)
    np.testing.assert_allclose(g.rate[0], BASE_RATES)
    assert g.rate[1, 2] == pytest.approx(0.26 + 0.0231)
    assert (g.low < g.rate).all() and (g.rate < g.high).all()
    assert g.reference == pytest.approx(0.25)


def test_shift_data_charts_the_paired_shifts_and_their_marks(two_sets: Path) -> None:
    run = folders.load_comparison(two_sets)
    d = charts.shift_data(run.comparison, run.rule_sets)
    assert d.rule_sets == ["hard-nines"] and d.reference == "classic" and d.shift.shape == (1, 4)
    # In percentage points, as comparison.csv gives them: the shifts of TWO_SET_SHIFTS, not the raw rates.
    np.testing.assert_allclose(d.shift[0], [100 * est for est, _ in TWO_SET_SHIFTS[1]])
    assert (d.low < d.shift).all() and (d.shift < d.high).all()
    assert d.significant[0].tolist() == run.comparison[run.comparison.rule_set == "hard-nines"]["significant"].tolist()
    assert d.significant[0].tolist() == [False, True, True, False]
    fig = charts.plot_shifts(d)
    assert "pp" in fig.axes[0].get_ylabel()
    plt.close(fig)


def test_final_totals_merge_strategies_per_rule_set(two_sets: Path) -> None:
    run = folders.load_comparison(two_sets)
    h = charts.final_totals_by_rule_set_data(run.score_distribution, ["hard-nines", "classic"])
    assert list(h.shares) == ["hard-nines", "classic"]  # the order asked for, one curve per rule set
    scores = run.score_distribution
    for label, share in h.shares.items():
        assert share.sum() == pytest.approx(1.0)
        assert share.shape == (len(h.edges) - 1,)
        expected = scores[(scores.rule_set == label) & (scores.kind == "final_total")]["count"].sum()
        assert h.observations[label] == expected  # every strategy's rows counted


def test_sweep_data_numeric_and_categorical(sweep_run: Path) -> None:
    run = folders.load_comparison(sweep_run)
    s = charts.sweep_data(run.comparison, run.rule_sets, run.sweep, run.players)
    assert s.option == "nine_penalty" and s.tick_labels is None
    np.testing.assert_array_equal(s.x, SWEEP_VALUES)
    assert s.seat_labels[1] == "hold-nines (seat 1)"
    assert s.rate.shape == (4, 5)
    assert s.rate[1, -1] == pytest.approx(0.30 - 0.016)

    # A sweep of a rule name has one tick per value; an empty sweep_value falls back to the manifest.
    table = run.comparison.iloc[:8].copy()
    table["rule_set"] = ["draw_rule=one"] * 4 + ["draw_rule=until-playable"] * 4
    table["sweep_value"] = np.nan
    sweep = {"option": "draw_rule", "values": ["one", "until-playable"]}
    c = charts.sweep_data(table, ["draw_rule=one", "draw_rule=until-playable"], sweep, 4)
    assert c.tick_labels == ["one", "until-playable"]
    np.testing.assert_array_equal(c.x, [0, 1])


def test_plot_functions_draw_on_given_axes(sweep_run: Path) -> None:
    run = folders.load_comparison(sweep_run)
    fig, axes = plt.subplots(1, 3)
    try:
        drawn = [
            charts.plot_win_rates_by_rule_set(
                charts.win_rates_by_rule_set_data(run.comparison, run.rule_sets, run.players), ax=axes[0]
            ),
            charts.plot_final_totals_by_rule_set(
                charts.final_totals_by_rule_set_data(run.score_distribution, run.rule_sets), ax=axes[1]
            ),
            charts.plot_sweep(charts.sweep_data(run.comparison, run.rule_sets, run.sweep, run.players), ax=axes[2]),
        ]
        assert all(f is fig for f in drawn)
        assert axes[2].get_xlabel() == "nine_penalty"
        assert len(axes[0].patches) == 5 * 4  # one bar per rule set and seat
    finally:
        plt.close(fig)


def test_missing_comparison_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text("{}", encoding="utf-8")
    with pytest.raises(FileNotFoundError, match="comparison.csv"):
        charts.save_all_comparison(tmp_path)
    assert not folders.is_comparison_folder(tmp_path)


# --------------------------------------------------------------------------- report


def test_report_two_rule_sets(drawn_two_sets, tmp_path: Path) -> None:
    two_sets = drawn_two_sets.copy(tmp_path)  # with its charts: the report embeds them
    text = compare_report.write_comparison_report(two_sets).read_text(encoding="utf-8")
    assert text.startswith("# Rule comparison: classic vs hard-nines\n")
    assert "PARTIAL" not in text
    assert "- **Command:** `nines compare-rules random hold-nines dump-faces random" in text
    assert "- **Lineup:** random, hold-nines, dump-faces, random (4 players)" in text
    assert "  - `hard-nines` (preset `hard-nines`): nine_penalty=25 (15 in the reference)" in text
    assert "4,000 played of 4,000 requested, per rule set (2 rule sets)" in text
    assert "- **Seed:** 7" in text and "- **Workers:** 8" in text and "2 min 05 s" in text

    # Coupling: hard-nines deals like classic.
    assert "## Common random numbers" in text
    assert "`hard-nines` uses the same deck size, number of players and hand size as `classic`" in text
    assert "does not share deals" not in text and "†" not in text

    # Table: one row per rule set and seat, the reference marked, changes in points with the interval.
    rows = [line for line in text.splitlines() if line.startswith(("| classic |", "| hard-nines |"))]
    assert len(rows) == 8
    assert rows[0].startswith("| classic | random (seat 0) | 22.00% (") and "| reference |" in rows[0]
    assert rows[6].startswith("| hard-nines | dump-faces (seat 2) | 28.31% (")
    assert "| +2.31 (+1.92 to +2.70) * | 87.0 | 6.60 | 23.4 |" in rows[6]
    assert "| +0.12 (-0.66 to +0.90) | 85.0 |" in rows[4]  # not significant: no mark

    # Significance: the test named, a sentence per significant shift, the others named briefly.
    assert "paired over the same match indices under both rule sets (common random numbers)" in text
    assert "tested with the two-sided exact McNemar test: a binomial test of 1/2" in text
    assert "Holm correction across all 4 shifts" in text
    assert (
        "- Under hard-nines, dump-faces (seat 2) wins 2.31 percentage points more than under classic "
        "(95% CI 1.92 to 2.70; exact McNemar test, Holm-adjusted p < 0.0001)." in text
    )
    assert (
        "- Under hard-nines, hold-nines (seat 1) wins 3.10 percentage points less than under classic "
        "(95% CI 2.12 to 4.08; exact McNemar test, Holm-adjusted p < 0.0001)." in text
    )
    assert "random (seat 0) wins" not in text and "random (seat 3) wins" not in text
    assert "2 of 4 shifts were not significant" in text
    assert "- under hard-nines: random (seat 0) +0.12 pp (exact McNemar test, adjusted p = " in text

    # With nothing significant: no sentence, every shift listed once.
    table = pd.read_csv(two_sets / "comparison.csv")
    table["significant"] = False
    table.to_csv(two_sets / "comparison.csv", index=False)
    text = compare_report.write_comparison_report(two_sets).read_text(encoding="utf-8")
    assert "No shift is significant at the 5% level after the Holm correction:" in text
    assert " wins " not in text and "not significant" not in text
    assert "hold-nines (seat 1) -3.10 pp (exact McNemar test, adjusted p < 0.0001)" in text

    # Charts that exist, then the command.
    assert "![Win rates by rule set](win_rates_by_rule_set.png)" in text
    assert "](final_totals_by_rule_set.png)" in text and "sweep.png" not in text
    assert "## Reproduce" in text and text.rstrip().endswith("```")


def test_report_sweep(drawn_sweep, tmp_path: Path) -> None:
    sweep_run = drawn_sweep.copy(tmp_path)  # with its charts: the report embeds them
    text = compare_report.write_comparison_report(sweep_run).read_text(encoding="utf-8")
    labels = [f"nine_penalty={v}" for v in SWEEP_VALUES]
    assert text.startswith(f"# Rule comparison: {' vs '.join(labels)}\n")
    assert "- **Sweep:** nine_penalty over 5, 10, 15, 20, 25 on `classic`" in text
    assert "![Win rates along the sweep](sweep.png)" in text
    assert "against nine_penalty" in text

    table = pd.read_csv(sweep_run / "comparison.csv")
    rows = [line for line in text.splitlines() if line.startswith("| nine_penalty=")]
    assert len(rows) == len(table) == 20
    shifts = table[table.rule_set != labels[0]]
    assert shifts["significant"].any() and not shifts["significant"].all()
    for r in shifts.itertuples():
        sentence = f"Under {r.rule_set}, {r.strategy} (seat {r.position}) wins"
        assert (sentence in text) == bool(r.significant), sentence
    n_not = int((~shifts["significant"]).sum())
    assert f"{n_not} of 16 shifts were not significant" in text


def test_uncoupled_rule_set_is_explained(tmp_path: Path) -> None:
    sets = [
        *TWO_SETS,
        ("double-nines", "double-nines", {}),
        ("small-hands", "classic", {"hand_sizes": (7, 7, 6, 5, 5)}),
    ]
    folder = make_comparison(tmp_path / "three", sets, TWO_SET_SHIFTS)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert [e["deals_coupled"] for e in manifest["rule_sets"]] == [True, True, False, False]
    del manifest["rule_sets"][3]["deals_coupled"]  # derived from the rules when missing
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")

    # no charts: nothing below reads them (the report's chart links: test_report_two_rule_sets, test_report_sweep)
    text = compare_report.write_comparison_report(folder).read_text(encoding="utf-8")
    assert text.startswith("# Rule comparison: classic vs hard-nines vs double-nines vs small-hands\n")
    assert "`hard-nines` uses the same deck size" in text
    assert "`double-nines` does not share deals with `classic`" in text and "(2 decks instead of 1)" in text
    assert "`small-hands` does not share deals" in text and "(6 cards dealt to each player instead of 7)" in text
    assert "| double-nines † | random (seat 0) |" in text
    assert "| hard-nines | random (seat 0) |" in text


def test_partial_warning_only_when_partial(tmp_path: Path, two_sets: Path) -> None:
    assert "PARTIAL" not in compare_report.write_comparison_report(two_sets).read_text(encoding="utf-8")
    folder = make_comparison(tmp_path / "partial", TWO_SETS, TWO_SET_SHIFTS, partial=True)
    text = compare_report.write_comparison_report(folder).read_text(encoding="utf-8")
    first = text.split("## Run")[0]
    assert "**PARTIAL RUN:** only 2,400 of 4,000 requested matches per rule set were played (60%)" in first


def test_report_embeds_only_existing_charts(sweep_run: Path, drawn_sweep) -> None:
    text = compare_report.write_comparison_report(sweep_run).read_text(encoding="utf-8")
    assert ".png)" not in text and "## Charts" not in text
    for png in drawn_sweep.paths:  # the charts save_all_comparison drew for this folder's data
        shutil.copy(png, sweep_run / png.name)
    (sweep_run / "final_totals_by_rule_set.png").unlink()
    text = compare_report.write_comparison_report(sweep_run).read_text(encoding="utf-8")
    assert "](win_rates_by_rule_set.png)" in text and "](sweep.png)" in text
    assert "final_totals_by_rule_set.png" not in text


def test_report_tolerates_text_significant_and_no_distribution(two_sets: Path) -> None:
    table = pd.read_csv(two_sets / "comparison.csv")
    # As text, with the reference rows left empty.
    table["significant"] = ["" if r == "classic" else str(s).lower() for r, s in zip(table.rule_set, table.significant)]
    table.to_csv(two_sets / "comparison.csv", index=False)
    (two_sets / "score_distribution.csv").unlink()
    paths = charts.save_all_comparison(two_sets)
    assert [p.name for p in paths] == ["win_rates_by_rule_set.png", "shifts_by_rule_set.png"]
    text = compare_report.write_comparison_report(two_sets).read_text(encoding="utf-8")
    assert "dump-faces (seat 2) wins 2.31 percentage points more" in text
    assert "2 of 4 shifts were not significant" in text
