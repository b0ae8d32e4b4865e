"""The ``nines`` command line: a thin Typer layer over the library."""

from __future__ import annotations

import json
import shlex
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from nines_sim import __version__
from nines_sim.rules import OPTION_CLAUSES, OPTION_HELP, PRESETS, Rules, RulesError, make_rules, parse_overrides

app = typer.Typer(
    help="nines-sim: seeded simulations of the card game Nines - tournaments, rule variants, benchmarks.",
    no_args_is_help=True,
    add_completion=False,
)


def usage_error(message: str) -> typer.Exit:
    """Print a one-line usage error and return the exit (code 2) to raise."""
    typer.echo(f"Error: {message}", err=True)
    return typer.Exit(code=2)


@app.command()
def bench(
    workloads: Annotated[list[str] | None, typer.Argument(help="Workloads to run (default: all). See below.")] = None,
    matches: Annotated[int, typer.Option("--matches", "-n", min=1, help="Matches per run.")] = 100_000,
    workers: Annotated[int, typer.Option("--workers", "-w", min=1, max=256, help="Worker processes.")] = 1,
    repeat: Annotated[int, typer.Option("--repeat", "-r", min=1, help="Runs per workload; the median is shown.")] = 3,
    batch_size: Annotated[int | None, typer.Option("--batch-size", min=1, help="Games in play at once.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list instead of a table.")] = False,
    against_c: Annotated[
        Path | None,
        typer.Option(
            "--against-c",
            help="Build and run this C reference (nines_c.c; and nines_py.py beside it) first; print ratios to it.",
        ),
    ] = None,
) -> None:
    """Time named workloads of full matches: matches/s, hands/s, turns/s (median of the repeats).

    W1 classic 4 x random; W2 classic 2 x random; W3 classic 6 x random;
    W4 classic random, hold-nines, dump-faces, suit-majority; W5 double-nines 6 x random;
    W6 classic expert, hold-nines, dump-faces, suit-majority; W7 classic, the README's
    batched plug-in LowestFirst and 3 x random (a Python seat).
    """
    from nines_sim.bench import WORKLOADS, ReferenceError, reference_speeds, run_workload

    names = workloads or list(WORKLOADS)
    for n in names:
        if n not in WORKLOADS:
            raise usage_error(f"unknown workload {n!r}; workloads are: {', '.join(WORKLOADS)}")
    refs: dict[str, float] = {}
    if against_c is not None:
        try:
            refs = reference_speeds(against_c)
        except ReferenceError as exc:
            raise usage_error(str(exc)) from None
        if not as_json:
            for k, v in refs.items():
                typer.echo(f"reference {k:<13} {v:>10,.0f} matches/s (classic, 4 x random, one core, this sitting)")
    rows = []
    for n in names:
        r = run_workload(n, matches, workers=workers, repeat=repeat, batch_size=batch_size)
        rows.append(r)
        if not as_json:
            typer.echo(
                f"{n}  {WORKLOADS[n][0]:<30} {r.matches_per_s:>10,.0f} matches/s {r.hands_per_s:>11,.0f} hands/s "
                f"{r.turns_per_s:>13,.0f} turns/s  ({r.matches:,} matches, {r.workers} process(es), "
                f"{r.cores} cores, median of {r.repeat})"
                + "".join(f"  = {_ratio(r.matches_per_s, v)} of {k}" for k, v in refs.items())
            )
    if as_json:
        keys = ("workload", "matches", "workers", "seconds", "matches_per_s", "hands_per_s", "turns_per_s", "cores")
        listed = [{k: r.as_dict()[k] for k in keys} for r in rows]
        for row in listed:
            row.update({f"ratio_to_{k.replace(' ', '_')}": row["matches_per_s"] / v for k, v in refs.items()})
        typer.echo(json.dumps({"references": refs, "workloads": listed} if refs else listed, indent=2))


def _ratio(x: float, ref: float) -> str:
    """``1/3.2`` below the reference, ``4.1x`` above it."""
    return f"{x / ref:.1f}x" if x >= ref else f"1/{ref / x:.1f}"


@app.command("rules")
def rules_cmd() -> None:
    """List the rule presets and every rules option with its default and RULES.md clause."""
    typer.echo("Presets (combine with '+', e.g. hard-nines+no-nine-out):")
    for name, (clause, over) in PRESETS.items():
        desc = ", ".join(f"{k}={v}" for k, v in over.items()) or "the defaults below"
        typer.echo(f"  {name:<22} {clause:<4} {desc}")
    typer.echo("\nOptions (override with --rule key=value):")
    d = Rules()
    for name, value in d.options().items():
        shown = ",".join(map(str, value)) if isinstance(value, tuple) else value
        typer.echo(f"  {name:<14} {str(shown):<14} {OPTION_CLAUSES[name]:<11} {OPTION_HELP[name]}")


@app.command("strategies")
def strategies_cmd() -> None:
    """List every available strategy: name, source, classifier, description."""
    from nines_sim.registry import StrategyNotFound, available

    try:
        rows = available()
    except StrategyNotFound as exc:
        raise usage_error(str(exc)) from None
    for name, cls, src in rows:
        doc = " ".join((cls.__doc__ or "").split())
        first = doc.split(". ")[0].rstrip(".") + "."
        flags = ", ".join(k for k, v in cls.classifier.items() if v) or "-"
        typer.echo(f"{name:<16} [{src}] ({flags})\n    {first}")
        if cls.classifier.get("sees_hidden_cards"):
            typer.echo(
                "    NOT A FAIR PLAYER: it sees every hand and the stock (a reference for what hidden cards are worth)."
            )
        for sname, kind, default, low, high, help_ in getattr(cls, "settings", ()):
            rng_ = f"{low}..{high}" if kind == "int" else "|".join(high)
            typer.echo(f"    setting {sname}={default} ({rng_}): {help_}")


class Format(StrEnum):
    table = "table"
    round_robin = "round-robin"
    field = "field"


StrategiesArg = Annotated[
    list[str] | None,
    typer.Argument(
        help="Strategies: built-in names (see 'nines strategies'), module:Class or file.py:Class. "
        "Default: random hold-nines dump-faces suit-majority.",
        show_default=False,
    ),
]
PlayersOpt = Annotated[int | None, typer.Option("--players", "-p", help="Players at the table (2-6).")]
SeedOpt = Annotated[int, typer.Option("--seed", min=0, max=2**64 - 1, help="Seed of the run.")]
RulesOpt = Annotated[str, typer.Option("--rules", help="Rules preset; combine with '+' (see 'nines rules').")]
SchedulerOpt = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        help="Run on a Dask cluster: tcp://HOST:8786, or 'local' for a LocalCluster "
        "of --workers processes (needs the dask extra). The numbers are identical to a local run.",
    ),
]
WorkersOpt = Annotated[
    int | None,
    typer.Option(
        "--workers",
        "-w",
        min=1,
        max=256,
        help="Worker processes (default: CPU count). The numbers are identical for any value.",
    ),
]
BatchOpt = Annotated[
    int, typer.Option("--batch-size", min=1, max=10_000_000, help="Games in play at once per process.")
]
OutOpt = Annotated[Path | None, typer.Option("--out", help="Run folder (default: a new one under reports/).")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Overwrite nines-sim's files in an existing --out folder.")]
NoChartsOpt = Annotated[bool, typer.Option("--no-charts", help="Write no PNG charts.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar and no table.")]
RuleOpt = Annotated[list[str] | None, typer.Option("--rule", help="Override one rules option, key=value (repeatable).")]


def build_rules(preset: str, overrides: list[str] | None, players: int | None = None) -> Rules:
    """Rules from CLI options; a usage error (exit 2) on bad input."""
    try:
        extra = parse_overrides(overrides or [])
        if players is not None:
            extra.setdefault("players", players)
        return make_rules(preset, **extra)
    except RulesError as exc:
        raise usage_error(str(exc)) from None


@app.command()
def tournament(
    strategies: StrategiesArg = None,
    players: PlayersOpt = None,
    matches: Annotated[int, typer.Option("--matches", "-n", min=1, help="Matches per game.")] = 100_000,
    seed: SeedOpt = 0,
    rules: RulesOpt = "classic",
    rule: RuleOpt = None,
    fmt: Annotated[
        Format,
        typer.Option(
            "--format",
            help="table: one table in the given seat order; "
            "round-robin: every pair heads-up; field: each strategy against P-1 baselines.",
        ),
    ] = Format.table,
    baseline: Annotated[
        str | None, typer.Option("--baseline", help="The field's opponents (format field; default random).")
    ] = None,
    workers: WorkersOpt = None,
    batch_size: BatchOpt = 32768,
    out: OutOpt = None,
    force: ForceOpt = False,
    no_charts: NoChartsOpt = False,
    save_matches: Annotated[
        bool, typer.Option("--save-matches", help="Also write matches.csv.gz, one row per match.")
    ] = False,
    quiet: QuietOpt = False,
    scheduler: SchedulerOpt = None,
) -> None:
    """Run a strategy tournament and write CSVs, charts and a report under reports/.

    With no arguments: the four built-ins at a 4-seat table, classic rules,
    100,000 matches, seed 0. Ctrl-C stops cleanly: what finished is written and
    the report is marked partial.
    """
    from tqdm import tqdm

    from nines_sim.output import clear_outputs, manifest, write_manifest, write_tables
    from nines_sim.registry import StrategyNotFound
    from nines_sim.simulate import cpu_count
    from nines_sim.tournament import TournamentError, plan_tournament, run_plan, summary_frame, terminal_table

    names = list(strategies or [])
    players = _players_wanted(players, rule)
    base_rules = build_rules(rules, rule)
    if fmt == Format.table and players is None and names and len(names) != base_rules.players:
        players = len(names)  # the lineup decides the table size unless --players says otherwise
    try:
        if baseline is not None and fmt != Format.field:
            raise TournamentError("--baseline applies to --format field only")
        baseline = baseline or "random"
        plan = plan_tournament(fmt.value, names, base_rules, players=players, baseline=baseline)
    except (TournamentError, StrategyNotFound, RulesError) as exc:
        raise usage_error(str(exc)) from None
    n_workers = workers or cpu_count()
    if scheduler is not None and not scheduler.strip():
        raise usage_error("--scheduler needs an address such as tcp://HOST:8786, or local")
    total = matches * len(plan.games)
    with (
        _run_folder(out, "tournament", force) as run_dir,
        tqdm(total=total, unit="match", unit_scale=True, disable=quiet, desc="matches", smoothing=0.1) as bar,
    ):
        if scheduler:
            from nines_sim.cluster import run_plan_dask

            with _cluster(scheduler, n_workers) as client:
                outcome = _run_or_explain(
                    lambda: run_plan_dask(client, plan, matches, seed, batch_size, None, save_matches, bar.update)
                )
        else:
            outcome = _run_or_explain(
                lambda: run_plan(plan, matches, seed, n_workers, batch_size, save_matches, bar.update)
            )
    command = canonical_command(
        "tournament",
        plan.strategies,
        {
            "--format": fmt.value,
            "--players": plan.games[0].rules.players,
            "--matches": matches,
            "--seed": seed,
            "--rules": rules,
            "--baseline": baseline if fmt == Format.field else None,
        },
        rule,
    )
    with _writing():
        clear_outputs(run_dir)
        write_tables(run_dir, plan, outcome)
        write_manifest(run_dir, manifest(command, plan, outcome, seed, matches, n_workers, batch_size))
        _charts_and_report(run_dir, no_charts)
    if not quiet:
        typer.echo(terminal_table(summary_frame(plan, outcome), plan))
    from nines_sim.registry import hidden_card_note

    if note := hidden_card_note(list(plan.strategies)):
        typer.echo(note)
    rate = outcome.total_matches / outcome.wall_seconds if outcome.wall_seconds else 0
    status = "PARTIAL (interrupted): " if outcome.partial else ""
    typer.echo(
        f"{status}{outcome.total_matches:,} matches in {outcome.wall_seconds:.1f} s ({rate:,.0f} matches/s, "
        f"{n_workers} worker(s)); results in {run_dir}"
    )
    if outcome.partial:
        raise typer.Exit(code=130)


def _run_or_explain(fn):  # noqa: ANN001, ANN202 - tiny wrapper
    from nines_sim.engine import IllegalMoveError, StrategyError

    try:
        return fn()
    except (IllegalMoveError, StrategyError) as exc:
        typer.echo(f"Error: {exc}", err=True)
        raise typer.Exit(code=1) from None


def _players_wanted(players: int | None, rule: list[str] | None) -> int | None:
    """--players, else a --rule players=N; a usage error outside 2-6."""
    if players is None:
        try:
            players = parse_overrides(rule or []).get("players")
        except RulesError as exc:
            raise usage_error(str(exc)) from None
    if players is not None and not 2 <= players <= 6:
        raise usage_error(f"players must be 2 to 6 (RULES.md D1), not {players}")
    return players


@contextmanager
def _run_folder(out: Path | None, kind: str, force: bool):
    """The run folder, checked writable before any match is played; removed again if the run fails empty."""
    from nines_sim.output import OutputExists, default_run_dir, discard_dir, prepare_dir

    run_dir = out or default_run_dir(kind)
    try:
        created = prepare_dir(run_dir, force)
    except OutputExists as exc:
        raise usage_error(str(exc)) from None
    try:
        yield run_dir
    except BaseException:
        discard_dir(run_dir, created)
        raise


@contextmanager
def _writing():
    """Write the results whole: a further Ctrl-C while writing is ignored, not half-applied."""
    from nines_sim.pool import Interrupt

    with Interrupt():
        yield


@contextmanager
def _cluster(scheduler: str, workers: int):
    """A Dask client, or a usage error (exit 2) that says why not."""
    from nines_sim.cluster import ClusterError, connect

    try:
        with connect(scheduler, workers=workers) as client:
            yield client
    except ClusterError as exc:
        raise usage_error(str(exc)) from None


def _charts_and_report(run_dir: Path, no_charts: bool) -> None:
    from nines_sim.report import write_report

    if not no_charts:
        from nines_sim.charts import save_all

        save_all(run_dir)
    write_report(run_dir)


def canonical_command(
    cmd: str, strategies: list[str], options: dict, rule: list[str] | None, extra: list[str] | None = None
) -> str:
    """The shell command that reproduces a run (workers and batch size do not change the numbers)."""
    parts = ["nines", cmd, *strategies]
    for k, v in options.items():
        if v is not None:
            parts += [k, str(v)]
    for r in rule or []:
        parts += ["--rule", r]
    return shlex.join(parts + (extra or []))


@app.command("compare-rules")
def compare_rules(
    strategies: StrategiesArg = None,
    rules: Annotated[
        list[str] | None,
        typer.Option(
            "--rules",
            help="A rule set: preset[+preset][:key=value,...], e.g. classic or "
            "'classic:nine_penalty=20,no_nine_out=true'. Repeat: at least two (the first is the reference).",
        ),
    ] = None,
    sweep: Annotated[
        str | None,
        typer.Option(
            "--sweep",
            help="One rule set per value: option=v1,v2,... "
            "(e.g. nine_penalty=10,15,20,25,30), on top of the --rules given (default classic).",
        ),
    ] = None,
    players: PlayersOpt = None,
    matches: Annotated[int, typer.Option("--matches", "-n", min=1, help="Matches per rule set.")] = 100_000,
    seed: SeedOpt = 0,
    workers: WorkersOpt = None,
    batch_size: BatchOpt = 32768,
    out: OutOpt = None,
    force: ForceOpt = False,
    no_charts: NoChartsOpt = False,
    quiet: QuietOpt = False,
    scheduler: SchedulerOpt = None,
) -> None:
    """Measure how rule variants change which strategy wins: one lineup under several rule sets.

    Every rule set plays the same seed and match indices (common random
    numbers), so deals coincide wherever deck, players and hand sizes agree,
    and each shift in win rate is tested on paired matches.
    """
    from tqdm import tqdm

    from nines_sim.compare import (
        comparison_frame,
        distribution_frame,
        rule_sets_from,
        run_comparison,
        terminal_table,
    )
    from nines_sim.output import clear_outputs, comparison_manifest, write_csv, write_manifest
    from nines_sim.registry import StrategyNotFound, make_lineup
    from nines_sim.simulate import cpu_count
    from nines_sim.tournament import DEFAULT_LINEUP

    names = list(strategies or DEFAULT_LINEUP)
    players = _players_wanted(players, None)
    if players is not None and players != len(names):
        raise usage_error(f"--players {players} disagrees with the {len(names)} strategies (one per seat)")
    try:
        sets, sweep_info = rule_sets_from(list(rules or []), sweep, len(names))
        lineup = make_lineup(names)
    except (RulesError, StrategyNotFound) as exc:
        raise usage_error(str(exc)) from None
    labels = [st.name for st in lineup]
    n_workers = workers or cpu_count()
    if scheduler is not None and not scheduler.strip():
        raise usage_error("--scheduler needs an address such as tcp://HOST:8786, or local")
    with (
        _run_folder(out, "compare", force) as run_dir,
        tqdm(total=matches * len(sets), unit="match", unit_scale=True, disable=quiet, desc="matches") as bar,
    ):
        if scheduler:
            from nines_sim.cluster import run_comparison_dask

            with _cluster(scheduler, n_workers) as client:
                outcome = _run_or_explain(
                    lambda: run_comparison_dask(client, sets, tuple(names), matches, seed, batch_size, None, bar.update)
                )
        else:
            outcome = _run_or_explain(
                lambda: run_comparison(sets, tuple(names), matches, seed, n_workers, batch_size, None, bar.update)
            )
    table = comparison_frame(sets, labels, outcome)
    parts: list[str] = []
    for r in rules or []:
        parts += ["--rules", r]
    if sweep:
        parts += ["--sweep", sweep]
    command = canonical_command("compare-rules", names, {"--players": len(names), "--matches": matches,
                                                         "--seed": seed}, None, parts)  # fmt: skip
    from nines_sim.compare_report import save_all_comparison, write_comparison_report

    with _writing():
        clear_outputs(run_dir)
        write_csv(table, run_dir / "comparison.csv")
        write_csv(distribution_frame(sets, labels, outcome), run_dir / "score_distribution.csv")
        write_manifest(run_dir, comparison_manifest(command, sets, sweep_info, names, matches, seed, outcome,
                                                    n_workers, batch_size))  # fmt: skip
        if not no_charts:
            save_all_comparison(run_dir)
        write_comparison_report(run_dir)
    if not quiet:
        typer.echo(terminal_table(table))
    status = "PARTIAL (interrupted): " if outcome.partial else ""
    typer.echo(
        f"{status}{outcome.matches_played:,} matches x {len(sets)} rule sets in {outcome.wall_seconds:.1f} s; "
        f"results in {run_dir}"
    )
    if outcome.partial:
        raise typer.Exit(code=130)


@app.command()
def replay(
    strategies: StrategiesArg = None,
    seed: Annotated[int, typer.Option("--seed", min=0, max=2**64 - 1, help="Seed of the run.")] = 0,
    match: Annotated[int, typer.Option("--match", "-m", min=0, max=2**62, help="Index of the match to replay.")] = 0,
    players: PlayersOpt = None,
    rules: RulesOpt = "classic",
    rule: RuleOpt = None,
) -> None:
    """Replay one match turn by turn: deals, moves, draws, declarations, scores.

    Give the lineup as it was seated: for a table, the tournament's strategies;
    for a round-robin game, its two strategies; for a field game, the strategy
    then the baseline copies. The numbers are those of that match in any run
    with the same seed.
    """
    from nines_sim.registry import StrategyNotFound, make_lineup
    from nines_sim.replay import describe
    from nines_sim.replay import replay as play_one

    names = list(strategies or [])
    if not names:
        from nines_sim.tournament import DEFAULT_LINEUP

        names = list(DEFAULT_LINEUP)
    players = _players_wanted(players, rule)
    if players is not None and players != len(names):
        raise usage_error(f"--players {players} disagrees with the {len(names)} strategies given")
    r = build_rules(rules, [x for x in rule or [] if not x.replace(" ", "").startswith("players=")], len(names))
    try:
        make_lineup(names)
    except StrategyNotFound as exc:
        raise usage_error(str(exc)) from None
    events, res = _run_or_explain(lambda: play_one(r, names, seed, match))
    typer.echo(
        f"Match {match} of seed {seed}: {', '.join(f'seat {i} {n}' for i, n in enumerate(names))}; rules {r.preset}"
    )
    for line in describe(events, names):
        typer.echo(line)
    typer.echo(
        f"\nregular hands {int(res.hands[0])}, tie-break hands {int(res.tiebreak_hands[0])}, "
        f"final totals {res.totals[0].tolist()}, win shares {res.win_share[0].tolist()}"
    )


@app.command()
def analyze(
    strategies: StrategiesArg = None,
    seed: Annotated[int, typer.Option("--seed", min=0, max=2**64 - 1, help="Seed of the run to replay.")] = 0,
    match: Annotated[
        int | None, typer.Option("--match", "-m", min=0, help="Match to replay (with --hand, --turn).")
    ] = None,
    hand: Annotated[int, typer.Option("--hand", min=0, help="Hand of that match, from 0 (tie-break hands count).")] = 0,
    turn: Annotated[int, typer.Option("--turn", min=0, help="Turn of that hand, from 0.")] = 0,
    cards: Annotated[str | None, typer.Option("--cards", help='Or a position: your cards, e.g. "KC 9H 3D".')] = None,
    top: Annotated[str | None, typer.Option("--top", help="Top card of the discard pile (with --cards).")] = None,
    active: Annotated[str | None, typer.Option("--active", help="Active suit C/D/H/S when a 9 is on top.")] = None,
    sizes: Annotated[
        str | None, typer.Option("--sizes", help="The other seats' hand sizes, next seat first: 7,3,5.")
    ] = None,
    pile: Annotated[str, typer.Option("--pile", help="Cards in the discard pile below the top card.")] = "",
    samples: Annotated[int, typer.Option("--samples", min=1, max=65536, help="Samples of the hidden cards.")] = 256,
    policy: Annotated[str, typer.Option("--policy", help="Rollout strategy.")] = "expert",
    outcome: Annotated[str, typer.Option("--outcome", help="hand (penalties) or match (win share).")] = "hand",
    players: PlayersOpt = None,
    rules: RulesOpt = "classic",
    rule: RuleOpt = None,
) -> None:
    """Estimate every legal play of one position, and show what each built-in strategy would play.

    Either replay a match to a turn (--match, --hand, --turn; the lineup as seated), or describe a position
    (--cards, --top, --sizes): you are seat 0 and it is your turn.
    """
    from nines_sim.analyze import analyze as run_analysis
    from nines_sim.analyze import builtin_names, position_from_cards, position_from_replay, render
    from nines_sim.position import PositionError
    from nines_sim.registry import StrategyNotFound
    from nines_sim.search import policy_names

    if policy not in policy_names():
        raise usage_error(f"--policy must be one of {', '.join(policy_names())}, not {policy!r}")
    if outcome not in ("hand", "match"):
        raise usage_error(f"--outcome must be hand or match, not {outcome!r}")
    if (match is None) == (cards is None):
        raise usage_error("give either --match (with --hand, --turn) or --cards (with --top, --sizes)")
    try:
        if match is not None:
            names = list(strategies or [])
            if not names:
                from nines_sim.tournament import DEFAULT_LINEUP

                names = list(DEFAULT_LINEUP)
            r = build_rules(rules, [x for x in rule or [] if not x.replace(" ", "").startswith("players=")], len(names))
            pos = position_from_replay(r, names, seed, match, hand, turn)
        else:
            if top is None or sizes is None:
                raise usage_error("--cards needs --top and --sizes")
            try:
                size_list = [int(x) for x in sizes.split(",")]
            except ValueError:
                raise usage_error(f"--sizes must be whole numbers separated by commas, not {sizes!r}") from None
            n = _players_wanted(players, rule) or len(size_list) + 1
            r = build_rules(rules, [x for x in rule or [] if not x.replace(" ", "").startswith("players=")], n)
            pos = position_from_cards(r, cards, top, size_list, active, pile)  # type: ignore[arg-type]
        res = run_analysis(pos, samples, policy, outcome, builtin_names(sees_hidden=match is not None))
    except (PositionError, StrategyNotFound) as exc:
        raise usage_error(str(exc)) from None
    for line in render(res):
        typer.echo(line)


@app.command()
def report(
    run_dir: Annotated[Path, typer.Argument(help="A run folder of 'nines tournament' or 'nines compare-rules'.")],
) -> None:
    """Redraw the charts and report.md of a run folder from its CSVs."""
    from nines_sim.compare_report import is_comparison_folder, save_all_comparison, write_comparison_report

    if not (run_dir / "manifest.json").is_file():
        raise usage_error(f"{run_dir} is not a run folder (it needs manifest.json and summary.csv or comparison.csv)")
    try:
        if is_comparison_folder(run_dir):
            save_all_comparison(run_dir)
            write_comparison_report(run_dir)
        elif (run_dir / "summary.csv").is_file():
            _charts_and_report(run_dir, no_charts=False)
        else:
            raise usage_error(f"{run_dir} is not a run folder (it needs summary.csv or comparison.csv)")
    except (KeyError, ValueError, TypeError, AttributeError, OSError) as exc:
        # json.JSONDecodeError and pandas' parser errors are ValueErrors
        raise usage_error(f"{run_dir} is not a readable run folder ({type(exc).__name__}: {exc})") from None
    typer.echo(f"wrote the charts and {run_dir / 'report.md'}")


@app.callback(invoke_without_command=True)
def _root(
    version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False,
) -> None:
    if version:
        typer.echo(f"nines-sim {__version__}")
        raise typer.Exit()


def main() -> None:
    """Entry point of the ``nines`` console script."""
    app()
