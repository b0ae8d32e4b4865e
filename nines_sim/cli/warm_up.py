"""``nines warm-up``: build every form of the compiled engine once, in parallel processes, with progress."""

from __future__ import annotations

import sys
import threading
import time
from typing import Annotated, Any

import typer

from nines_sim.cli.app import echo_error


def warm_up(
    workers: Annotated[
        int | None,
        typer.Option("--workers", "-w", min=1, max=256, help="Processes building at once (default: CPU count)."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the closing line.")] = False,
) -> None:
    """Build every form of the compiled engine now, side by side, so that no later command waits for one.

    Each command otherwise compiles the forms it meets the first time (tens of seconds each, one after the
    other): the classic and general rule shapes, each with and without expert, the search's sampler
    (lookahead, review, analyze, train), train's batch features, the trace form of replays, play and analyze,
    and the luck walk of --luck. Forms already built are loaded from the cache in about a second. Run it once
    after installing or upgrading (or leave it running in another terminal).
    """
    from tqdm import tqdm

    from nines_sim.engine.build_forms import FORMS, GROUPS, BuildForms, Built, ready_to_fork

    started = time.perf_counter()
    bars: list[Any] = []
    bar_made = threading.Event()
    building = None

    def said(built: Built) -> None:
        bar_made.wait()  # a form can be done (loaded from the cache) before the bar below is made
        how = f"compiled in {built.cpu_s:.0f} s of processor time" if built.compiled else "already built"
        bars[0].write(f"{built.form}: {how}", file=sys.stderr)
        bars[0].update()

    try:
        # The building processes fork from this one with numba's tables loaded here once (each began by loading them,
        # about 1 s of processor time, as an interpreter of its own), and before tqdm's bar starts its monitor thread
        # (with another thread running they would start as interpreters).
        ready_to_fork(GROUPS[0][0])
        building = BuildForms(workers, None if quiet else said, fork=True)
        bars.append(tqdm(total=len(FORMS), desc="building compiled forms", unit="form", disable=quiet,
                         file=sys.stderr))  # fmt: skip
        bar_made.set()
        done = building.wait()
    except RuntimeError as exc:
        for bar in bars:
            bar.close()
        echo_error(str(exc))
        raise typer.Exit(code=1) from None
    except KeyboardInterrupt:
        if building is not None:  # stopped before its wait, which stops them itself
            building.stop()
        for bar in bars:
            bar.close()
        echo_error("interrupted (Ctrl-C): the forms built so far are kept in the cache")
        raise typer.Exit(code=130) from None
    bars[0].close()
    compiled = sum(b.compiled for b in done)
    typer.echo(
        f"{len(done)} forms of the compiled engine ready in {time.perf_counter() - started:.1f} s "
        f"({compiled} compiled, {len(done) - compiled} already built); later commands load them from the cache"
    )
