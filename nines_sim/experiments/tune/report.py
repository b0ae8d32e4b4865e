"""The report of a ``nines tune`` run folder, drawn from its files alone; and the folder's writer.

Reads ``trials.csv``, ``validation.csv``, ``importances.csv``, ``best.json`` and
``manifest.json``; writes ``report.md`` (``write_report``); its charts ``history.png``, ``params.png`` and
``importances.png`` are drawn by :func:`nines_sim.reporting.charts.tune.save_charts`.  ``write_tune_folder``
writes every file of the folder from an Optuna study.  Numbers are formatted
by :mod:`nines_sim.reporting.markdown`, like every other report.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from nines_sim.reporting.markdown import cell, format_p, format_seconds, pct, pp
from nines_sim.runs.output import remove_files, replace_whole

CHART_FILES = ("history.png", "params.png", "importances.png")
TUNE_FILES = (
    "trials.csv",
    "best.json",
    "validation.csv",
    "importances.csv",
    "manifest.json",
    "report.md",
    *CHART_FILES,
)
#: The files of a ``nines tune --versus`` folder: the data, the manifest, the report drawn from them.
VERSUS_FILES = ("validation.csv", "manifest.json", "report.md")
#: Longest spec, as typed, that labels a side of ``--versus`` where a person reads (longer: its role).
LABEL_WIDTH = 32


def _write_text(path: Path, text: str) -> Path:
    return replace_whole(path, lambda tmp: tmp.write_text(text))


def _pts(x: float | None) -> str:
    """A difference of win rates in signed percentage points: ``"+1.23 points"``."""
    return "n/a" if x is None else f"{pp(x)} points"


def write_report(run_dir: Path) -> Path:
    """``report.md``: the answer in words, then the numbers behind it."""
    m = json.loads((run_dir / "manifest.json").read_text())
    best = json.loads((run_dir / "best.json").read_text())
    trials = pd.read_csv(run_dir / "trials.csv")
    s = m["setup"]
    lines = [f"# Tuning `{s['strategy']}`", ""]
    table = f"a {s['players']}-seat table against {', '.join(f'`{o}`' for o in s['opponents'])}"
    lines.append(
        f"{m['trials_finished']} trials of {s['matches']:,} matches each ({m['sampler']} sampler, median pruner), "
        f"{table}, rules `{m['preset']}`; the tuned strategy sat in every seat equally often and every trial "
        f"played the same matches (seed {s['seed']})."
    )
    lines.append("")
    v = pd.read_csv(run_dir / "validation.csv") if (run_dir / "validation.csv").is_file() else None
    ins = m.get("in_sample_gain")
    lines.append("## Answer")
    lines.append("")
    if best["params"] == best["baseline"]:
        lines.append(
            f"No trial beat the baseline: the best of {m['trials_finished']} trials is the baseline itself "
            f"(win rate {pct(best['win_rate_in_sample'])} in the trials' matches"
            + (f", {pct(v.set_index('row').loc['baseline', 'win_rate'])} on {int(v['matches'].iloc[0]):,} fresh "
               f"matches)." if v is not None and len(v) else ").")
            + " Widen the parameters or the bounds, or run more trials."
        )  # fmt: skip
    elif v is not None and len(v):
        g = v.set_index("row")
        gain, lo, hi, p = (g.loc["gain", k] for k in ("win_rate", "low", "high", "p_value"))
        verdict = (
            "The tuned parameters win more often than the baseline"
            if lo > 0
            else "The tuned parameters lose against the baseline"
            if hi < 0
            else "The tuned parameters are not distinguishable from the baseline"
        )
        lines.append(
            f"{verdict}: on {int(g.loc['gain', 'matches']):,} fresh matches (a match range no trial played, "
            f"paired), the win rate goes from {pct(g.loc['baseline', 'win_rate'])} to "
            f"{pct(g.loc['best', 'win_rate'])}, a gain of {_pts(gain)} (95% interval {_pts(lo)} to {_pts(hi)}, "
            f"{format_p(p)}). In the trials' own matches the gain was {_pts(ins)}; the difference is the "
            f"optimism of picking the best of many noisy trials."
        )
    else:
        lines.append(f"Not validated (--validate 0). In-sample gain over the baseline: {_pts(ins)}.")
    lines += ["", "Use the tuned values with `" + f"{s['strategy']}@{run_dir / 'best.json'}" + "`:", ""]
    lines += ["| parameter | baseline | best |", "|---|---|---|"]
    for k, val in best["params"].items():
        lines.append(f"| {k} | {best['baseline'].get(k)} | {cell(str(val))} |")
    lines += ["", "## Trials", ""]
    counts = trials["state"].value_counts().to_dict()
    rate = m.get("trials_per_minute")
    lines.append(", ".join(f"{n} {k}" for k, n in counts.items()) + (f"; {rate:.2f} trials per minute of trial "
                 "time" if rate else "") + f"; this run took {format_seconds(m['wall_seconds'])}.")  # fmt: skip
    failed = trials[trials["state"] == "fail"]
    if len(failed):
        notes = failed["note"].fillna("") if "note" in failed else pd.Series("", index=failed.index)
        why = "; ".join(f"trial {t}: {n or 'no reason recorded'}" for t, n in zip(failed["trial"], notes))
        lines.append("")
        lines.append(
            f"Failed trials do not count towards --trials ({why}). A trial stopped by Ctrl-C, or whose process "
            "ended, is played again first when the study resumes."
        )
    top = trials[trials["state"] == "complete"].sort_values("win_rate", ascending=False).head(5)
    cols = [c for c in trials.columns if c not in ("state", "win_rate_low", "win_rate_high", "seconds", "note")]
    lines += ["", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in top.itertuples(index=False):
        d = r._asdict()
        lines.append("| " + " | ".join(f"{d[c]:.4g}" if isinstance(d[c], float) else str(d[c]) for c in cols) + " |")
    for f, title in (("history.png", "Optimisation history"), ("params.png", "Parameters against win rate"),
                     ("importances.png", "Parameter importances")):  # fmt: skip
        if (run_dir / f).is_file():
            lines += ["", f"![{title}]({f})"]
    lines += ["", "## Reproduce", "", "```", m["command"], "```", ""]
    return _write_text(run_dir / "report.md", "\n".join(lines))


def write_tune_folder(
    run_dir: Path,
    study,  # noqa: ANN001 - an optuna.Study
    setup,  # noqa: ANN001 - a nines_sim.experiments.tune.work.Setup
    checked,  # noqa: ANN001 - a nines_sim.experiments.tune.work.Validation or None
    command: str,
    storage: str,
    study_name: str,
    wall_seconds: float,
    trials_run: int,
    workers: int,
    charts: bool = True,
) -> dict:
    """Write every file of a tune run folder from the study; returns the manifest.

    Files: ``trials.csv``, ``best.json`` (usable as ``STRATEGY@best.json``),
    ``validation.csv`` (when validated), ``importances.csv``, ``manifest.json``,
    the charts (unless ``charts`` is False: then none, an earlier run's removed) and ``report.md``.
    """
    import platform
    from datetime import UTC, datetime

    import optuna

    from nines_sim import __version__
    from nines_sim.experiments.study import finished
    from nines_sim.experiments.tune import work as T
    from nines_sim.runs.output import write_csv, write_manifest

    def csv(df: pd.DataFrame, name: str) -> None:
        replace_whole(run_dir / name, lambda tmp: write_csv(df, tmp))

    # each file is replaced whole, none removed first: another process may be reading the folder
    trials = T.trials_of(study, setup)
    csv(trials, "trials.csv")
    values, best = T.best_values(study, setup)
    base_trial = T.baseline_trial(study, setup)
    in_sample = best.value - base_trial.value if base_trial is not None else math.nan
    baseline = setup.baseline_values()
    best_json = {
        "strategy": setup.strategy, "params": values, "baseline": baseline, "trial": best.number,
        "win_rate_in_sample": best.value, "matches": setup.matches, "study": study_name,
        "validated_gain": checked.gain if checked else None,
        "validated_gain_ci": list(checked.gain_ci) if checked else None,
    }  # fmt: skip
    _write_text(run_dir / "best.json", json.dumps(best_json, indent=2) + "\n")
    if checked is not None:
        csv(checked.frame(), "validation.csv")
    else:
        (run_dir / "validation.csv").unlink(missing_ok=True)  # a previous run's, of another best
    csv(T.importances(study, setup), "importances.csv")
    n_done = len(finished(study))
    spent = float(trials.loc[trials["state"].isin(["complete", "pruned"]), "seconds"].sum())
    manifest = {
        "tool": "tune", "command": command, "version": __version__, "study": study_name, "storage": storage,
        "setup": setup.as_json(), "preset": setup.rules.preset, "sampler": T.sampler_name(study.sampler),
        "pruner": "median, from the second seat rotation of a trial and the sixth trial on",
        "trials_finished": n_done, "trials_run": trials_run, "best_trial": best.number,
        "best_spec": setup.spec(values), "baseline_spec": setup.baseline_spec,
        "in_sample_gain": in_sample, "validate": checked.matches if checked else 0,
        "validation_match_range": list(checked.match_range) if checked else None,
        "trial_match_range": [0, setup.per_rotation],
        "workers": workers, "wall_seconds": round(wall_seconds, 3),
        # from the trials' own times, so that a resumed run (or one that only validates) still says it
        "trials_per_minute": round(60 * n_done / spent, 3) if spent > 0 else None,
        "finished": datetime.now(UTC).isoformat(timespec="seconds"), "python": platform.python_version(),
        "optuna": optuna.__version__,
    }  # fmt: skip
    manifest |= seats_learned_files(setup, [setup.spec(values), setup.baseline_spec])
    data_files = ["trials.csv", "best.json", *(["validation.csv"] if checked is not None else []), "importances.csv"]
    write_manifest(run_dir, manifest, files=data_files)  # written whole, last: readers see a complete folder
    if charts:
        from nines_sim.reporting.charts.tune import save_charts  # matplotlib loads only when something is drawn

        save_charts(run_dir)
    else:  # a resumed study's earlier charts show fewer trials than the folder now holds: the report embeds none
        remove_files(run_dir, CHART_FILES)
    write_report(run_dir)
    return manifest


def seats_learned_files(setup, specs: list[str]) -> dict:  # noqa: ANN001 - a TuneSetup
    """The manifest's learned files (:mod:`nines_sim.runs.learned_files`) of ``specs`` and the setup's
    opponents: ``{}`` where none loads one."""
    from nines_sim.runs.learned_files import learned_files, manifest_field

    return manifest_field(learned_files([*specs, *setup.opponents], setup.rules))


# --------------------------------------------------------------------------- tune --versus


def versus_labels(versus: str, strategy: str) -> tuple[str, str]:
    """What a person reads for the two sides of ``--versus``: each spec as typed when it has at most
    :data:`LABEL_WIDTH` characters (``expert@classic.json``), else its role (the full specs are in
    ``validation.csv`` and ``manifest.json``)."""
    a = versus if len(versus) <= LABEL_WIDTH else "the --versus spec"
    b = strategy if len(strategy) <= LABEL_WIDTH and strategy != versus else "the tuned strategy's baseline"
    return a, b


def versus_answer(validation: pd.DataFrame, labels: tuple[str, str]) -> str:
    """The answer of a ``--versus`` run in one sentence, from ``validation.csv`` (rows versus, strategy,
    difference): which side wins more often, by how many points, with the 95% interval and p-value."""
    g = validation.set_index("row")
    gain, lo, hi, p = (float(g.loc["difference", k]) for k in ("win_rate", "low", "high", "p_value"))
    a, b = labels
    verdict = (
        f"{a} wins more often than {b}"
        if lo > 0
        else f"{a} wins less often than {b}"
        if hi < 0
        else f"{a} and {b} are not distinguishable"
    )
    return (
        f"{verdict}: {_pts(gain)} of win rate (95% interval {pp(lo)} to {pp(hi)}, {format_p(p)}); "
        f"{pct(g.loc['versus', 'win_rate'])} against {pct(g.loc['strategy', 'win_rate'])} on "
        f"{int(g.loc['difference', 'matches']):,} fresh matches, paired."
    )


def write_versus_report(run_dir: Path) -> Path:
    """``report.md`` of a ``--versus`` folder, from ``validation.csv`` and ``manifest.json`` alone."""
    m = json.loads((run_dir / "manifest.json").read_text())
    v = pd.read_csv(run_dir / "validation.csv")
    s, labels = m["setup"], (m["labels"]["versus"], m["labels"]["strategy"])
    lines = [f"# `{labels[0]}` against `{labels[1]}`", "", "## Answer", "", versus_answer(v, labels), ""]
    lines.append(
        f"Both played the same {m['matches']:,} matches (the same deals in every seat rotation, from match "
        f"index {m['match_range'][0]:,} on, a range no tuning trial plays) at a {s['players']}-seat table against "
        f"{', '.join(f'`{o}`' for o in s['opponents'])}, rules `{s['rules']['preset']}`, seed {s['seed']}; "
        f"each sat in every seat equally often. The full specs are in `validation.csv` and `manifest.json`."
    )
    lines += ["", "| side | win rate | 95% interval |", "|---|---|---|"]
    for row, label in (("versus", labels[0]), ("strategy", labels[1])):
        r = v.set_index("row").loc[row]
        lines.append(f"| `{label}` | {pct(r['win_rate'])} | {pct(r['low'])} to {pct(r['high'])} |")
    lines += ["", "## Reproduce", "", "```", m["command"], "```", ""]
    return _write_text(run_dir / "report.md", "\n".join(lines))


def write_versus_folder(run_dir: Path, checked, setup, command: str, labels: tuple[str, str]) -> str:  # noqa: ANN001
    """Write a ``--versus`` folder (:data:`VERSUS_FILES`) from its validation; returns the answer sentence.

    ``validation.csv`` holds the rows ``versus``, ``strategy`` and ``difference`` with the full specs;
    ``manifest.json`` (``tool: tune``, ``kind: versus``) the command, setup, specs, labels and match range.
    """
    from nines_sim.runs.output import write_csv, write_manifest

    frame = checked.frame().assign(row=lambda f: f["row"].map({"best": "versus", "baseline": "strategy",
                                                                "gain": "difference"}))  # fmt: skip
    frame.loc[frame["row"] == "difference", "spec"] = "versus - strategy (paired)"
    replace_whole(run_dir / "validation.csv", lambda tmp: write_csv(frame, tmp))
    write_manifest(run_dir, {"tool": "tune", "kind": "versus", "command": command, "setup": setup.as_json(),
                             "versus": checked.best_spec, "baseline": setup.baseline_spec,
                             "labels": {"versus": labels[0], "strategy": labels[1]}, "matches": checked.matches,
                             "match_range": list(checked.match_range),
                             **seats_learned_files(setup, [checked.best_spec, setup.baseline_spec])},
                   files=["validation.csv"])  # fmt: skip
    write_versus_report(run_dir)
    return versus_answer(frame, labels)
