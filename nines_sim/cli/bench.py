"""``nines bench``: timed workloads of full matches, and the start-up times."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from nines_sim.cli.app import echo_error, usage_error
from nines_sim.cli.common import interrupted
from nines_sim.cli.options import at_most_max_matches
from nines_sim.spelling import did_you_mean


def bench(
    workloads: Annotated[list[str] | None, typer.Argument(help="Workloads to run (default: all). See below.")] = None,
    matches: Annotated[
        int, typer.Option("--matches", "-n", min=1, callback=at_most_max_matches, help="Matches per run.")
    ] = 100_000,
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
    from nines_sim.experiments.bench.ratios import PAIRED_C_SECONDS, Sitting, bench_json
    from nines_sim.experiments.bench.work import WORKLOADS, ReferenceError

    names = workloads or list(WORKLOADS)
    for n in names:
        if n not in WORKLOADS and n != "startup":
            hint = did_you_mean(n, [*WORKLOADS, "startup"])
            raise usage_error(f"unknown workload {n!r}{hint}; workloads are: {', '.join(WORKLOADS)}, startup")
    if "startup" in names:
        if len(names) > 1 or against_c is not None:
            raise usage_error("name startup on its own: it times fresh processes, not the match workloads")
        _bench_startup(repeat, as_json)
        return
    try:
        sitting = Sitting(against_c)
    except ReferenceError as exc:
        raise usage_error(str(exc)) from None
    except KeyboardInterrupt:
        raise _bench_stopped("the build of the C reference", [], {}, as_json) from None
    rows: list = []
    with sitting:
        if against_c is not None:
            try:
                refs = sitting.time_references()
            except ReferenceError as exc:
                raise usage_error(str(exc)) from None
            except KeyboardInterrupt:
                raise _bench_stopped("the reference runs", [], {}, as_json) from None
            if not as_json:
                for k, v in refs.items():
                    typer.echo(f"reference {k:<13} {v:>10,.0f} matches/s (classic, 4 x random, one core, this sitting)")
                typer.echo(f"(the ratio to C pairs each run with {PAIRED_C_SECONDS * 3:g} s of C just before it)")
        width = max(len(WORKLOADS[n][0]) for n in names)  # the figures line up under each other
        for n in names:
            try:
                m = sitting.measure(n, matches, workers=workers, repeat=repeat, batch_size=batch_size)
            except KeyboardInterrupt:
                raise _bench_stopped(n, rows, sitting.references, as_json) from None
            rows.append(m)
            r = m.result
            if not as_json:
                typer.echo(
                    f"{n}  {WORKLOADS[n][0]:<{width}} {r.matches_per_s:>10,.0f} matches/s "
                    f"{r.hands_per_s:>11,.0f} hands/s {r.turns_per_s:>13,.0f} turns/s  "
                    f"({r.matches:,} matches, {r.workers} process(es), "
                    f"{r.cores} cores, median of {r.repeat})" + m.ratio_words()
                )
    if as_json:
        typer.echo(json.dumps(bench_json(rows, sitting.references), indent=2))


def _bench_stopped(stage: str, rows: list, refs: dict[str, float], as_json: bool) -> typer.Exit:
    """Ctrl-C in ``nines bench``: the workloads measured in full are kept (printed, or as JSON), the rest not."""
    from nines_sim.experiments.bench.ratios import bench_json

    if as_json and rows:
        typer.echo(json.dumps(bench_json(rows, refs), indent=2))
    if not rows:
        return interrupted(f"stopped during {stage}: nothing was measured.")
    done, where = ", ".join(m.result.workload for m in rows), "the JSON" if as_json else "the lines"
    return interrupted(
        f"stopped during {stage}: {done} measured in full ({where} above); {stage} and what follows not measured."
    )


def _bench_startup(repeat: int, as_json: bool) -> None:
    """``nines bench startup``: fresh-process wall times and their ratio to the pandas import."""
    from nines_sim.experiments.bench.work import BenchError, time_startup

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
