"""Searching the rules toward a game a designer wants, with Optuna: ``nines tune-rules``.

A trial is a rule set: the base rule set with some options (``--space``) set to values Optuna proposes
within the user's bounds.  It plays the design lineups its objectives and constraints need
(:mod:`nines_sim.experiments.design.work`) over the same matches as every other trial (the same seed and match indices:
common random numbers), and its objectives are design measures: maximised, minimised, or brought to a
target (``|value - target|`` minimised).  One objective uses TPE; several use NSGA-II, a multi-objective
sampler, and the answer is the Pareto front.  Constraints (``hands<=8``) go to the sampler as Optuna's
``constraints_func`` (a value <= 0 is feasible).

The study lives in the same storage as ``nines tune``'s (SQLite or an Optuna journal file; the storage
helpers of :mod:`nines_sim.experiments.tune.work`): Ctrl-C marks the running trial failed and the same command resumes.
At the end the best rule set (or each rule set of the front) and the base rule set play fresh matches
from :data:`nines_sim.experiments.study.VALIDATION_START`, paired, with intervals.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nines_sim.experiments.design.work import DesignSet, DesignSetup, design_frame, lineups_needed, run_design
from nines_sim.experiments.study import (
    VALIDATION_START,
    TuneError,
    TuneInterrupted,
    open_storage,
    storage_lock,
    trials_frame,
)
from nines_sim.experiments.tune_rules.space import (  # noqa: F401 - parse_goals, parse_space: the documented library path
    ALIASES,
    SEARCHABLE,
    Constraint,
    Dimension,
    Objective,
    measure_name,
    parse_goals,
    parse_space,
    storable,
    typed,
)
from nines_sim.game.rules import Rules, RulesError, parse_rule_set, rule_set_items, rule_set_without
from nines_sim.runs.backends import choose

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class RulesSetup:
    """What a rules study measures; a resumed study must agree.

    Attributes
    ----------
    base : Rules
        The rule set whose options are searched (its values are the baseline: trial 0 when within the bounds).
    base_spec : str
        How the base was written (``classic``, ``hard-nines:target=80``).
    matches, seed : int
        Matches per design lineup per trial (the same in every trial), and their seed.
    space : tuple of Dimension
    objectives : tuple of Objective
    constraints : tuple of Constraint
    design : DesignSetup
    """

    base: Rules
    base_spec: str
    matches: int
    seed: int
    space: tuple[Dimension, ...]
    objectives: tuple[Objective, ...]
    constraints: tuple[Constraint, ...]
    design: DesignSetup

    @property
    def measures(self) -> list[str]:
        return list(dict.fromkeys([o.measure for o in self.objectives] + [c.measure for c in self.constraints]))

    @property
    def kinds(self) -> tuple[str, ...]:
        return lineups_needed(self.measures)

    def as_json(self) -> dict:
        d = {
            "base": self.base_spec, "players": self.base.players,
            "space": [[x.option, x.low, x.high, [storable(c) for c in x.choices]] for x in self.space],
            "objectives": [[o.kind, o.measure, o.value] for o in self.objectives],
            "constraints": [[c.measure, c.op, c.bound] for c in self.constraints],
            "design": [self.design.skilled, self.design.weak, self.design.fair], "matches": self.matches,
            "seed": self.seed,
        }  # fmt: skip
        return json.loads(json.dumps(d, sort_keys=True))

    @classmethod
    def from_json(cls, d: dict) -> RulesSetup:
        """The setup :meth:`as_json` describes (a run folder's manifest), for a redraw from the files alone."""
        space = tuple(Dimension(o, lo, hi, tuple(typed(o, c) for c in ch)) for o, lo, hi, ch in d["space"])
        return cls(
            parse_rule_set(d["base"], None, d["players"]), d["base"], d["matches"], d["seed"], space,
            tuple(Objective(k, m, v) for k, m, v in d["objectives"]),
            tuple(Constraint(m, op, b) for m, op, b in d["constraints"]), DesignSetup(*d["design"]),
        )  # fmt: skip

    def default_study_name(self) -> str:
        digest = hashlib.sha256(json.dumps(self.as_json(), sort_keys=True).encode()).hexdigest()[:8]
        goals = "+".join(o.label for o in self.objectives)
        return re.sub(r"[^A-Za-z0-9._+=-]", "_", f"rules-{self.base.preset}-{self.base.players}p-{goals}-{digest}")

    def baseline_values(self) -> dict[str, Any]:
        """The base rule set's value of every searched option (what trial 0 plays, when within bounds)."""
        return {d.option: getattr(self.base, d.option) for d in self.space}

    def sampler(self, seed: int) -> Any:
        """TPE for one objective, NSGA-II for several (Optuna's multi-objective sampler); both read the
        constraints each trial sets (``Trial.set_constraint``)."""
        import optuna

        if len(self.objectives) == 1:
            return optuna.samplers.TPESampler(seed=seed, multivariate=True, n_startup_trials=8)
        return optuna.samplers.NSGAIISampler(seed=seed, population_size=16)

    def first_trial(self) -> dict[str, Any] | None:
        """The base rule set's values as the study stores them, its first trial (trial 0); None when a value
        is outside the searched bounds (:func:`nines_sim.experiments.study.claim`)."""
        base = self.baseline_values()
        inside = all(d.low is None or d.low <= base[d.option] <= d.high for d in self.space) and all(
            not d.choices or base[d.option] in d.choices for d in self.space
        )
        return {k: storable(v) for k, v in base.items()} if inside else None

    def rules(self, values: dict[str, Any]) -> Rules:
        """The base rule set with ``values`` (``RulesError`` for an impossible combination)."""
        return self.base.replace(**values)

    def spec(self, values: dict[str, Any]) -> str:
        """``values`` written as a rule set on top of the base (``classic:nine_penalty=40``).

        A searched option the base sets itself (``classic:nine_penalty=30``) takes the trial's value in place
        of the base's, so that the rule set sets each option once and plays ``self.rules(values)``; the
        base's other options are kept.  Values the base already has leave the base as written.
        """
        if not any(getattr(self.base, k) != v for k, v in values.items()):
            return self.base_spec
        base = rule_set_without(self.base_spec, values)
        own = {x.split("=", 1)[0].strip() for x in rule_set_items(self.base_spec)[1]}  # the base's items, replaced
        changed = {k: v for k, v in values.items() if getattr(self.base, k) != v or k in own}
        text = ",".join(f"{k}={storable(v) if not isinstance(v, bool) else str(v).lower()}"
                        for k, v in changed.items())  # fmt: skip
        return f"{base},{text}" if ":" in base else f"{base}:{text}"


def measure_trial(setup: RulesSetup, values: dict[str, Any], start: int, n: int, workers: int, batch_size: int,
                  client: Any = None) -> dict[str, float]:  # fmt: skip
    """Play one rule set's design lineups over matches ``start .. start+n-1``; the measures it is judged by.

    The matches play on ``workers`` local processes, or on the Dask cluster of ``client``
    (:func:`nines_sim.runs.backends.choose`): the same numbers.

    Raises
    ------
    nines_sim.game.rules.RulesError
        For an impossible combination of values.
    TuneInterrupted
        On Ctrl-C (nothing partial is returned).
    """
    rules = setup.rules(values)
    out = run_design([DesignSet("trial", rules)], setup.design, n, setup.seed, workers, batch_size, setup.kinds,
                     start=start, backend=choose(workers, client))  # fmt: skip
    if out.partial:
        raise TuneInterrupted("interrupted")
    frame = design_frame(out, measures=setup.measures)
    return {m: float(frame.loc[frame["measure"] == m, "value"].iloc[0]) if (frame["measure"] == m).any() else math.nan
            for m in setup.measures}  # fmt: skip


def open_rules_study(storage: str, name: str, setup: RulesSetup) -> Any:
    """The study ``name`` in ``storage``, created when missing; its setup must agree with ``setup``.

    Raises
    ------
    TuneError
        For a storage that cannot be opened, or a study of that name made for another search.
    """
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    mine = setup.as_json()
    with storage_lock(storage):  # processes started together on a new storage: one creates the study
        try:
            study = optuna.create_study(study_name=name, storage=open_storage(storage), load_if_exists=True,
                                        directions=[o.direction for o in setup.objectives])  # fmt: skip
        except TuneError:
            raise
        except Exception as exc:  # the storages' errors name the cause; their classes differ
            raise TuneError(f"cannot open the storage {storage} ({type(exc).__name__}: "
                            f"{str(exc).splitlines()[0]})") from None  # fmt: skip
        theirs = study.user_attrs.get("rules_setup")
        if theirs is None:
            study.set_user_attr("rules_setup", mine)
    if theirs is not None and theirs != mine:
        diff = [k for k in mine if theirs.get(k) != mine[k]]
        raise TuneError(f"study {name!r} in {storage} was made for another search (it differs in "
                        f"{', '.join(diff)}); choose another --study or --storage")  # fmt: skip
    return study


def search(
    study: Any, setup: RulesSetup, n_trials: int, workers: int, batch_size: int,
    on_trial: Callable[[Any], None] | None = None, *, client: Any = None, storage: str | None = None,
    poll_seconds: float = 0.5, on_wait: Callable[[int], None] | None = None,
) -> int:  # fmt: skip
    """Run trials until the study holds ``n_trials`` finished ones; returns how many this call ran.

    Several processes may search one study (``storage``: its URL, whose lock they share): each claims its
    trials as ``nines tune``'s do (:func:`nines_sim.experiments.study.run_trials`), so that together they run the
    base rule set once and the study ends with exactly ``n_trials`` finished trials; a process with nothing
    left to claim waits for the others' last trials (``on_wait``).  The trials' matches play on ``workers``
    local processes, or on the Dask cluster of ``client``.  An impossible rule set is a failed trial
    (``impossible rules (...)``), not counted.

    Raises
    ------
    TuneInterrupted
        On Ctrl-C: the running trial is marked failed (:data:`nines_sim.experiments.study.STOPPED_BY_CTRL_C`) and
        played
        again first on resumption.
    TuneError
        When this call finished no trial and the last ``max(20, 2 * n_trials)`` rule sets it was proposed
        were all impossible.
    """
    from optuna.trial import TrialState

    from nines_sim.experiments.study import TrialFailed, run_trials

    count: dict[str, Any] = {"ran": 0, "impossible": 0, "last": ""}
    limit = max(20, 2 * n_trials)

    def objective(trial: Any) -> tuple[TrialState, list[float]]:
        values = {d.option: d.suggest(trial) for d in setup.space}
        try:
            got = measure_trial(setup, values, 0, setup.matches, workers, batch_size, client)
        except RulesError as exc:  # an impossible combination: infeasible, not an error of the search
            count["impossible"] += 1
            count["last"] = str(exc)
            raise TrialFailed(f"impossible rules ({exc})") from None
        for m, v in got.items():
            trial.set_user_attr(m, v)
        trial.set_user_attr("constraint", [c.violation(got[c.measure]) for c in setup.constraints])
        for c in setup.constraints:
            trial.set_constraint(c.text, c.violation(got[c.measure]))
        scores = [o.score(got[o.measure]) for o in setup.objectives]
        if any(math.isnan(s) for s in scores):
            raise TrialFailed("a measure could not be computed (no such matches)")
        return TrialState.COMPLETE, scores

    def finished_one(frozen: Any) -> None:
        count["ran"] += 1
        if on_trial:
            on_trial(frozen)

    def failed(_: TrialFailed) -> None:  # after the trial was marked failed
        if count["impossible"] >= limit and not count["ran"]:
            raise TuneError(f"the last {count['impossible']} proposed rule sets were all impossible "
                            f"({count['last']}); narrow --space")  # fmt: skip

    return run_trials(study, setup, n_trials, objective, storage, poll_seconds, finished_one, on_wait, failed)


def trial_values(setup: RulesSetup, t: Any) -> dict[str, Any]:
    """A finished trial's option values, typed as the rules take them."""
    return {d.option: typed(d.option, t.params[d.option]) for d in setup.space}


def feasible(t: Any) -> bool:
    return all(c <= 0 for c in t.user_attrs.get("constraint", []))


def front(study: Any, setup: RulesSetup) -> list[Any]:
    """The best feasible trial (one objective) or the feasible Pareto front (several), by trial number."""
    done = [t for t in study.trials if t.state.name == "COMPLETE" and feasible(t)]
    if not done:
        return []
    signs = [1 if o.direction == "minimize" else -1 for o in setup.objectives]
    keyed = [(t, [s * v for s, v in zip(signs, t.values)]) for t in done]
    if len(signs) == 1:
        return [min(keyed, key=lambda kv: (kv[1][0], kv[0].number))[0]]

    def dominated(a: list[float]) -> bool:
        return any(all(x <= y for x, y in zip(b, a)) and b != a for _, b in keyed)

    seen, out = set(), []
    for t, k in sorted(keyed, key=lambda kv: kv[0].number):
        if not dominated(k) and tuple(k) not in seen:
            seen.add(tuple(k))
            out.append(t)
    return out


def trials_of(study: Any, setup: RulesSetup) -> pd.DataFrame:
    """``trials.csv`` (:func:`nines_sim.experiments.study.trials_frame`): every trial's option values, measures,
    objective values and feasibility."""

    def fields(t: Any) -> dict[str, Any]:
        row: dict[str, Any] = {d.option: t.params.get(d.option) for d in setup.space}
        row |= {m: t.user_attrs.get(m, math.nan) for m in setup.measures}
        for i, o in enumerate(setup.objectives):
            row[f"objective_{o.label}"] = t.values[i] if t.values else math.nan
        row["feasible"] = feasible(t) if t.state.name == "COMPLETE" else False
        return row

    return trials_frame(study, fields)


def validate_front(setup: RulesSetup, chosen: list[Any], n: int, workers: int, batch_size: int,
                   client: Any = None) -> pd.DataFrame:  # fmt: skip
    """The base rule set and each chosen trial's rules on ``n`` fresh matches, paired with the base (on
    ``workers`` local processes, or the Dask cluster of ``client``: the same numbers).

    Returns the :func:`nines_sim.experiments.design.work.design_frame` of the measures judged (the base first, labelled
    ``base``; trials labelled ``trial N``).

    Raises
    ------
    TuneInterrupted
        On Ctrl-C.
    """

    sets = [DesignSet("base", setup.base)]
    for t in chosen:
        rules = setup.rules(trial_values(setup, t))
        if rules != setup.base:
            sets.append(DesignSet(f"trial {t.number}", rules))
    out = run_design(sets, setup.design, n, setup.seed, workers, batch_size, setup.kinds, start=VALIDATION_START,
                     backend=choose(workers, client))  # fmt: skip
    if out.partial:
        raise TuneInterrupted("interrupted")
    return design_frame(out, measures=setup.measures)


def worse_than_base(setup: RulesSetup, checked: pd.DataFrame | None, label: str) -> str | None:
    """The measure of the first objective on which the validation finds the rule set ``label`` significantly
    worse than the base (lower when maximised, higher when minimised, further from a target); None otherwise.

    ``checked`` is :func:`validate_front`'s frame (None: not validated).
    """
    if checked is None or label == "base":
        return None
    o = setup.objectives[0]
    row = checked[(checked["rule_set"] == label) & (checked["measure"] == o.measure)]
    if not len(row) or math.isnan(row["delta"].iloc[0]) or not bool(row["significant"].iloc[0]):
        return None
    value, delta = float(row["value"].iloc[0]), float(row["delta"].iloc[0])
    if o.kind == "maximize":
        worse = delta < 0
    elif o.kind == "minimize":
        worse = delta > 0
    else:  # the base's value is value - delta
        worse = abs(value - o.value) > abs(value - delta - o.value)
    return o.measure if worse else None
