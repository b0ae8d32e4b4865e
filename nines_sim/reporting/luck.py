"""The luck-adjusted estimates of a run folder (``luck.csv``, ``nines tournament --luck`` and ``nines compare-rules
--luck``): a section of ``report.md``.  :func:`add_to_report` is called by :func:`nines_sim.reporting.redraw`
after the folder's own report; it says why a run asked for the luck wrote no ``luck.csv``, and does nothing
in a folder of a run that did not ask."""

from __future__ import annotations

import json
import math
from pathlib import Path

from nines_sim.results.rounding import decimal_text

#: Why a run with --luck stopped by Ctrl-C before its matches were all played has no luck.csv.
LUCK_OF_A_WHOLE_RUN = (
    "the run was stopped (Ctrl-C) before every match was played, and --luck adjusts a whole run "
    "(the kept_command plays the kept matches, without it)"
)
#: Why a run with --luck stopped by Ctrl-C while its luck was measured has no luck.csv.
LUCK_STOPPED = "stopped (Ctrl-C) while measuring the luck"


def ratio_text(ratio: float, low: float, high: float, digits: int = 2) -> str:
    """A variance ratio and its interval, or why there is none: where the plain estimate has no spread (every
    match, or every paired shift, the same) the ratio is 0/0."""
    if not math.isfinite(ratio):
        return "n/a (no spread across the matches)"
    return f"{ratio:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def luck_section(frame, manifest: dict) -> list[str]:  # noqa: ANN001 - a pandas DataFrame
    """The report's ``Luck taken out`` section: what was corrected, the table, the unbiasedness check."""
    info = manifest.get("luck", {})
    fit = info.get("fit_matches", {})
    lines = ["## Luck taken out", ""]
    lines += [
        "Each match's luck (AIVAT: at every deal, draw and decision of a seat whose policy is known and random, "
        "the value after it minus its exact mean before it) is taken out of its result; the correction has mean "
        f"zero whatever the value, so the adjusted rate estimates the same thing. Value: {info.get('value', '?')} "
        f"(match indices {fit.get('start', '?')} to {fit.get('end', '?')}, which no run plays), linear in per-card "
        "and per-seat features.",
        "",
        "| seat | strategy | win rate | adjusted | 95% CI | variance ratio [95%] | as narrow as | deal | draws | "
        "choices | corrections' mean (z) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for _, r in frame.iterrows():
        # the rates as the results table rounds them (one rate read 0.7179 there and 0.7178 here)
        plain, adjusted, low, high = (
            decimal_text(r[c], 4) for c in ("win_rate", "adjusted_win_rate", "adjusted_ci_low", "adjusted_ci_high")
        )
        lines.append(
            f"| {r['position']} | {r['strategy']} | {plain} | {adjusted} | {low} to {high} | "
            f"{ratio_text(r['variance_ratio'], r['variance_ratio_low'], r['variance_ratio_high'], 3)} | "
            f"{r['equivalent_matches']:,.0f} matches | {r['variance_ratio_deal']:.3f} | "
            f"{r['variance_ratio_draw']:.3f} | {r['variance_ratio_choice']:.3f} | "
            f"{r['correction_mean']:+.5f} ({r['luck_z']:+.2f}) |"
        )
    lines += [
        "",
        f"{_check(frame)} The deal, draws and choices columns give the variance ratio with that part's corrections "
        "alone.",
        "",
    ]
    return lines


def compare_section(frame, manifest: dict) -> list[str]:  # noqa: ANN001 - a pandas DataFrame
    """A rule comparison's ``Luck taken out`` section: each paired shift plain and adjusted, the check."""
    info = manifest.get("luck", {})
    fit = info.get("fit_matches", {})
    values = "; ".join(str(v) for v in info.get("values", [])) or "?"
    lines = ["## Luck taken out", ""]
    lines += [
        "Each match's luck (AIVAT: at every deal, draw and decision of a seat whose policy is known and random, "
        "the value after it minus its exact mean before it) is taken out of both sides of each paired shift, "
        "each rule set's matches under its own value; the corrections have mean zero whatever the value, so the "
        f"adjusted shift estimates the same thing. Values: {values} (match indices {fit.get('start', '?')} to "
        f"{fit.get('end', '?')}, which no run plays), linear in per-card and per-seat features. The variance "
        "ratio is the plain paired shift's variance over the adjusted one's: how much taking the luck out "
        "narrows the shift beyond what the pairing does (above 1: narrower).",
        "",
        "| rule set | seat | strategy | shift (se) | adjusted shift | 95% CI | variance ratio [95%] | corrections' z |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for _, r in frame.iterrows():
        ratio = ratio_text(r["variance_ratio"], r["variance_ratio_low"], r["variance_ratio_high"], 3)
        lines.append(
            f"| {r['rules']} | {r['position']} | {r['strategy']} | {r['shift']:+.4f} ({r['shift_se']:.4f}) | "
            f"{r['adjusted_shift']:+.4f} | {r['adjusted_ci_low']:+.4f} to {r['adjusted_ci_high']:+.4f} | {ratio} | "
            f"{r['luck_z']:+.2f} |"
        )
    return lines + ["", _check(frame), ""]


def _check(frame) -> str:  # noqa: ANN001 - a pandas DataFrame
    worst = float(frame["luck_z"].abs().max()) if len(frame) else 0.0
    return (f"Unbiasedness check: the largest |z| of the corrections' mean is {worst:.2f}, "
            f"{'within' if worst < 3 else 'OUTSIDE'} 3 standard errors.")  # fmt: skip


def add_to_report(run_dir: Path | str) -> bool:
    """Append the ``Luck taken out`` section to ``report.md``: the luck-adjusted estimates of ``luck.csv`` (a
    tournament's or a rule comparison's), or, for a run with ``--luck`` that wrote none, why; whether it did.
    """
    import pandas as pd

    run_dir = Path(run_dir)
    path = run_dir / "luck.csv"
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    info = manifest.get("luck")
    if path.is_file():
        frame = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={"strategy": str})
        section = compare_section(frame, manifest) if "adjusted_shift" in frame else luck_section(frame, manifest)
    elif isinstance(info, dict) and info.get("computed") is False:
        section = ["## Luck taken out", "", f"Not measured: {info.get('why', 'no reason recorded')}; no luck.csv.", ""]
    else:
        return False
    report = run_dir / "report.md"
    text = report.read_text(encoding="utf-8") if report.is_file() else ""
    report.write_text(text.rstrip("\n") + "\n\n" + "\n".join(section), encoding="utf-8")
    return True
