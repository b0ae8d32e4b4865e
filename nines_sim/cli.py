"""The ``nines`` command line: a thin Typer layer over the library."""

from __future__ import annotations

import json
import shlex
import sys
import warnings
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperGroup

from nines_sim import __version__
from nines_sim.ranges import format_ranges
from nines_sim.ranges import total as ranges_total
from nines_sim.rules import OPTION_CLAUSES, OPTION_HELP, PRESETS, Rules, RulesError, parse_overrides, parse_rule_set

# Typer vendors click in some versions: take click's exception classes from Typer's own.
_CLICK_EXCEPTION = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")
_USAGE_ERROR = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


def echo_error(message: str) -> None:
    """Print ``Error: message`` on stderr, on a line of its own even right after a progress bar."""
    # A progress bar leaves its line open; where stderr is not a terminal nothing clears it.
    # (No tqdm loaded, no bar open: a usage error does not load it.)
    tqdm = getattr(sys.modules.get("tqdm"), "tqdm", None)
    fresh = "\n" if any(not b.disable for b in list(getattr(tqdm, "_instances", ()))) else ""
    typer.echo(f"{fresh}Error: {message}", err=True)


def usage_error(message: str) -> typer.Exit:
    """Print a one-line usage error and return the exit (code 2) to raise."""
    echo_error(message)
    return typer.Exit(code=2)


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
    """Warnings as one ``Warning:`` line, without Python's source location."""
    typer.echo(f"Warning: {message}", err=True)


class OneLineErrors(TyperGroup):
    """Click's usage errors (ranges, types, unknown options) as one ``Error:`` line, exit code 2."""

    def main(self, *args, standalone_mode: bool = True, **kwargs):  # noqa: ANN002, ANN003, ANN201
        argv = kwargs.get("args", args[0] if args else None)
        twice = self._given_twice(list(sys.argv[1:] if argv is None else argv))
        if twice is not None:
            echo_error(twice)
            if not standalone_mode:
                raise typer.Exit(code=2)
            sys.exit(2)
        try:
            with warnings.catch_warnings():
                warnings.showwarning = _one_line_warning
                rv = super().main(*args, standalone_mode=False, **kwargs)
        except _CLICK_EXCEPTION as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # plain 'nines': the help, not an error
                typer.echo(exc.format_message(), err=True)
            else:
                message = " ".join(exc.format_message().replace("Value error, ", "").split()).rstrip(".")
                if isinstance(exc, _USAGE_ERROR) and exc.ctx is not None:
                    message += f" (see '{exc.ctx.command_path} --help')"
                echo_error(message)
            if not standalone_mode:
                raise
            sys.exit(exc.exit_code)
        except typer.Abort:
            if not standalone_mode:
                raise
            echo_error("aborted")
            sys.exit(1)
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)

    def _given_twice(self, argv: list[str]) -> str | None:
        """The usage error for an option that takes one value given twice (click keeps the last silently:
        ``tournament --rules A --rules B`` played B alone); None when there is none."""
        name = next((a for a in argv if not a.startswith("-")), None)
        command = self.commands.get(name) if name else None
        if command is None:
            return None
        rest = argv[argv.index(name) + 1 :]
        rest = rest[: rest.index("--")] if "--" in rest else rest
        for param in command.params:
            if param.param_type_name != "option" or param.multiple or getattr(param, "is_flag", False):
                continue
            opts = [*param.opts, *param.secondary_opts]
            given = sum(a in opts or any(a.startswith(f"{o}=") for o in opts if o.startswith("--")) for a in rest)
            if given > 1:
                hint = " (compare rule sets with 'nines compare-rules')" if "--rules" in opts else ""
                shown = next((o for o in opts if o.startswith("--")), opts[0])
                return f"{shown} is given {given} times; give it once{hint}"
        return None


app = typer.Typer(
    cls=OneLineErrors,
    help="nines-sim: seeded simulations of the card game Nines - tournaments, rule variants, benchmarks.",
    no_args_is_help=True,
    add_completion=False,
    # click's plain help shows switches as flags (Typer's rich help writes '--quiet <bool>')
    rich_markup_mode=None,
)


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
            help="Build and run this C reference (the repository's bench/nines_c.c; and nines_py.py beside it) "
            "first, and C again right before each run; print ratios to them.",
        ),
    ] = None,
) -> None:
    """Time named workloads of full matches: matches/s, hands/s, turns/s (median of the repeats).

    W1 classic 4 x random; W2 classic 2 x random; W3 classic 6 x random;
    W4 classic random, hold-nines, dump-faces, suit-majority; W5 double-nines 6 x random;
    W6 classic expert, hold-nines, dump-faces, suit-majority; W7 classic, the README's
    batched plug-in LowestFirst and 3 x random (a Python seat).

    startup (only when named): the wall time of 'nines --help', of a usage error and of
    'nines tournament -n 1000 --no-charts --quiet', each a fresh process (median of --repeat),
    and their ratio to 'python -c "import pandas"' timed in the same sitting.

    Each run plays the workload as 'nines tournament' plays one table: every match and
    hand is played, each worker tallies its finished matches and sends back only the
    tally, and hands/s and turns/s come from the tallies (no hand records travel).
    """
    from contextlib import nullcontext

    from nines_sim.bench import WORKLOADS, CReference, ReferenceError, reference_speeds, run_workload

    names = workloads or list(WORKLOADS)
    for n in names:
        if n not in WORKLOADS and n != "startup":
            raise usage_error(f"unknown workload {n!r}; workloads are: {', '.join(WORKLOADS)}, startup")
    if "startup" in names:
        if len(names) > 1 or against_c is not None:
            raise usage_error("name startup on its own: it times fresh processes, not the match workloads")
        _bench_startup(repeat, as_json)
        return
    try:
        c_ref = CReference(against_c) if against_c is not None else None
    except ReferenceError as exc:
        raise usage_error(str(exc)) from None
    except KeyboardInterrupt:
        raise _bench_stopped("the build of the C reference", [], [], {}, as_json) from None
    rows, slower = [], []  # slower: reference matches/s over the workload's, per reference
    with c_ref if c_ref is not None else nullcontext():
        refs: dict[str, float] = {}
        if c_ref is not None:
            try:
                refs = reference_speeds(against_c, c=c_ref)
            except ReferenceError as exc:
                raise usage_error(str(exc)) from None
            except KeyboardInterrupt:
                raise _bench_stopped("the reference runs", [], [], {}, as_json) from None
            if not as_json:
                for k, v in refs.items():
                    typer.echo(f"reference {k:<13} {v:>10,.0f} matches/s (classic, 4 x random, one core, this sitting)")
                typer.echo(f"(the ratio to C pairs each run with {PAIRED_C_SECONDS * 3:g} s of C just before it)")
        before = (lambda: c_ref.run(PAIRED_C_SECONDS)) if c_ref is not None else None
        width = max(len(WORKLOADS[n][0]) for n in names)  # the figures line up under each other
        for n in names:
            try:
                r = run_workload(n, matches, workers=workers, repeat=repeat, batch_size=batch_size, before_each=before)
            except KeyboardInterrupt:
                raise _bench_stopped(n, rows, slower, refs, as_json) from None
            q = {k: (r.paired_ratio if k == "C" else v / r.matches_per_s) for k, v in refs.items()}
            rows.append(r)
            slower.append(q)
            if not as_json:
                typer.echo(
                    f"{n}  {WORKLOADS[n][0]:<{width}} {r.matches_per_s:>10,.0f} matches/s "
                    f"{r.hands_per_s:>11,.0f} hands/s {r.turns_per_s:>13,.0f} turns/s  "
                    f"({r.matches:,} matches, {r.workers} process(es), "
                    f"{r.cores} cores, median of {r.repeat})"
                    + "".join(f"  = {_ratio(1.0, x)} of {k}" for k, x in q.items())
                )
    if as_json:
        _bench_json(rows, slower, refs)


def _bench_stopped(stage: str, rows: list, slower: list[dict], refs: dict[str, float], as_json: bool) -> typer.Exit:
    """Ctrl-C in ``nines bench``: the workloads measured in full are kept (printed, or as JSON), the rest not."""
    if as_json and rows:
        _bench_json(rows, slower, refs)
    if not rows:
        return _interrupted(f"stopped during {stage}: nothing was measured.")
    done, where = ", ".join(r.workload for r in rows), "the JSON" if as_json else "the lines"
    return _interrupted(
        f"stopped during {stage}: {done} measured in full ({where} above); {stage} and what follows not measured."
    )


def _bench_json(rows: list, slower: list[dict], refs: dict[str, float]) -> None:
    """Print ``nines bench --json``: a list of the workloads measured (in an object with the references)."""
    keys = ("workload", "matches", "workers", "seconds", "matches_per_s", "hands_per_s", "turns_per_s", "cores")
    listed = [{k: r.as_dict()[k] for k in keys} for r in rows]
    for row, r, q in zip(listed, rows, slower, strict=True):
        row.update({f"ratio_to_{k.replace(' ', '_')}": 1.0 / x for k, x in q.items()})
        if r.paired:
            row["c_over_this_per_run"] = r.paired
    typer.echo(json.dumps({"references": refs, "workloads": listed} if refs else listed, indent=2))


def _bench_startup(repeat: int, as_json: bool) -> None:
    """``nines bench startup``: fresh-process wall times and their ratio to the pandas import."""
    from nines_sim.bench import BenchError, time_startup

    try:
        rows = time_startup(repeat)
    except BenchError as exc:
        echo_error(str(exc))
        raise typer.Exit(code=1) from None
    if as_json:
        typer.echo(json.dumps([{"workload": "startup", **r.as_dict()} for r in rows], indent=2))
        return
    width = max(len(r.command) for r in rows)
    for r in rows:
        ratio = "the yardstick" if r.name == "pandas" else f"{r.ratio_to_pandas:.1f} x the pandas import"
        typer.echo(
            f"startup  {r.command:<{width}} {r.seconds:6.2f} s  ({ratio}; fresh processes, median of {len(r.runs)})"
        )


#: Seconds of each of the C engine's three repeats run right before each bench run (``--against-c``).
PAIRED_C_SECONDS = 0.5


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
    typer.echo(
        "\nOptions: write them after the preset (--rules 'classic:nine_penalty=20,target=50') "
        "or one at a time (--rule nine_penalty=20):"
    )
    d = Rules()
    for name, value in d.options().items():
        shown = ",".join(map(str, value)) if isinstance(value, tuple) else value
        typer.echo(f"  {name:<14} {str(shown):<14} {OPTION_CLAUSES[name]:<11} {OPTION_HELP[name]}")


@app.command("strategies")
def strategies_cmd() -> None:
    """List every strategy: name, source, classifier, description, parameters; and broken plug-ins."""
    from nines_sim.params import declared
    from nines_sim.registry import StrategyNotFound, builtin_classes, plugins

    try:
        rows = [(n, c, "built-in") for n, c in sorted(builtin_classes().items())]
        found = plugins()
    except StrategyNotFound as exc:
        raise usage_error(str(exc)) from None
    rows += [(p.name, p.cls, p.source) for p in found if p.cls is not None]
    for name, cls, src in rows:
        doc = " ".join((cls.__doc__ or "").split())
        first = doc.split(". ")[0].rstrip(".") + "."
        flags = ", ".join(k for k, v in cls.classifier.items() if v) or "-"
        own = f"; its class calls itself {cls.name!r}" if cls.name and cls.name != name else ""
        typer.echo(f"{name:<16} [{src}{own}] ({flags})\n    {first}")
        if cls.classifier.get("sees_hidden_cards"):
            typer.echo(
                "    NOT A FAIR PLAYER: it sees every hand and the stock (a reference for what hidden cards are worth)."
            )
        for p in declared(cls):
            typer.echo(f"      {p.name:<20} {p.kind:<6} default {p.default!s:<6} in {p.bounds():<10}  {p.help}")
    for p in found:
        if p.cls is None:
            fix = f"pip uninstall {p.dist}" if p.dist else f"remove the entry point {p.value}"
            typer.echo(f"{p.name:<16} [BROKEN {p.source}] cannot be used\n    {p.error} (fix it, or: {fix})")


class Format(StrEnum):
    table = "table"
    round_robin = "round-robin"
    field = "field"
    league = "league"


StrategiesArg = Annotated[
    list[str] | None,
    typer.Argument(
        help="Strategies: built-in names (see 'nines strategies'), module:Class or file.py:Class, "
        "each optionally with parameter values (NAME:key=value,... or NAME@best.json). "
        "Default: random hold-nines dump-faces suit-majority expert.",
        show_default=False,
    ),
]
PlayersOpt = Annotated[int | None, typer.Option("--players", "-p", help="Players at the table (2-6).")]
SeedOpt = Annotated[int, typer.Option("--seed", min=0, max=2**64 - 1, help="Seed of the run.")]
RULE_SET_SYNTAX = "preset[+preset][:key=value,...], e.g. hard-nines or 'classic:nine_penalty=20,no_nine_out=true'"
RulesOpt = Annotated[str, typer.Option("--rules", help=f"The rule set: {RULE_SET_SYNTAX} (see 'nines rules').")]
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
# a str, not a Path: Typer turns '' into Path('.'), and an empty --out must not mean the current folder
OutOpt = Annotated[
    str | None, typer.Option("--out", metavar="FOLDER", help="Run folder (default: a new one under reports/).")
]
ForceOpt = Annotated[bool, typer.Option("--force", help="Overwrite nines-sim's files in an existing --out folder.")]
NoChartsOpt = Annotated[bool, typer.Option("--no-charts", help="Write no PNG charts.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar and no table.")]
RuleOpt = Annotated[list[str] | None, typer.Option("--rule", help="Override one rules option, key=value (repeatable).")]
ChunkOpt = Annotated[
    int | None,
    typer.Option(
        "--chunk-size",
        min=1,
        help="Matches per unit of work (default: from --matches and --workers). A Ctrl-C loses at most "
        "the unfinished chunks, one per worker; the numbers are identical for any value.",
    ),
]
RangesOpt = Annotated[
    str | None,
    typer.Option(
        "--ranges",
        help="Play only these match indices of --matches: START:END[,START:END...] (end exclusive), "
        "e.g. the kept_command of a partial run's manifest.json.",
    ),
]


def build_rules(spec: str, overrides: list[str] | None, players: int | None = None) -> Rules:
    """Rules from ``--rules`` (a rule set, :func:`~nines_sim.rules.parse_rule_set`) and ``--rule key=value`` options.

    ``players``, the table the lineup seats, applies unless a ``--rule players=N`` says otherwise (the
    commands check that against the lineup first).

    Raises
    ------
    typer.Exit
        A usage error (one line, exit code 2) for an unknown preset or option, a bad value, an option set
        twice, or an impossible combination.
    """
    try:
        extra = parse_overrides(overrides or [])
        if players is not None and "players" not in extra:
            return parse_rule_set(spec, extra, players)
        return parse_rule_set(spec, extra)
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
            "round-robin: every pair heads-up; field: each strategy against P-1 baselines; "
            "league: --tables tables of --players drawn from the strategies by a balanced schedule. "
            "round-robin and league also rate the strategies (ratings.csv).",
        ),
    ] = Format.table,
    tables: Annotated[
        int | None,
        typer.Option(
            "--tables",
            min=1,
            help="Tables of a league (format league; default: every set of --players strategies once, "
            "at most 200), each playing --matches matches. At most 2,000; enough to seat every strategy and "
            "to join all of them through shared tables.",
        ),
    ] = None,
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
    ranges: RangesOpt = None,
    chunk_size: ChunkOpt = None,
) -> None:
    """Run a strategy tournament and write CSVs, charts and a report under reports/.

    With no arguments: the four heuristics and expert at a 5-seat table, classic rules,
    100,000 matches, seed 0. Ctrl-C stops within a second or two: what finished
    is written, the report is marked partial and the manifest gives the command
    that plays exactly the kept matches again.
    """
    # only what checks the command line: the engine, the tables and the bar load once it is checked
    from nines_sim.output import clear_outputs, kept_fields, manifest, write_manifest, write_tables
    from nines_sim.registry import StrategyNotFound, make_lineup
    from nines_sim.simulate import cpu_count
    from nines_sim.stats import too_small_to_rank
    from nines_sim.tournament import (
        DEFAULT_LINEUP,
        TournamentError,
        matches_per_game,
        plan_tournament,
        run_plan,
        summary_frame,
        terminal_table,
    )

    names = list(strategies or [])
    players, flag = _players_wanted(players, rule)
    try:
        make_lineup(names)  # an unknown name is the first thing to say
    except StrategyNotFound as exc:
        raise usage_error(str(exc)) from None
    if fmt == Format.table:
        _check_seats(players, flag, names or list(DEFAULT_LINEUP), given=bool(names))
        players = len(names or DEFAULT_LINEUP)  # the lineup decides the table size
    # rules for the table actually seated: a hand size only a larger table deals is no error
    base_rules = build_rules(rules, rule, 2 if fmt == Format.round_robin and players is None else players)
    try:
        if baseline is not None and fmt != Format.field:
            raise TournamentError("--baseline applies to --format field only")
        if tables is not None and fmt != Format.league:
            raise TournamentError("--tables applies to --format league only")
        baseline = baseline or "random"
        plan = plan_tournament(fmt.value, names, base_rules, players, baseline, tables, seed)
    except (TournamentError, StrategyNotFound, RulesError) as exc:
        raise usage_error(str(exc)) from None
    n_workers = workers or cpu_count()
    if scheduler is not None and not scheduler.strip():
        raise usage_error("--scheduler needs an address such as tcp://HOST:8786, or local")
    wanted = _ranges_wanted(ranges, matches)
    total = ranges_total(wanted) * len(plan.games)
    from nines_sim.progress import RunProgress

    with _run_folder(out, "tournament", force) as run_dir, RunProgress(total, quiet) as bar:
        if scheduler:
            from nines_sim.cluster import run_plan_dask

            with _cluster(scheduler, n_workers) as client:
                outcome = _run_or_explain(
                    lambda: run_plan_dask(
                        client, plan, matches, seed, batch_size, chunk_size, save_matches, bar, wanted
                    )
                )
        else:
            outcome = _run_or_explain(
                lambda: run_plan(plan, matches, seed, n_workers, batch_size, save_matches, bar, wanted, chunk_size)
            )
        if not outcome.total_matches:
            raise _nothing_kept()

    def command_for(kept: list | None) -> str:
        options = {
            "--format": fmt.value,
            "--players": plan.games[0].rules.players,
            "--matches": matches,
            "--seed": seed,
            "--rules": rules,
            "--baseline": baseline if fmt == Format.field else None,
            "--tables": len(plan.games) if fmt == Format.league else None,
            "--ranges": format_ranges(kept) if kept else None,
        }
        return canonical_command("tournament", plan.strategies, options, rule)

    command = command_for(None if ranges is None else wanted)
    extra = kept_fields(outcome, matches_per_game(outcome), command_for(outcome.kept) if outcome.partial else None)
    extra["specs_given"] = names or list(plan.strategies)  # a parameter file names its entry in reports
    rated, rating_stopped = _rate(plan, outcome, seed)  # before the writing, which holds Ctrl-C back
    with _writing():
        clear_outputs(run_dir)
        tables = write_tables(run_dir, plan, outcome)
        _write_ratings(run_dir, plan, outcome, seed, extra, rated, rating_stopped)
        if rated is not None:
            from nines_sim.league import RATINGS_FILES

            tables = [*tables, *RATINGS_FILES]
        write_manifest(
            run_dir,
            manifest(
                command, plan, outcome, seed, ranges_total(wanted), n_workers, batch_size, bar.compile_seconds, **extra
            ),
            files=tables,
        )
        _charts_and_report(run_dir, no_charts)
    if not quiet:
        ranked = not too_small_to_rank(matches_per_game(outcome), outcome.partial)
        typer.echo(terminal_table(summary_frame(plan, outcome), plan, ranked, extra["specs_given"]))
        if rated is not None:
            from nines_sim.league import terminal_ratings

            typer.echo(terminal_ratings(rated, plan, extra["specs_given"]))
    from nines_sim.registry import hidden_card_note

    if note := hidden_card_note(list(plan.strategies)):
        typer.echo(note)
    play, compiling = _play_seconds(outcome.wall_seconds, bar)
    rate = outcome.total_matches / play if play else 0
    status = "PARTIAL (interrupted): " if outcome.partial else ""
    typer.echo(
        f"{status}{outcome.total_matches:,} matches in {play:.1f} s ({rate:,.0f} matches/s, "
        f"{n_workers} worker(s)){compiling}; results in {run_dir}"
    )
    if outcome.partial:
        _say_kept(outcome.kept)
        raise typer.Exit(code=130)
    if rating_stopped:
        raise _interrupted("the ratings were not computed; every match played is written (run again to rate them).")


def _rate(plan, outcome, seed: int):  # noqa: ANN001, ANN202
    """A round robin's or league's ratings (None for the other formats), and whether Ctrl-C stopped their
    bootstrap (then None: the run keeps its results without ratings)."""
    from nines_sim.tournament import RATED_FORMATS

    if plan.format not in RATED_FORMATS:
        return None, False
    from nines_sim.league import ratings_of  # scipy's optimiser: loaded only where a run is rated

    try:
        return ratings_of(plan, outcome, seed), False
    except KeyboardInterrupt:
        return None, True


def _write_ratings(run_dir: Path, plan, outcome, seed: int, extra: dict, rated, stopped: bool) -> None:  # noqa: ANN001
    """Write a rated run's ratings files; their facts (or that Ctrl-C stopped them) go into ``extra``."""
    if rated is None and not stopped:
        return  # not a rated format
    from nines_sim.league import ratings_manifest, write_ratings

    if rated is not None:
        write_ratings(run_dir, plan, outcome, seed, rated)
        extra["ratings"] = ratings_manifest(plan, rated)
    elif stopped:
        extra["ratings"] = {"computed": False, "why": "stopped (Ctrl-C) while rating"}


def _play_seconds(wall_seconds: float, bar) -> tuple[float, str]:  # noqa: ANN001 - a RunProgress
    """Seconds of play (the run's wall time less compiling, as the bar counts it), and a note of the compile
    time for the closing line ('' when nothing compiled)."""
    compiled = min(bar.compile_seconds, wall_seconds)
    note = f" (+{compiled:.1f} s compiling, first run only)" if compiled else ""
    return wall_seconds - compiled, note


def _run_or_explain(fn):  # noqa: ANN001, ANN202 - tiny wrapper
    from nines_sim.engine import IllegalMoveError, StrategyError

    try:
        return fn()
    except (IllegalMoveError, StrategyError) as exc:
        echo_error(str(exc))
        raise typer.Exit(code=1) from None


def _interrupted(what: str) -> typer.Exit:
    """Ctrl-C in a command that writes no results: say what stopped in one line on stderr; exit 130 (as Ctrl-C)."""
    typer.echo(f"Interrupted (Ctrl-C): {what}", err=True)
    return typer.Exit(code=130)


def _nothing_kept() -> typer.Exit:
    """A run stopped before any match was kept: say so, write nothing, exit 130 (as Ctrl-C does)."""
    # matches may have finished out of order; a stopped chunk keeps only those from its start up
    typer.echo("Stopped before any match was kept: no results were written.", err=True)
    return typer.Exit(code=130)


def _say_kept(kept: list[tuple[int, int]]) -> None:
    typer.echo(f"kept matches {format_ranges(kept)}; the kept_command in manifest.json plays exactly these again")


def _ranges_wanted(text: str | None, matches: int) -> list[tuple[int, int]]:
    """--ranges, read within --matches (a usage error if it cannot be); all matches without it."""
    from nines_sim.ranges import RangesError, parse_ranges

    if text is None:
        return [(0, matches)]
    try:
        return parse_ranges(text, matches)
    except RangesError as exc:
        raise usage_error(str(exc)) from None


def _players_wanted(players: int | None, rule: list[str] | None) -> tuple[int | None, str]:
    """--players, else a --rule players=N, and how the user wrote it; a usage error outside 2-6."""
    flag = f"--players {players}"
    if players is None:
        try:
            players = parse_overrides(rule or []).get("players")
        except RulesError as exc:
            raise usage_error(str(exc)) from None
        flag = f"--rule players={players}"
    if players is not None and not 2 <= players <= 6:
        raise usage_error(f"players must be 2 to 6 (RULES.md D1), not {players}")
    return players, flag


def _count(n: int, noun: str, nouns: str) -> str:
    return f"{n} {noun if n == 1 else nouns}"


def _check_seats(players: int | None, flag: str, names: list[str], given: bool) -> None:
    """A usage error unless the lineup seats 2-6 players, one strategy each, and agrees with --players."""
    n = len(names)
    if players is not None and players != n:
        if given:
            raise usage_error(
                f"{flag} disagrees with the {_count(n, 'strategy', 'strategies')} given; a table seats one "
                f"strategy per player (repeat a name to seat it twice)"
            )
        raise usage_error(
            f"{flag} needs {players} strategies, one per seat: name them (the default lineup is {n}: {' '.join(names)})"
        )
    if not 2 <= n <= 6:
        raise usage_error(
            f"a table seats 2 to 6 players, one strategy each (RULES.md D1); "
            f"{_count(n, 'strategy', 'strategies')} given"
        )


@contextmanager
def _run_folder(out: str | Path | None, kind: str, force: bool):
    """The run folder, checked writable before any match is played; removed again if the run fails empty."""
    from nines_sim.output import OutputExists, default_run_dir, discard_dir, prepare_dir

    if out is not None and not str(out).strip():
        raise usage_error("--out is empty; give a folder name (leave --out out for a new folder under reports/)")
    run_dir = Path(out) if out is not None else default_run_dir(kind)
    try:
        created = prepare_dir(run_dir, force)
    except OutputExists as exc:
        raise usage_error(str(exc)) from None
    try:
        yield run_dir
    except KeyboardInterrupt:  # Ctrl-C before the run could hear it (e.g. while a Dask cluster starts)
        discard_dir(run_dir, created)
        raise _nothing_kept() from None
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


def _charts_and_report(run_dir: Path, no_charts: bool) -> str:
    from nines_sim.reporting import redraw

    return redraw(run_dir, charts=not no_charts)


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
            help=f"A rule set: {RULE_SET_SYNTAX}. Repeat: at least two (the first is the reference).",
        ),
    ] = None,
    rule: Annotated[
        list[str] | None,
        typer.Option(
            "--rule",
            help="Override one rules option in every rule set (each --rules and each value of --sweep), "
            "key=value (repeatable), e.g. --rule target=50.",
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
    ranges: RangesOpt = None,
    chunk_size: ChunkOpt = None,
) -> None:
    """Measure how rule variants change which strategy wins: one lineup under several rule sets.

    Every rule set plays the same seed and match indices (common random
    numbers), so deals coincide wherever deck, players and hand sizes agree,
    and each shift in win rate is tested on paired matches. Ctrl-C stops within a
    second or two and keeps the matches every rule set finished, from each chunk's start.
    """
    from nines_sim.compare import (
        comparison_frame,
        distribution_frame,
        rule_sets_from,
        run_comparison,
        terminal_table,
    )
    from nines_sim.output import clear_outputs, comparison_manifest, kept_fields, write_csv, write_manifest
    from nines_sim.registry import StrategyNotFound, canonical_spec, make_lineup
    from nines_sim.simulate import cpu_count
    from nines_sim.tournament import DEFAULT_LINEUP, entry_names

    names = list(strategies or DEFAULT_LINEUP)
    given = list(names)  # as typed: a parameter file names its seat in reports
    try:
        make_lineup(names)
    except StrategyNotFound as exc:
        raise usage_error(str(exc)) from None
    _check_seats(*_players_wanted(players, rule), names, given=bool(strategies))
    try:
        common = parse_overrides([x for x in rule or [] if not x.replace(" ", "").startswith("players=")])
        sets, sweep_info = rule_sets_from(list(rules or []), sweep, len(names), common)
        names = [canonical_spec(s) for s in names]
        labels = entry_names(names)  # the CSVs' names, distinct
    except (RulesError, StrategyNotFound) as exc:
        raise usage_error(str(exc)) from None
    n_workers = workers or cpu_count()
    if scheduler is not None and not scheduler.strip():
        raise usage_error("--scheduler needs an address such as tcp://HOST:8786, or local")
    wanted = _ranges_wanted(ranges, matches)
    from nines_sim.progress import RunProgress

    with _run_folder(out, "compare", force) as run_dir, RunProgress(ranges_total(wanted) * len(sets), quiet) as bar:
        if scheduler:
            from nines_sim.cluster import run_comparison_dask

            with _cluster(scheduler, n_workers) as client:
                outcome = _run_or_explain(
                    lambda: run_comparison_dask(
                        client, sets, tuple(names), matches, seed, batch_size, chunk_size, bar, wanted
                    )
                )
        else:
            outcome = _run_or_explain(
                lambda: run_comparison(
                    sets, tuple(names), matches, seed, n_workers, batch_size, chunk_size, bar, wanted
                )
            )
        if not outcome.matches_played:
            raise _nothing_kept()
    table = comparison_frame(sets, labels, outcome)
    parts: list[str] = []
    for r in rules or []:
        parts += ["--rules", r]
    if sweep:
        parts += ["--sweep", sweep]

    def command_for(kept: list | None) -> str:
        options = {"--players": len(names), "--matches": matches, "--seed": seed,
                   "--ranges": format_ranges(kept) if kept else None}  # fmt: skip
        return canonical_command("compare-rules", names, options, rule, parts)

    command = command_for(None if ranges is None else wanted)
    extra = kept_fields(outcome, outcome.matches_played, command_for(outcome.kept) if outcome.partial else None)
    extra["specs_given"] = given
    with _writing():
        clear_outputs(run_dir)
        write_csv(table, run_dir / "comparison.csv")
        write_csv(distribution_frame(sets, labels, outcome), run_dir / "score_distribution.csv")
        write_manifest(run_dir, comparison_manifest(command, sets, sweep_info, names, ranges_total(wanted), seed,
                                                    outcome, n_workers, batch_size, bar.compile_seconds) | extra,
                       files=["comparison.csv", "score_distribution.csv"])  # fmt: skip
        _charts_and_report(run_dir, no_charts)
    if not quiet:
        typer.echo(terminal_table(table, given))
    status = "PARTIAL (interrupted): " if outcome.partial else ""
    play, compiling = _play_seconds(outcome.wall_seconds, bar)
    typer.echo(
        f"{status}{outcome.matches_played:,} matches x {len(sets)} rule sets in {play:.1f} s{compiling}; "
        f"results in {run_dir}"
    )
    if outcome.partial:
        _say_kept(outcome.kept)
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
    with the same seed. Hands are numbered from 1 (tie-break hands too) and
    the turns of each hand from 1, as 'nines analyze --hand --turn' counts them.
    Or give a match saved by 'nines play' (a .json file).
    """
    if strategies and len(strategies) == 1 and _saved_match_path(strategies[0]):
        return replay_saved(strategies[0])
    from nines_sim.registry import StrategyNotFound, canonical_spec, make_lineup
    from nines_sim.replay import header
    from nines_sim.tournament import DEFAULT_LINEUP

    names = list(strategies or DEFAULT_LINEUP)
    try:
        names = [canonical_spec(s) for s in names]
        make_lineup(names)
    except StrategyNotFound as exc:
        raise usage_error(str(exc)) from None
    _check_seats(*_players_wanted(players, rule), names, given=bool(strategies))
    r = build_rules(rules, [x for x in rule or [] if not x.replace(" ", "").startswith("players=")], len(names))
    typer.echo(header(r, names, seed, match))
    try:
        _replay_lines(r, names, seed, match)
    except KeyboardInterrupt:
        raise _interrupted(f"the replay of match {match} stopped before its end.") from None


def _replay_lines(r: Rules, names: list[str], seed: int, match: int) -> None:
    """Play the match and print it; a strategy's failure printed at its position, exit code 1."""
    from nines_sim.replay import ReplayFailure, describe, describe_failure
    from nines_sim.replay import replay as play_one

    try:
        events, res = play_one(r, names, seed, match)
    except ReplayFailure as failure:
        for line in describe(failure.events, names) + describe_failure(failure, names):
            typer.echo(line)
        echo_error(str(failure))
        raise typer.Exit(code=1) from None
    for line in describe(events, names):
        typer.echo(line)
    typer.echo(
        f"\nregular hands {int(res.hands[0])}, tie-break hands {int(res.tiebreak_hands[0])}, "
        f"final totals {res.totals[0].tolist()}, win shares {res.win_share[0].tolist()}"
    )


#: ``lookahead``'s default ``infer`` (strategies/lookahead.py), so that the analysis estimates as it plays.
INFER_DEFAULT = 1.0


@app.command()
def analyze(
    strategies: StrategiesArg = None,
    seed: Annotated[
        int,
        typer.Option(
            "--seed",
            min=0,
            max=2**64 - 1,
            help="Seed of the run to replay, and of the analysis: its samples and rollouts draw on a stream of the "
            "seed and the position (each position its own; another seed, independent estimates).",
        ),
    ] = 0,
    match: Annotated[
        int | None, typer.Option("--match", "-m", min=0, help="Match to replay (with --hand, --turn).")
    ] = None,
    hand: Annotated[
        int,
        typer.Option(
            "--hand", min=0, help="Hand of that match, from 1 as 'nines replay' numbers them (tie-break hands count)."
        ),
    ] = 1,
    turn: Annotated[
        int, typer.Option("--turn", min=0, help="Turn of that hand, from 1 as 'nines replay' numbers them.")
    ] = 1,
    cards: Annotated[str | None, typer.Option("--cards", help='Or a position: your cards, e.g. "KC 9H 3D".')] = None,
    top: Annotated[str | None, typer.Option("--top", help="Top card of the discard pile (with --cards).")] = None,
    active: Annotated[
        str | None, typer.Option("--active", help="Active suit C/D/H/S; required when a 9 is on top (T1).")
    ] = None,
    sizes: Annotated[
        str | None, typer.Option("--sizes", help="The other seats' hand sizes, next seat first: 7,3,5.")
    ] = None,
    pile: Annotated[str, typer.Option("--pile", help="Cards in the discard pile below the top card.")] = "",
    samples: Annotated[int, typer.Option("--samples", min=1, max=65536, help="Samples of the hidden cards.")] = 256,
    policy: Annotated[str, typer.Option("--policy", help="Rollout strategy.")] = "expert",
    outcome: Annotated[str, typer.Option("--outcome", help="hand (penalties) or match (win share).")] = "hand",
    infer: Annotated[
        float,
        typer.Option("--infer", min=0.0, max=1.0, help="Weigh the sampled hands by the draws each seat made (T1)."),
    ] = INFER_DEFAULT,
    match_stream: Annotated[
        bool,
        typer.Option(
            "--match-stream",
            help="With --match: sample on the match's own decision stream, as 'nines review' judges the play "
            "(its printed commands reproduce its values), instead of a stream of --seed and the position.",
        ),
    ] = False,
    players: PlayersOpt = None,
    rules: RulesOpt = "classic",
    rule: RuleOpt = None,
) -> None:
    """Estimate every legal play of one position, and show what each built-in strategy would play.

    Either replay a match to a turn (--match, --hand, --turn; the lineup as seated), or describe a position
    (--cards, --top, --sizes; --active when a 9 is on top): you are seat 0 and it is your turn.  The lineup's
    own strategies (plug-ins, tuned parameters) are asked too.  --seed picks the analysis's random stream:
    each position gets its own, so estimates of many positions have independent errors.
    """
    from nines_sim.analyze import analyze as run_analysis
    from nines_sim.analyze import names_to_ask, position_from_cards, position_from_replay, render
    from nines_sim.position import PositionError
    from nines_sim.registry import StrategyNotFound
    from nines_sim.search import policy_names

    if policy not in policy_names():
        raise usage_error(f"--policy must be one of {', '.join(policy_names())}, not {policy!r}")
    if outcome not in ("hand", "match"):
        raise usage_error(f"--outcome must be hand or match, not {outcome!r}")
    if (match is None) == (cards is None):
        raise usage_error("give either --match (with --hand, --turn) or --cards (with --top, --sizes)")
    if match_stream and match is None:
        raise usage_error("--match-stream needs --match: a described position has no match stream")
    if active is not None and match is not None:  # a replayed turn has its own active suit
        raise usage_error("--active applies to a described position (--cards, --top, --sizes), not to --match")
    for flag, value, noun in (("--hand", hand, "hands"), ("--turn", turn, "turns")):
        if value == 0:  # 0 counted the first one until hands and turns were numbered as replay prints them
            raise usage_error(f"{flag} counts from 1, as 'nines replay' numbers {noun}: the first is {flag} 1")
    names = list(strategies or [])
    try:
        if match is not None:
            if not names:
                from nines_sim.tournament import DEFAULT_LINEUP

                names = list(DEFAULT_LINEUP)
            r = build_rules(rules, [x for x in rule or [] if not x.replace(" ", "").startswith("players=")], len(names))
            try:
                pos = position_from_replay(r, names, seed, match, hand - 1, turn - 1)  # the library counts from 0
            except PositionError as exc:
                if "ends before" not in str(exc):
                    raise
                raise usage_error(_no_such_turn(r, names, seed, match, hand, turn)) from None
        else:
            if top is None or sizes is None:
                raise usage_error("--cards needs --top and --sizes")
            try:
                size_list = [int(x) for x in sizes.split(",")]
            except ValueError:
                raise usage_error(f"--sizes must be whole numbers separated by commas, not {sizes!r}") from None
            n = _players_wanted(players, rule)[0] or len(size_list) + 1
            r = build_rules(rules, [x for x in rule or [] if not x.replace(" ", "").startswith("players=")], n)
            pos = position_from_cards(r, cards, top, size_list, active, pile)  # type: ignore[arg-type]
        asked = names_to_ask(names, sees_hidden=match is not None)
        res = run_analysis(pos, samples, policy, outcome, asked, infer, None if match_stream else seed)
    except (PositionError, StrategyNotFound) as exc:
        raise usage_error(str(exc)) from None
    except KeyboardInterrupt:
        raise _interrupted("the analysis stopped before its estimates were complete; nothing was printed.") from None
    for line in render(res):
        typer.echo(line)


def _no_such_turn(r: Rules, names: list[str], seed: int, match: int, hand: int, turn: int) -> str:
    """Why ``--hand hand --turn turn`` (from 1) is not in the match: how many hands, or turns of that hand, it has."""
    from nines_sim.replay import replay as play_one

    events = play_one(r, names, seed, match)[0]
    deals = [i for i, ev in enumerate(events) if ev[0] == "deal"] + [len(events)]
    if hand > len(deals) - 1:
        return f"match {match} of seed {seed} ends before hand {hand}: it has {len(deals) - 1} hands"
    turns = sum(ev[0] == "turn" for ev in events[deals[hand - 1] : deals[hand]])
    return f"hand {hand} of match {match} ends before turn {turn}: it has {turns} turns"


@app.command()
def report(
    run_dir: Annotated[
        Path, typer.Argument(help="A run folder of 'nines tournament', 'nines compare-rules' or 'nines tune'.")
    ],
) -> None:
    """Redraw the charts and report.md of a run folder from its CSVs (checked against its manifest.json first)."""
    from nines_sim.reporting.check import RunFolderError, check_run_folder

    try:
        check_run_folder(run_dir)
    except RunFolderError as exc:
        raise usage_error(str(exc)) from None
    try:
        kind = _charts_and_report(run_dir, no_charts=False)
    except OSError as exc:
        raise usage_error(
            f"cannot write the report into {run_dir} ({exc.strerror or exc}); copy the folder somewhere writable "
            f"and run nines report there"
        ) from None
    except (KeyError, ValueError, TypeError, AttributeError) as exc:
        raise usage_error(f"{run_dir} is not a readable run folder ({type(exc).__name__}: {exc})") from None
    typer.echo(f"wrote {'' if kind == 'versus' else 'the charts and '}{run_dir / 'report.md'}")


@app.command()
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
            help="Fresh matches for best vs baseline, paired (0: skip); rounded up to a multiple of the seats, "
            "with a note.",
        ),
    ] = 200_000,
    workers: WorkersOpt = None,
    batch_size: BatchOpt = 32768,
    scheduler: SchedulerOpt = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Run folder (default: reports/tune-STUDY; the same command resumes).")
    ] = None,
    force: ForceOpt = False,
    quiet: QuietOpt = False,
    versus: Annotated[
        str | None,
        typer.Option(
            "--versus",
            help="No search: play this spec against STRATEGY on --validate fresh matches, paired "
            "(e.g. a strategy tuned under other rules: expert@classic.json).",
        ),
    ] = None,
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
    from nines_sim.tune import TuneError, make_setup

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
    players = _players_wanted(players, rule)[0] or len(opps) + 1
    r = build_rules(rules, [x for x in rule or [] if not x.replace(" ", "").startswith("players=")], players)
    try:
        setup = make_setup(strategy, opps, r, params, matches, seed)
    except TuneError as exc:
        raise usage_error(str(exc)) from None
    rule_list = [x for x in rule or [] if not x.replace(" ", "").startswith("players=")]
    for option, asked in (("--matches", matches), ("--validate", validate))[1 if versus is not None else 0 :]:
        if note := _rounded_note(option, asked, setup.players):
            typer.echo(note, err=True)
    if versus is not None:

        def versus_command(run_dir: Path, spec: str) -> str:
            return canonical_command(
                "tune",
                [setup.strategy if not setup.base_values else setup.baseline_spec, "--opponents", *setup.opponents],
                {"--players": setup.players, "--rules": rules, "--seed": seed, "--validate": validate,
                 "--versus": spec, "--out": str(run_dir)},
                rule_list,
            )  # fmt: skip

        labels = (versus, strategy)
        n_workers = workers or cpu_count_default()
        _tune_versus(setup, versus, validate, n_workers, batch_size, scheduler, out, force, versus_command, labels)
        return
    name = study or setup.default_study_name()
    run_dir = out or Path("reports") / f"tune-{name}"
    url = storage or f"sqlite:///{run_dir / 'study.db'}"
    _check_tune_target(url, storage is not None, name, setup, run_dir, force)
    command = canonical_command(
        "tune",
        [setup.strategy if not setup.base_values else setup.baseline_spec, "--opponents", *setup.opponents],
        {"--players": setup.players, "--rules": rules, "--params": ",".join(setup.tuned), "--trials": trials,
         "--matches": setup.matches, "--seed": seed, "--validate": validate, "--study": name,
         "--storage": storage, "--out": str(run_dir)},
        rule_list,
    )  # fmt: skip
    n_workers = workers or cpu_count_default()
    if scheduler:
        with _cluster(scheduler, n_workers) as client:
            _tune_run(setup, url, name, run_dir, trials, validate, n_workers, batch_size, client, quiet, command)
    else:
        _tune_run(setup, url, name, run_dir, trials, validate, n_workers, batch_size, None, quiet, command)


def _rounded_note(option: str, asked: int, players: int) -> str | None:
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


def _tune_versus(setup, versus: str, n: int, workers: int, batch_size: int, scheduler, out, force: bool,  # noqa: ANN001, PLR0913
                 command, labels: tuple[str, str]) -> None:  # fmt: skip
    """``nines tune STRATEGY --versus SPEC``: SPEC against STRATEGY at the tuning table, paired, no search.

    Writes ``validation.csv`` (the full specs), ``report.md`` and ``manifest.json`` (``kind: versus``), a
    folder ``nines report`` redraws; prints the answer first, with short labels (``labels``: what was typed).
    """
    from contextlib import nullcontext

    from nines_sim.registry import StrategyNotFound, canonical_spec, make_lineup
    from nines_sim.reporting.tune import versus_labels, write_versus_folder
    from nines_sim.tune import Runner, TuneInterrupted, validate

    try:
        make_lineup([versus])
        spec = canonical_spec(versus)
    except StrategyNotFound as exc:
        raise usage_error(str(exc)) from None
    if n < 1:
        raise usage_error("--versus plays the --validate matches: give --validate 1 or more")
    with _run_folder(out, "versus", force) as run_dir:
        with _cluster(scheduler, workers) if scheduler else nullcontext() as client:
            runner = Runner(workers=workers, batch_size=batch_size, client=client)
            try:
                checked = _run_or_explain(lambda: validate(setup, spec, n, runner))
            except TuneInterrupted:
                raise KeyboardInterrupt from None  # nothing finished is worth keeping: no result without both sides
        with _writing():
            answer = write_versus_folder(run_dir, checked, setup, command(run_dir, spec), versus_labels(*labels))
    typer.echo(answer)
    typer.echo(f"full specs and numbers in {run_dir}")


def cpu_count_default() -> int:
    from nines_sim.simulate import cpu_count

    return cpu_count()


def _check_tune_target(url: str, explicit: bool, name: str, setup, run_dir: Path, force: bool) -> None:  # noqa: ANN001
    """Refuse, before anything is written, a storage that is not SQLite or a journal or cannot be opened, a
    study of that name with another setup, and a run folder that holds something other than this study's files
    (read under the storage's lock: another process of the same study may be writing it)."""
    from contextlib import nullcontext

    from nines_sim.tune import TuneError, open_study, storage_file, storage_lock

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


def _tune_run(setup, url, name, run_dir, n_trials, validate, workers, batch_size, client, quiet, command) -> None:  # noqa: ANN001, PLR0913
    import math
    import time

    from tqdm import tqdm

    from nines_sim.output import OutputExists, prepare_dir
    from nines_sim.tune import (
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
        checked = _run_or_explain(lambda: validate_best(st, setup, validate, runner)) if validate else None
    except TuneInterrupted:
        typer.echo(f"Interrupted during validation; the trials are kept in {url}; run the same command to resume.",
                   err=True)  # fmt: skip
        raise typer.Exit(code=130) from None
    from nines_sim.reporting.tune import write_tune_folder
    from nines_sim.rounding import decimal_text

    def pts(x: float) -> str:  # the report's rounding rule for points of win rate
        return decimal_text(x, 2, signed=True, scale=100)

    # processes sharing the study may share the folder: one writes at a time, each file replaced whole
    with _writing(), storage_lock(url):
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


# ----------------------------------------------------------------- play, review (issue 26)
def _saved_match_path(arg: str) -> bool:
    """Whether a lineup argument names a saved match (``nines play``'s .json file), not a strategy spec."""
    return arg.lower().endswith(".json") and "@" not in arg


def replay_saved(path: str) -> None:
    """``nines replay FILE``: a match saved by ``nines play``, turn by turn (one-line error, exit 2, on a bad file)."""
    from nines_sim.play import SavedMatchError, load, run_match
    from nines_sim.replay import describe

    try:
        saved = load(path)
        out = run_match(saved)
    except SavedMatchError as exc:
        raise usage_error(str(exc)) from None
    names = saved.lineup
    typer.echo(
        f"Saved match {path}: seed {saved.seed}, {', '.join(f'seat {i} {n}' for i, n in enumerate(names))}; "
        f"rules {saved.rules.preset}"
    )
    for line in describe(out.events, names):
        typer.echo(line)
    if out.finished:
        typer.echo(f"\nfinal totals {out.totals}, win shares {out.win_share}")
    else:
        typer.echo(f"\nthe match stops here, unfinished; go on with: nines play --resume {shlex.quote(path)}")


@app.command()
def play(
    opponents: Annotated[
        list[str] | None, typer.Argument(help="Strategies at the other seats, in seat order (default: expert).")
    ] = None,
    players: PlayersOpt = None,
    seed: Annotated[
        int | None, typer.Option("--seed", min=0, max=2**64 - 1, help="Seed of the match (default: a new one).")
    ] = None,
    seat: Annotated[int, typer.Option("--seat", min=0, help="Your seat, from 0 (seats run clockwise).")] = 0,
    hands: Annotated[
        int | None, typer.Option("--hands", min=1, help="Play this many hands instead of to the target (S3).")
    ] = None,
    rules: RulesOpt = "classic",
    rule: RuleOpt = None,
    resume: Annotated[Path | None, typer.Option("--resume", help="Go on with a match saved by 'nines play'.")] = None,
    save_to: Annotated[
        Path | None, typer.Option("--save", help="Where to save the match (default: a new file in matches/).")
    ] = None,
    samples: Annotated[
        int, typer.Option("--samples", min=1, max=4096, help="Samples of the hidden cards for the ? ranking.")
    ] = 256,
) -> None:
    """Play a match in the terminal against strategies: you hold one seat, they the others.

    Keys: a card's number (or arrows and Enter) plays it; c d h s declare a suit after a 9; p / k play or keep
    a drawn card; ? shows the search's ranking of your legal moves; q saves and quits (exit code 0), Ctrl-C saves
    and stops (exit code 130). The match is saved after every move: 'nines play --resume FILE' goes on,
    'nines replay FILE' shows it, 'nines review FILE' scores your decisions.
    """
    import secrets

    from nines_sim.play import PERSON, SavedMatch, SavedMatchError, load, new_path, run_match, save
    from nines_sim.registry import StrategyNotFound, canonical_spec, make_lineup

    if resume is not None:
        if opponents or seed is not None or hands is not None or players is not None or rule:
            raise usage_error("--resume goes on with the saved match as it is: give no opponents or rules with it")
        try:
            saved = load(resume)
            check = load(resume)
            if run_match(check).finished:
                where = shlex.quote(str(resume))
                raise usage_error(f"the match in {resume} is over; see it with: nines replay {where}")
        except SavedMatchError as exc:
            raise usage_error(str(exc)) from None
        path = Path(resume)
    else:
        names = list(opponents or [])
        extra = [x for x in rule or [] if not x.replace(" ", "").startswith("players=")]
        if hands is not None:
            extra.append(f"fixed_hands={hands}")
        n = _players_wanted(players, rule)[0] or (len(names) + 1 if names else build_rules(rules, extra).players)
        if not names:
            names = ["expert"] * (n - 1)
        elif len(names) == 1 and n > 2:
            names = names * (n - 1)
        if len(names) != n - 1:
            raise usage_error(f"{len(names)} opponents for a table of {n} players: give {n - 1}, or one for every seat")
        try:
            names = [canonical_spec(s) for s in names]
            make_lineup(names)
        except StrategyNotFound as exc:
            raise usage_error(str(exc)) from None
        r = build_rules(rules, extra, n)
        if seat >= n:
            raise usage_error(f"--seat {seat} is out of range: the seats of a {n}-player table are 0 to {n - 1}")
        names.insert(seat, PERSON)
        saved = SavedMatch(r, secrets.randbits(63) if seed is None else seed, seat, names)
        path = save_to or new_path()
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise usage_error("nines play needs a terminal (its input and output are not one)")
    from nines_sim.play.tui import PlayApp

    save(saved, path)
    app_ = PlayApp(saved, path, samples)
    try:
        app_.run()
        code = app_.return_code or 0  # 130 after Ctrl-C (the app's key), 0 after q
    except KeyboardInterrupt:  # a SIGINT outside the app's raw mode; the file holds every decision made
        code = 130
    where = shlex.quote(str(path))
    if saved.finished:
        typer.echo(f"Match over: totals {saved.totals}. Saved in {path}; see it with 'nines replay {where}', "
                   f"score your play with 'nines review {where}'.")  # fmt: skip
    else:
        typer.echo(f"Match saved in {path}; go on with: nines play --resume {where}")
    if code:
        raise typer.Exit(code=code)


@app.command()
def review(
    target: Annotated[str, typer.Argument(help="A match saved by 'nines play' (.json), or a strategy to review.")],
    against: Annotated[
        list[str] | None, typer.Option("--against", help="The other seats' strategies (repeatable; default expert).")
    ] = None,
    matches: Annotated[int, typer.Option("--matches", "-n", min=1, help="Matches to review a strategy over.")] = 200,
    players: PlayersOpt = None,
    seed: Annotated[int, typer.Option("--seed", min=0, max=2**64 - 1, help="Seed of the matches.")] = 0,
    samples: Annotated[int, typer.Option("--samples", min=2, max=4096, help="Samples of the hidden cards.")] = 256,
    policy: Annotated[str, typer.Option("--policy", help="Rollout strategy of the search.")] = "expert",
    rules: RulesOpt = "classic",
    rule: RuleOpt = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Folder for the results (default: a new one in reports/).")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite the results in --out.")] = False,
    no_charts: Annotated[bool, typer.Option("--no-charts", help="Skip the chart.")] = False,
    workers: WorkersOpt = None,
) -> None:
    """Score every decision with a choice against the search: points lost, accuracy, inaccuracies, mistakes, blunders.

    Review a saved match (your decisions) or a strategy over --matches matches at seat 0 against --against.
    Writes review.csv (one row per decision), points_lost.png and report.md.
    """
    from nines_sim.play import SavedMatchError, load
    from nines_sim.registry import StrategyNotFound, canonical_spec, make_lineup
    from nines_sim.review import ReviewSetup, review_saved, review_strategy
    from nines_sim.review_report import terminal_lines, write_review
    from nines_sim.search import policy_names

    if policy not in policy_names():
        raise usage_error(f"--policy must be one of {', '.join(policy_names())}, not {policy!r}")
    setup = ReviewSetup(samples=samples, policy=policy)
    if _saved_match_path(target):
        if against or players is not None or rule:
            raise usage_error("a saved match is reviewed as it was played: give no --against, --players or --rule")
        try:
            saved = load(target)
        except SavedMatchError as exc:
            raise usage_error(str(exc)) from None
        run = None
    else:
        others = list(against or [])
        n = _players_wanted(players, rule)[0] or (len(others) + 1 if others else 2)
        if not others:
            others = ["expert"] * (n - 1)
        elif len(others) == 1:
            others = others * (n - 1)
        if len(others) != n - 1:
            raise usage_error(f"{len(others)} --against strategies for a table of {n}: give {n - 1}, or one")
        try:
            specs = [canonical_spec(s) for s in [target, *others]]
            make_lineup(specs)
        except StrategyNotFound as exc:
            raise usage_error(str(exc)) from None
        r = build_rules(rules, [x for x in rule or [] if not x.replace(" ", "").startswith("players=")], n)
        run = (specs, r)
    with _run_folder(out, "review", force) as run_dir:
        try:
            if run is None:
                res = review_saved(saved, target, setup)
            else:
                from nines_sim.progress import RunProgress

                with RunProgress(matches) as bar:
                    res = review_strategy(run[0][0], run[0][1:], matches, run[1], seed, setup,
                                          workers=workers or cpu_count_default(), on_progress=bar)  # fmt: skip
        except SavedMatchError as exc:
            raise usage_error(str(exc)) from None
        write_review(res, run_dir, chart=not no_charts)
    for line in terminal_lines(res):
        typer.echo(line)
    if res.stopped:
        typer.echo(f"\nstopped (Ctrl-C): the {res.matches:,} finished matches are reviewed")
    typer.echo(f"\nresults in {run_dir} (review.csv, report.md{'' if no_charts else ', points_lost.png'})")
