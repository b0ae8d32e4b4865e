"""The run folder of ``nines tune-rules``: tables, charts, ``report.md`` and ``best-rules.json``."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nines_sim.experiments.design.report import words

if TYPE_CHECKING:
    import matplotlib.pyplot as plt
    import pandas as pd

    from nines_sim.experiments.tune_rules.work import RulesSetup

FILES = ["trials.csv", "front.csv", "validation.csv", "best-rules.json"]
#: The charts :func:`save_charts` draws (none without a completed trial).
CHART_FILES = ("front.png", "options.png")
#: Significant digits of a validated value as shown; its interval and shift take the same decimals.
DIGITS = 4


def shown_numbers(row: Any) -> dict[str, str]:
    """A ``validation.csv`` row's numbers as a person reads them, all with the value's decimals.

    Four significant digits of the value fix the decimals of the value, its interval and its shift against
    the base alike (``0.3267``, ``+0.0205``, ``+0.0161 to +0.0250``), so no bound shows more digits than
    the value it brackets; rounded by :func:`nines_sim.results.rounding.decimal_text`.

    Parameters
    ----------
    row : mapping
        ``value``, ``low``, ``high``, ``delta``, ``delta_low`` and ``delta_high`` (floats, the measure's unit).

    Returns
    -------
    dict of str to str
        The same keys, as text; the shifts signed.
    """
    from nines_sim.results.rounding import decimal_text

    v = abs(float(row["value"]))
    decimals = max(0, DIGITS - 1 - math.floor(math.log10(v))) if 0 < v < math.inf else DIGITS
    return {k: decimal_text(float(row[k]), decimals, signed=k.startswith("delta"))
            for k in ("value", "low", "high", "delta", "delta_low", "delta_high")}  # fmt: skip


def front_frame(setup: RulesSetup, chosen: list[Any]) -> pd.DataFrame:
    """``front.csv``: the best trial (one objective) or the Pareto front, each with its rule set written out."""
    import pandas as pd

    from nines_sim.experiments.tune_rules.work import trial_values

    rows = []
    for t in chosen:
        values = trial_values(setup, t)
        row: dict[str, Any] = {"trial": t.number, "rule_set": setup.spec(values)}
        row |= {d.option: t.params[d.option] for d in setup.space}
        row |= {m: t.user_attrs.get(m, math.nan) for m in setup.measures}
        rows.append(row)
    cols = ["trial", "rule_set", *(d.option for d in setup.space), *setup.measures]
    return pd.DataFrame(rows, columns=cols)


def plot_front(trials: pd.DataFrame, front: pd.DataFrame, setup: RulesSetup, ax: plt.Axes | None = None) -> plt.Figure:
    """Two objectives: every feasible trial and the front; one: the objective's measure by trial."""
    import matplotlib.pyplot as plt

    fig, ax = (ax.figure, ax) if ax is not None else plt.subplots(figsize=(6, 4.2))
    ok = trials[trials["state"] == "complete"]
    ms = [o.measure for o in setup.objectives]
    if len(ms) >= 2:
        ax.scatter(ok[ms[0]], ok[ms[1]], s=14, alpha=0.5, label="trials")
        ax.scatter(front[ms[0]], front[ms[1]], s=40, color="C3", label="front")
        ax.set_xlabel(words(ms[0])[0])
        ax.set_ylabel(words(ms[1])[0])
        ax.legend(fontsize=8)
    else:
        ax.plot(ok["trial"], ok[ms[0]], "o", ms=4, alpha=0.7)
        ax.plot(front["trial"], front[ms[0]], "o", ms=8, color="C3", label="best")
        ax.set_xlabel("trial")
        ax.set_ylabel(words(ms[0])[0])
        ax.legend(fontsize=8)
    ax.set_title("Rules search: " + ", ".join(o.label for o in setup.objectives), fontsize=10)
    fig.tight_layout()
    return fig


def plot_options(trials: pd.DataFrame, setup: RulesSetup) -> plt.Figure:
    """Each searched option (columns) against each measure judged (rows), one point per completed trial."""
    import matplotlib.pyplot as plt

    ok = trials[trials["state"] == "complete"]
    opts, ms = [d.option for d in setup.space], setup.measures
    fig, axes = plt.subplots(len(ms), len(opts), figsize=(3.2 * len(opts), 2.6 * len(ms)), squeeze=False)
    for i, m in enumerate(ms):
        for j, o in enumerate(opts):
            a = axes[i][j]
            x = ok[o].astype(str) if ok[o].dtype == object or ok[o].dtype == bool else ok[o]
            a.plot(x, ok[m], "o", ms=4, alpha=0.6)
            a.set_xlabel(o, fontsize=8)
            a.set_ylabel(words(m)[0], fontsize=8)
    fig.tight_layout()
    return fig


def _md_table(df: pd.DataFrame) -> list[str]:
    def cell(v: Any) -> str:
        return f"{v:.4g}" if isinstance(v, float) else str(v)

    lines = ["| " + " | ".join(map(str, df.columns)) + " |", "|" + "---|" * len(df.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return lines


def render_report(setup: RulesSetup, trials: pd.DataFrame, front: pd.DataFrame, checked: pd.DataFrame | None,
                  best: dict | None, manifest: dict, charts: list[str]) -> str:  # fmt: skip
    """``report.md``: the search, the answer in words, the front, the validation, the charts, the command."""
    from nines_sim.experiments.tune_rules.work import worse_than_base

    done = int((trials["state"] == "complete").sum())
    lines = [f"# Rules search from {setup.base_spec} at {setup.base.players} seats", ""]
    lines += [
        f"Objectives: {', '.join(f'{o.kind} {o.label}' for o in setup.objectives)}"
        + (f"; constraints: {', '.join(c.text for c in setup.constraints)}" if setup.constraints else "")
        + f". Searched: {', '.join(d.option for d in setup.space)}. {done} completed trials of {len(trials)}, "
        f"each on the same {setup.matches:,} matches per design lineup (seed {setup.seed}); sampler "
        f"{'TPE' if len(setup.objectives) == 1 else 'NSGA-II (multi-objective)'}.",
        "",
    ]
    if best is None:
        lines += ["No feasible trial: every completed trial broke a constraint.", ""]
    else:
        lines += [f"**Best rules**: `{best['rule_set']}` (trial {best['trial']}; `--rules @best-rules.json`).", ""]
        if worse := worse_than_base(setup, checked, best["label"]):
            lines += [f"**The validation finds these rules significantly worse than the base rules** on "
                      f"{words(worse)[0]}: keep the base rules (`{setup.base_spec}`).", ""]  # fmt: skip
    if checked is not None and len(checked):
        lines += ["## Validation on fresh matches", ""]
        labels = [x for x in dict.fromkeys(checked["rule_set"]) if x != "base"]
        for lab in labels:
            for o in setup.objectives:
                row = checked[(checked["rule_set"] == lab) & (checked["measure"] == o.measure)]
                if not len(row) or math.isnan(row["delta"].iloc[0]):
                    continue
                r = row.iloc[0]
                verdict = "a significant change" if bool(r["significant"]) else "no significant change"
                t = shown_numbers(r)
                lines.append(f"- {lab}: {words(o.measure)[0]} {t['value']} (95% CI {t['low']} to "
                             f"{t['high']}); against the base {t['delta']} (95% CI {t['delta_low']} "
                             f"to {t['delta_high']}, Holm p {r['p_holm']:.3g}): {verdict}.")  # fmt: skip
        if not labels:
            lines.append("- The best rules are the base rules: no trial beat them.")
        lines += ["", *_md_table(checked.drop(columns=["lineup"])), ""]
    lines += ["## " + ("Pareto front" if len(setup.objectives) > 1 else "Best trial"), "", *_md_table(front), ""]
    for c in charts:
        lines += [f"![{c}]({c})", ""]
    lines += ["## Reproduce", "", "```", manifest["command"], "```", ""]
    return "\n".join(lines)


def write_folder(run_dir: Path, study: Any, setup: RulesSetup, chosen: list[Any], checked: pd.DataFrame | None,
                 command: str, url: str, name: str, wall: float, ran: int,
                 charts: bool = True) -> dict | None:  # fmt: skip
    """Write every file of a tune-rules folder; returns ``best-rules.json``'s content (None: no feasible trial).

    Without ``charts``, it draws none and removes an earlier run's (they show fewer trials).
    """
    from nines_sim.experiments.tune_rules.work import trials_of
    from nines_sim.runs.learned_files import manifest_field
    from nines_sim.runs.output import remove_files, write_csv, write_manifest

    trials = trials_of(study, setup)
    front = front_frame(setup, chosen)
    write_csv(trials, run_dir / "trials.csv")
    write_csv(front, run_dir / "front.csv")
    files = ["trials.csv", "front.csv"]
    (run_dir / "validation.csv").unlink(missing_ok=True)
    if checked is not None:
        write_csv(checked, run_dir / "validation.csv")
        files.append("validation.csv")
    best = None
    (run_dir / "best-rules.json").unlink(missing_ok=True)
    if len(front):
        first = front.iloc[0]
        label = f"trial {int(first['trial'])}"
        if checked is None or label not in set(checked["rule_set"]):
            label = "base" if checked is not None else label
        best = {"rule_set": first["rule_set"], "trial": int(first["trial"]), "label": label,
                "players": setup.base.players,
                "objectives": [[o.kind, o.measure, o.value] for o in setup.objectives],
                "in_sample": {m: float(first[m]) for m in setup.measures}}  # fmt: skip
        if checked is not None:
            rows = checked[checked["rule_set"] == label]
            best["validated"] = {r["measure"]: {k: (None if isinstance(r[k], float) and math.isnan(r[k]) else r[k])
                                                for k in ("value", "low", "high", "delta", "delta_low", "delta_high",
                                                          "p_holm")} for _, r in rows.iterrows()}  # fmt: skip
        (run_dir / "best-rules.json").write_text(json.dumps(best, indent=2, default=float) + "\n")
        files.append("best-rules.json")
    drawn = save_charts(run_dir, trials, front, setup) if charts else []
    if not charts:  # the report embeds none, and the folder keeps none that disagrees with its trials.csv
        remove_files(run_dir, CHART_FILES)
    manifest = {"kind": "tune-rules", "command": command, "study": name, "storage": url, "setup": setup.as_json(),
                "trials_finished": int(trials["state"].isin(["complete", "pruned"]).sum()), "trials_run_now": ran,
                "wall_seconds": round(wall, 3), "best_rule_set": best["rule_set"] if best else None}  # fmt: skip
    manifest |= manifest_field(_design_learned_files(setup))
    (run_dir / "report.md").write_text(render_report(setup, trials, front, checked, best, manifest, drawn))
    write_manifest(run_dir, manifest, files=files)
    return best


def save_charts(run_dir: Path, trials: pd.DataFrame, front: pd.DataFrame, setup: RulesSetup) -> list[str]:
    """Draw ``front.png`` and ``options.png`` (none without a completed trial); the names drawn."""
    if not (trials["state"] == "complete").any():
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = []
    for fname, fig in (("front.png", plot_front(trials, front, setup)), ("options.png", plot_options(trials, setup))):
        fig.savefig(run_dir / fname, dpi=100)
        plt.close(fig)
        names.append(fname)
    return names


def redraw_folder(run_dir: Path, charts: bool = True) -> None:
    """``nines report`` of a tune-rules folder: the charts and ``report.md`` from its files and manifest alone."""
    import pandas as pd

    from nines_sim.experiments.tune_rules.work import RulesSetup

    manifest = json.loads((run_dir / "manifest.json").read_text())
    setup = RulesSetup.from_json(manifest["setup"])

    def read(name: str) -> pd.DataFrame | None:
        path = run_dir / name
        return pd.read_csv(path, keep_default_na=False, na_values=[""]) if path.is_file() else None

    trials, front, checked = read("trials.csv"), read("front.csv"), read("validation.csv")
    best_path = run_dir / "best-rules.json"
    best = json.loads(best_path.read_text()) if best_path.is_file() else None
    # without charts, those already in the folder stay linked: drawn from these same files, still right
    if charts:
        drawn = save_charts(run_dir, trials, front, setup)
    else:
        drawn = [c for c in CHART_FILES if (run_dir / c).is_file()]
    (run_dir / "report.md").write_text(render_report(setup, trials, front, checked, best, manifest, drawn))


def _design_learned_files(setup: RulesSetup) -> list[dict[str, str]]:
    """The learned files the design lineups' seats load under the base rules (their table sizes), once each."""
    from nines_sim.runs.learned_files import learned_files

    entries = [e for kind in setup.kinds for e in learned_files(setup.design.lineup(kind, setup.base.players),
                                                                setup.design.rules_for(kind, setup.base))]  # fmt: skip
    return list({tuple(e.values()): e for e in entries}.values())
