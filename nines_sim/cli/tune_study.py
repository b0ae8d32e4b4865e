"""The study of ``nines tune`` and ``--versus``: the library's runs (:mod:`nines_sim.experiments.tune.study`) called,
their errors said as the CLI says them, their answers printed."""

from __future__ import annotations

from pathlib import Path

import typer

from nines_sim.cli.app import usage_error
from nines_sim.cli.common import compile_notices, run_errors


def tune_versus(setup, versus: str, n: int, workers: int, batch_size: int, scheduler, out, force: bool,  # noqa: ANN001, PLR0913
                command, labels: tuple[str, str]) -> None:  # fmt: skip
    """``nines tune STRATEGY --versus SPEC``: SPEC against STRATEGY at the tuning table, paired, no search.

    Writes ``validation.csv`` (the full specs), ``report.md`` and ``manifest.json`` (``kind: versus``), a
    folder ``nines report`` redraws; prints the answer first, with short labels (``labels``: what was typed).
    """
    from nines_sim.experiments.tune.study import run_versus
    from nines_sim.strategy.registry import StrategyNotFound, canonical_spec, make_lineup

    try:
        make_lineup([versus])
        spec = canonical_spec(versus)
    except StrategyNotFound as exc:
        raise usage_error(str(exc)) from None
    if n < 1:
        raise usage_error("--versus plays the --validate matches: give --validate 1 or more")
    with run_errors():
        run_dir, answer = run_versus(setup, spec, n, workers, out, command, labels, batch_size, scheduler, force)
    typer.echo(answer)
    typer.echo(f"full specs and numbers in {run_dir}")


def check_tune_target(url: str, explicit: bool, name: str, setup, run_dir: Path, force: bool) -> None:  # noqa: ANN001
    """:func:`nines_sim.experiments.study_folder.check_target`, its refusal a usage error (one line, exit 2)."""
    from nines_sim.experiments.study import TuneError
    from nines_sim.experiments.study_folder import check_target

    try:
        check_target(url, explicit, name, setup, run_dir, force)
    except TuneError as exc:
        raise usage_error(str(exc)) from None


def run_study(setup, url, name, run_dir, n_trials, validate, workers, batch_size, scheduler, quiet, command,  # noqa: ANN001, PLR0913
              charts: bool = True) -> None:  # fmt: skip
    """:func:`nines_sim.experiments.tune.study.run_tune_study`, then its summary; Ctrl-C says what is kept, exit 130."""
    from nines_sim.experiments.tune.study import run_tune_study
    from nines_sim.experiments.tune.work import TuneInterrupted

    try:
        with run_errors(), compile_notices(True if quiet else None):
            outcome = run_tune_study(
                setup, url, name, run_dir, n_trials, validate, workers, command, batch_size, scheduler, quiet, charts
            )
    except TuneInterrupted as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(code=130) from None
    for line in outcome.summary():
        typer.echo(line)
