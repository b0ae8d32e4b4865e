"""Long strategy labels (issue 22) in the charts, the report and the terminal table of a run folder: short labels
that stay distinct, keyed to their full specs, and charts that fit their figures (the folder is a hand-made fixture)."""

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
from tests.run_fixtures import comparison_figures, make_run  # noqa: E402


@pytest.fixture
def rr_run(tmp_path: Path) -> Path:
    return make_run(tmp_path / "rr", "round-robin")


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

    # no charts drawn: no check here reads them or their links, which name no strategy (their fit is
    # test_every_chart_of_long_labels_fits_its_figure's)
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
        figs = comparison_figures(c)
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
