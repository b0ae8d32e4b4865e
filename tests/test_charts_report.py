"""Charts and report drawn from a run folder alone (no simulation: the folder is a hand-made fixture)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from nines_sim.experiments.tournament import report  # noqa: E402
from nines_sim.reporting import charts, folders  # noqa: E402
from nines_sim.results.stats import Z95, wilson_array  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


# --------------------------------------------------------------------------- fixture run folders


def _wilson(k: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return wilson_array(k, n)


def _pairwise_row(comparison: str, a: str, b: str, matches: int, estimate: float, se: float, p_holm: float) -> dict:
    return {
        "comparison": comparison,
        "a": a,
        "b": b,
        "matches": matches,
        "estimate": estimate,
        "se": se,
        "ci_low": estimate - Z95 * se,
        "ci_high": estimate + Z95 * se,
        "test": "exact McNemar" if comparison == "paired-difference" else "exact binomial",
        "p_value": p_holm / 2,  # any value below p_holm: only p_holm is reported
        "p_holm": p_holm,
        "significant": p_holm < 0.05,
    }


def make_run(folder: Path, fmt: str = "table", partial: bool = False) -> Path:
    """Write a small run folder as the tournament runner would: every CSV and the manifest.

    ``fmt="table"``: 4 seats, random in seats 0-2 and hold-nines in seat 3.
    ``fmt="round-robin"``: 3 strategies heads-up, with ``head_to_head.csv``.
    """
    rng = np.random.default_rng(7)
    folder.mkdir(parents=True, exist_ok=True)
    # matches is per game; a round robin of 3 strategies plays 3 games (pairs) of 400 heads-up matches.
    requested = 1000 if fmt == "table" else 400
    games = [{"key": "0"}] if fmt == "table" else [{"key": k} for k in ("0-1", "0-2", "1-2")]
    played = (600 if partial else requested) if fmt == "table" else 1200
    if fmt == "table":
        strategies = ["random", "random", "random", "hold-nines"]
        players = 4
        wins = np.array([130.0, 140.5, 149.5, 180.0]) * played / 600
        matches = np.full(4, played)
    else:
        strategies = ["random", "hold-nines", "dump-faces"]
        players = 2
        # 3 pairs x 400 heads-up matches: each strategy plays 800, and the 1200 wins add up.
        wins = np.array([300.0, 520.0, 380.0])
        matches = np.full(3, 800)
    n = len(strategies)
    low, high = _wilson(wins, matches)
    pd.DataFrame(
        {
            "position": np.arange(n),
            "strategy": strategies,
            "matches": matches,
            "wins": wins,
            "win_rate": wins / matches,
            "win_rate_low": low,
            "win_rate_high": high,
            "mean_total": 100 + rng.uniform(0, 20, n),
            "sd_total": rng.uniform(20, 30, n),
            "go_out_rate": rng.uniform(0.15, 0.35, n),
            "mean_hand_penalty": rng.uniform(10, 20, n),
        }
    ).to_csv(folder / "summary.csv", index=False)

    pd.DataFrame(
        [
            {
                "hands": 6 * played,
                "mean_turns_per_hand": 23.4,
                "mean_hands_per_match": 6.0,
                "blocked_rate": 0.012,
                "capped_hands": 0,
                "reshuffles_per_hand": 0.31,
                "nine_starter_rate": 0.077,
                "first_player_go_out_rate": 0.27,
            }
        ]
    ).to_csv(folder / "hands.csv", index=False)

    rows = []
    for name in dict.fromkeys(strategies):
        for points in range(100, 160, 3):
            rows.append({"strategy": name, "kind": "final_total", "points": points, "count": int(rng.integers(1, 40))})
        for points in range(0, 90):
            count = int(rng.integers(0, 50)) if points else 900
            if count:
                rows.append({"strategy": name, "kind": "hand_penalty", "points": points, "count": count})
    pd.DataFrame(rows).to_csv(folder / "score_distribution.csv", index=False)

    hands = np.full(players, 6 * played)
    go_outs = (hands * np.linspace(0.28, 0.22, players)).astype(np.int64)
    pd.DataFrame(
        {
            "seat_from_dealer": np.arange(1, players + 1),
            "hands": hands,
            "go_outs": go_outs,
            "go_out_rate": go_outs / hands,
        }
    ).to_csv(folder / "seat_go_out.csv", index=False)

    if fmt == "table":
        pairwise = [
            _pairwise_row("paired-difference", "3:hold-nines", "0:random", played, 0.05, 0.01, 0.0004),
            _pairwise_row("paired-difference", "3:hold-nines", "1:random", played, 0.0663, 0.02, 0.012),
            _pairwise_row("paired-difference", "2:random", "1:random", played, 0.015, 0.02, 0.9),
            _pairwise_row("vs-fair-share", "3:hold-nines", "fair share", played, 0.05, 0.015, 0.003),
            _pairwise_row("vs-fair-share", "0:random", "fair share", played, -0.033, 0.02, 0.3),
        ]
    else:
        pairwise = [
            _pairwise_row("head-to-head", "hold-nines", "random", 400, 0.2, 0.025, 0.00001),
            _pairwise_row("head-to-head", "dump-faces", "random", 400, 0.01, 0.025, 0.7),
            _pairwise_row("head-to-head", "dump-faces", "hold-nines", 400, -0.09, 0.025, 0.001),
            _pairwise_row("vs-fair-share", "random", "fair share", 800, -0.1, 0.018, 0.00002),
        ]
        h2h = []
        for i, s in enumerate(strategies):
            for j, o in enumerate(strategies):
                if i != j:
                    rate = float(np.clip(0.5 + 0.1 * (wins[i] - wins[j]) / wins.mean(), 0, 1))
                    lo, hi = _wilson(np.array([rate * 400]), np.array([400]))
                    h2h.append(
                        {
                            "strategy": s,
                            "opponent": o,
                            "matches": 400,
                            "win_rate": rate,
                            "win_rate_low": lo[0],
                            "win_rate_high": hi[0],
                        }
                    )
        pd.DataFrame(h2h).to_csv(folder / "head_to_head.csv", index=False)
    pd.DataFrame(pairwise).to_csv(folder / "pairwise.csv", index=False)

    rules = {
        "players": players,
        "nine_penalty": 25,
        "hand_sizes": [7, 7, 7, 5, 5],
        "draw_rule": "one",
        "skip_reverse": False,
        "decks": 1,
        "pair_of_nines": False,
        "no_nine_out": False,
        "nine_on_nine": True,
        "block_rule": "pass-circle",
        "tie_rule": "playoff",
        "target": 100,
        "fixed_hands": 0,
        "turn_cap": 10000,
    }
    # As the runner writes it: only a table has a lineup; a round robin lists its strategies.
    lineup = strategies if fmt == "table" else None
    manifest = {
        "command": f"nines tournament {' '.join(strategies)} --format {fmt} --preset hard-nines "
        f"-n {requested} --seed 42",
        "version": "0.1.0",
        "seed": 42,
        "format": fmt,
        "rules": rules,
        "preset": "hard-nines",
        "lineup": lineup,
        "strategies": list(dict.fromkeys(strategies)),
        "players": players,
        "matches": requested,
        "games": games,
        "matches_played": played,
        "workers": 2,
        "batch_size": 4096,
        "wall_seconds": 75.5,
        "matches_per_s": played / 75.5,
        "python": "3.11.2",
        "numpy": np.__version__,
        "partial": partial,
        "started": "2025-01-01T12:00:00",
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return folder


@pytest.fixture
def table_run(tmp_path: Path) -> Path:
    return make_run(tmp_path / "table", "table")


@pytest.fixture
def rr_run(tmp_path: Path) -> Path:
    return make_run(tmp_path / "rr", "round-robin")


# --------------------------------------------------------------------------- charts


def _assert_png(path: Path) -> None:
    assert path.is_file(), path
    assert path.read_bytes()[:8] == PNG_MAGIC, path


def test_save_all_table_writes_four_pngs(table_run: Path) -> None:
    open_before = set(plt.get_fignums())  # other tests in this process may leave figures open
    paths = charts.save_all(table_run)
    names = [p.name for p in paths]
    assert names == ["win_rates.png", "final_totals.png", "hand_penalties.png", "go_out_by_seat.png"]
    for p in paths:
        assert p.parent == table_run
        _assert_png(p)
    assert not (table_run / "head_to_head.png").exists()
    assert set(plt.get_fignums()) == open_before, "save_all must close its figures"


def test_save_all_round_robin_adds_head_to_head(rr_run: Path) -> None:
    paths = charts.save_all(rr_run)
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


def test_report_table_run(table_run: Path) -> None:
    charts.save_all(table_run)
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


def test_report_round_robin(rr_run: Path) -> None:
    charts.save_all(rr_run)
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


def test_report_embeds_only_existing_charts(table_run: Path) -> None:
    text = report.write_report(table_run).read_text(encoding="utf-8")
    assert ".png)" not in text
    assert "## Charts" not in text
    charts.save_all(table_run)
    (table_run / "hand_penalties.png").unlink()
    text = report.write_report(table_run).read_text(encoding="utf-8")
    assert "](win_rates.png)" in text and "](hand_penalties.png)" not in text


def test_report_tolerates_numeric_significant_column(table_run: Path) -> None:
    pw = pd.read_csv(table_run / "pairwise.csv")
    pw["significant"] = pw["significant"].astype(int)  # 1/0 instead of True/False
    pw.to_csv(table_run / "pairwise.csv", index=False)
    text = report.write_report(table_run).read_text(encoding="utf-8")
    assert "2 of 5 comparisons were not significant" in text


# --------------------------------------------------------------------------- long strategy labels (issue 22)

TUNED = Path(__file__).parent.parent / "docs" / "tuned" / "expert-classic.json"


def _tuned_values(last: float | None = None) -> dict:
    values = dict(json.loads(TUNED.read_text())["params"])
    if last is not None:  # a second tuned expert, differing only in its last parameter
        values[list(values)[-1]] = last
    return values


def _csv_name(values: dict) -> str:
    """The name a tuned strategy has in the CSVs: 4 significant digits, as ``params.label`` writes it."""
    from nines_sim.strategy.params import label

    return label("expert", values)


def _spec(values: dict) -> str:
    """The spec the manifest holds: every value exact (17 digits)."""
    from nines_sim.strategy.params import spec_with

    return spec_with("expert", values)


LONG_A, LONG_B = _csv_name(_tuned_values()), _csv_name(_tuned_values(last=0.25))


def _rename_strategies(folder: Path, names: dict[str, str]) -> None:
    """Rename strategies in every table of a run folder (seat-prefixed ``pairwise.csv`` labels too)."""
    for csv in ("summary.csv", "score_distribution.csv", "pairwise.csv", "head_to_head.csv", "comparison.csv"):
        path = folder / csv
        if not path.is_file():
            continue
        df = pd.read_csv(path, keep_default_na=False, na_values=[""])
        for col in ("strategy", "opponent", "a", "b"):
            if col in df.columns:
                seat, sep, name = df[col].astype(str).str.rpartition(":").T.to_numpy()
                df[col] = [f"{s}{p}{names.get(n, n)}" for s, p, n in zip(seat, sep, name)]
        df.to_csv(path, index=False)


@pytest.fixture
def long_run(tmp_path: Path) -> Path:
    """The table fixture with its two strategies renamed as two tuned experts (~260 characters each)."""
    folder = make_run(tmp_path / "long", "table")
    _rename_strategies(folder, {"random": LONG_B, "hold-nines": LONG_A})
    m = json.loads((folder / "manifest.json").read_text())
    specs = {"random": _spec(_tuned_values(last=0.25)), "hold-nines": _spec(_tuned_values())}
    m["lineup"] = [specs[s] for s in m["lineup"]]
    m["strategies"] = [specs[s] for s in m["strategies"]]
    m["command"] = "nines tournament " + " ".join(m["lineup"]) + " -n 1000 --seed 42"
    (folder / "manifest.json").write_text(json.dumps(m), encoding="utf-8")
    return folder


def test_short_labels_name_a_parameter_file_round_values_and_keep_a_lineup_distinct() -> None:
    from nines_sim.reporting.labels import LABEL_WIDTH, label_map, short_label, short_labels

    assert short_label("expert@docs/tuned/expert-classic.json") == "expert@expert-classic.json"
    assert short_label("strategies/lowest.py:LowestFirst") == "lowest.py:LowestFirst"
    assert short_labels(["random", "hold-nines", "random"]) == ["random", "hold-nines", "random"]
    assert short_label("expert:w_follow=2.5001") == "expert(w_follow=2.5)"
    # values rounded to 3 significant digits, more only where two entries need it
    assert short_labels(["expert:w_follow=2.5001", "expert:w_follow=2.5002"]) == [
        "expert(w_follow=2.5001)",
        "expert(w_follow=2.5002)",
    ]
    full = _spec(_tuned_values())
    shown = short_label(full)
    assert len(full) > 250 and len(shown) <= LABEL_WIDTH and shown.endswith("\u2026)")
    assert shown.startswith("expert(w_penalty=1.37,w_follow=7.39")
    assert short_label(LONG_A) == shown  # the CSVs' 4-digit name gives the same label
    # two tuned experts alike up to their last parameter: still told apart within the width
    a, b, _ = short_labels([LONG_A, LONG_B, LONG_A])
    assert a != b and max(len(a), len(b)) <= LABEL_WIDTH, (a, b)
    assert short_labels([LONG_A, LONG_B, LONG_A])[2] == a  # one spec in two seats keeps one label
    names = label_map([LONG_A, "random"], ["expert@docs/tuned/expert-classic.json", "random"])
    assert names == {LONG_A: "expert@expert-classic.json", "random": "random"}
    # a parameter file with values on top: by its file name too, the values in parentheses
    assert short_label("expert@/home/u/docs/tuned/expert-classic.json:w_follow=2") == (
        "expert@expert-classic.json(w_follow=2)"
    )
    # two files of one name are numbered; the entries whose labels are theirs alone are not
    assert short_labels(["expert@/a/expert-classic.json", "expert@/b/expert-classic.json", "expert:w_follow=2.5",
                         "random"]) == ["expert@expert-classic.json #1", "expert@expert-classic.json #2",
                                        "expert(w_follow=2.5)", "random"]  # fmt: skip
    # the others keep their rounding beside a numbered pair (they took the last, 17-digit try)
    assert short_labels(["expert@/a/best.json", "expert@/b/best.json", "expert:w_follow=2.123456789"])[2] == (
        "expert(w_follow=2.12)"
    )
    # two files of the same values are one strategy in the CSVs: one label, the first file's
    same = label_map(["expert(w=1)", "expert(w=2)", "expert(w=1)"], ["expert@/a/b.json", "expert@/b/b.json",
                                                                     "expert@/d/b.json"])  # fmt: skip
    assert same == {"expert(w=1)": "expert@b.json #1", "expert(w=2)": "expert@b.json #2"}


def test_the_terminal_table_shows_short_labels() -> None:
    from nines_sim.experiments.tournament.tables import terminal_table
    from nines_sim.experiments.tournament.work import plan_tournament
    from nines_sim.game.rules import make_rules

    given = [f"expert@{TUNED}", "random", "expert"]
    plan = plan_tournament("table", given, make_rules("classic", players=3))
    summary = pd.DataFrame({"position": [0, 1, 2], "rank": [1, 3, 2], "strategy": plan.labels,
                            "win_rate": [0.5, 0.1, 0.4], "win_rate_low": [0.45, 0.08, 0.35],
                            "win_rate_high": [0.55, 0.12, 0.45], "mean_total": [50.0, 90.0, 60.0],
                            "go_out_rate": [0.3, 0.1, 0.25], "mean_hand_penalty": [8.0, 14.0, 9.0]})  # fmt: skip
    assert len(plan.labels[0]) > 200  # the name the CSVs keep
    lines = terminal_table(summary, plan, True, given).splitlines()
    assert max(len(x) for x in lines) <= 120, lines  # was ~280 columns
    assert "0:expert@expert-classic.json" in lines[1]
    # without the specs as given, the values rounded
    lines = terminal_table(summary, plan, True).splitlines()
    assert max(len(x) for x in lines) <= 120 and "0:expert(w_penalty=1.37," in lines[1], lines


def test_the_report_of_long_labels_shows_short_ones_and_reproduces_with_full_ones(long_run: Path) -> None:
    from nines_sim.reporting.labels import LABEL_WIDTH, short_labels

    charts.save_all(long_run)
    text = report.write_report(long_run).read_text(encoding="utf-8")
    body, reproduce = text.split("## Reproduce")
    a, b = short_labels([LONG_A, LONG_B])
    assert a != b and f"{a} (seat 3)" in body and f"{b} (seat 0)" in body
    assert LONG_A not in body and LONG_B not in body
    assert not re.search(r"\d\.\d{6,}", body), "full-precision values outside the Reproduce section"
    rows = [x for x in body.splitlines() if x.startswith("| ") and "(seat " in x]
    assert rows and all(len(x.split(" | ")[1]) <= LABEL_WIDTH + len(" (seat 0)") for x in rows), rows
    # the command that reproduces the run keeps every value exact
    assert json.loads((long_run / "manifest.json").read_text())["command"] in reproduce
    assert "- **Labels:** a label cut with \u2026 has its full values in manifest.json and the CSVs" in body


def test_the_report_keys_each_numbered_label_to_its_spec() -> None:
    given = ["expert@/a/expert-classic.json", "expert@/b/expert-classic.json", "random"]
    assert folders.label_key(["expert(w_follow=1)", "expert(w_follow=2)", "random"], {"specs_given": given}) == (
        "- **Labels:** `expert@expert-classic.json #1` is `expert@/a/expert-classic.json`; "
        "`expert@expert-classic.json #2` is `expert@/b/expert-classic.json`"
    )
    assert folders.label_key(["random", "expert", "random"], {}) is None  # every label speaks for itself


def _assert_fits(fig: plt.Figure, what: str) -> None:
    """Every visible text inside the figure, and no two x tick labels of an axes overlapping."""
    from matplotlib.text import Text

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    hidden = set()  # tick labels outside the axes' view limits, which are not drawn
    for ax in fig.axes:
        for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            lo, hi = min(lo, hi), max(lo, hi)
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not lo - 1e-9 * abs(hi - lo) <= tick.get_loc() <= hi + 1e-9 * abs(hi - lo):
                    hidden |= {id(tick.label1), id(tick.label2)}
    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text().strip() or id(t) in hidden:
            continue
        e = t.get_window_extent(renderer)
        inside = e.x0 >= box.x0 - 1 and e.x1 <= box.x1 + 1 and e.y0 >= box.y0 - 1 and e.y1 <= box.y1 + 1
        assert inside, (what, t.get_text(), e, box)
    for ax in fig.axes:
        ticks = [t.get_window_extent(renderer) for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
        ticks.sort(key=lambda e: e.x0)
        for left, right in zip(ticks, ticks[1:]):
            assert left.x1 <= right.x0, (what, "x tick labels overlap", left, right)


def test_every_chart_of_long_labels_fits_its_figure(long_run: Path, rr_run: Path) -> None:
    run = folders.load_run(long_run)
    figs = {
        "win rates": charts.plot_win_rates(charts.win_rate_data(run.summary, run.format, run.players)),
        "totals": charts.plot_final_totals(charts.distribution_data(run.score_distribution, "final_total")),
        "penalties": charts.plot_hand_penalties(charts.distribution_data(run.score_distribution, "hand_penalty")),
    }
    _rename_strategies(rr_run, {"random": LONG_A, "hold-nines": LONG_B, "dump-faces": f"expert@{TUNED}"})
    rr = folders.load_run(rr_run)
    figs["head to head"] = charts.plot_head_to_head(charts.head_to_head_data(rr.head_to_head))
    figs["rr win rates"] = charts.plot_win_rates(charts.win_rate_data(rr.summary, rr.format, rr.players))
    for name, fig in figs.items():
        _assert_fits(fig, name)
        plt.close(fig)


def test_every_comparison_chart_of_long_labels_fits_its_figure(tmp_path: Path) -> None:
    import shutil

    stored = Path(__file__).parent / "data" / "runs"
    for kind in ("compare", "sweep"):
        folder = tmp_path / kind
        shutil.copytree(stored / kind, folder)
        _rename_strategies(folder, {"random": LONG_A, "hold-nines": LONG_B})
        c = folders.load_comparison(folder)
        figs = {
            "by rule set": charts.plot_win_rates_by_rule_set(
                charts.win_rates_by_rule_set_data(c.comparison, c.rule_sets, c.players)
            ),
            "shifts": charts.plot_shifts(charts.shift_data(c.comparison, c.rule_sets)),
            "totals": charts.plot_final_totals_by_rule_set(
                charts.final_totals_by_rule_set_data(c.score_distribution, c.rule_sets)
            ),
        }
        if c.sweep is not None:
            figs["sweep"] = charts.plot_sweep(charts.sweep_data(c.comparison, c.rule_sets, c.sweep, c.players))
        for name, fig in figs.items():
            _assert_fits(fig, f"{kind}: {name}")
            plt.close(fig)


def test_final_totals_by_rule_set_draws_the_difference_from_the_first_rule_set() -> None:
    # Two rule sets with the same distribution (classic vs hard-nines where no one is caught with a 9): the
    # curves coincide, the lower panel shows a zero difference; a third set shifted by one bin shows it.
    counts = {"0": 50, "10": 30, "20": 20}
    rows = [{"rule_set": r, "strategy": s, "kind": "final_total", "points": int(p), "count": n}
            for r in ("classic", "hard-nines") for s in ("a", "b") for p, n in counts.items()]  # fmt: skip
    rows += [{"rule_set": "shifted", "strategy": "a", "kind": "final_total", "points": int(p) + 10, "count": 2 * n}
             for p, n in counts.items()]  # fmt: skip
    data = charts.final_totals_by_rule_set_data(pd.DataFrame(rows), ["classic", "hard-nines", "shifted"])
    assert data.means == {"classic": 7.0, "hard-nines": 7.0, "shifted": 17.0}
    fig = charts.plot_final_totals_by_rule_set(data)
    top, diff = fig.axes[0], fig.axes[1]
    styles = {line.get_linestyle() for line in top.get_lines()}
    assert len(styles) == 3  # coinciding curves drawn in different dash patterns: both visible
    same, shifted = [line for line in diff.get_lines() if line.get_label() != "no difference"]
    assert np.allclose(same.get_ydata(), 0.0)
    want = data.shares["shifted"] - data.shares["classic"]
    assert np.allclose(shifted.get_ydata()[:-1], want)
    assert "+10.00" in shifted.get_label()
    _assert_fits(fig, "difference panel")
    plt.close(fig)


@pytest.mark.parametrize(
    ("label", "lines"),
    [
        ("seat 0\nexpert@expert-classic.json", ["seat 0", "expert@", "expert-classic.json"]),
        ("expert(w_penalty=1.37,w_follow=7.39,\u2026)", ["expert(", "w_penalty=1.37,", "w_follow=7.39,\u2026)"]),
        ("hold-nines", ["hold-nines"]),
        ("a-very-long-hyphenated-strategy-name", ["a-very-long-", "hyphenated-strategy-", "name"]),
        ("x" * 45, ["x" * 20, "x" * 20, "x" * 5]),
    ],
)
def test_tick_labels_wrap_after_separators_within_the_line_width(label: str, lines: list[str]) -> None:
    wrapped = charts.wrap_label(label)
    assert wrapped.split("\n") == lines
    assert wrapped.replace("\n", "") == label.replace("\n", "")  # nothing lost


def test_two_specs_alike_to_4_digits_keep_distinct_names_in_the_csvs() -> None:
    from nines_sim.experiments.tournament.plan import entry_names
    from nines_sim.reporting.labels import short_labels

    specs = ["expert:w_follow=2.5001", "expert:w_follow=2.5002", "expert:w_follow=2.5001", "random"]
    # the 4-digit name of both would be expert(w_follow=2.5): the CSVs name them by their specs instead
    assert entry_names(specs) == specs
    assert entry_names(["expert:w_follow=2.5", "random", "random"]) == ["expert(w_follow=2.5)", "random", "random"]
    assert short_labels(entry_names(specs)) == [
        "expert(w_follow=2.5001)",
        "expert(w_follow=2.5002)",
        "expert(w_follow=2.5001)",
        "random",
    ]


def test_the_manifests_speed_counts_play_only_and_the_report_says_what_compiled() -> None:
    from nines_sim.reporting.markdown import run_facts_tail
    from nines_sim.runs.output import speed_fields

    # a first run: 33.3 s of wall time of which 31.3 s compiled the engine's code, 100,000 matches played
    m = speed_fields(33.3, 31.3, 100_000)
    assert m == {"wall_seconds": 33.3, "compile_seconds": 31.3, "matches_per_s": round(100_000 / 2.0, 1)}
    line = next(x for x in run_facts_tail(m) if x.startswith("- **Wall time:**"))
    assert "50,000 matches/s of play" in line and "compiled the engine's code, first run only" in line
    warm = speed_fields(2.0, 0.0, 100_000)
    assert warm["matches_per_s"] == 50_000.0 and warm["compile_seconds"] == 0.0
    assert "compiled" not in next(x for x in run_facts_tail(warm) if x.startswith("- **Wall time:**"))
    assert speed_fields(5.0, 9.0, 10)["matches_per_s"] is None  # all of it compiling: no speed to state
