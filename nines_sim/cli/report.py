"""``nines report``: a run folder's charts and report redrawn from its CSVs."""

from __future__ import annotations

import os
from contextlib import ExitStack
from pathlib import Path
from typing import Annotated

import typer

from nines_sim.cli.app import usage_error
from nines_sim.cli.common import charts_and_report
from nines_sim.cli.options import NoChartsOpt


def report(
    folder: Annotated[
        str,  # not a Path: Typer turns '' into Path('.'), and a blank DIR must not mean the current folder
        typer.Argument(
            metavar="DIR",
            help="A run folder of 'nines tournament', 'compare-rules', 'tune', 'tune-rules', 'review' or 'train'.",
        ),
    ],
    no_charts: NoChartsOpt = False,
) -> None:
    """Redraw the charts and report.md of a run folder from its CSVs (checked against its manifest.json first).

    With --no-charts, report.md alone: the charts already in the folder stay, drawn from the same files.
    """
    from nines_sim.reporting.check import RunFolderError, check_run_folder
    from nines_sim.runs.folder_lock import FolderInUse, one_writer

    if not folder.strip():
        raise usage_error(f"DIR is empty ({folder!r}): give a run folder, e.g. nines report reports/tournament-DATE")
    run_dir = Path(folder)
    with ExitStack() as held:
        try:
            if os.path.isdir(run_dir):  # one writer at a time: not while a run writes it (nor its study)
                held.enter_context(one_writer(run_dir, option=None))
            check_run_folder(run_dir)
        except (RunFolderError, FolderInUse) as exc:
            raise usage_error(str(exc)) from None
        kind = _redraw(run_dir, no_charts)
    typer.echo(f"wrote {'' if kind == 'versus' or no_charts else 'the charts and '}{run_dir / 'report.md'}")


def _redraw(run_dir: Path, no_charts: bool) -> str:
    """The folder's charts (unless ``no_charts``) and report drawn again; its kind.  A folder that cannot be
    written or read, a usage error."""
    try:
        return charts_and_report(run_dir, no_charts)
    except OSError as exc:
        raise usage_error(
            f"cannot write the report into {run_dir} ({exc.strerror or exc}); copy the folder somewhere writable "
            f"and run nines report there"
        ) from None
    except (KeyError, ValueError, TypeError, AttributeError) as exc:
        raise usage_error(f"{run_dir} is not a readable run folder ({type(exc).__name__}: {exc})") from None
