"""Print the markdown tables of reports/lookahead-measurements.md from the run folders under reports/lookahead/."""

import re
import sys
from pathlib import Path

import pandas as pd
from statsmodels.stats.proportion import proportion_confint

root = Path(sys.argv[1] if len(sys.argv) > 1 else "reports/lookahead")
times = {}
for line in (root / "times.log").read_text().splitlines():
    m = re.match(r"\S+ end (\S+) rc=(\d+) wall (\d+) s; load (.*)", line)
    if m:
        times[m[1]] = (int(m[2]), int(m[3]), m[4])


def ci(w: float, n: int) -> str:
    lo, hi = proportion_confint(w, n, method="wilson")
    return f"{w / n:.3f} [{lo:.3f}, {hi:.3f}]"


print(
    "| run | matches | lookahead | expert | wall time (s) | wall s per match (2 workers) "
    "| load average at the end (1, 5, 15 min) |"
)
print("|---|---:|---|---|---:|---:|---|")
for name in ("classic-2000", "hard-nines-2000"):
    f = root / name / "summary.csv"
    if not f.exists():
        print(f"| {name} | unfinished | | | | | |")
        continue
    s = pd.read_csv(f).set_index("strategy")
    n = int(s["matches"].iloc[0])
    rc, wall, load = times.get(name, (None, float("nan"), ""))
    print(
        f"| {name} | {n} | {ci(s.loc['lookahead', 'wins'], n)} | {ci(s.loc['expert', 'wins'], n)} | {wall} "
        f"| {wall / n:.3f} | {load} |"
    )
seat_files = [root / f"4seat-{i}" / "summary.csv" for i in range(4)]
parts = [pd.read_csv(f) for f in seat_files if f.exists()]
if parts:
    a = pd.concat(parts).groupby("strategy")[["wins", "matches"]].sum().sort_values("wins", ascending=False)
    walls = [times[f"4seat-{i}"][1] for i in range(4) if f"4seat-{i}" in times]
    print(
        f"\n4 seats, classic, {len(parts)} run(s) with lookahead in a different seat each, "
        f"{int(a['matches'].iloc[0])} matches, wall {sum(walls)} s:\n"
    )
    print("| strategy | wins | win rate [95% Wilson] |")
    print("|---|---:|---|")
    for strat, row in a.iterrows():
        print(f"| {strat} | {row['wins']:g} | {ci(row['wins'], int(row['matches']))} |")
