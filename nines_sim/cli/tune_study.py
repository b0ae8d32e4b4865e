"""The study of ``nines tune``: its target checked, its trials run with a progress bar, and ``--versus``."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from nines_sim.cli.app import usage_error
from nines_sim.cli.common import cluster, run_folder, run_or_explain
from nines_sim.runs.runfolder import writing


def tune_versus(setup, versus: str, n: int, workers: int, batch_size: int, scheduler, out, force: bool,  # noqa: ANN001, PLR0913
                command, labels: tuple[str, str]) -> None:  # fmt: skip
    """``nines tune STRATEGY --versus SPEC``: SPEC against STRATEGY at the tuning table, paired, no search.

    Writes ``validation.csv`` (the full specs), ``report.md`` and ``manifest.json`` (``kind: versus``), a
    folder ``nines report`` redraws; prints the answer first, with short labels (``labels``: what was typed).
    """
    from nines_sim.reporting.tune import versus_labels, write_versus_folder
    from nines_sim.runs.tune import Runner, TuneInterrupted, validate
    from nines_sim.strategy.registry import StrategyNotFound, canonical_spec, make_lineup

    try:
        make_lineup([versus])
        spec = canonical_spec(versus)
    except StrategyNotFound as exc:
        raise usage_error(str(exc)) from None
    if n < 1:
        raise usage_error("--versus plays the --validate matches: give --validate 1 or more")
    with run_folder(out, "versus", force) as run_dir:
        with cluster(scheduler, workers) as client:  # None: local processes
            runner = Runner(workers=workers, batch_size=batch_size, client=client)
            try:
                checked = run_or_explain(lambda: validate(setup, spec, n, runner))
            except TuneInterrupted:
                raise KeyboardInterrupt from None  # nothing finished is worth keeping: no result without both sides
        with writing():
            answer = write_versus_folder(run_dir, checked, setup, command(run_dir, spec), versus_labels(*labels))
    typer.echo(answer)
    typer.echo(f"full specs and numbers in {run_dir}")


def check_tune_target(url: str, explicit: bool, name: str, setup, run_dir: Path, force: bool) -> None:  # noqa: ANN001
    """Refuse, before anything is written, a storage that is not SQLite or a journal or cannot be opened, a
    study of that name with another setup, and a run folder that holds something other than this study's files
    (read under the storage's lock: another process of the same study may be writing it)."""
    from contextlib import nullcontext

    from nines_sim.runs.tune import TuneError, open_study, storage_file, storage_lock

    try:
        _, db = storage_file(url)
    except TuneError as exc:
        raise usage_error(str(exc)) from None
    if db.exists() and not db.is_file():
        raise usage_error(f"cannot open the storage {url}: {db} is not a file")
    if explicit and not db.exists() and not db.parent.is_dir():
        raise usage_error(f"cannot open the storage {url}: the folder {db.parent} does not exist")
    if db.is_file():
        try:
            open_study(url, name, setup, create=False)
        except TuneError as exc:
            raise usage_error(str(exc)) from None
    if run_dir.exists() and not run_dir.is_dir():
        raise usage_error(f"{run_dir} exists and is not a folder; choose another --out")
    if not run_dir.is_dir() or force:
        return
    try:
        with storage_lock(url) if db.parent.is_dir() else nullcontext():
            # hidden files and lock files are another process's work in progress, not a run's results
            held = [f for f in run_dir.iterdir() if not f.name.startswith(".") and not f.name.endswith(".tune-lock")]
            ours = not held or (run_dir / "study.db").is_file()
            try:
                ours = ours or json.loads((run_dir / "manifest.json").read_text()).get("study") == name
            except (OSError, ValueError):
                pass
    except TuneError as exc:
        raise usage_error(str(exc)) from None
    if not ours:
        raise usage_error(f"{run_dir} already holds files; choose another --out or add --force to overwrite")


def run_study(setup, url, name, run_dir, n_trials, validate, workers, batch_size, client, quiet, command) -> None:  # noqa: ANN001, PLR0913
    import math
    import time

    from tqdm import tqdm

    from nines_sim.runs.output import OutputExists, prepare_dir
    from nines_sim.runs.tune import (
        STOPPED_BY_CTRL_C,
        Runner,
        TuneError,
        TuneInterrupted,
        finished,
        open_study,
        optimize,
        storage_lock,
        validate_best,
    )

    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        with storage_lock(url):  # processes sharing the study and the folder: one probe at a time
            prepare_dir(run_dir, force=True)
        st = open_study(url, name, setup, create=True)
    except (TuneError, OutputExists) as exc:
        raise usage_error(str(exc)) from None
    except OSError as exc:
        raise usage_error(f"cannot write to {run_dir} ({exc.strerror or exc}); choose another --out") from None
    runner = Runner(workers=workers, batch_size=batch_size, client=client)
    before = len(finished(st))
    t0 = time.perf_counter()
    best = {"v": max((t.value for t in st.trials if t.value is not None and t.state.name == "COMPLETE"),
                     default=-math.inf)}  # fmt: skip

    with tqdm(total=n_trials, initial=min(before, n_trials), unit="trial", disable=quiet, desc="trials") as bar:

        def on_trial(t) -> None:  # noqa: ANN001
            if t.state.name in ("COMPLETE", "PRUNED"):
                bar.update(1)
            if t.state.name == "COMPLETE" and t.value > best["v"]:
                best["v"] = t.value
            bar.set_postfix_str(f"best {best['v']:.4f}" if best["v"] > -math.inf else "")

        def on_wait(done: int) -> None:  # the study's count, other processes' trials included
            bar.n = min(done, n_trials)
            bar.set_postfix_str("waiting for other processes' last trials")

        try:
            ran = optimize(st, setup, n_trials, runner, on_trial, storage=url, on_wait=on_wait)
        except (TuneInterrupted, KeyboardInterrupt):
            bar.close()
            typer.echo(
                f"Interrupted: {len(finished(st))} finished trials are kept in {url} (the one running is marked "
                f"failed, '{STOPPED_BY_CTRL_C}', and not counted); run the same command to resume.",
                err=True,
            )
            raise typer.Exit(code=130) from None
        done = finished(st)
        bar.n = min(len(done), n_trials)
        values = [t.value for t in done if t.state.name == "COMPLETE"]
        bar.set_postfix_str(f"best {max(values):.4f}" if values else "")
    wall = time.perf_counter() - t0
    try:
        checked = run_or_explain(lambda: validate_best(st, setup, validate, runner)) if validate else None
    except TuneInterrupted:
        typer.echo(f"Interrupted during validation; the trials are kept in {url}; run the same command to resume.",
                   err=True)  # fmt: skip
        raise typer.Exit(code=130) from None
    from nines_sim.reporting.tune import write_tune_folder
    from nines_sim.results.rounding import decimal_text

    def pts(x: float) -> str:  # the report's rounding rule for points of win rate
        return decimal_text(x, 2, signed=True, scale=100)

    # processes sharing the study may share the folder: one writes at a time, each file replaced whole
    with writing(), storage_lock(url):
        m = write_tune_folder(run_dir, st, setup, checked, command, url, name, wall, ran, workers)
    if checked is not None and checked.best_spec == checked.baseline_spec:
        typer.echo(f"no trial beat the baseline; its win rate on {checked.matches:,} fresh matches: {checked.best:.4f}")
    elif checked is not None:
        typer.echo(
            f"validated on {checked.matches:,} fresh matches: win rate {checked.baseline:.4f} -> {checked.best:.4f}, "
            f"gain {pts(checked.gain)} points (95% CI {pts(checked.gain_ci[0])} to "
            f"{pts(checked.gain_ci[1])}); in-sample gain {pts(m['in_sample_gain'])} points"
        )
    typer.echo(
        f"{m['trials_finished']} trials ({ran} run by this process, {wall:.1f} s; "
        f"{m['trials_per_minute'] or 0:.2f} trials/min); best {m['best_spec']}; results in {run_dir}"
    )
