"""The ``nines`` command line: a thin Typer layer over the library."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from nines_sim import __version__
from nines_sim.rules import OPTION_CLAUSES, OPTION_HELP, PRESETS, Rules

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
    workers: Annotated[int, typer.Option("--workers", "-w", min=1, help="Worker processes.")] = 1,
    repeat: Annotated[int, typer.Option("--repeat", "-r", min=1, help="Runs per workload; the median is shown.")] = 3,
    batch_size: Annotated[int | None, typer.Option("--batch-size", min=1, help="Games in play at once.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list instead of a table.")] = False,
) -> None:
    """Time named workloads of full matches: matches/s, hands/s, turns/s (median of the repeats).

    W1 classic 4 x random; W2 classic 2 x random; W3 classic 6 x random;
    W4 classic random, hold-nines, dump-faces, suit-majority; W5 double-nines 6 x random.
    """
    from nines_sim.bench import WORKLOADS, run_workload

    names = workloads or list(WORKLOADS)
    for n in names:
        if n not in WORKLOADS:
            raise usage_error(f"unknown workload {n!r}; workloads are: {', '.join(WORKLOADS)}")
    rows = []
    for n in names:
        r = run_workload(n, matches, workers=workers, repeat=repeat, batch_size=batch_size)
        rows.append(r)
        if not as_json:
            typer.echo(
                f"{n}  {WORKLOADS[n][0]:<30} {r.matches_per_s:>10,.0f} matches/s {r.hands_per_s:>11,.0f} hands/s "
                f"{r.turns_per_s:>13,.0f} turns/s  ({r.matches:,} matches, {r.workers} process(es), "
                f"{r.cores} cores, median of {r.repeat})"
            )
    if as_json:
        keys = ("workload", "matches", "workers", "seconds", "matches_per_s", "hands_per_s", "turns_per_s", "cores")
        typer.echo(json.dumps([{k: r.as_dict()[k] for k in keys} for r in rows], indent=2))


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
