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

Errors: a target that cannot be used (:func:`check_target`: the storage, another setup under the study's
name, an ``out`` that holds other files) raises :class:`~nines_sim.experiments.study.TuneError`; a folder that
cannot
be written, :class:`~nines_sim.runs.runfolder.RunSetupError`; Ctrl-C,
:class:`~nines_sim.experiments.tune.work.TuneInterrupted`
whose message says what is kept and how to resume.
"""

from __future__ import annotations

import json
import shlex
import time
from collections.abc import Callable
from contextlib import ExitStack, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nines_sim.experiments.study import (
    TuneError,
    TuneInterrupted,
    open_study,
    storage_file,
    storage_lock,
    trials_with_bar,
)
from nines_sim.runs.errors import RunSetupError
from nines_sim.runs.runfolder import compute_backend, run_folder, writing


def check_target(url: str, explicit: bool, name: str, setup: Any, run_dir: Path, force: bool) -> None:
    """Refuse, before anything is written, a storage that is not SQLite or a journal or cannot be opened, a
    study of that name with another setup, and a run folder that holds something other than this study's files
    (read under the storage's lock: another process of the same study may be writing it).

    Parameters
    ----------
    url : str
        The study's storage (``sqlite:///PATH`` or ``journal:PATH``).
    explicit : bool
        Whether the caller named the storage (then its folder must exist).
    name : str
        The study's name.
    setup : nines_sim.experiments.tune.work.Setup or None
        The tuning table; a stored study of ``name`` must have the same (None: not checked here, as for a rules
        search, whose study checks its setup as it opens).
    run_dir : pathlib.Path
        The run folder.
    force : bool
        Whether files of another run in ``run_dir`` may be overwritten.

    Raises
    ------
    nines_sim.experiments.study.TuneError
        The target cannot be used; the message (one line) says why (a path that cannot be written:
        :func:`nines_sim.runs.out_path.check_output_path`).
    """
    from nines_sim.runs.out_path import OutputPathError, check_output_path

    _, db = storage_file(url)
    try:
        check_output_path(run_dir, "--out", folder=True)
        if explicit:  # the default storage is in the run folder, which leaves room for its name
            check_output_path(db, "--storage", folder=False, beside=".tune-lock")
    except OutputPathError as exc:
        raise TuneError(str(exc)) from None
    if db.exists() and not db.is_file():
        raise TuneError(f"cannot open the storage {url}: {db} is not a file")
    if explicit and not db.exists() and not db.parent.is_dir():
        raise TuneError(f"cannot open the storage {url}: the folder {db.parent} does not exist")
    if db.is_file() and setup is not None:
        open_study(url, name, setup, create=False)
    if run_dir.exists() and not run_dir.is_dir():
        raise TuneError(f"{run_dir} exists and is not a folder; choose another --out")
    if not run_dir.is_dir() or force:
        return
    with storage_lock(url) if db.parent.is_dir() else nullcontext():
        # hidden files and lock files are another process's work in progress, not a run's results
        held = [f for f in run_dir.iterdir() if not f.name.startswith(".") and not f.name.endswith(".tune-lock")]
        ours = not held or (run_dir / "study.db").is_file()
        try:
            ours = ours or json.loads((run_dir / "manifest.json").read_text()).get("study") == name
        except (OSError, ValueError):
            pass
    if not ours:
        raise TuneError(f"{run_dir} already holds files; choose another --out or add --force to overwrite")


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
        lines.append(
            f"{m['trials_finished']} trials ({self.ran} run by this process, {self.wall:.1f} s; "
            f"{m['trials_per_minute'] or 0:.2f} trials/min); best "
            f"{shown if moved else strategy + ' at the baseline values'}: play it as "
            f"{shlex.quote(strategy + '@' + str(self.run_dir / 'best.json'))}"
        )
        return lines


def open_in_folder(run_dir: Path, url: str, open_: Callable[[], Any], held: ExitStack) -> Any:
    """The run folder made ready and held (shared by the processes of one study, :func:`one_writer`), then the
    study opened with ``open_()`` (created if new), for a tuning run or a rules search.

    ``held`` keeps the folder's lock until it closes: until the run has written its results.

    Raises
    ------
    nines_sim.runs.runfolder.RunSetupError
        The folder cannot be written, another run that writes alone is writing into it
        (:class:`~nines_sim.runs.folder_lock.FolderInUse`), or the study cannot be opened (the message says why).
    """
    from nines_sim.runs.folder_lock import one_writer
    from nines_sim.runs.output import OutputExists, prepare_dir

    made = not run_dir.exists()
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        held.enter_context(one_writer(run_dir, shared=True))
        with storage_lock(url):  # processes sharing the study and the folder: one probe at a time
            prepare_dir(run_dir, force=True)
        return open_()
    except (TuneError, OutputExists, OSError, RunSetupError) as exc:
        if made and run_dir.is_dir() and not any(run_dir.iterdir()):
            run_dir.rmdir()  # a usage error writes nothing: not even the empty folder this call made
        if isinstance(exc, OSError):
            raise RunSetupError(f"cannot write to {run_dir} ({exc.strerror or exc}); choose another --out") from None
        if isinstance(exc, RunSetupError):
            raise
        raise RunSetupError(str(exc)) from None


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

    # held: the folder's lock (shared with the study's other processes) until the results are written
    with ExitStack() as held, compute_backend(scheduler, workers) as client:  # client None: local processes
        st = open_in_folder(run_dir, url, lambda: open_study(url, name, setup, create=True), held)
        runner = Runner(workers=workers, batch_size=batch_size, client=client)
        t0 = time.perf_counter()
        ran = _trials(st, setup, url, n_trials, runner, quiet)
        wall = time.perf_counter() - t0
        try:
            checked = validate_best(st, setup, validate, runner) if validate else None
        except TuneInterrupted:
            raise TuneInterrupted(
                f"Interrupted during validation; the trials are kept in {url}; run the same command to resume."
            ) from None
        # processes sharing the study may share the folder: one writes at a time, each file replaced whole
        with writing(), storage_lock(url):
            m = write_tune_folder(run_dir, st, setup, checked, command, url, name, wall, ran, workers)
    return StudyOutcome(run_dir, st, checked, m, ran, wall)


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
