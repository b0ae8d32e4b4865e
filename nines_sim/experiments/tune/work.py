"""Tuning a strategy's parameters for a table and rule set, with Optuna.

The objective of a trial is the tuned strategy's win rate at the table, with
it in every seat equally often: the lineup is rotated so that the tuned
strategy sits at each seat in turn with its opponents in the same clockwise
order, and every rotation plays the same match indices.  Every trial plays the
same matches (common random numbers), so two trials differ by their
parameters, not by the deals.  A trial's matches are played in chunks of whole
rotations (one per worker at a time) through the tournament's machinery
(:func:`nines_sim.experiments.tournament.games.play_range` on local workers or a Dask cluster);
after each chunk the running win rate goes to Optuna's pruner, which stops
trials that trail the median at the same step.  A chunk is made of whole
rotations because an engine's cost is mostly per step, whatever its batch: one
engine per rotation is the least a balanced trial can start.

At the end the best parameters and the baseline (the strategy as named,
usually its defaults) play fresh matches from :data:`~nines_sim.experiments.study.VALIDATION_START` on,
a range no trial touches, paired match by match.

Several processes on one machine share a study through its storage (SQLite,
or Optuna's journal file, which Optuna recommends for several processes):
under a file lock beside the storage (:func:`storage_lock`) each creates the
study if needed, enqueues the baseline once, and claims a trial only while the
finished and running trials are fewer than asked (:func:`claim`), so the
study ends with exactly that many; a trial that does not finish (Ctrl-C, or
its process gone) is marked failed with a note and played again first.

What a run plays is :mod:`nines_sim.experiments.tune.setup` (:class:`Setup`, also read from here); a whole study, or
a ``--versus`` run, into a run folder is one call of :mod:`nines_sim.experiments.tune.study`.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from nines_sim.experiments.tournament.games import play_range
from nines_sim.results.stats import wilson
from nines_sim.results.tally import SHARE_UNIT, SeatStats
from nines_sim.runs import driver
from nines_sim.runs.backends import Backend, choose
from nines_sim.runs.chunks import Keeps, Shape, chunk_size
from nines_sim.runs.simulate import chunks
from nines_sim.strategy import params as P

if TYPE_CHECKING:
    import pandas as pd

from nines_sim.experiments.study import VALIDATION_START, TuneInterrupted, run_trials, trials_frame
from nines_sim.experiments.tune.setup import Setup, make_setup, rotations  # noqa: F401 - make_setup: the documented library path

TRIAL_COLUMNS_END = ["win_rate", "win_rate_low", "win_rate_high", "matches", "seconds", "note"]
VALIDATION_COLUMNS = ["row", "spec", "matches", "win_rate", "low", "high", "p_value"]


# ---------------------------------------------------------------- playing


@dataclass
class Runner:
    """Where a trial's matches are played: local worker processes, or a Dask client (:mod:`nines_sim.runs.backends`).

    ``workers`` is the parallelism a trial plans for: how many rotations a step plays and how many chunks
    each is cut into (on a Dask cluster too, so that the steps, and so the pruner's reports, do not depend
    on the cluster's size).
    """

    workers: int = 1
    batch_size: int = 32768
    client: Any = None

    @property
    def backend(self) -> Backend:
        """The backend the units run on."""
        return choose(self.workers, self.client)

    def run(self, work: TrialWork) -> bool:
        """Play ``work`` on :attr:`backend` through :func:`nines_sim.runs.driver.run`, in the chunks a trial plans
        for (:meth:`TrialWork.chunk`); True if Ctrl-C stopped it."""
        return driver.run(work, self.backend, chunk=work.chunk(self.workers)).stopped


@dataclass
class Played:
    """The tuned strategy's results over some matches of every rotation."""

    stats: SeatStats = field(default_factory=SeatStats)
    rows: list[pd.DataFrame] = field(default_factory=list)
    #: Whether Ctrl-C stopped the last matches added.
    stopped: bool = False

    @property
    def win_rate(self) -> float:
        return self.stats.win_rate

    def interval(self) -> tuple[float, float]:
        return wilson(self.stats.wins, self.stats.matches)

    def shares(self) -> pd.DataFrame:
        """Per (rotation, match): the tuned strategy's win share (kept matches only)."""
        import pandas as pd

        df = pd.concat(self.rows, ignore_index=True).sort_values(["rotation", "match"], kind="stable")
        return df.reset_index(drop=True)  # workers finish in any order; the table must not show it


class TrialWork:
    """Matches ``start .. start+n-1`` of the rotations ``which`` with ``spec`` as the tuned strategy, as an
    experiment of :func:`nines_sim.runs.driver.run`: each unit a chunk of one rotation
    (:func:`~nines_sim.experiments.tournament.games.play_range`), its tally added to ``played``."""

    def __init__(self, setup: Setup, spec: str, start: int, n: int, batch_size: int, keep: bool,
                 which: Sequence[int], played: Played) -> None:  # fmt: skip
        self.play = play_range
        self.setup, self.start, self.batch_size, self.keep, self.played = setup, start, batch_size, keep, played
        self.lineups = rotations(spec, setup.opponents)
        self.which = [r for r in range(len(self.lineups)) if r in which]
        self.matches = n
        self.warm = [(setup.rules, self.lineups[r]) for r in self.which]

    def shape(self) -> Shape:
        # the rotations of a step share the workers, one engine per worker: an engine's cost is mostly per step
        return Shape(Keeps.BLOCK, games=len(self.which))

    def chunk(self, workers: int) -> int:
        """Matches per unit for ``workers``, the parallelism a trial plans for (a Dask cluster's too)."""
        return chunk_size(self.matches, workers, self.shape())

    def units(self, size: int, portable: Callable[[tuple[str, ...]], tuple[str, ...]]) -> list[tuple[int, tuple]]:
        s = self.setup
        return [
            (r, (s.rules, portable(self.lineups[r]), s.seed, a, k, min(self.batch_size, k), self.keep))
            for r in self.which
            for a, k in chunks(self.start, self.matches, size)
        ]

    def take(self, r: int, result: tuple) -> int:
        import pandas as pd

        tally, dfs = result
        if tally.matches:
            self.played.stats = self.played.stats + SeatStats.of(tally, r)
        for df in dfs:
            self.played.rows.append(pd.DataFrame({"rotation": r, "match": df["match"], "share": df[f"share_{r}"]}))
        return tally.matches

    def outcome(self, partial: bool) -> Played:
        self.played.stopped = partial
        return self.played


def play(
    setup: Setup,
    spec: str,
    start: int,
    n: int,
    runner: Runner,
    played: Played | None = None,
    keep: bool = False,
    only: tuple[int, ...] | None = None,
) -> Played:
    """Play matches ``start .. start+n-1`` of every rotation (or the rotations ``only``) with ``spec`` as the
    tuned strategy, adding them to ``played`` (:class:`TrialWork` on the runner's backend).

    Raises
    ------
    TuneInterrupted
        When Ctrl-C stopped the matches (nothing partial is returned).
    """
    out = played or Played()
    which = range(len(setup.opponents) + 1) if only is None else only
    if runner.run(TrialWork(setup, spec, start, n, runner.batch_size, keep, which, out)):
        raise TuneInterrupted("interrupted")
    return out


# ---------------------------------------------------------------- the study


def suggest(trial: Any, param: P.Param) -> Any:
    """A value of one parameter from Optuna's trial (its bounds are the search range)."""
    if param.kind == "choice":
        return trial.suggest_categorical(param.name, list(param.choices))
    if param.kind == "int":
        return trial.suggest_int(param.name, int(param.low), int(param.high))
    return trial.suggest_float(param.name, float(param.low), float(param.high))


def sampler_name(sampler: Any) -> str:
    return "CMA-ES" if type(sampler).__name__ == "CmaEsSampler" else "TPE"


def optimize(
    study: Any,
    setup: Setup,
    n_trials: int,
    runner: Runner,
    on_trial: Callable[[Any], None] | None = None,
    storage: str | None = None,
    poll_seconds: float = 0.5,
    on_wait: Callable[[int], None] | None = None,
) -> int:
    """Run trials until the study holds ``n_trials`` completed or pruned ones (shared by every process).

    The baseline values are enqueued as the first trial, so the in-sample gain
    is measured on the same matches as every other trial.  Several processes
    may run this on one study: each claims a trial under :func:`storage_lock`
    only while the finished and running trials are fewer than ``n_trials``, so
    the study ends with exactly ``n_trials`` finished ones (unless a trial fails:
    it is not counted, and the next run replaces it).  A process with nothing
    left to claim waits, polling every ``poll_seconds``, until the other
    processes' trials end, so that every process validates the finished study;
    ``on_wait`` is then called with the finished trials at every poll.

    Returns
    -------
    int
        The trials this process finished (completed or pruned).

    Raises
    ------
    TuneInterrupted
        On Ctrl-C; the trial that was running is marked failed, with the note
        :data:`STOPPED_BY_CTRL_C`, and is not counted; its values are played
        again first when the study resumes.
    """
    import optuna
    from optuna.trial import TrialState

    declared = setup.declared()
    per = setup.per_rotation
    # a step plays as many rotations as there are workers, each in one engine
    g = max(1, min(runner.workers, setup.players))
    steps = [tuple(range(i, min(i + g, setup.players))) for i in range(0, setup.players, g)]

    def objective(trial: optuna.Trial) -> tuple[TrialState, float | None]:
        values = {n: suggest(trial, declared[n]) for n in setup.tuned}
        spec = setup.spec(values)
        t0 = time.perf_counter()
        played = Played()
        for step, group in enumerate(steps):
            play(setup, spec, 0, per, runner, played, only=group)
            _record(trial, played, time.perf_counter() - t0)
            trial.report(played.win_rate, step)
            if trial.should_prune():
                return TrialState.PRUNED, None
        return TrialState.COMPLETE, played.win_rate

    return run_trials(study, setup, n_trials, objective, storage, poll_seconds, on_trial, on_wait)


def _record(trial: Any, played: Played, seconds: float) -> None:
    st = played.stats
    trial.set_user_attr("wins60", int(st.wins60))
    trial.set_user_attr("matches", int(st.matches))
    trial.set_user_attr("seconds", round(seconds, 3))


# ---------------------------------------------------------------- results


def trials_of(study: Any, setup: Setup) -> pd.DataFrame:
    """``trials.csv`` (:func:`nines_sim.experiments.study.trials_frame`): one row per trial (completed, pruned,
    failed) with its parameters and win rate."""

    def fields(t: Any) -> dict[str, Any]:
        a = t.user_attrs
        n = int(a.get("matches", 0))
        wins = a.get("wins60", 0) / SHARE_UNIT
        lo, hi = wilson(wins, n) if n else (math.nan, math.nan)
        row = {k: t.params.get(k) for k in setup.tuned}
        row |= {"win_rate": wins / n if n else math.nan, "win_rate_low": lo, "win_rate_high": hi}
        return row | {"matches": n, "seconds": a.get("seconds", math.nan)}

    return trials_frame(study, fields, ["trial", "state", *setup.tuned, *TRIAL_COLUMNS_END])


def best_values(study: Any, setup: Setup) -> tuple[dict, Any]:
    """Every declared parameter's value in the best completed trial (untuned ones at the base values)."""
    best = study.best_trial
    all_values = setup.baseline_values() | best.params
    return {k: all_values[k] for k in setup.declared()}, best


@dataclass
class Validation:
    """Best against baseline on fresh matches, paired: the estimates and the 95% interval of the gain."""

    best_spec: str
    baseline_spec: str
    matches: int
    best: float
    baseline: float
    best_ci: tuple[float, float]
    baseline_ci: tuple[float, float]
    gain: float
    gain_ci: tuple[float, float]
    p_value: float
    match_range: tuple[int, int] = (0, 0)

    def frame(self) -> pd.DataFrame:
        """``validation.csv``: the two configurations and the paired gain."""
        import pandas as pd

        rows = [
            ("best", self.best_spec, self.matches, self.best, *self.best_ci, math.nan),
            ("baseline", self.baseline_spec, self.matches, self.baseline, *self.baseline_ci, math.nan),
            ("gain", "best - baseline (paired)", self.matches, self.gain, *self.gain_ci, self.p_value),
        ]
        return pd.DataFrame(rows, columns=VALIDATION_COLUMNS)


def paired_gain(a: np.ndarray, b: np.ndarray) -> tuple[float, tuple[float, float], float]:
    """Mean of ``a - b`` over paired matches, its 95% t interval and two-sided p-value (scipy.stats)."""
    from scipy import stats

    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    if d.size < 2 or not np.any(d != d[0]):
        m = float(d.mean()) if d.size else math.nan
        return m, (m, m), 1.0 if m == 0 else 0.0
    res = stats.ttest_1samp(d, 0.0)
    ci = res.confidence_interval(0.95)
    return float(d.mean()), (float(ci.low), float(ci.high)), float(res.pvalue)


def validate(setup: Setup, best_spec: str, n_matches: int, runner: Runner) -> Validation:
    """Play ``n_matches`` fresh matches (from :data:`~nines_sim.experiments.study.VALIDATION_START`, every
    rotation) with the best and the baseline specs on the same deals, and compare them match by match.

    Raises
    ------
    TuneInterrupted
        On Ctrl-C.
    """
    per = math.ceil(n_matches / setup.players)
    base_spec = setup.baseline_spec
    b = play(setup, base_spec, VALIDATION_START, per, runner, keep=True)
    a = b if best_spec == base_spec else play(setup, best_spec, VALIDATION_START, per, runner, keep=True)
    sa, sb = a.shares(), b.shares()
    if not (sa[["rotation", "match"]].to_numpy() == sb[["rotation", "match"]].to_numpy()).all():
        raise RuntimeError("validation: the best and the baseline did not play the same matches")
    gain, ci, p = paired_gain(sa["share"].to_numpy(), sb["share"].to_numpy())
    played = (int(sa["match"].min()), int(sa["match"].max()) + 1)
    return Validation(
        best_spec, base_spec, a.stats.matches, a.win_rate, b.win_rate, a.interval(), b.interval(), gain, ci, p, played
    )


def baseline_trial(study: Any, setup: Setup) -> Any:
    """The completed trial that played the baseline values (trial 0, enqueued), or None."""
    base = setup.baseline_values()
    for t in study.trials:
        if t.state.name == "COMPLETE" and all(t.params.get(k) == base[k] for k in setup.tuned):
            return t
    return None


def validate_best(study: Any, setup: Setup, n_matches: int, runner: Runner) -> Validation:
    """:func:`validate` the study's best completed trial against the baseline."""
    values, _ = best_values(study, setup)
    # the baseline itself is played once, not twice under two spellings
    spec = setup.baseline_spec if values == setup.baseline_values() else setup.spec(values)
    return validate(setup, spec, n_matches, runner)


def _optuna_importance() -> Any:
    """``optuna.importance``, imported without scikit-learn if that is not loaded yet.

    The package imports its fANOVA evaluator, which imports scikit-learn (and with it ``scipy.stats``) when it can:
    about 2 s of processor time in every ``nines tune`` for an evaluator never used here (:func:`importances` asks
    for PED-ANOVA, which needs numpy only).  Optuna imports it under ``try_import``, which takes the module being
    absent as scikit-learn missing and leaves only fANOVA unusable; the block is lifted at once, so a later import
    of scikit-learn (the training's) loads it as usual.
    """
    import importlib
    import sys

    if "optuna.importance" in sys.modules or "sklearn.ensemble" in sys.modules:
        return importlib.import_module("optuna.importance")
    sys.modules["sklearn.ensemble"] = None  # type: ignore[assignment]  # import of it raises ImportError
    try:
        return importlib.import_module("optuna.importance")
    finally:
        del sys.modules["sklearn.ensemble"]


def importances(study: Any, setup: Setup) -> pd.DataFrame:
    """Optuna's parameter importances over the completed trials, by its PED-ANOVA evaluator; empty when it cannot.

    PED-ANOVA is named, not left to Optuna's default: the default is fANOVA before Optuna 5 (scikit-learn's forests,
    which :func:`_optuna_importance` keeps unloaded) and PED-ANOVA from 5 on, with the settings used here.
    """
    import pandas as pd

    importance = _optuna_importance()  # outside the ``try``: a failed import must not pass for "cannot"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            imp = importance.get_param_importances(
                study, evaluator=importance.PedAnovaImportanceEvaluator(), params=list(setup.tuned)
            )
        except (ValueError, RuntimeError, ImportError):
            imp = {}
    if not imp or any("too small" in str(w.message) for w in caught):  # equal shares would be made up
        return pd.DataFrame(columns=["parameter", "importance"])
    return pd.DataFrame(list(imp.items()), columns=["parameter", "importance"])
