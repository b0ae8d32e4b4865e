"""An Optuna study that several processes share: its storage, the lock around it, and the claims on its trials.

The one copy both tuners (:mod:`nines_sim.experiments.tune` and :mod:`nines_sim.experiments.tune_rules`) use:
the storage (:func:`open_storage`, :func:`storage_lock`), the claims and the trial loop (:func:`run_trials`,
with each setup's own sampler, :func:`make_sampler`), the trials' table (:func:`trials_frame`) and the
progress bar over them (:func:`trials_with_bar`).  Optuna documents SQLite for several processes on one
machine under a lock, and its journal file for several machines; a trial is claimed by one process, and a
trial whose process is gone is failed and played again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import pandas as pd


class Setup(Protocol):
    """What a study's setup gives the study: either tuner's (:class:`nines_sim.experiments.tune.setup.Setup`,
    :class:`nines_sim.experiments.tune_rules.work.RulesSetup`)."""

    seed: int

    def first_trial(self) -> dict[str, Any] | None:
        """The baseline's values as the study stores them (None: no baseline within the search's bounds)."""

    def as_json(self) -> dict:
        """A JSON-safe description, stored with the study and compared on resume."""

    def sampler(self, seed: int) -> Any:
        """The Optuna sampler of this search, seeded with ``seed``."""


class TuneError(ValueError):
    """A tuning run that cannot be set up as asked; the message (one line) says why."""


class TuneInterrupted(RuntimeError):
    """Ctrl-C stopped a trial; the finished trials are in the study's storage."""


#: First match index of a tuner's validation (either tuner's): trials play indices far beneath it, so that the
#: validation's matches are fresh.
VALIDATION_START = 1 << 40

STORAGE_FORMS = "sqlite:///PATH, or journal:PATH (or a PATH ending in .log) for an Optuna journal file"


def storage_file(url: str) -> tuple[str, Path]:
    """The kind and file of a ``--storage`` value: ``("sqlite", PATH)`` or ``("journal", PATH)``.

    ``sqlite:///PATH`` is an SQLite database (Optuna's RDBStorage); ``journal:PATH``, or a
    path ending in ``.log``, is Optuna's JournalStorage over a JournalFileBackend, the storage
    Optuna's documentation recommends for several processes on one machine (and, on a
    shared file system with working locks, on several).

    Raises
    ------
    TuneError
        For any other form (a database server URL, ``:memory:``, an empty path).
    """
    for prefix, kind in (("sqlite:///", "sqlite"), ("journal:", "journal")):
        if url.startswith(prefix):
            rest = url[len(prefix) :]
            if rest and rest != ":memory:":
                return kind, Path(rest)
            break
    else:
        if "://" not in url and url.endswith(".log"):
            return "journal", Path(url)
    raise TuneError(f"--storage must be {STORAGE_FORMS}, not {url!r}")


@contextmanager
def storage_lock(url: str | None) -> Iterator[None]:
    """Hold an exclusive lock shared by every process using the storage ``url`` (none for None).

    The lock is ``flock`` on ``PATH.tune-lock`` beside the storage's file; it is
    released when the block ends or the process dies.  Under it a process creates
    the storage's schema and the study, enqueues the baseline, claims a trial, and
    writes a run folder, so that processes sharing a study never do these at once.
    """
    if url is None:
        yield
        return
    import fcntl

    _, path = storage_file(url)
    try:
        f = open(f"{path}.tune-lock", "a")  # noqa: SIM115 - closed below, after the unlock
    except OSError as exc:
        raise TuneError(f"cannot open the storage {url} ({exc.strerror or exc})") from None
    with f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def open_storage(url: str) -> Any:
    """The Optuna storage of ``url`` (:data:`STORAGE_FORMS`): a journal file or an SQL database.

    Raises
    ------
    TuneError
        For a journal file that is not one.
    """
    import optuna

    kind, path = storage_file(url)
    if kind == "journal":
        from optuna.storages.journal import JournalFileBackend

        # Optuna reads a journal lazily and fails only on the first write after a bad line: check the first line
        if path.is_file() and path.stat().st_size:
            with path.open("rb") as f:
                first = f.readline()
            try:
                ok = "op_code" in json.loads(first)
            except (ValueError, TypeError):
                ok = False
            if not ok:
                raise TuneError(f"cannot open the storage {url}: {path} is not an Optuna journal file")
        return optuna.storages.JournalStorage(JournalFileBackend(str(path)))
    # a writer waits up to a minute for another process's transaction instead of failing with 'database is locked'
    return optuna.storages.RDBStorage(url, engine_kwargs={"connect_args": {"timeout": 60}})


def open_study(storage: str, name: str, setup: Setup, create: bool) -> Any:
    """The study in ``storage``: loaded when it exists (its setup must agree), else created when ``create``.

    Creating the schema and the study happens under :func:`storage_lock`, so that
    processes started together on a new storage do not race to create them.

    Raises
    ------
    TuneError
        For a storage that cannot be opened, or a study of that name with another setup.
    """
    import optuna

    # Optuna logs a trial stopped by Ctrl-C as a warning with a traceback; the command says it in one line
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    mine = setup.as_json()
    with storage_lock(storage):
        try:
            st = open_storage(storage)
            names = [s.study_name for s in optuna.study.get_all_study_summaries(st, include_best_trial=False)]
            if name not in names and not create:
                return None
            study = optuna.create_study(
                study_name=name,
                storage=st,
                direction="maximize",
                pruner=optuna.pruners.MedianPruner(n_startup_trials=5, n_warmup_steps=1),
                load_if_exists=True,
            )
            theirs = study.user_attrs.get("setup")
            if theirs is None:
                study.set_user_attr("setup", mine)
        except TuneError:
            raise
        except Exception as exc:  # sqlalchemy's and the journal's errors name the cause; the class names differ
            raise TuneError(
                f"cannot open the storage {storage} ({type(exc).__name__}: {str(exc).splitlines()[0]})"
            ) from None
    if theirs is not None and theirs != mine:
        diff = [k for k in mine if theirs.get(k) != mine[k]]
        raise TuneError(
            f"study {name!r} in {storage} was made for another strategy or table (it differs in "
            f"{', '.join(diff) or 'everything'}); choose another --study or --storage"
        )
    return study


def finished(study: Any) -> list[Any]:
    """Trials that count towards ``--trials``: completed and pruned ones."""
    from optuna.trial import TrialState

    return study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED))


#: ``note`` of a trial stopped by Ctrl-C (a failed trial; it does not count towards ``--trials``).
STOPPED_BY_CTRL_C = "stopped by Ctrl-C"
#: ``note`` of a trial whose process ended without finishing it (killed, or the machine stopped).
PROCESS_GONE = "its process ended before the trial finished"


def claimant() -> str:
    """This process, as a running trial records it (``host:pid``)."""
    import os
    import socket

    return f"{socket.gethostname()}:{os.getpid()}"


def _gone(claimant: str | None) -> bool:
    """Whether the process that claimed a running trial is known to have ended (same machine only)."""
    import os
    import socket

    if claimant is None:  # a trial left running by a version that did not record its process
        return True
    host, _, pid = claimant.rpartition(":")
    if host != socket.gethostname():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (OSError, ValueError):
        return False
    return False


def _fail(study: Any, trial: Any, note: str, replay: bool) -> None:
    """Mark a trial (an ``optuna.Trial`` or a running ``FrozenTrial``) failed, saying why in its ``note``.

    With ``replay``, its values are enqueued to be played first by the next trial
    (whose ``replays`` attribute names it), so that a stopped trial is not lost: the
    baseline, stopped, is still played.
    """
    from optuna.trial import Trial, TrialState

    if isinstance(trial, Trial):
        trial.set_user_attr("note", note)
        frozen = study.tell(trial, state=TrialState.FAIL)
    else:  # another process's trial: there is no Trial object for it here
        study._storage.set_trial_user_attr(trial._trial_id, "note", note)
        frozen = study.tell(trial.number, state=TrialState.FAIL)
    # an enqueued trial (the baseline, a replay) is replayed with all its enqueued values: stopped while it
    # drew them, it holds only some as params, and the rest would be sampled (a baseline that is not one)
    values = frozen.system_attrs.get("fixed_params") or frozen.params
    if replay and values:
        study.enqueue_trial(values, user_attrs={"replays": frozen.number})


def sampler_seed(study: Any, setup: Setup) -> int:
    """The seed of this process's sampler, drawn under :func:`storage_lock` at its first claim.

    A fresh seed per process and resumption (the same seed would propose the same
    first points again): ``--seed`` plus the trials the study holds, plus
    ``k * 2**20`` where ``k`` counts the samplers made for the study before (kept
    in the study), so that two processes started together, which see the same
    trials, still sample differently.  The first process on a new study gets
    ``--seed + 1``.
    """
    made = int(study.user_attrs.get("samplers_made", 0))
    study.set_user_attr("samplers_made", made + 1)
    return (setup.seed + len(study.trials) + made * 2**20) % 2**32


def claim(study: Any, setup: Setup, n_trials: int, sampler: list) -> Any:
    """Under :func:`storage_lock`: the next trial this process should run, or a reason not to.

    Returns an ``optuna.Trial`` (the baseline first, ``setup.first_trial()``, enqueued once per study), ``"done"``
    when the study holds ``n_trials`` finished trials, or ``"wait"`` when the trials still
    missing are running in other processes.  A running trial whose process has ended on
    this machine is marked failed (:data:`PROCESS_GONE`), so that another takes its place.
    ``sampler`` holds this process's sampler once made (seeded by the trials the study
    holds then, so that processes started together sample differently), made by
    :func:`make_sampler`.  ``setup`` is either tuner's (:class:`Setup`).
    """
    from optuna.trial import TrialState

    trials = study.get_trials(deepcopy=False)
    if not trials and (first := setup.first_trial()) is not None:
        study.enqueue_trial(first)
    done = sum(t.state in (TrialState.COMPLETE, TrialState.PRUNED) for t in trials)
    if done >= n_trials:
        return "done"
    running = [t for t in trials if t.state == TrialState.RUNNING]
    for t in [t for t in running if _gone(t.user_attrs.get("process"))]:
        _fail(study, t, PROCESS_GONE, replay=True)
        running.remove(t)
    if done + len(running) >= n_trials:
        return "wait"
    if not sampler:
        sampler.append(make_sampler(setup, sampler_seed(study, setup)))
    study.sampler = sampler[0]
    trial = study.ask()
    trial.set_user_attr("process", claimant())
    return trial


def make_sampler(setup: Setup, seed: int) -> Any:
    """This process's sampler for a study: the setup's own (``setup.sampler(seed)``; CMA-ES or TPE for
    ``nines tune``, TPE or NSGA-II for ``nines tune-rules``), made once per process by :func:`claim`."""
    return setup.sampler(seed)


class TrialFailed(Exception):
    """Raised by an objective of :func:`run_trials`: the trial is marked failed with ``note`` (not counted,
    not played again), and the search goes on."""

    def __init__(self, note: str) -> None:
        super().__init__(note)
        self.note = note


def run_trials(
    study: Any,
    setup: Setup,
    n_trials: int,
    objective: Callable[[Any], tuple[Any, Any]],
    storage: str | None = None,
    poll_seconds: float = 0.5,
    on_trial: Callable[[Any], None] | None = None,
    on_wait: Callable[[int], None] | None = None,
    on_failed: Callable[[TrialFailed], None] | None = None,
) -> int:
    """Run trials until the study holds ``n_trials`` finished ones, shared with any other process on it.

    Each trial is claimed (:func:`claim`) under :func:`storage_lock` (the baseline first, once per study; only
    while the finished and running trials are fewer than ``n_trials``), so that the study ends with exactly
    ``n_trials`` finished trials whatever the processes (unless a trial fails: it is not counted, and
    another takes its place).  A process with nothing left to claim waits, polling every ``poll_seconds``
    (``on_wait`` hears the finished trials at every poll), until the other processes' trials end, so
    that every process sees the finished study.

    Parameters
    ----------
    objective : callable
        ``objective(trial) -> (state, value)``: an ``optuna.trial.TrialState`` (complete or pruned) and the
        value or values told to Optuna (None for a pruned trial).  It raises :class:`TrialFailed` for a trial
        that is failed and not played again (``on_failed`` hears of it, and may raise to end the search).
    on_trial : callable, optional
        Called with each trial this process finished (an ``optuna.trial.FrozenTrial``).

    Returns
    -------
    int
        The trials this process finished.

    Raises
    ------
    TuneInterrupted
        On Ctrl-C: the running trial is marked failed (:data:`STOPPED_BY_CTRL_C`) and its values are
        played again first when the study resumes.
    Exception
        An objective's error, after its trial was marked failed (``stopped by an error (...)``).
    """
    import time

    sampler: list = []
    ran = 0
    try:
        while True:
            with storage_lock(storage):
                trial = claim(study, setup, n_trials, sampler)
            if trial == "done":
                return ran
            if trial == "wait":
                if on_wait:
                    on_wait(len(finished(study)))
                time.sleep(poll_seconds)
                continue
            try:
                state, value = objective(trial)
            except TrialFailed as exc:
                _fail(study, trial, exc.note, replay=False)
                if on_failed:
                    on_failed(exc)
                continue
            except (KeyboardInterrupt, TuneInterrupted):
                _fail(study, trial, STOPPED_BY_CTRL_C, replay=True)
                raise
            except BaseException as exc:
                _fail(study, trial, f"stopped by an error ({type(exc).__name__})", replay=False)
                raise
            frozen = study.tell(trial, value, state=state) if value is not None else study.tell(trial, state=state)
            ran += 1
            if on_trial:
                on_trial(frozen)
    except KeyboardInterrupt:
        raise TuneInterrupted("interrupted") from None


def trial_note(t: Any) -> str:
    """``note`` of ``trials.csv``: why a trial failed (:data:`STOPPED_BY_CTRL_C`, :data:`PROCESS_GONE`, an
    error), or which stopped trial it plays again (``replays trial N``); empty otherwise."""
    a = t.user_attrs
    return a.get("note") or (f"replays trial {a['replays']}" if "replays" in a else "")


def trials_frame(study: Any, fields: Callable[[Any], dict], columns: list[str] | None = None) -> pd.DataFrame:
    """``trials.csv`` of either tuner: one row per trial (completed, pruned, failed), ``trial`` and ``state``,
    then ``fields(trial)`` (the tuner's own columns), then :func:`trial_note`.

    Parameters
    ----------
    fields : callable
        ``fields(trial) -> dict``: the trial's values, in column order.
    columns : list of str, optional
        Every column, for a frame with its header even with no trials; by default the rows' keys.
    """
    import pandas as pd

    rows = [{"trial": t.number, "state": t.state.name.lower(), **fields(t), "note": trial_note(t)}
            for t in study.trials]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def trials_with_bar(
    study: Any,
    url: str,
    n_trials: int,
    quiet: bool,
    run: Callable[[Callable[[Any], None], Callable[[int], None]], int],
    best: bool = False,
) -> int:
    """Either tuner's trials up to ``n_trials`` finished, with a progress bar (none when ``quiet``); the count
    this process ran.

    Parameters
    ----------
    run : callable
        ``run(on_trial, on_wait) -> int``: the tuner's search (:func:`run_trials` under it).
    best : bool
        Show the best value so far (a study of one objective).

    Raises
    ------
    TuneInterrupted
        Ctrl-C: the message says that the finished trials are kept and how to resume.
    """
    import math

    from tqdm import tqdm

    top = {"v": -math.inf}
    if best:
        top["v"] = max((t.value for t in study.trials if t.value is not None and t.state.name == "COMPLETE"),
                       default=-math.inf)  # fmt: skip
    with tqdm(total=n_trials, initial=min(len(finished(study)), n_trials), unit="trial", disable=quiet,
              desc="trials") as bar:  # fmt: skip

        def on_trial(t: Any) -> None:
            if t.state.name in ("COMPLETE", "PRUNED"):
                bar.update(1)
            if best:
                if t.state.name == "COMPLETE" and t.value > top["v"]:
                    top["v"] = t.value
                bar.set_postfix_str(f"best {top['v']:.4f}" if top["v"] > -math.inf else "")

        def on_wait(done: int) -> None:  # the study's count, other processes' trials included
            bar.n = min(done, n_trials)
            bar.set_postfix_str("waiting for other processes' last trials")

        try:
            ran = run(on_trial, on_wait)
        except (TuneInterrupted, KeyboardInterrupt):
            bar.close()
            raise TuneInterrupted(
                f"Interrupted: {len(finished(study))} finished trials are kept in {url} (the one running is marked "
                f"failed, '{STOPPED_BY_CTRL_C}', and not counted); run the same command to resume."
            ) from None
        if best:
            done = finished(study)
            bar.n = min(len(done), n_trials)
            values = [t.value for t in done if t.state.name == "COMPLETE"]
            bar.set_postfix_str(f"best {max(values):.4f}" if values else "")
    return ran


def study_target(kind: str, default_name: str, study: str | None, storage: str | None,
                 out: str | Path | None) -> tuple[str, Path, str]:  # fmt: skip
    """Where either tuner's study lives: its name (``--study``, else the setup's ``default_name``), its run
    folder (``--out``, else ``reports/<kind>-<name>``) and its storage URL (``--storage``, else ``study.db``
    in the run folder)."""
    name = study or default_name
    run_dir = Path(out) if out is not None else Path("reports") / f"{kind}-{name}"
    return name, run_dir, storage or f"sqlite:///{run_dir / 'study.db'}"
