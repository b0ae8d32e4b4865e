"""Charts and report drawn from a run folder alone (no simulation: the folder is a hand-made fixture)."""

from __future__ import annotations

import shutil
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from nines_sim.experiments.tournament import report  # noqa: E402
from nines_sim.reporting import charts, folders  # noqa: E402
from nines_sim.results.stats import wilson_array  # noqa: E402
from tests.run_fixtures import Drawn, draw_once, make_run  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def table_run(tmp_path: Path) -> Path:
    return make_run(tmp_path / "table", "table")


@pytest.fixture
def rr_run(tmp_path: Path) -> Path:
    return make_run(tmp_path / "rr", "round-robin")


@pytest.fixture(scope="module")
def drawn(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Drawn]:
    """Each hand-made folder with its charts drawn once, by format, for the tests that read them (the table
    folder's were drawn three times, the round robin's twice); a test that writes into one takes a copy."""
    return {fmt: draw_once(charts.save_all, make_run(tmp_path_factory.mktemp("drawn") / fmt, fmt))
            for fmt in ("table", "round-robin")}  # fmt: skip


# --------------------------------------------------------------------------- charts


def _assert_png(path: Path) -> None:
    assert path.is_file(), path
    assert path.read_bytes()[:8] == PNG_MAGIC, path


def test_save_all_table_writes_four_pngs(drawn: dict) -> None:
    d = drawn["table"]
    table_run, paths = d.folder, d.paths
    names = [p.name for p in paths]
    assert names == ["win_rates.png", "final_totals.png", "hand_penalties.png", "go_out_by_seat.png"]
    for p in paths:
        assert p.parent == table_run
        _assert_png(p)
    assert not (table_run / "head_to_head.png").exists()
    assert d.open_after == d.open_before, "save_all must close its figures"


def test_save_all_round_robin_adds_head_to_head(drawn: dict) -> None:
    d = drawn["round-robin"]
    paths = d.paths
    assert d.open_after == d.open_before, "save_all must close its figures"
    assert [p.name for p in paths][-1] == "head_to_head.png"
    assert len(paths) == 5
    for p in paths:
        _assert_png(p)


def test_plot_functions_draw_on_given_axes(rr_run: Path) -> None:
    run = folders.load_run(rr_run)
    fig, axes = plt.subplots(2, 3)
    try:
        drawn = [
            charts.plot_win_rates(charts.win_rate_data(run.summary, run.format, run.players), ax=axes[0, 0]),
            charts.plot_final_totals(charts.distribution_data(run.score_distribution, "final_total"), ax=axes[0, 1]),
            charts.plot_hand_penalties(charts.distribution_data(run.score_distribution, "hand_penalty"), axes[0, 2]),
            charts.plot_go_out_by_seat(charts.seat_go_out_data(run.seat_go_out), ax=axes[1, 0]),
            charts.plot_head_to_head(charts.head_to_head_data(run.head_to_head), ax=axes[1, 1]),
        ]
        assert all(f is fig for f in drawn)
        assert axes[0, 2].get_yscale() == "log"
    finally:
        plt.close(fig)


def test_win_rate_reference_is_fair_share_or_half(table_run: Path, rr_run: Path) -> None:
    t = folders.load_run(table_run)
    assert charts.win_rate_data(t.summary, t.format, t.players).reference == pytest.approx(0.25)
    r = folders.load_run(rr_run)
    assert charts.win_rate_data(r.summary, r.format, r.players).reference == 0.5


def test_distribution_merges_repeated_names(table_run: Path) -> None:
    run = folders.load_run(table_run)
    scores = pd.concat([run.score_distribution, run.score_distribution[run.score_distribution.strategy == "random"]])
    h = charts.distribution_data(scores, "hand_penalty")
    assert list(h.shares) == ["random", "hold-nines"]  # one curve per name, lineup order
    for share in h.shares.values():
        assert share.sum() == pytest.approx(1.0)
        assert share.shape == (len(h.edges) - 1,)
    assert h.edges[0] == 0  # a penalty of 0 (went out) starts the first bin


def test_head_to_head_matrix_has_empty_diagonal(rr_run: Path) -> None:
    run = folders.load_run(rr_run)
    h = charts.head_to_head_data(run.head_to_head, order=["hold-nines", "random", "dump-faces"])
    assert h.labels == ["hold-nines", "random", "dump-faces"]
    assert np.isnan(np.diag(h.rate)).all()
    row = run.head_to_head.set_index(["strategy", "opponent"]).loc[("hold-nines", "random"), "win_rate"]
    assert h.rate[0, 1] == pytest.approx(row)


def test_helpers() -> None:
    assert charts.nice_bin_width(40) == 1
    assert charts.nice_bin_width(200) == 5
    assert charts.nice_bin_width(2000) == 50
    # Wilson 95% for 5/10 is 0.2366 to 0.7634 (Agresti & Coull 1998, table values).
    lo, hi = wilson_array(np.array([5.0]), np.array([10.0]))
    assert (lo[0], hi[0]) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert folders.readable_label("2:random") == "random (seat 2)"
    assert folders.readable_label("hold-nines") == "hold-nines"


def test_missing_manifest_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="manifest.json"):
        charts.save_all(tmp_path)


# --------------------------------------------------------------------------- report


def test_report_table_run(drawn: dict, tmp_path: Path) -> None:
    table_run = drawn["table"].copy(tmp_path)
    path = report.write_report(table_run)
    assert path == table_run / "report.md"
    text = path.read_text(encoding="utf-8")

    assert text.startswith("# Nines table tournament")
    assert "PARTIAL" not in text
    assert (
        "`nines tournament random random random hold-nines --format table --preset hard-nines -n 1000 --seed 42`"
        in (text)
    )
    assert "preset `hard-nines`" in text and "nine_penalty=25" in text
    assert "turn_cap" not in text  # left at its default: not a key option
    assert "1,000 played of 1,000 requested" in text
    assert "1 min 16 s" in text

    # Key table: ranked by win rate, seat in the label.
    summary = pd.read_csv(table_run / "summary.csv")
    rows = [line for line in text.splitlines() if line.startswith("| ") and "(seat" in line]
    assert len(rows) == 4
    assert rows[0].startswith("| 1 | hold-nines (seat 3) | 30.00% (")
    assert rows[-1].startswith("| 4 | random (seat 0) | 21.67% (")
    hn = summary.iloc[3]
    assert f"| {hn.mean_total:.1f} (sd {hn.sd_total:.1f}) | {100 * hn.go_out_rate:.1f}% |" in rows[0]

    # Significance: a sentence per significant row with estimate, CI and adjusted p; none for the others.
    assert "Holm-Bonferroni" in text and "holds its 5% level at any number of matches" in text and "1/4" in text
    assert "the exact McNemar test is a binomial test of 1/2" in text and "the exact binomial test counts" in text
    assert (
        "**hold-nines (seat 3)** won more often than **random (seat 0)** at the same table: "
        "+5.00 percentage points (95% CI +3.04 to +6.96), exact McNemar test, Holm-adjusted p = 0.0004." in text
    )
    assert "**hold-nines (seat 3)** won more often than **random (seat 1)** at the same table: +6.63" in text
    assert "**hold-nines (seat 3)** won more often than the fair share of 1/4 = 25.00%: +5.00" in text
    assert "**random (seat 2)** won" not in text
    assert "**random (seat 0)** won" not in text
    assert "2 of 5 comparisons were not significant" in text

    # Hands and charts.
    assert "23.4 turns per hand" in text and "1.20%" in text
    for name in ("win_rates.png", "final_totals.png", "hand_penalties.png", "go_out_by_seat.png"):
        assert f"]({name})" in text
    assert "head_to_head.png" not in text
    assert "fair share 1/4 = 0.25" in text
    assert text.rstrip().endswith("```")  # the Reproduce block closes the report


def test_report_round_robin(drawn: dict, tmp_path: Path) -> None:
    rr_run = drawn["round-robin"].copy(tmp_path)
    text = report.write_report(rr_run).read_text(encoding="utf-8")
    assert text.startswith("# Nines round-robin tournament: random, hold-nines, dump-faces\n")
    assert "- **Lineup:** random, hold-nines, dump-faces" in text
    assert "![Head-to-head win rates](head_to_head.png)" in text
    assert "| 1 | hold-nines |" in text
    assert "Heads-up, **hold-nines** beat **random** more often than half the time (win rate 70.00%)" in text
    # Stored as dump-faces vs hold-nines, -9 points: worded with the stronger side first.
    assert (
        "Heads-up, **hold-nines** beat **dump-faces** more often than half the time (win rate 59.00%): "
        "+9.00 percentage points (95% CI +4.10 to +13.90), exact binomial test, Holm-adjusted p = 0.0010." in text
    )
    assert "p < 0.0001" in text
    assert "**dump-faces** beat **random**" not in text
    assert "1 of 4 comparisons was not significant" in text
    assert "- **Matches:** 1,200 played of 1,200 requested (400 per game, 3 games)" in text


def test_report_all_significant(rr_run: Path) -> None:
    pw = pd.read_csv(rr_run / "pairwise.csv")
    pw["significant"] = True
    pw.to_csv(rr_run / "pairwise.csv", index=False)
    text = report.write_report(rr_run).read_text(encoding="utf-8")
    assert "**dump-faces** beat **random**" in text
    assert "All 4 comparisons were significant" in text
    assert "not significant" not in text


def test_partial_warning_only_when_partial(tmp_path: Path) -> None:
    folder = make_run(tmp_path / "partial", "table", partial=True)
    text = report.write_report(folder).read_text(encoding="utf-8")
    first = text.split("## Run")[0]
    assert "**PARTIAL RUN:** only 600 of 1,000 requested matches were played (60%)" in first


def test_report_embeds_only_existing_charts(table_run: Path, drawn: dict) -> None:
    text = report.write_report(table_run).read_text(encoding="utf-8")
    assert ".png)" not in text
    assert "## Charts" not in text
    for png in drawn["table"].paths:  # the charts save_all draws of this folder, drawn once for the module
        shutil.copy2(png, table_run / png.name)
    (table_run / "hand_penalties.png").unlink()
    text = report.write_report(table_run).read_text(encoding="utf-8")
    assert "](win_rates.png)" in text and "](hand_penalties.png)" not in text


def test_report_tolerates_numeric_significant_column(table_run: Path) -> None:
    pw = pd.read_csv(table_run / "pairwise.csv")
    pw["significant"] = pw["significant"].astype(int)  # 1/0 instead of True/False
    pw.to_csv(table_run / "pairwise.csv", index=False)
    text = report.write_report(table_run).read_text(encoding="utf-8")
    assert "2 of 5 comparisons were not significant" in text
