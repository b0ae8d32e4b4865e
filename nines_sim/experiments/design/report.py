"""The game-design measures of a run folder (``design.csv``): a chart and a section of ``report.md`` in words.

Written by ``nines compare-rules --design N`` and ``nines tune-rules``; :func:`add_to_report` is called by
:func:`nines_sim.reporting.redraw` after a folder's own report, and does nothing without ``design.csv``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

from nines_sim.experiments.design.work import WORDS

if TYPE_CHECKING:
    import matplotlib.pyplot as plt
    import pandas as pd

#: Panels of ``design.png``, in order.
PANELS = ("skill_table", "skill_heads_up", "seat_unfairness", "hands", "turns", "turns_per_hand", "lead_changes",
          "comeback_1")  # fmt: skip
RATES = {"skill_table", "skill_heads_up", "seat_unfairness"}
CHART = "design.png"


def words(measure: str) -> tuple[str, str]:
    """A measure's name in words and its unit."""
    if measure in WORDS:
        return WORDS[measure]
    if measure.startswith("comeback_"):
        return f"leader after hand {measure.split('_')[1]} does not win", "chance"
    if measure.startswith("seat_"):
        return f"seat {measure.split('_')[1]} left of the first dealer, above the fair share", "points of win rate"
    return WORDS.get(measure, (measure, ""))


def amount(measure: str, x: float, signed: bool = False) -> str:
    """A value in the measure's unit: rates in points (hundredths), others with two decimals."""
    if math.isnan(x):
        return "n/a"
    v = 100 * x if measure in RATES or measure.startswith("seat_") else x  # points of win rate
    if v != 0 and abs(v) < 0.05:  # a rare event (capped hands): two significant digits, not 0.00
        return f"{v:+.2g}" if signed else f"{v:.2g}"
    return f"{v:+.2f}" if signed else f"{v:.2f}"


def plot_design(frame: pd.DataFrame, ax: plt.Axes | None = None) -> plt.Figure:
    """One panel per measure of :data:`PANELS`: each rule set's value and 95% interval (rates in points)."""
    import matplotlib.pyplot as plt

    shown = [m for m in PANELS if (frame["measure"] == m).any()]
    cols = min(4, max(1, len(shown)))
    rows = max(1, math.ceil(len(shown) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 0.5 + 0.35 * frame["rule_set"].nunique() * rows + 1.2))
    flat = list(getattr(axes, "flat", [axes]))
    order = list(dict.fromkeys(frame["rule_set"]))
    for a, m in zip(flat, shown):
        sub = frame[frame["measure"] == m].set_index("rule_set").reindex(order)
        scale = 100 if m in RATES or m.startswith("seat_") else 1
        y = range(len(order))
        v, lo, hi = (sub[c].to_numpy(dtype=float) * scale for c in ("value", "low", "high"))
        a.errorbar(v, y, xerr=[v - lo, hi - v], fmt="o", capsize=3)
        a.set_yticks(list(y), order if a is flat[0] or len(order) < 2 else [""] * len(order), fontsize=8)
        a.invert_yaxis()
        name, unit = words(m)
        a.set_title(name, fontsize=9)
        a.set_xlabel(unit, fontsize=8)
        if m in RATES:
            a.axvline(0, color="grey", lw=0.8)
    for a in flat[len(shown) :]:
        a.set_visible(False)
    fig.suptitle("Game-design measures (95% intervals)", fontsize=10)
    fig.tight_layout()
    return fig


def _change_sentence(frame: pd.DataFrame, label: str, reference: str) -> str:
    sub = frame[(frame["rule_set"] == label) & frame["delta"].notna()]
    moved = sub[sub["significant"].astype(str).str.lower() == "true"]
    moved = moved[~moved["measure"].str.startswith("seat_") | (moved["measure"] == "seat_unfairness")]
    if not len(sub):
        return f"- **{label}**: not paired with {reference} (no shared measures)."
    if not len(moved):
        return f"- **{label}**: no measure changed significantly from {reference} (p < 0.05, {len(sub)} measures)."
    parts = []
    for _, r in moved.iterrows():
        name, unit = words(r["measure"])
        parts.append(f"{name} {amount(r['measure'], r['delta'], True)} {unit} "
                     f"(95% CI {amount(r['measure'], r['delta_low'], True)} to "
                     f"{amount(r['measure'], r['delta_high'], True)})")  # fmt: skip
    return f"- **{label}** against {reference}: " + "; ".join(parts) + "."


def _separated(first: pd.Series, second: pd.Series, pick: str, reference: str) -> bool:
    """Whether ``first`` is clear of the runner-up ``second`` on its side (``pick``): by the paired 95% interval
    of their difference where one of them is the reference (the pairs ``design.csv`` keeps), else by
    intervals that do not overlap (conservative)."""
    sign = 1 if pick == "max" else -1  # first minus second should be above 0 for max, below for min
    for a, b, s in ((first, second, sign), (second, first, -sign)):
        if b["rule_set"] == reference and not math.isnan(a["delta"]):  # a's change from b, match by match
            return a["delta_low"] > 0 if s > 0 else a["delta_high"] < 0
    return first["low"] > second["high"] if pick == "max" else first["high"] < second["low"]


def _extreme(frame: pd.DataFrame, measure: str, pick: str) -> str | None:
    """The rule set with the largest (``pick="max"``) or smallest value of ``measure`` where it is clear of
    the runner-up (:func:`_separated`); else that they are not separated (None with fewer than two)."""
    sub = frame[frame["measure"] == measure].dropna(subset=["value"])
    if len(sub) < 2:
        return None
    ranked = sub.sort_values("value", ascending=pick != "max", kind="stable")
    first, second = ranked.iloc[0], ranked.iloc[1]
    name, unit = words(measure)
    if _separated(first, second, pick, str(frame["rule_set"].iloc[0])):
        return (f"{first['rule_set']} ({name} {amount(measure, first['value'])} {unit}, 95% CI "
                f"{amount(measure, first['low'])} to {amount(measure, first['high'])})")  # fmt: skip
    return (f"not separated at {int(first['matches']):,} matches ({first['rule_set']} "
            f"{amount(measure, first['value'])}, 95% CI {amount(measure, first['low'])} to "
            f"{amount(measure, first['high'])}; {second['rule_set']} {amount(measure, second['value'])}, "
            f"{amount(measure, second['low'])} to {amount(measure, second['high'])} {unit})")  # fmt: skip


def design_section(frame: pd.DataFrame, charts: bool) -> list[str]:
    """The report's ``Game design`` section: what changed, in words, then the table of every measure."""
    order = list(dict.fromkeys(frame["rule_set"]))
    ref = order[0]
    lines = ["## Game design", ""]
    lines += [
        "Skill: the skilled strategy's win rate above the fair share (heads-up, and one among weak ones at the "
        "table). Seat unfairness: the largest deviation of a seat's win rate from the fair share, identical "
        "strategies in every seat; its interval allows for that seat's being picked as the largest. Length, "
        "comebacks and tension: identical strategies. A rule set is named most or fewest only where it is "
        "clear of the runner-up: the paired interval of their difference excludes 0 where one of them is the "
        "first rule set, else their intervals do not overlap."
        + (
            " Every rule set played the same match indices, so each change is paired match by match (t interval "
            "of the paired difference); p-values are Holm-adjusted together."
            if len(order) > 1
            else ""
        ),
        "",
    ]
    questions = (
        ("Most a game of skill", "skill_table", "max"),
        ("Fairest to every seat", "seat_unfairness", "min"),
        ("Fewest hands per match", "hands", "min"),
        ("Fewest turns per match", "turns", "min"),
        ("Most comebacks", "comeback_1", "max"),
    )
    for q, m, pick in questions:
        if (got := _extreme(frame, m, pick)) is not None:
            lines.append(f"- {q}: {got}.")
    seats = frame[frame["measure"] == "seat_unfairness"]
    if len(seats) and not seats["significant"].astype(str).str.lower().eq("true").any():
        lines.append("- No rule set's seats win significantly unequally (chi-square of the seats' wins, Holm).")
    lines.append("")
    if len(order) > 1:
        lines += ["What changed:", ""]
        lines += [_change_sentence(frame, label, ref) for label in order[1:]]
        lines.append("")
    lines += ["| rule set | measure | value | 95% CI | change vs " + ref + " | Holm p |", "|---|---|---|---|---|---|"]
    for _, r in frame.iterrows():
        m = r["measure"]
        ch = "" if math.isnan(r["delta"]) else (
            f"{amount(m, r['delta'], True)} ({amount(m, r['delta_low'], True)} to {amount(m, r['delta_high'], True)})"
        )  # fmt: skip
        p = "" if math.isnan(r["p_holm"]) else f"{r['p_holm']:.3g}"
        lines.append(f"| {r['rule_set']} | {words(m)[0]} | {amount(m, r['value'])} | "
                     f"{amount(m, r['low'])} to {amount(m, r['high'])} | {ch} | {p} |")  # fmt: skip
    lines.append("")
    if charts:
        lines += [f"![Game-design measures]({CHART})", ""]
    lines += ["Rates are in points of win rate (hundredths); distributions are in `design_distribution.csv`.", ""]
    return lines


def add_to_report(run_dir: Path | str, charts: bool = True) -> bool:
    """Draw ``design.png`` and append the ``Game design`` section to ``report.md`` if the folder has ``design.csv``.

    Returns
    -------
    bool
        Whether the folder had design measures.
    """
    import pandas as pd

    run_dir = Path(run_dir)
    path = run_dir / "design.csv"
    if not path.is_file():
        return False
    frame = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={"rule_set": str})
    if charts and len(frame):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig = plot_design(frame)
        fig.savefig(run_dir / CHART, dpi=110)
        plt.close(fig)
    report = run_dir / "report.md"
    text = report.read_text(encoding="utf-8") if report.is_file() else ""
    section = "\n".join(design_section(frame, charts and (run_dir / CHART).is_file()))
    report.write_text(text.rstrip("\n") + "\n\n" + section, encoding="utf-8")
    return True
