"""A rules search as one library call: :func:`run_rules_study` plays a ``nines tune-rules`` study into a run folder.

``nines tune-rules`` is a thin layer over it: it reads the options, builds the
:class:`~nines_sim.experiments.tune_rules.work.RulesSetup` and the command that reproduces the run, checks the target
with
:func:`nines_sim.experiments.study_folder.check_target`, calls :func:`run_rules_study` and prints
:meth:`RulesOutcome.summary`.

Errors: a folder or study that cannot be used raises :class:`~nines_sim.runs.runfolder.RunSetupError`; a search
whose every proposed rule set was impossible, :class:`~nines_sim.experiments.study.TuneError` (after removing what this
run wrote); Ctrl-C, :class:`~nines_sim.experiments.study.TuneInterrupted` whose message says what is kept.
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nines_sim.experiments.study import (
    TuneError,
    finished,
    storage_file,
    storage_lock,
    trials_with_bar,
)
from nines_sim.experiments.study_folder import play_study
from nines_sim.experiments.tune_rules.work import (
    RulesSetup,
    front,
    open_rules_study,
    search,
    validate_front,
    worse_than_base,
)


@dataclass
class RulesOutcome:
    """What :func:`run_rules_study` played and wrote.

    Attributes
    ----------
    run_dir : pathlib.Path
        The run folder (``trials.csv``, ``front.csv``, ``validation.csv``, ``best-rules.json``, ...).
    setup : RulesSetup
        The search.
    best : dict or None
        The best rule set as written to ``best-rules.json`` (None: every finished trial broke a ``--require``).
    checked : pandas.DataFrame or None
        The validation of the chosen rule sets against the base on fresh matches (None: not asked).
    finished : int
        Finished trials in the study (every process's).
    ran : int
        Trials this process ran.
    wall : float
        Seconds the trials took here (s).
    """

    run_dir: Path
    setup: RulesSetup
    best: dict | None
    checked: Any
    finished: int
    ran: int
    wall: float

    def summary(self) -> list[str]:
        """The lines ``nines tune-rules`` prints at the end: the best rules and their validation, then the count."""
        best_file = self.run_dir / "best-rules.json"
        if self.best is None:
            return [f"no feasible trial: every finished trial broke a --require; results in {self.run_dir}"]
        return [_answer(self.setup, self.best, self.checked),
                f"{self.finished} trials ({self.ran} run now, {self.wall:.1f} s); best rules in {best_file} (play "
                f"them: --rules @{best_file})"]  # fmt: skip


def run_rules_study(
    setup: RulesSetup,
    url: str,
    name: str,
    run_dir: Path,
    n_trials: int,
    validate: int,
    n_front: int,
    workers: int,
    command: str,
    batch_size: int = 32768,
    scheduler: str | None = None,
    quiet: bool = True,
    charts: bool = True,
) -> RulesOutcome:
    """Search the rules of ``setup`` in the study ``name`` of ``url`` until it holds ``n_trials`` finished trials,
    validate the best rule sets (or the front's first ``n_front``) on ``validate`` fresh matches, write the folder.

    Several processes may share a study and its folder (:func:`nines_sim.experiments.study.run_trials`): together they
    run ``n_trials`` trials, the base rules once; each then validates and writes, one at a time.

    Parameters
    ----------
    setup : RulesSetup
        The base rules, the options searched, the objectives and constraints, the design lineups.
    url : str
        The study's storage: ``sqlite:///PATH`` or ``journal:PATH``.
    name : str
        The study's name.
    run_dir : pathlib.Path
        The run folder.
    n_trials : int
        Finished trials the study should hold.
    validate : int
        Fresh matches per validated rule set and lineup (0: no validation).
    n_front : int
        Rule sets of the front validated (several objectives), best on the first objective first.
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
    RulesOutcome

    Raises
    ------
    nines_sim.runs.runfolder.RunSetupError
        The folder cannot be written or the study not opened.
    nines_sim.experiments.study.TuneError
        Every rule set the search proposed was impossible; what this run wrote is removed first.
    nines_sim.experiments.study.TuneInterrupted
        Ctrl-C; the finished trials are kept in the storage, the message says how to resume.
    nines_sim.runs.cluster.ClusterError
        The cluster cannot be used.
    """
    from nines_sim.experiments.tune_rules.report import write_folder

    chosen: list[Any] = []  # the trials validated and written: the front's best on the first objective first

    def trials(st: Any, client: Any) -> int:
        try:
            return _trials(st, setup, url, n_trials, workers, batch_size, client, quiet)
        except TuneError:  # every rule set proposed was impossible: nothing of this run is kept
            _discard(url, name, run_dir, made_dir, made_storage)
            raise

    def check(st: Any, client: Any) -> Any:
        chosen[:] = front(st, setup)
        if len(setup.objectives) > 1:  # the front members best on the first objective are validated
            sign = 1 if setup.objectives[0].direction == "minimize" else -1
            chosen.sort(key=lambda t: (sign * t.values[0], t.number))
        if not (validate and chosen):
            return None
        return validate_front(setup, chosen[:n_front], validate, workers, batch_size, client)

    def write(st: Any, checked: Any, wall: float, ran: int) -> dict | None:
        return write_folder(run_dir, st, setup, chosen, checked, command, url, name, wall, ran, charts)

    made_dir, made_storage = not run_dir.exists(), not storage_file(url)[1].exists()
    played = play_study(run_dir, url, lambda: open_rules_study(url, name, setup), scheduler, workers, trials, check,
                        write)  # fmt: skip
    return RulesOutcome(run_dir, setup, played.written, played.checked, len(finished(played.study)), played.ran,
                        played.wall)  # fmt: skip


def _trials(st: Any, setup: RulesSetup, url: str, n_trials: int, workers: int, batch_size: int, client: Any,
            quiet: bool) -> int:  # fmt: skip
    """:func:`~nines_sim.experiments.tune_rules.work.search` under
    :func:`~nines_sim.experiments.study.trials_with_bar`."""

    def run(on_trial: Callable[[Any], None], on_wait: Callable[[int], None]) -> int:
        return search(st, setup, n_trials, workers, batch_size, on_trial=on_trial, client=client, storage=url,
                      on_wait=on_wait)  # fmt: skip

    return trials_with_bar(st, url, n_trials, quiet, run)


def _discard(url: str, name: str, run_dir: Path, made_dir: bool, made_storage: bool) -> None:
    """After an error found by the search: remove what this run wrote, so that it wrote nothing.

    The study goes when every trial it holds failed (no process finished one); then the storage's file too,
    if this run created it and it holds no other study; and the run folder, if this run created it and it
    holds nothing else.
    """
    import optuna

    from nines_sim.experiments.study import open_storage

    _, db = storage_file(url)
    with storage_lock(url):
        st = open_storage(url)
        study = optuna.load_study(study_name=name, storage=st)
        if any(t.state.name != "FAIL" for t in study.get_trials(deepcopy=False)):
            return  # another process's trials: the study is theirs too
        optuna.delete_study(study_name=name, storage=st)
        others = optuna.study.get_all_study_summaries(st, include_best_trial=False)
        if made_storage and not others:
            if hasattr(st, "engine"):  # SQLite: let go of the file before it is removed
                st.engine.dispose()
            db.unlink(missing_ok=True)
    if made_storage:
        Path(f"{db}.tune-lock").unlink(missing_ok=True)
    if made_dir and run_dir.is_dir():
        leftovers = [f for f in run_dir.iterdir() if f.name not in (db.name, f"{db.name}.tune-lock")]
        if not leftovers:
            shutil.rmtree(run_dir, ignore_errors=True)


def _answer(setup: RulesSetup, best: dict[str, Any], checked: Any) -> str:
    """One line: the best rule set and what validation says of each objective's measure against the base."""
    from nines_sim.experiments.tune_rules.report import shown_numbers

    line = f"best rules: {best['rule_set']}"
    if checked is None or best["label"] == "base":
        return line + ("" if checked is None else " (the base rules: no trial beat them)")
    parts = []
    for o in setup.objectives:
        row = checked[(checked["rule_set"] == best["label"]) & (checked["measure"] == o.measure)]
        if not len(row) or math.isnan(row["delta"].iloc[0]):
            continue
        r = row.iloc[0]
        sig = "significant" if bool(r["significant"]) else "not significant"
        t = shown_numbers(r)
        parts.append(f"{o.measure} {t['value']} ({t['delta']} vs base, 95% CI {t['delta_low']} to "
                     f"{t['delta_high']}, {sig})")  # fmt: skip
    n = int(checked["matches"].max()) if len(checked) else 0
    line += f"; validated on {n:,} fresh matches: " + "; ".join(parts) if parts else ""
    if worse := worse_than_base(setup, checked, best["label"]):
        line += f"; significantly worse than the base rules on {worse}: keep the base rules ({setup.base_spec})"
    return line
