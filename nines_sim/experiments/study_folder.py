"""A study played into its run folder, the same way for both tuners (``nines tune``, ``nines tune-rules``).

:func:`check_target` refuses, before anything is written, a storage, study or folder that cannot be used;
:func:`open_in_folder` makes the folder ready and opens the study; :func:`play_study` runs the one protocol both
tuners follow: the folder held (shared by the processes of one study) until the results are written, the trials
and their validation on one backend (local processes or a Dask cluster), a Ctrl-C during validation that keeps
the trials and says how to resume, and one writer at a time.  Each tuner brings its trials, its validation and
its writing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from contextlib import ExitStack, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nines_sim.experiments.study import TuneError, TuneInterrupted, open_study, storage_file, storage_lock
from nines_sim.runs.errors import RunSetupError
from nines_sim.runs.runfolder import compute_backend, writing


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
        st = open_()
        _one_study_in_folder(run_dir, url, st)
        return st
    except (TuneError, OutputExists, OSError, RunSetupError) as exc:
        if made and run_dir.is_dir() and not any(run_dir.iterdir()):
            run_dir.rmdir()  # a usage error writes nothing: not even the empty folder this call made
        if isinstance(exc, OSError):
            raise RunSetupError(f"cannot write to {run_dir} ({exc.strerror or exc}); choose another --out") from None
        if isinstance(exc, RunSetupError):
            raise
        raise RunSetupError(str(exc)) from None


def _one_study_in_folder(run_dir: Path, url: str, st: Any) -> None:
    """Refuse a study whose storage is in ``run_dir`` and already holds another study: the folder's files are that
    study's (two studies started at once on an empty folder both pass :func:`check_target`; the first made keeps
    the folder).  The refused study is removed from the storage again if it holds no trial (this call made it).

    Raises
    ------
    nines_sim.runs.runfolder.RunSetupError
        The folder holds another study's run.
    """
    import optuna

    from nines_sim.experiments.study import open_storage

    if storage_file(url)[1].resolve().parent != run_dir.resolve():
        return  # a storage outside the folder may hold the studies of other folders
    with storage_lock(url):
        storage = open_storage(url)
        studies = optuna.study.get_all_study_summaries(storage, include_best_trial=False)
        first = min(studies, key=lambda s: s._study_id).study_name
        if first == st.study_name:
            return
        if not st.trials:
            optuna.delete_study(study_name=st.study_name, storage=storage)
    raise RunSetupError(
        f"{run_dir} holds the run of the study {first!r} (a run folder holds one study); choose another --out"
    )


@dataclass
class StudyPlayed:
    """What :func:`play_study` played and wrote.

    Attributes
    ----------
    study : optuna.Study
        The study, with every process's trials.
    checked : object or None
        The validation (None: none asked).
    wall : float
        Seconds the trials took here (s).
    ran : int
        Trials this process ran.
    written : object
        What the tuner's ``write`` returned.
    """

    study: Any
    checked: Any
    wall: float
    ran: int
    written: Any


def play_study(
    run_dir: Path,
    url: str,
    open_: Callable[[], Any],
    scheduler: str | None,
    workers: int,
    trials: Callable[[Any, Any], int],
    validate: Callable[[Any, Any], Any],
    write: Callable[[Any, Any, float, int], Any],
) -> StudyPlayed:
    """Play a study into its run folder: open it (:func:`open_in_folder`), run its trials, validate, write.

    Parameters
    ----------
    run_dir : pathlib.Path
        The run folder.
    url : str
        The study's storage: ``sqlite:///PATH`` or ``journal:PATH``.
    open_ : callable
        ``open_()``: the study, opened (created if new).
    scheduler : str, optional
        A Dask scheduler's address (``local``: a cluster on this machine); None: local processes.
    workers : int
        Worker processes (or the cluster's workers with ``scheduler``).
    trials : callable
        ``trials(study, client)``: runs this process's trials (``client`` None for local processes); returns how
        many it ran.
    validate : callable
        ``validate(study, client)``: the validation on fresh matches, or None.
    write : callable
        ``write(study, checked, wall, ran)``: writes the folder, under :func:`nines_sim.runs.runfolder.writing` and
        the storage's lock (processes sharing the study may share the folder: one writes at a time, each file
        replaced whole); its value is :attr:`StudyPlayed.written`.

    Returns
    -------
    StudyPlayed

    Raises
    ------
    nines_sim.runs.runfolder.RunSetupError
        The folder cannot be written or the study not opened.
    nines_sim.experiments.study.TuneInterrupted
        Ctrl-C; the finished trials are kept in the storage, the message says how to resume.
    nines_sim.runs.cluster.ClusterError
        The cluster cannot be used.
    """
    # held: the folder's lock (shared with the study's other processes) until the results are written
    with ExitStack() as held:
        with compute_backend(scheduler, workers) as client:  # None: local processes
            st = open_in_folder(run_dir, url, open_, held)
            t0 = time.perf_counter()
            ran = trials(st, client)
            wall = time.perf_counter() - t0
            try:
                checked = validate(st, client)
            except TuneInterrupted:
                raise TuneInterrupted(
                    f"Interrupted during validation; the trials are kept in {url}; run the same command to resume."
                ) from None
        with writing(), storage_lock(url):
            written = write(st, checked, wall, ran)
    return StudyPlayed(st, checked, wall, ran, written)
