"""``nines tune``: a strategy's parameters tuned with Optuna (the command and its checks)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nines_sim.cli.app import usage_error
from nines_sim.cli.common import build_rules, check_blank, check_learned_digests, cpu_count_default, players_wanted
from nines_sim.cli.options import (
    BatchOpt,
    ForceOpt,
    LearnedDigestsOpt,
    NoChartsOpt,
    PlayersOpt,
    QuietOpt,
    RuleOpt,
    RulesOpt,
    SchedulerOpt,
    SeedOpt,
    WorkersOpt,
    at_most_max_matches,
    out_option,
)
from nines_sim.cli.tune_study import check_tune_target, run_study, tune_versus
from nines_sim.game.rules import resolve_rule_set
from nines_sim.runs.runfolder import without_players


def tune(
    words: Annotated[
        list[str],
        typer.Argument(
            metavar="STRATEGY",
            help="The strategy to tune (a spec; values it carries are the baseline), then, after --opponents, "
            "the opponents clockwise after it: nines tune expert --opponents dump-faces hold-nines suit-majority.",
            show_default=False,
        ),
    ],
    opponents: Annotated[
        list[str] | None,
        typer.Option(
            "--opponents",
            help="Opponent specs, P-1 of them (write them all after one --opponents); "
            "or one that fills every other seat of --players.",
        ),
    ] = None,
    players: PlayersOpt = None,
    rules: RulesOpt = "classic",
    rule: RuleOpt = None,
    params: Annotated[
        str, typer.Option("--params", help="Parameters to tune: p1,p2 or all (see 'nines strategies').")
    ] = "all",
    trials: Annotated[
        int,
        typer.Option(
            "--trials",
            help="Finished (complete or pruned) trials the study should hold: a resumed study counts its own, and "
            "processes sharing a study stop together at exactly N (a failed trial is not counted).",
        ),
    ] = 100,
    matches: Annotated[
        int,
        typer.Option(
            "--matches",
            "-n",
            callback=at_most_max_matches,
            help="Matches per trial (the same ones in every trial); a number that is not a multiple of the seats "
            "is rounded up to one, with a note.",
        ),
    ] = 20_000,
    seed: SeedOpt = 0,
    storage: Annotated[
        str | None,
        typer.Option(
            "--storage",
            help="Optuna storage: sqlite:///PATH (default: study.db in the run folder), or journal:PATH (or "
            "PATH.log), Optuna's journal file, which its documentation recommends for several processes.",
        ),
    ] = None,
    study: Annotated[
        str | None,
        typer.Option("--study", help="Study name (default: strategy, rules, table and a hash of the setup)."),
    ] = None,
    validate: Annotated[
        int,
        typer.Option(
            "--validate",
            callback=at_most_max_matches,
            help="Fresh matches for best vs baseline, paired (0: skip); rounded up to a multiple of the seats, "
            "with a note.",
        ),
    ] = 200_000,
    workers: WorkersOpt = None,
    batch_size: BatchOpt = 32768,
    scheduler: SchedulerOpt = None,
    out: Annotated[
        str | None, out_option("Run folder (default: reports/tune-STUDY; the same command resumes).")
    ] = None,
    force: ForceOpt = False,
    no_charts: NoChartsOpt = False,
    quiet: QuietOpt = False,
    versus: Annotated[
        str | None,
        typer.Option(
            "--versus",
            help="No search: play this spec against STRATEGY on --validate fresh matches, paired "
            "(e.g. a strategy tuned under other rules: expert@classic.json).",
        ),
    ] = None,
    learned_digests: LearnedDigestsOpt = None,
) -> None:
    """Tune a strategy's parameters for the highest win rate at a table, with Optuna; then validate.

    Every trial plays the same --matches matches with the strategy in every seat
    equally often; hopeless trials are pruned after a chunk. The study lives in
    SQLite or an Optuna journal file: Ctrl-C keeps finished trials, and the same
    command resumes. Several processes on one --storage and --study share the
    study: together they run --trials trials, the baseline once, and each waits
    for the others' last trials before validating. The best values and the
    baseline then play --validate fresh matches, paired. With --versus, no
    study: the given spec and STRATEGY play those fresh matches, paired.
    """
    from nines_sim.experiments.study import TuneError, study_target
    from nines_sim.experiments.tune.setup import make_setup, tune_command, versus_command

    strategy, opps = words[0], list(opponents or []) + list(words[1:])
    if not opps:
        raise usage_error("give the opponents: nines tune STRATEGY --opponents A B C")
    if trials < 1:
        raise usage_error(f"--trials must be at least 1, not {trials}")
    if matches < 1:
        raise usage_error(f"--matches must be at least 1, not {matches}")
    if validate < 0:
        raise usage_error(f"--validate must be 0 (skip) or more, not {validate}")
    if scheduler is not None and not scheduler.strip():
        raise usage_error("--scheduler needs an address such as tcp://HOST:8786, or local")
    check_blank(study=study, storage=storage, out=out)
    players = players_wanted(players, rule)[0] or len(opps) + 1
    r = build_rules(rules, without_players(rule), players)
    played = resolve_rule_set(rules)  # a @FILE as the rule set it holds: the command replays what was played
    try:
        setup = make_setup(strategy, opps, r, params, matches, seed)
    except TuneError as exc:
        raise usage_error(str(exc)) from None
    check_learned_digests(learned_digests, [strategy, *opps, *([versus] if versus is not None else [])], r)
    rule_list = without_players(rule)
    for option, asked in (("--matches", matches), ("--validate", validate))[1 if versus is not None else 0 :]:
        if note := rounded_note(option, asked, setup.players):
            typer.echo(note, err=True)
    if versus is not None:

        def command_of(run_dir: Path, spec: str) -> str:
            return versus_command(setup, played, rule_list, seed, validate, run_dir, spec)

        labels = (versus, strategy)
        n_workers = workers or cpu_count_default()
        tune_versus(setup, versus, validate, n_workers, batch_size, scheduler, out, force, command_of, labels)
        return
    name, run_dir, url = study_target("tune", setup.default_study_name(), study, storage, out)
    check_tune_target(url, storage is not None, name, setup, run_dir, force)
    command = tune_command(setup, played, rule_list, trials, seed, validate, name, storage, run_dir)
    n_workers = workers or cpu_count_default()
    run_study(setup, url, name, run_dir, trials, validate, n_workers, batch_size, scheduler, quiet, command,
              charts=not no_charts)  # fmt: skip


def rounded_note(option: str, asked: int, players: int) -> str | None:
    """The line saying that ``asked`` matches are played as the next multiple of the seats (None if it is one).

    Every seat rotation of a tune table plays the same number of matches, so the
    matches of a trial or of the validation are a multiple of ``players``.
    """
    played = -(-asked // players) * players
    if played == asked:
        return None
    below = f"; {played - players:,} is the multiple below" if played > players else ""
    return (
        f"note: {option} {asked:,} is played as {played:,}, the next multiple of the {players} seats "
        f"({played // players:,} match{'es' if played > players else ''} with the strategy in each seat{below})"
    )
