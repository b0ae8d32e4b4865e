"""``nines report``: a run folder's charts and report redrawn from its CSVs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nines_sim.cli.app import usage_error
from nines_sim.cli.common import charts_and_report


def report(
    run_dir: Annotated[
        Path,
        typer.Argument(help="A run folder of 'nines tournament', 'compare-rules', 'tune', 'tune-rules' or 'review'."),
    ],
) -> None:
    """Redraw the charts and report.md of a run folder from its CSVs (checked against its manifest.json first)."""
    from nines_sim.reporting.check import RunFolderError, check_run_folder

    try:
        check_run_folder(run_dir)
    except RunFolderError as exc:
        raise usage_error(str(exc)) from None
    try:
        kind = charts_and_report(run_dir, no_charts=False)
    except OSError as exc:
        raise usage_error(
            f"cannot write the report into {run_dir} ({exc.strerror or exc}); copy the folder somewhere writable "
            f"and run nines report there"
        ) from None
    except (KeyError, ValueError, TypeError, AttributeError) as exc:
        raise usage_error(f"{run_dir} is not a readable run folder ({type(exc).__name__}: {exc})") from None
    typer.echo(f"wrote {'' if kind == 'versus' else 'the charts and '}{run_dir / 'report.md'}")
