"""``nines tune-rules``: search rule options toward a game you want (:mod:`nines_sim.experiments.tune_rules.work`),
validated.

The rules lab's command: each trial a rule set, measured by the design lineups of
:mod:`nines_sim.experiments.design.work`
(skill, seat fairness, length, comebacks) on the same matches; the best rules (or the Pareto front) validated
on fresh matches and written as ``best-rules.json``, playable by any command at the table size searched as
``--rules @FILE``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from nines_sim.cli.app import usage_error
from nines_sim.cli.common import (
    build_rules,
    check_blank,
    check_design,
    compile_notices,
    cpu_count_default,
    players_wanted,
    run_errors,
)
from nines_sim.cli.options import (
    NoChartsOpt,
    SchedulerOpt,
    SkilledOpt,
    WeakOpt,
    WorkersOpt,
    at_most_max_matches,
    out_option,
)

if TYPE_CHECKING:
    from nines_sim.experiments.tune_rules.work import RulesSetup


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
    rules: Annotated[
        str,
        typer.Option(
            "--rules",
            help="The base rule set. Trial 0 plays its values of the searched options if each is within --space; "
            "if one is outside, no trial plays the base (the validation still compares the best with it).",
        ),
    ] = "classic",
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
        int,
        typer.Option(
            "--matches",
            "-n",
            callback=at_most_max_matches,
            help="Matches per design lineup per trial (the same in every trial).",
        ),
    ] = 4_000,
    validate: Annotated[
        int,
        typer.Option(
            "--validate",
            callback=at_most_max_matches,
            help="Fresh matches for the best rules (or the front) and the base (0: skip).",
        ),
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
        str | None, out_option("Run folder (default: reports/tune-rules-STUDY; the same command resumes).")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite nines-sim's files in --out.")] = False,
    no_charts: NoChartsOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Search rule options toward a game you want, with Optuna; then validate on fresh matches.

    Each trial is a rule set (the base with the --space options set) and plays the design lineups its
    objectives need over the same matches as every other trial. One objective: TPE; several: NSGA-II and
    the Pareto front. The study lives in SQLite or a journal file: Ctrl-C keeps finished trials and the
    same command resumes. Several processes on one --storage and --study share the study: together they
    run --trials trials, the base rules once. With --scheduler the matches play on a Dask cluster.
    Writes trials.csv, front.csv, validation.csv, charts, report.md and best-rules.json (play it
    with any command at the same --players: --rules @best-rules.json).
    """
    from nines_sim.experiments.design.work import DesignSetup
    from nines_sim.experiments.study import TuneError, study_target
    from nines_sim.experiments.tune_rules.space import parse_goals, parse_space, rules_command
    from nines_sim.experiments.tune_rules.work import RulesSetup
    from nines_sim.game.rules import resolve_rule_set

    for flag, v in (("--trials", trials), ("--matches", matches)):
        if v < 1:
            raise usage_error(f"{flag} must be at least 1, not {v}")
    if validate < 0 or validate_front < 1:
        raise usage_error("--validate must be 0 (skip) or more, and --validate-front at least 1")
    if scheduler is not None and not scheduler.strip():
        raise usage_error("--scheduler needs an address such as tcp://HOST:8786, or local")
    check_blank(study=study, storage=storage, out=out)
    players = players_wanted(players, rule)[0] or 4
    rule_list = [x for x in rule or [] if not x.replace(" ", "").startswith("players=")]
    base = build_rules(rules, rule_list, players)
    check_design(skilled, fair or weak)
    played = resolve_rule_set(rules)  # a @FILE as the rule set it holds, for the setup and the command
    try:
        objectives, constraints = parse_goals(maximize or [], minimize or [], target or [], require or [])
        dims = parse_space(space or [])
        spec = played
        if rule_list:
            spec += ("," if ":" in spec else ":") + ",".join(x.replace(" ", "") for x in rule_list)
    except TuneError as exc:
        raise usage_error(str(exc)) from None
    setup = RulesSetup(base, spec, matches, seed, dims, objectives, constraints, DesignSetup(skilled, weak, fair))
    name, run_dir, url = study_target("tune-rules", setup.default_study_name(), study, storage, out)
    _check_target(url, storage is not None, name, run_dir, force)
    given = {"--space": space, "--maximize": maximize, "--minimize": minimize, "--target": target, "--require": require}
    command = rules_command(
        given,
        {"--players": players, "--rules": played, "--skilled": skilled, "--weak": weak, "--fair": fair,
         "--trials": trials, "--matches": matches, "--validate": validate, "--seed": seed, "--study": name,
         "--storage": storage, "--out": str(run_dir)},
        rule_list,
    )  # fmt: skip
    n_workers = workers or cpu_count_default()
    _run(setup, url, name, run_dir, trials, validate, validate_front, n_workers, batch_size, scheduler, quiet, command,
         not no_charts)  # fmt: skip


def _check_target(url: str, explicit: bool, name: str, run_dir: Path, force: bool) -> None:
    """:func:`nines_sim.experiments.study_folder.check_target`, its refusal a usage error (one line, exit 2); the
    study's own setup is checked as it opens."""
    from nines_sim.experiments.study import TuneError
    from nines_sim.experiments.study_folder import check_target

    try:
        check_target(url, explicit, name, None, run_dir, force)
    except TuneError as exc:
        raise usage_error(str(exc)) from None


def _run(setup: RulesSetup, url: str, name: str, run_dir: Path, n_trials: int, validate: int, n_front: int,
         workers: int, batch_size: int, scheduler: str | None, quiet: bool, command: str,
         charts: bool) -> None:  # fmt: skip
    """:func:`nines_sim.experiments.tune_rules.study.run_rules_study`, then its summary; its errors as the CLI says
    them."""
    from nines_sim.experiments.study import TuneError, TuneInterrupted
    from nines_sim.experiments.tune_rules.study import run_rules_study

    try:
        with run_errors(), compile_notices(True if quiet else None):
            outcome = run_rules_study(setup, url, name, run_dir, n_trials, validate, n_front, workers, command,
                                      batch_size, scheduler, quiet, charts)  # fmt: skip
    except TuneError as exc:  # every rule set proposed was impossible (what the run wrote is gone)
        raise usage_error(str(exc)) from None
    except TuneInterrupted as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(code=130) from None
    for line in outcome.summary():
        typer.echo(line)
