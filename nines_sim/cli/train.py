"""``nines train``: learn a model for ``learned`` from the engine's own play, into a run folder."""

from __future__ import annotations

import shlex
import shutil
import sys
from enum import StrEnum
from typing import Annotated, Any

import typer

from nines_sim.cli.app import echo_error, usage_error
from nines_sim.cli.common import cluster, cpu_count_default, players_wanted
from nines_sim.cli.options import NoChartsOpt, OutOpt, RuleOpt, RulesOpt, SchedulerOpt, SeedOpt, WorkersOpt


class Draws(StrEnum):
    """How the label rollouts' sampled worlds read the draws (:data:`nines_sim.learn.collect.LABEL_DRAWS`)."""

    suits = "suits"
    log = "log"


class Targets(StrEnum):
    """What labels the decisions (:data:`nines_sim.learn.collect.TARGETS`)."""

    rollouts = "rollouts"
    returns = "returns"
    mixed = "mixed"


def train(
    rules: RulesOpt = "classic",
    players: Annotated[
        int | None, typer.Option("--players", "-p", help="Players at the table (2-6).  [default: 2, heads-up]")
    ] = None,
    rule: RuleOpt = None,
    seed: SeedOpt = 0,
    rounds: Annotated[int, typer.Option("--rounds", min=1, max=100, help="Rounds of play, labelling and fit.")] = 4,
    matches: Annotated[int, typer.Option("--matches", "-n", min=1, help="Self-play matches per round.")] = 100,
    samples: Annotated[
        int, typer.Option("--samples", min=2, max=1024, help="Sampled worlds per labelled decision.")
    ] = 16,
    epsilon: Annotated[
        float,
        typer.Option(
            "--epsilon",
            min=0.0,
            max=1.0,
            help="Share of card plays and drawn-card decisions made at random (exploration).",
        ),
    ] = 0.1,
    keep: Annotated[int, typer.Option("--keep", min=1, help="Rounds of data each fit uses (the latest).")] = 2,
    hidden: Annotated[
        int,
        typer.Option(
            "--hidden",
            min=0,
            max=64,
            help="Hidden units of the card model, a multiple of 4 (0: linear).",
        ),
    ] = 0,
    pairs: Annotated[
        int,
        typer.Option(
            "--pairs", min=0, max=200, help="Products of two features added to the linear card model (0: none)."
        ),
    ] = 40,
    trees: Annotated[
        int,
        typer.Option(
            "--trees",
            min=0,
            max=64,
            help="Regression trees boosted after the linear card model and its pairs (0: none; rollouts only).",
        ),
    ] = 0,
    depth: Annotated[int, typer.Option("--depth", min=1, max=8, help="Levels of each of the --trees.")] = 4,
    targets: Annotated[
        Targets,
        typer.Option(
            "--targets",
            help="What labels a decision: rollouts of every candidate, the realised returns of the moves made "
            "(the hand's outcome; many more, cheaper labels: give more --matches), or both (mixed).",
        ),
    ] = Targets.rollouts,
    draws: Annotated[
        Draws,
        typer.Option(
            "--draws",
            help="How the label rollouts' sampled worlds read the seats' draws: the suits each drew on, or its "
            "draw log (as lookahead:draws=log samples).",
        ),
    ] = Draws.suits,
    eval_matches: Annotated[
        int,
        typer.Option(
            "--eval-matches",
            min=2,
            help="Matches of each round's measurement (fresh seeds), split evenly over the seats the model takes in "
            "turn: rounded down to a multiple of the table size (2000 at 3 seats: 1998), at least one a seat.",
        ),
    ] = 2000,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
    out: OutOpt = None,
    force: Annotated[bool, typer.Option("--force", help="Write into an --out folder that holds files.")] = False,
    no_charts: NoChartsOpt = False,
) -> None:
    """Learn a model of one seat's decisions (which card, which suit after a 9, whether to play a drawn card) for
    a rule set and table size.

    Round 1 labels self-play positions with rollouts by expert; each later round plays the latest model
    (with --epsilon exploration) and labels its positions with rollouts by that model. Each round refits the
    model (a card scorer with --hidden units, a linear suit scorer) on the last --keep rounds and measures
    it against expert and against the previous round. The self-play and the measurements play on --workers
    processes, or on a Dask cluster with --scheduler; the models and the curve are the same for any of them.
    The folder gets model.npz (play it: nines tournament learned@FOLDER/model.npz expert), the learning curve
    (CSV and chart; --no-charts: no chart), report.md and manifest.json. Ctrl-C keeps the rounds that finished;
    the same command again continues after them (--force starts over).
    """
    if scheduler is not None and not scheduler.strip():
        raise usage_error("--scheduler needs an address such as tcp://HOST:8786, or local")
    from nines_sim.game.rules import RulesError, parse_overrides, parse_rule_set
    from nines_sim.learn.report import even_share, rounds_kept
    from nines_sim.learn.resume import ResumeError
    from nines_sim.learn.train import PROGRESS, STOP_NOTICE, TrainSettings, resume_state
    from nines_sim.learn.train import train as run_train
    from nines_sim.learn.work import on_backend
    from nines_sim.runs.out_path import OutputPathError, check_output_path
    from nines_sim.runs.output import OutputExists, default_run_dir, discard_dir, prepare_dir
    from nines_sim.runs.pool import Interrupt

    if hidden and targets != Targets.rollouts:
        raise usage_error(f"--hidden fits rollout labels only: use --targets rollouts, not {targets.value}")
    if trees and targets != Targets.rollouts:
        raise usage_error(f"--trees fit rollout labels only: use --targets rollouts, not {targets.value}")
    if draws != Draws.suits and targets == Targets.returns:
        raise usage_error("--draws sets how the label rollouts sample: --targets returns plays none")
    if trees and hidden:
        raise usage_error("--trees are boosted after a linear card model: not with --hidden")
    if hidden % 4:
        raise usage_error(f"--hidden must be a multiple of 4 (the units are summed four at a time), not {hidden}")
    try:
        # --players, else a --rule players=N (the two must agree), else heads-up
        rule_set = parse_rule_set(rules, parse_overrides(rule or []), players_wanted(players, rule)[0] or 2)
    except RulesError as exc:
        raise usage_error(str(exc)) from None
    try:  # before the cluster: a name the system cannot take is one line, not an OSError when it is looked in
        folder = default_run_dir("train") if out is None else check_output_path(out, "--out", folder=True)
    except OutputPathError as exc:
        raise usage_error(str(exc)) from None
    settings = TrainSettings(rounds=rounds, matches=matches, samples=samples, epsilon=epsilon, keep=keep,
                             hidden=hidden, pairs=pairs, trees=trees, depth=depth, eval_matches=eval_matches,
                             targets=targets.value, draws=draws.value)  # fmt: skip
    extra = "".join(f" --rule {shlex.quote(r)}" for r in rule or [])
    labels = "" if targets == Targets.rollouts else f" --targets {targets.value}"  # the default: as before
    labels = (f" --trees {trees} --depth {depth}" if trees else "") + labels
    labels += "" if draws == Draws.suits else f" --draws {draws.value}"

    def command_of(n_rounds: int, into: bool = True) -> str:  # shell words: an --out with a space is one
        return (
            f"nines train --rules {shlex.quote(rules)} --players {rule_set.players}{extra} --seed {seed} "
            f"--rounds {n_rounds} --matches {matches} --samples {samples} --epsilon {epsilon:g} --keep {keep} "
            f"--hidden {hidden} --pairs {pairs}{labels} --eval-matches {eval_matches}"
            + (f" --out {shlex.quote(str(folder))}" if into else "")
        )

    def kept_command(n_rounds: int) -> str:
        # into a new folder, as a tournament's: into this one it continued the stopped run and closed it as a
        # finished run of n_rounds, after which the same command was refused there
        return command_of(n_rounds, into=False)

    n_workers = workers or cpu_count_default()
    # the cluster first: one that cannot be used is a usage error before anything is written
    # From here a Ctrl-C is a flag the run hears between steps: it keeps the rounds that finished; a second one
    # stops the round at once
    with cluster(scheduler, n_workers) as client, Interrupt(notice=STOP_NOTICE, again=True, compiles=True) as ctrl_c:
        resuming = (folder / PROGRESS).is_file() and not force
        try:
            if force:  # start over: a stopped run's progress and data are not continued
                (folder / PROGRESS).unlink(missing_ok=True)
                shutil.rmtree(folder / "data", ignore_errors=True)
            created = prepare_dir(folder, force or resuming)
        except (OutputExists, OSError) as exc:
            raise usage_error(str(exc)) from None
        try:
            finished = len(resume_state(folder, seed, rule_set, settings)["rows"])
        except ResumeError as exc:
            discard_dir(folder, created)
            raise usage_error(str(exc)) from None
        after = f", continuing after round {finished}" if finished else ""
        typer.echo(
            f"training for {rule_set.preset}, {rule_set.players} players into {folder}{after} "
            f"({even_share(rule_set.players)})"
        )
        try:
            done = run_train(rule_set, folder, seed, settings, command_of(rounds), report=typer.echo,
                             should_stop=lambda: ctrl_c.flag, kept_command=kept_command,
                             backend=on_backend(n_workers, client), round_bar=bar_of(settings),
                             charts=not no_charts)  # fmt: skip
        except KeyboardInterrupt:  # a second Ctrl-C between two steps the run cuts: what finished is kept
            done = False
    if done:
        typer.echo(f"model: {folder / 'model.npz'}; curve: {folder / 'learning_curve.csv'}")
        if ctrl_c.flag:  # heard too late to stop anything: the run is whole
            echo_error(f"interrupted (Ctrl-C) after the last round: the run is whole, written in {folder}")
            raise typer.Exit(code=130)
        return
    kept = len(resume_state(folder, seed, rule_set, settings)["rows"])
    if not kept:
        discard_dir(folder, created)
        echo_error("interrupted (Ctrl-C) before round 1 finished: nothing was kept, no results were written")
        raise typer.Exit(code=130)
    typer.echo(
        f"Stopped (Ctrl-C): kept {rounds_kept(kept)} of {rounds} in {folder} (report PARTIAL); the same command "
        f"continues after round {kept}, and the kept_command in manifest.json trains exactly these into a new folder",
        err=True,
    )
    raise typer.Exit(code=130)


def bar_of(settings: Any) -> Any:
    """Round by round, a bar of the self-play's matches on stderr (a round is most of a minute at the larger
    settings, and printed nothing until it ended); none where stderr is not a terminal (a file, a test)."""
    from nines_sim.runs.progress import RunProgress

    def bar(rnd: int) -> RunProgress:
        # a round is kept whole once fitted and measured: a count of kept matches would stay at 0
        progress = RunProgress(total=settings.matches, disable=not sys.stderr.isatty(), counts_kept=False)
        progress.bar.set_description(f"round {rnd} self-play", refresh=False)
        return progress

    return bar
