"""The luck-adjusted estimates of a run folder (``luck.csv``, ``nines tournament --luck``): a section of
``report.md``.  :func:`add_to_report` is called by :func:`nines_sim.reporting.redraw` after the folder's own
report, and does nothing without ``luck.csv``."""

from __future__ import annotations

import json
from pathlib import Path


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
        lines.append(
            f"| {r['position']} | {r['strategy']} | {r['win_rate']:.4f} | {r['adjusted_win_rate']:.4f} | "
            f"{r['adjusted_ci_low']:.4f} to {r['adjusted_ci_high']:.4f} | {r['variance_ratio']:.3f} "
            f"[{r['variance_ratio_low']:.3f}, {r['variance_ratio_high']:.3f}] | {r['equivalent_matches']:,.0f} "
            f"matches | {r['variance_ratio_deal']:.3f} | {r['variance_ratio_draw']:.3f} | "
            f"{r['variance_ratio_choice']:.3f} | {r['correction_mean']:+.5f} ({r['luck_z']:+.2f}) |"
        )
    worst = float(frame["luck_z"].abs().max()) if len(frame) else 0.0
    check = "within" if worst < 3 else "OUTSIDE"
    lines += [
        "",
        f"Unbiasedness check: the largest |z| of the corrections' mean is {worst:.2f}, {check} 3 standard errors. "
        "The deal, draws and choices columns give the variance ratio with that part's corrections alone.",
        "",
    ]
    return lines


def add_to_report(run_dir: Path | str) -> bool:
    """Append the ``Luck taken out`` section to ``report.md`` if the folder has ``luck.csv``; whether it had."""
    import pandas as pd

    run_dir = Path(run_dir)
    path = run_dir / "luck.csv"
    if not path.is_file():
        return False
    frame = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={"strategy": str})
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    report = run_dir / "report.md"
    text = report.read_text(encoding="utf-8") if report.is_file() else ""
    report.write_text(text.rstrip("\n") + "\n\n" + "\n".join(luck_section(frame, manifest)), encoding="utf-8")
    return True
