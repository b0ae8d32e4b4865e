"""``nines tune-rules``: search rule options toward a game you want (:mod:`nines_sim.runs.tune_rules`), validated.

The rules lab's command: each trial a rule set, measured by the design lineups of :mod:`nines_sim.runs.design`
(skill, seat fairness, length, comebacks) on the same matches; the best rules (or the Pareto front) validated
on fresh matches and written as ``best-rules.json``, playable anywhere as ``--rules @FILE``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from nines_sim.cli.app import usage_error
from nines_sim.cli.common import build_rules, check_design, cluster, cpu_count_default, players_wanted
from nines_sim.cli.options import SchedulerOpt, SkilledOpt, WeakOpt, WorkersOpt

if TYPE_CHECKING:
    import pandas as pd

    from nines_sim.runs.tune_rules import RulesSetup


def tune_rules(
    space: Annotated[
        list[str] | None,
        typer.Option(
            "--space",
            help="An option to search and its bounds: nine_penalty=0..60, draw_rule=one,until-playable, "
            "hand_sizes=7,7,7,5,5|6,6,6,5,5, or a switch's name (skip_reverse). Repeatable.",
        ),
    ] = None,
    maximize: Annotated[
        list[str] | None,
        typer.Option("--maximize", help="A measure to maximise: skill, skill-heads-up, comeback-1, lead-changes, ..."),
    ] = None,
    minimize: Annotated[
        list[str] | None,
        typer.Option("--minimize", help="A measure to minimise: seat-unfairness, hands, turns-per-hand, spread, ..."),
    ] = None,
    target: Annotated[
        list[str] | None, typer.Option("--target", help="Bring a measure to a value: hands=6 (repeatable).")
    ] = None,
    require: Annotated[
        list[str] | None, typer.Option("--require", help='A constraint: "hands<=8" (<=, >=, <, >; repeatable).')
    ] = None,
    players: Annotated[int | None, typer.Option("--players", "-p", help="Players at the table (2-6).")] = None,
    rules: Annotated[str, typer.Option("--rules", help="The base rule set, whose values are trial 0.")] = "classic",
    rule: Annotated[list[str] | None, typer.Option("--rule", help="Override one base option, key=value.")] = None,
    skilled: SkilledOpt = "expert",
    weak: WeakOpt = "random",
    fair: Annotated[
        str | None, typer.Option("--fair", help="The strategy in every seat for fairness and length (--skilled).")
    ] = None,
    trials: Annotated[
        int,
        typer.Option(
            "--trials",
            help="Finished trials the study should hold: a resumed study counts its own, and processes sharing "
            "a study stop together at exactly N (a failed trial is not counted).",
        ),
    ] = 40,
    matches: Annotated[
        int, typer.Option("--matches", "-n", help="Matches per design lineup per trial (the same in every trial).")
    ] = 4_000,
    validate: Annotated[
        int, typer.Option("--validate", help="Fresh matches for the best rules (or the front) and the base (0: skip).")
    ] = 40_000,
    validate_front: Annotated[
        int, typer.Option("--validate-front", help="At most this many rule sets of a Pareto front are validated.")
    ] = 5,
    seed: Annotated[int, typer.Option("--seed", min=0, max=2**64 - 1, help="Seed of the run.")] = 0,
    storage: Annotated[
        str | None,
        typer.Option(
            "--storage",
            help="Optuna storage: sqlite:///PATH (default: study.db in the run folder), or journal:PATH (or "
            "PATH.log), Optuna's journal file, which its documentation recommends for several processes.",
        ),
    ] = None,
    study: Annotated[str | None, typer.Option("--study", help="Study name (default: from the search).")] = None,
    workers: WorkersOpt = None,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, help="Games in play at once per process.")] = 32768,
    scheduler: SchedulerOpt = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", help="Run folder (default: reports/tune-rules-STUDY; the same command resumes)."
        ),  # fmt: skip
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite nines-sim's files in --out.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Search rule options toward a game you want, with Optuna; then validate on fresh matches.

    Each trial is a rule set (the base with the --space options set) and plays the design lineups its
    objectives need over the same matches as every other trial. One objective: TPE; several: NSGA-II and
    the Pareto front. The study lives in SQLite or a journal file: Ctrl-C keeps finished trials and the
    same command resumes. Several processes on one --storage and --study share the study: together they
    run --trials trials, the base rules once. With --scheduler the matches play on a Dask cluster.
    Writes trials.csv, front.csv, validation.csv, charts, report.md and best-rules.json (play it
    anywhere: --rules @best-rules.json).
    """
    from nines_sim.game.rules import rule_set_file
    from nines_sim.runs.design import DesignSetup
    from nines_sim.runs.tune import TuneError
    from nines_sim.runs.tune_rules import RulesSetup, parse_goals, parse_space

    for flag, v in (("--trials", trials), ("--matches", matches)):
        if v < 1:
            raise usage_error(f"{flag} must be at least 1, not {v}")
    if validate < 0 or validate_front < 1:
        raise usage_error("--validate must be 0 (skip) or more, and --validate-front at least 1")
    if scheduler is not None and not scheduler.strip():
        raise usage_error("--scheduler needs an address such as tcp://HOST:8786, or local")
    players = players_wanted(players, rule)[0] or 4
    rule_list = [x for x in rule or [] if not x.replace(" ", "").startswith("players=")]
    base = build_rules(rules, rule_list, players)
    check_design(skilled, fair or weak)
    try:
        objectives, constraints = parse_goals(maximize or [], minimize or [], target or [], require or [])
        dims = parse_space(space or [])
        spec = rule_set_file(rules[1:]) if rules.startswith("@") else rules
        if rule_list:
            spec += ("," if ":" in spec else ":") + ",".join(x.replace(" ", "") for x in rule_list)
    except TuneError as exc:
        raise usage_error(str(exc)) from None
    setup = RulesSetup(base, spec, matches, seed, dims, objectives, constraints, DesignSetup(skilled, weak, fair))
    name = study or setup.default_study_name()
    run_dir = out or Path("reports") / f"tune-rules-{name}"
    url = storage or f"sqlite:///{run_dir / 'study.db'}"
    _check_target(url, storage is not None, run_dir, force, name)
    words = [f"--space={d}" for d in space or []] + [f"--maximize={m}" for m in maximize or []]
    words += [f"--minimize={m}" for m in minimize or []] + [f"--target={t}" for t in target or []]
    words += [f"--require={r}" for r in require or []]
    from nines_sim.runs.runfolder import canonical_command

    command = canonical_command(
        "tune-rules", words,
        {"--players": players, "--rules": rules, "--skilled": skilled, "--weak": weak, "--fair": fair,
         "--trials": trials, "--matches": matches, "--validate": validate, "--seed": seed, "--study": name,
         "--storage": storage, "--out": str(run_dir)},
        rule_list,
    )  # fmt: skip
    n_workers = workers or cpu_count_default()
    with cluster(scheduler, n_workers) as client:  # None: local processes
        _run(setup, url, name, run_dir, trials, validate, validate_front, n_workers, batch_size, client, quiet,
             command)  # fmt: skip


def _check_target(url: str, explicit: bool, run_dir: Path, force: bool, name: str) -> None:
    """Usage errors before anything is written: a storage that is not SQLite or a journal, or cannot be, and a
    run folder holding another run's files."""
    from contextlib import nullcontext

    from nines_sim.runs.tune import TuneError, storage_file, storage_lock

    try:
        db = storage_file(url)[1]
    except TuneError as exc:
        raise usage_error(str(exc)) from None
    missing_folder = explicit and not db.exists() and not db.parent.is_dir()
    if (db.exists() and not db.is_file()) or missing_folder:
        why = f"the folder {db.parent} does not exist" if missing_folder else f"{db} is not a file"
        raise usage_error(f"cannot open the storage {url}: {why}")
    if run_dir.exists() and not run_dir.is_dir():
        raise usage_error(f"{run_dir} exists and is not a folder; choose another --out")
    if not run_dir.is_dir() or force:
        return
    # read under the storage's lock: another process of the same study may be writing the folder
    with storage_lock(url) if db.parent.is_dir() else nullcontext():
        held = [f for f in run_dir.iterdir() if not f.name.startswith(".") and not f.name.endswith(".tune-lock")]
        try:
            ours = not held or json.loads((run_dir / "manifest.json").read_text()).get("study") == name
        except (OSError, ValueError):
            ours = (run_dir / "study.db").is_file()
    if not ours:
        raise usage_error(f"{run_dir} already holds files; choose another --out or add --force to overwrite")


def _run(setup: RulesSetup, url: str, name: str, run_dir: Path, n_trials: int, validate: int, n_front: int,
         workers: int, batch_size: int, client: Any, quiet: bool, command: str) -> None:  # fmt: skip
    import time

    from tqdm import tqdm

    from nines_sim.runs.output import OutputExists, prepare_dir
    from nines_sim.runs.tune import STOPPED_BY_CTRL_C, TuneError, TuneInterrupted, finished, storage_file, storage_lock
    from nines_sim.runs.tune_rules import front, open_rules_study, search, validate_front

    made_dir, made_storage = not run_dir.exists(), not storage_file(url)[1].exists()
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        with storage_lock(url):
            prepare_dir(run_dir, force=True)
        st = open_rules_study(url, name, setup)
    except (TuneError, OutputExists) as exc:
        raise usage_error(str(exc)) from None
    except OSError as exc:
        raise usage_error(f"cannot write to {run_dir} ({exc.strerror or exc}); choose another --out") from None
    t0 = time.perf_counter()
    before = len(finished(st))
    with tqdm(total=n_trials, initial=min(before, n_trials), unit="trial", disable=quiet, desc="trials") as bar:

        def on_wait(done: int) -> None:  # the study's count, other processes' trials included
            bar.n = min(done, n_trials)
            bar.set_postfix_str("waiting for other processes' last trials")

        try:
            ran = search(st, setup, n_trials, workers, batch_size, on_trial=lambda t: bar.update(1), client=client,
                         storage=url, on_wait=on_wait)  # fmt: skip
        except TuneError as exc:  # every rule set proposed was impossible: nothing of this run is kept
            bar.close()
            _discard(url, name, run_dir, made_dir, made_storage)
            raise usage_error(str(exc)) from None
        except TuneInterrupted:
            bar.close()
            typer.echo(f"Interrupted: {len(finished(st))} finished trials are kept in {url} (the one running is "
                       f"marked failed, '{STOPPED_BY_CTRL_C}'); run the same command to resume.", err=True)  # fmt: skip
            raise typer.Exit(code=130) from None
    wall = time.perf_counter() - t0
    chosen = front(st, setup)
    if len(setup.objectives) > 1:  # the front members best on the first objective are validated
        sign = 1 if setup.objectives[0].direction == "minimize" else -1
        chosen = sorted(chosen, key=lambda t: (sign * t.values[0], t.number))
    checked = None
    if validate and chosen:
        try:
            checked = validate_front(setup, chosen[:n_front], validate, workers, batch_size, client)
        except TuneInterrupted:
            typer.echo(f"Interrupted during validation; the trials are kept in {url}; run the same command to "
                       "resume.", err=True)  # fmt: skip
            raise typer.Exit(code=130) from None
    from nines_sim.reporting.tune_rules import write_folder
    from nines_sim.runs.runfolder import writing

    with writing(), storage_lock(url):
        best = write_folder(run_dir, st, setup, chosen, checked, command, url, name, wall, ran)
    if best is None:
        typer.echo(f"no feasible trial: every finished trial broke a --require; results in {run_dir}")
        return
    typer.echo(_answer(setup, best, checked))
    typer.echo(f"{len(finished(st))} trials ({ran} run now, {wall:.1f} s); best rules in {run_dir / 'best-rules.json'}"
               f" (play them: --rules @{run_dir / 'best-rules.json'})")  # fmt: skip


def _discard(url: str, name: str, run_dir: Path, made_dir: bool, made_storage: bool) -> None:
    """After a usage error found by the search: remove what this run wrote, so that it wrote nothing.

    The study goes when every trial it holds failed (no process finished one); then the storage's file too,
    if this run created it and it holds no other study; and the run folder, if this run created it and it
    holds nothing else.
    """
    import shutil

    import optuna

    from nines_sim.runs.tune import _storage, storage_file, storage_lock

    _, db = storage_file(url)
    with storage_lock(url):
        st = _storage(url)
        study = optuna.load_study(study_name=name, storage=st)
        if any(t.state.name != "FAIL" for t in study.get_trials(deepcopy=False)):
            return  # another process's trials: the study is theirs too
        optuna.delete_study(study_name=name, storage=st)
        others = optuna.study.get_all_study_summaries(st, include_best_trial=False)
        if made_storage and not others:
            if hasattr(st, "engine"):  # SQLite: let go of the file before it is removed
                st.engine.dispose()
            db.unlink(missing_ok=True)
    if made_storage:
        Path(f"{db}.tune-lock").unlink(missing_ok=True)
    if made_dir and run_dir.is_dir():
        leftovers = [f for f in run_dir.iterdir() if f.name not in (db.name, f"{db.name}.tune-lock")]
        if not leftovers:
            shutil.rmtree(run_dir, ignore_errors=True)


def _answer(setup: RulesSetup, best: dict[str, Any], checked: pd.DataFrame | None) -> str:
    """One line: the best rule set and what validation says of each objective's measure against the base."""
    line = f"best rules: {best['rule_set']}"
    if checked is None or best["label"] == "base":
        return line + ("" if checked is None else " (the base rules: no trial beat them)")
    parts = []
    for o in setup.objectives:
        row = checked[(checked["rule_set"] == best["label"]) & (checked["measure"] == o.measure)]
        if not len(row) or math.isnan(row["delta"].iloc[0]):
            continue
        r = row.iloc[0]
        sig = "significant" if bool(r["significant"]) else "not significant"
        parts.append(f"{o.measure} {r['value']:.4g} ({r['delta']:+.4g} vs base, 95% CI {r['delta_low']:+.4g} to "
                     f"{r['delta_high']:+.4g}, {sig})")  # fmt: skip
    n = int(checked["matches"].max()) if len(checked) else 0
    return line + (f"; validated on {n:,} fresh matches: " + "; ".join(parts) if parts else "")
