"""A tuning run as one library call: :func:`run_tune_study` plays a study into a run folder, :func:`run_versus`
plays one spec against the tuned strategy into one.

``nines tune`` is a thin layer over these: it reads the options, builds the
:class:`~nines_sim.experiments.tune.work.Setup`
and the command that reproduces the run, calls them and prints :meth:`StudyOutcome.summary`::

    from pathlib import Path

    from nines_sim.game.rules import make_rules
    from nines_sim.experiments.tune.work import make_setup
    from nines_sim.experiments.tune.study import run_tune_study

    setup = make_setup("expert", ["random"], make_rules("classic", players=2), "all", 2_000, seed=0)
    outcome = run_tune_study(setup, "sqlite:///runs/tune/study.db", "first", Path("runs/tune"), n_trials=20,
                             validate=10_000, workers=2, command="(from Python)")
    print(*outcome.summary(), sep="\\n")

Errors: a target that cannot be used (:func:`~nines_sim.experiments.study_folder.check_target`: the storage,
another setup under the study's name, an ``out`` that holds other files) raises
:class:`~nines_sim.experiments.study.TuneError`; a folder that cannot be written,
:class:`~nines_sim.runs.runfolder.RunSetupError`; Ctrl-C, :class:`~nines_sim.experiments.tune.work.TuneInterrupted`
whose message says what is kept and how to resume.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nines_sim import _moved
from nines_sim.experiments.study import (
    TuneInterrupted,
    open_study,
    trials_with_bar,
)
from nines_sim.experiments.study_folder import play_study
from nines_sim.runs.runfolder import compute_backend, run_folder, writing


def __getattr__(name: str) -> Any:
    return _moved.moved_name(__name__, name)  # the target's check and the folder's opening, deprecated here


@dataclass
class StudyOutcome:
    """What :func:`run_tune_study` played and wrote.

    Attributes
    ----------
    run_dir : pathlib.Path
        The run folder (``trials.csv``, ``report.md``, ``manifest.json``, ...).
    study : optuna.Study
        The study, with every process's trials.
    checked : nines_sim.experiments.tune.work.Validation or None
        The best values against the baseline on fresh matches (None: no validation asked).
    manifest : dict
        The folder's ``manifest.json``.
    ran : int
        Trials this process ran.
    wall : float
        Seconds the trials took here (s).
    """

    run_dir: Path
    study: Any
    checked: Any
    manifest: dict
    ran: int
    wall: float

    def summary(self) -> list[str]:
        """The lines ``nines tune`` prints at the end: the validation's answer, then the study's count and best."""
        from nines_sim.reporting.labels import short_label
        from nines_sim.results.rounding import decimal_text

        def pts(x: float) -> str:  # the report's rounding rule for points of win rate
            return decimal_text(x, 2, signed=True, scale=100)

        checked, m, lines = self.checked, self.manifest, []
        if checked is not None and checked.best_spec == checked.baseline_spec:
            lines.append(
                f"no trial beat the baseline; its win rate on {checked.matches:,} fresh matches: {checked.best:.4f}"
            )
        elif checked is not None:
            lines.append(
                f"validated on {checked.matches:,} fresh matches: win rate {checked.baseline:.4f} -> "
                f"{checked.best:.4f}, gain {pts(checked.gain)} points (95% CI {pts(checked.gain_ci[0])} to "
                f"{pts(checked.gain_ci[1])}); in-sample gain {pts(m['in_sample_gain'])} points"
            )
        # the best values where they differ from the baseline, rounded (in full: best.json, the manifest,
        # trials.csv), and how to play them
        best = json.loads((self.run_dir / "best.json").read_text(encoding="utf-8"))
        strategy, moved = best["strategy"], {k: v for k, v in best["params"].items() if best["baseline"].get(k) != v}
        shown = short_label(f"{strategy}:" + ",".join(f"{k}={v}" for k, v in moved.items()), width=80)
        # the rate on the clock of the seconds beside it: this process's trials over its wall time (the manifest's
        # trials_per_minute counts every process's trials over their own times, which the screen does not show)
        rate = f"; {60 * self.ran / self.wall:.2f} trials/min" if self.ran and self.wall > 0 else ""
        lines.append(
            f"{m['trials_finished']} trials ({self.ran} run by this process in {self.wall:.1f} s{rate}); best "
            f"{shown if moved else strategy + ' at the baseline values'}: play it as "
            f"{shlex.quote(strategy + '@' + str(self.run_dir / 'best.json'))}"
        )
        return lines


def _trials(st: Any, setup: Any, url: str, n_trials: int, runner: Any, quiet: bool) -> int:
    """:func:`~nines_sim.experiments.tune.work.optimize` under :func:`~nines_sim.experiments.study.trials_with_bar`."""
    from nines_sim.experiments.tune.work import optimize

    def run(on_trial: Callable[[Any], None], on_wait: Callable[[int], None]) -> int:
        return optimize(st, setup, n_trials, runner, on_trial, storage=url, on_wait=on_wait)

    return trials_with_bar(st, url, n_trials, quiet, run, best=True)


def run_tune_study(
    setup: Any,
    url: str,
    name: str,
    run_dir: Path,
    n_trials: int,
    validate: int,
    workers: int,
    command: str,
    batch_size: int = 32768,
    scheduler: str | None = None,
    quiet: bool = True,
    charts: bool = True,
) -> StudyOutcome:
    """Tune ``setup``'s strategy in the study ``name`` of ``url`` until it holds ``n_trials`` finished trials,
    validate the best values against the baseline on ``validate`` fresh matches, and write the run folder.

    Several processes may share a study and its folder: each runs trials until the study holds ``n_trials``,
    waits for the others' last trials, then validates and writes (one at a time, each file replaced whole).

    Parameters
    ----------
    setup : nines_sim.experiments.tune.work.Setup
        The strategy, its opponents, the rules, the parameters tuned and the matches per trial
        (:func:`nines_sim.experiments.tune.work.make_setup`).
    url : str
        The study's storage: ``sqlite:///PATH`` or ``journal:PATH``.
    name : str
        The study's name.
    run_dir : pathlib.Path
        The run folder.
    n_trials : int
        Finished (complete or pruned) trials the study should hold.
    validate : int
        Fresh matches of best against baseline, paired (0: no validation).
    workers : int
        Worker processes (or the cluster's workers with ``scheduler``).
    command : str
        The command that reproduces the run, for the manifest and the report.
    batch_size : int
        Games in play at once per worker.
    scheduler : str, optional
        A Dask scheduler's address (``local``: a cluster on this machine); default local processes.
    quiet : bool
        No progress bar.
    charts : bool
        Draw the PNG charts (False: none, and those of an earlier run of the study removed: they show fewer trials).

    Returns
    -------
    StudyOutcome

    Raises
    ------
    nines_sim.runs.runfolder.RunSetupError
        The folder cannot be written or the study not opened.
    nines_sim.experiments.tune.work.TuneInterrupted
        Ctrl-C; the finished trials are kept in the storage, the message says how to resume.
    nines_sim.runs.cluster.ClusterError
        The cluster cannot be used.
    """
    from nines_sim.experiments.tune.report import write_tune_folder
    from nines_sim.experiments.tune.work import Runner, validate_best

    runner: list[Runner] = []  # on the study's backend, made when its client is

    def trials(st: Any, client: Any) -> int:
        runner.append(Runner(workers=workers, batch_size=batch_size, client=client))
        return _trials(st, setup, url, n_trials, runner[0], quiet)

    def check(st: Any, client: Any) -> Any:
        return validate_best(st, setup, validate, runner[0]) if validate else None

    def write(st: Any, checked: Any, wall: float, ran: int) -> dict:
        return write_tune_folder(run_dir, st, setup, checked, command, url, name, wall, ran, workers, charts)

    played = play_study(run_dir, url, lambda: open_study(url, name, setup, create=True), scheduler, workers, trials,
                        check, write)  # fmt: skip
    return StudyOutcome(run_dir, played.study, played.checked, played.written, played.ran, played.wall)


def run_versus(
    setup: Any,
    spec: str,
    n: int,
    workers: int,
    out: str | Path | None,
    command: Callable[[Path, str], str],
    labels: tuple[str, str],
    batch_size: int = 32768,
    scheduler: str | None = None,
    force: bool = False,
) -> tuple[Path, str]:
    """Play ``spec`` against ``setup``'s strategy at the tuning table on ``n`` fresh matches, paired, no search.

    Writes ``validation.csv`` (the full specs), ``report.md`` and ``manifest.json`` (``kind: versus``), a folder
    ``nines report`` redraws.

    Parameters
    ----------
    setup : nines_sim.experiments.tune.work.Setup
        The tuning table.
    spec : str
        The challenger's spec (canonical, :func:`nines_sim.strategy.registry.canonical_spec`).
    n : int
        Fresh matches (a multiple of the seats).
    workers : int
        Worker processes.
    out : str or pathlib.Path, optional
        The run folder (default: one named after the kind and the time).
    command : callable
        ``command(run_dir, spec)``: the command that reproduces the run.
    labels : tuple of str
        Short names of ``spec`` and of the strategy, as the caller wrote them, for the answer.
    batch_size, scheduler, force
        As :func:`run_tune_study`; ``force`` overwrites another run's files in ``out``.

    Returns
    -------
    tuple
        ``(run_dir, answer)``: the folder and the answer's line.

    Raises
    ------
    KeyboardInterrupt
        Ctrl-C: nothing finished is worth keeping (no result without both sides), nothing is written.
    nines_sim.runs.runfolder.RunSetupError, nines_sim.runs.output.OutputExists
        ``out`` cannot be used.
    """
    from nines_sim.experiments.tune.report import versus_labels, write_versus_folder
    from nines_sim.experiments.tune.work import Runner
    from nines_sim.experiments.tune.work import validate as play_validation

    with run_folder(out, "versus", force) as run_dir:
        with compute_backend(scheduler, workers) as client:  # None: local processes
            runner = Runner(workers=workers, batch_size=batch_size, client=client)
            try:
                checked = play_validation(setup, spec, n, runner)
            except TuneInterrupted:
                raise KeyboardInterrupt from None
        with writing():
            answer = write_versus_folder(run_dir, checked, setup, command(run_dir, spec), versus_labels(*labels))
    return run_dir, answer
