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
from nines_sim.rules import OPTION_CLAUSES, OPTION_HELP, PRESETS, Rules, RulesError, make_rules, parse_overrides

# Typer vendors click in some versions: take click's exception classes from Typer's own.
_CLICK_EXCEPTION = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")
_USAGE_ERROR = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


def echo_error(message: str) -> None:
    """Print ``Error: message`` on stderr, on a line of its own even right after a progress bar."""
    from tqdm import tqdm

    # A progress bar leaves its line open; where stderr is not a terminal nothing clears it.
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
            help="Build and run this C reference (nines_c.c; and nines_py.py beside it) first, and C again right "
            "before each run; print ratios to them.",
        ),
    ] = None,
) -> None:
    """Time named workloads of full matches: matches/s, hands/s, turns/s (median of the repeats).

    W1 classic 4 x random; W2 classic 2 x random; W3 classic 6 x random;
    W4 classic random, hold-nines, dump-faces, suit-majority; W5 double-nines 6 x random;
    W6 classic expert, hold-nines, dump-faces, suit-majority; W7 classic, the README's
    batched plug-in LowestFirst and 3 x random (a Python seat).

    Each run plays the workload as 'nines tournament' plays one table: every match and
    hand is played, each worker tallies its finished matches and sends back only the
    tally, and hands/s and turns/s come from the tallies (no hand records travel).
    """
    from contextlib import nullcontext

    from nines_sim.bench import WORKLOADS, CReference, ReferenceError, reference_speeds, run_workload

    names = workloads or list(WORKLOADS)
    for n in names:
        if n not in WORKLOADS:
            raise usage_error(f"unknown workload {n!r}; workloads are: {', '.join(WORKLOADS)}")
    try:
        c_ref = CReference(against_c) if against_c is not None else None
    except ReferenceError as exc:
        raise usage_error(str(exc)) from None
    rows, slower = [], []  # slower: reference matches/s over the workload's, per reference
    with c_ref if c_ref is not None else nullcontext():
        refs: dict[str, float] = {}
        if c_ref is not None:
            try:
                refs = reference_speeds(against_c, c=c_ref)
            except ReferenceError as exc:
                raise usage_error(str(exc)) from None
            if not as_json:
                for k, v in refs.items():
                    typer.echo(f"reference {k:<13} {v:>10,.0f} matches/s (classic, 4 x random, one core, this sitting)")
                typer.echo(f"(the ratio to C pairs each run with {PAIRED_C_SECONDS * 3:g} s of C just before it)")
        before = (lambda: c_ref.run(PAIRED_C_SECONDS)) if c_ref is not None else None
        width = max(len(WORKLOADS[n][0]) for n in names)  # the figures line up under each other
        for n in names:
            r = run_workload(n, matches, workers=workers, repeat=repeat, batch_size=batch_size, before_each=before)
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
        keys = ("workload", "matches", "workers", "seconds", "matches_per_s", "hands_per_s", "turns_per_s", "cores")
        listed = [{k: r.as_dict()[k] for k in keys} for r in rows]
        for row, r, q in zip(listed, rows, slower, strict=True):
            row.update({f"ratio_to_{k.replace(' ', '_')}": 1.0 / x for k, x in q.items()})
            if r.paired:
                row["c_over_this_per_run"] = r.paired
        typer.echo(json.dumps({"references": refs, "workloads": listed} if refs else listed, indent=2))


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
    typer.echo("\nOptions (override with --rule key=value):")
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


StrategiesArg = Annotated[
    list[str] | None,
    typer.Argument(
        help="Strategies: built-in names (see 'nines strategies'), module:Class or file.py:Class, "
        "each optionally with parameter values (NAME:key=value,... or NAME@best.json). "
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
    ranges: RangesOpt = None,
    chunk_size: ChunkOpt = None,
) -> None:
    """Run a strategy tournament and write CSVs, charts and a report under reports/.

    With no arguments: the four built-ins at a 4-seat table, classic rules,
    100,000 matches, seed 0. Ctrl-C stops within a second or two: what finished
    is written, the report is marked partial and the manifest gives the command
    that plays exactly the kept matches again.
    """
    from nines_sim.output import clear_outputs, kept_fields, manifest, write_manifest, write_tables
    from nines_sim.progress import RunProgress
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
        baseline = baseline or "random"
        plan = plan_tournament(fmt.value, names, base_rules, players=players, baseline=baseline)
    except (TournamentError, StrategyNotFound, RulesError) as exc:
        raise usage_error(str(exc)) from None
    n_workers = workers or cpu_count()
    if scheduler is not None and not scheduler.strip():
        raise usage_error("--scheduler needs an address such as tcp://HOST:8786, or local")
    wanted = _ranges_wanted(ranges, matches)
    total = ranges_total(wanted) * len(plan.games)
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
            "--ranges": format_ranges(kept) if kept else None,
        }
        return canonical_command("tournament", plan.strategies, options, rule)

    command = command_for(None if ranges is None else wanted)
    extra = kept_fields(outcome, matches_per_game(outcome), command_for(outcome.kept) if outcome.partial else None)
    with _writing():
        clear_outputs(run_dir)
        write_tables(run_dir, plan, outcome)
        write_manifest(
            run_dir, manifest(command, plan, outcome, seed, ranges_total(wanted), n_workers, batch_size, **extra)
        )
        _charts_and_report(run_dir, no_charts)
    if not quiet:
        ranked = not too_small_to_rank(matches_per_game(outcome), outcome.partial)
        typer.echo(terminal_table(summary_frame(plan, outcome), plan, ranked))
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
        _say_kept(outcome.kept)
        raise typer.Exit(code=130)


def _run_or_explain(fn):  # noqa: ANN001, ANN202 - tiny wrapper
    from nines_sim.engine import IllegalMoveError, StrategyError

    try:
        return fn()
    except (IllegalMoveError, StrategyError) as exc:
        echo_error(str(exc))
        raise typer.Exit(code=1) from None


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


def _charts_and_report(run_dir: Path, no_charts: bool) -> None:
    from nines_sim.reporting import redraw

    redraw(run_dir, charts=not no_charts)


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
    ranges: RangesOpt = None,
    chunk_size: ChunkOpt = None,
) -> None:
    """Measure how rule variants change which strategy wins: one lineup under several rule sets.

    Every rule set plays the same seed and match indices (common random
    numbers), so deals coincide wherever deck, players and hand sizes agree,
    and each shift in win rate is tested on paired matches. Ctrl-C stops within a
    second or two and keeps every finished chunk (played under every rule set).
    """
    from nines_sim.compare import (
        comparison_frame,
        distribution_frame,
        rule_sets_from,
        run_comparison,
        terminal_table,
    )
    from nines_sim.output import clear_outputs, comparison_manifest, kept_fields, write_csv, write_manifest
    from nines_sim.progress import RunProgress
    from nines_sim.registry import StrategyNotFound, canonical_spec, display_name, make_lineup
    from nines_sim.simulate import cpu_count
    from nines_sim.tournament import DEFAULT_LINEUP

    names = list(strategies or DEFAULT_LINEUP)
    try:
        lineup = make_lineup(names)
    except StrategyNotFound as exc:
        raise usage_error(str(exc)) from None
    _check_seats(*_players_wanted(players, None), names, given=bool(strategies))
    try:
        sets, sweep_info = rule_sets_from(list(rules or []), sweep, len(names))
        names = [canonical_spec(s) for s in names]
        lineup = make_lineup(names)
    except (RulesError, StrategyNotFound) as exc:
        raise usage_error(str(exc)) from None
    labels = [display_name(st) for st in lineup]
    n_workers = workers or cpu_count()
    if scheduler is not None and not scheduler.strip():
        raise usage_error("--scheduler needs an address such as tcp://HOST:8786, or local")
    wanted = _ranges_wanted(ranges, matches)
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
        return canonical_command("compare-rules", names, options, None, parts)

    command = command_for(None if ranges is None else wanted)
    extra = kept_fields(outcome, outcome.matches_played, command_for(outcome.kept) if outcome.partial else None)
    with _writing():
        clear_outputs(run_dir)
        write_csv(table, run_dir / "comparison.csv")
        write_csv(distribution_frame(sets, labels, outcome), run_dir / "score_distribution.csv")
        write_manifest(run_dir, comparison_manifest(command, sets, sweep_info, names, ranges_total(wanted), seed,
                                                    outcome, n_workers, batch_size) | extra)  # fmt: skip
        _charts_and_report(run_dir, no_charts)
    if not quiet:
        typer.echo(terminal_table(table))
    status = "PARTIAL (interrupted): " if outcome.partial else ""
    typer.echo(
        f"{status}{outcome.matches_played:,} matches x {len(sets)} rule sets in {outcome.wall_seconds:.1f} s; "
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
    with the same seed.
    """
    from nines_sim.registry import StrategyNotFound, canonical_spec, make_lineup
    from nines_sim.replay import ReplayFailure, describe, describe_failure
    from nines_sim.replay import replay as play_one
    from nines_sim.tournament import DEFAULT_LINEUP

    names = list(strategies or DEFAULT_LINEUP)
    try:
        names = [canonical_spec(s) for s in names]
        make_lineup(names)
    except StrategyNotFound as exc:
        raise usage_error(str(exc)) from None
    _check_seats(*_players_wanted(players, rule), names, given=bool(strategies))
    r = build_rules(rules, [x for x in rule or [] if not x.replace(" ", "").startswith("players=")], len(names))
    typer.echo(
        f"Match {match} of seed {seed}: {', '.join(f'seat {i} {n}' for i, n in enumerate(names))}; rules {r.preset}"
    )
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
    hand: Annotated[int, typer.Option("--hand", min=0, help="Hand of that match, from 0 (tie-break hands count).")] = 0,
    turn: Annotated[int, typer.Option("--turn", min=0, help="Turn of that hand, from 0.")] = 0,
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
    names = list(strategies or [])
    try:
        if match is not None:
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
            n = _players_wanted(players, rule)[0] or len(size_list) + 1
            r = build_rules(rules, [x for x in rule or [] if not x.replace(" ", "").startswith("players=")], n)
            pos = position_from_cards(r, cards, top, size_list, active, pile)  # type: ignore[arg-type]
        asked = names_to_ask(names, sees_hidden=match is not None)
        res = run_analysis(pos, samples, policy, outcome, asked, infer, seed)
    except (PositionError, StrategyNotFound) as exc:
        raise usage_error(str(exc)) from None
    for line in render(res):
        typer.echo(line)


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
        _charts_and_report(run_dir, no_charts=False)
    except OSError as exc:
        raise usage_error(
            f"cannot write the report into {run_dir} ({exc.strerror or exc}); copy the folder somewhere writable "
            f"and run nines report there"
        ) from None
    except (KeyError, ValueError, TypeError, AttributeError) as exc:
        raise usage_error(f"{run_dir} is not a readable run folder ({type(exc).__name__}: {exc})") from None
    typer.echo(f"wrote the charts and {run_dir / 'report.md'}")


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
        int, typer.Option("--trials", help="Finished trials the study should hold (a resumed study counts its own).")
    ] = 100,
    matches: Annotated[
        int, typer.Option("--matches", "-n", help="Matches per trial (the same ones in every trial).")
    ] = 20_000,
    seed: SeedOpt = 0,
    storage: Annotated[
        str | None,
        typer.Option("--storage", help="Optuna storage, sqlite:///PATH (default: study.db in the run folder)."),
    ] = None,
    study: Annotated[
        str | None,
        typer.Option("--study", help="Study name (default: strategy, rules, table and a hash of the setup)."),
    ] = None,
    validate: Annotated[
        int, typer.Option("--validate", help="Fresh matches for best vs baseline, paired (0: skip).")
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
    SQLite: Ctrl-C keeps finished trials, and the same command resumes (several
    processes on one --storage share the study). The best values and the
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
    if versus is not None:
        _tune_versus(setup, versus, validate, workers or cpu_count_default(), batch_size, scheduler, out, force)
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
        [x for x in rule or [] if not x.replace(" ", "").startswith("players=")],
    )  # fmt: skip
    n_workers = workers or cpu_count_default()
    if scheduler:
        with _cluster(scheduler, n_workers) as client:
            _tune_run(setup, url, name, run_dir, trials, validate, n_workers, batch_size, client, quiet, command)
    else:
        _tune_run(setup, url, name, run_dir, trials, validate, n_workers, batch_size, None, quiet, command)


def _tune_versus(setup, versus: str, n: int, workers: int, batch_size: int, scheduler, out, force: bool) -> None:  # noqa: ANN001
    """``nines tune STRATEGY --versus SPEC``: SPEC against STRATEGY at the tuning table, paired, no search."""
    from contextlib import nullcontext

    from nines_sim.output import write_csv, write_manifest
    from nines_sim.registry import StrategyNotFound, canonical_spec, make_lineup
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
            rows = {"best": "versus", "baseline": "strategy", "gain": "difference"}
            frame = checked.frame().assign(row=lambda f: f["row"].map(rows))
            frame.loc[frame["row"] == "difference", "spec"] = "versus - strategy (paired)"
            write_csv(frame, run_dir / "validation.csv")
            write_manifest(run_dir, {"kind": "versus", "setup": setup.as_json(), "versus": spec,
                                     "baseline": setup.baseline_spec, "matches": checked.matches,
                                     "match_range": list(checked.match_range)})  # fmt: skip
    g, (lo, hi) = checked.gain * 100, (x * 100 for x in checked.gain_ci)
    typer.echo(
        f"{spec} (versus) against {setup.baseline_spec} (strategy) on {checked.matches:,} fresh matches, paired: "
        f"win rate {checked.best:.4f} vs {checked.baseline:.4f}, versus - strategy {g:+.2f} points "
        f"(95% CI {lo:+.2f} to {hi:+.2f}, "
        f"p = {checked.p_value:.3g}); results in {run_dir}"
    )


def cpu_count_default() -> int:
    from nines_sim.simulate import cpu_count

    return cpu_count()


def _check_tune_target(url: str, explicit: bool, name: str, setup, run_dir: Path, force: bool) -> None:  # noqa: ANN001
    """Refuse, before anything is written, a storage that is not SQLite or cannot be opened, a study of that
    name with another setup, and a run folder that holds something other than this study's files."""
    from nines_sim.tune import TuneError, open_study

    prefix = "sqlite:///"
    if not url.startswith(prefix) or not url[len(prefix) :] or url[len(prefix) :] == ":memory:":
        raise usage_error(f"--storage must be a SQLite file, sqlite:///PATH, not {url!r}")
    db = Path(url[len(prefix) :])
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
    if run_dir.is_dir() and any(run_dir.iterdir()) and not force:
        ours = (run_dir / "study.db").is_file()
        try:
            ours = ours or json.loads((run_dir / "manifest.json").read_text()).get("study") == name
        except (OSError, ValueError):
            pass
        if not ours:
            raise usage_error(f"{run_dir} already holds files; choose another --out or add --force to overwrite")


def _tune_run(setup, url, name, run_dir, n_trials, validate, workers, batch_size, client, quiet, command) -> None:  # noqa: ANN001, PLR0913
    import math
    import time

    from tqdm import tqdm

    from nines_sim.output import prepare_dir
    from nines_sim.tune import Runner, TuneError, TuneInterrupted, finished, open_study, optimize, validate_best

    prepare_dir(run_dir, force=True)
    try:
        st = open_study(url, name, setup, create=True)
    except TuneError as exc:
        raise usage_error(str(exc)) from None
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

        try:
            optimize(st, setup, n_trials, runner, on_trial)
        except (TuneInterrupted, KeyboardInterrupt):
            bar.close()
            typer.echo(
                f"Interrupted: {len(finished(st))} finished trials are kept in {url}; run the same command to resume.",
                err=True,
            )
            raise typer.Exit(code=130) from None
    wall = time.perf_counter() - t0
    ran = len(finished(st)) - before
    try:
        checked = _run_or_explain(lambda: validate_best(st, setup, validate, runner)) if validate else None
    except TuneInterrupted:
        typer.echo(f"Interrupted during validation; the trials are kept in {url}; run the same command to resume.",
                   err=True)  # fmt: skip
        raise typer.Exit(code=130) from None
    from nines_sim.numbers import decimal_text
    from nines_sim.reporting.tune import write_tune_folder

    def pts(x: float) -> str:  # the report's rounding rule for points of win rate
        return decimal_text(x, 2, signed=True, scale=100)

    with _writing():
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
        f"{m['trials_finished']} trials ({ran} run now, {wall:.1f} s; {m['trials_per_minute'] or 0:.2f} trials/min); "
        f"best {m['best_spec']}; results in {run_dir}"
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
