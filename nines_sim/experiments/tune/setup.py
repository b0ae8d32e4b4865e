"""What a tuning run plays (:class:`Setup`): the strategy tuned and its parameters, the opponents clockwise
after it, the rules, the matches per trial and the seed; and the lineups of its rotations (:func:`rotations`)."""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from nines_sim.experiments.study import TuneError
from nines_sim.game.rules import Rules
from nines_sim.runs.runfolder import canonical_command
from nines_sim.spelling import did_you_mean
from nines_sim.strategy import params as P
from nines_sim.strategy.registry import StrategyNotFound, resolve_spec


@dataclass(frozen=True)
class Setup:
    """What a study measures; two runs share a study only if their setups agree.

    Attributes
    ----------
    strategy : str
        The tuned strategy's spec without values (``expert``).
    base_values : dict
        Values the spec carried: the baseline, and the fixed value of every untuned parameter.
    tuned : tuple of str
        Names of the tuned parameters.
    opponents : tuple of str
        Canonical opponent specs, P-1 of them, clockwise after the tuned strategy.
    rules : Rules
        Including ``players``.
    matches : int
        Matches per trial (a multiple of ``players``: each rotation plays ``matches / players``).
    seed : int
    """

    strategy: str
    base_values: dict
    tuned: tuple[str, ...]
    opponents: tuple[str, ...]
    rules: Rules
    matches: int
    seed: int

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def per_rotation(self) -> int:
        return self.matches // self.players

    def declared(self) -> dict[str, P.Param]:
        cls, _, _ = resolve_spec(self.strategy)
        return {p.name: p for p in P.declared(cls) if p.kind != "path"}  # a file is not tuned

    def spec(self, values: dict[str, Any]) -> str:
        """The strategy spec playing ``values`` over the base values (declaration order)."""
        merged = self.base_values | values
        return P.spec_with(self.strategy, {k: merged[k] for k in self.declared() if k in merged})

    def baseline_values(self) -> dict[str, Any]:
        """Every declared parameter's baseline value: the defaults under the values the spec carried."""
        return P.defaults(type_of(self)) | self.base_values

    def sampler(self, seed: int) -> Any:
        """CMA-ES (the ``cmaes`` package) when every tuned parameter is continuous and there are two or more;
        TPE otherwise (it handles integers and choices, and one dimension)."""
        import optuna

        declared = self.declared()
        kinds = {declared[n].kind for n in self.tuned}
        if kinds == {"float"} and len(self.tuned) >= 2:
            # the baseline is the enqueued first trial; CMA-ES's own start is the middle of the bounds
            return optuna.samplers.CmaEsSampler(seed=seed, warn_independent_sampling=False)
        return optuna.samplers.TPESampler(seed=seed, multivariate=True, n_startup_trials=10)

    def first_trial(self) -> dict[str, Any]:
        """The baseline's tuned values, the study's first trial (:func:`nines_sim.experiments.study.claim`)."""
        base = self.baseline_values()
        return {n: base[n] for n in self.tuned}

    @property
    def baseline_spec(self) -> str:
        return P.spec_with(self.strategy, self.base_values)

    def as_json(self) -> dict:
        """A JSON-safe description, stored with the study and compared on resume."""
        d = asdict(self)
        d["rules"] = self.rules.options() | {"preset": self.rules.preset, "hand_sizes": list(self.rules.hand_sizes)}
        d["tuned"], d["opponents"], d["players"] = list(self.tuned), list(self.opponents), self.players
        return json.loads(json.dumps(d, sort_keys=True))

    def default_study_name(self) -> str:
        """A name that is the same for the same setup: the strategy, rules, table and a short hash."""
        digest = hashlib.sha256(json.dumps(self.as_json(), sort_keys=True).encode()).hexdigest()[:8]
        raw = f"{self.strategy}-{self.rules.preset}-{self.players}p-{digest}"
        return re.sub(r"[^A-Za-z0-9._+-]", "_", raw)


def make_setup(
    strategy: str,
    opponents: list[str],
    rules: Rules,
    params: str | None,
    matches: int,
    seed: int,
) -> Setup:
    """Check a tuning request and describe it.

    Parameters
    ----------
    strategy : str
        A spec; any values it carries are the baseline and fix the untuned parameters.
    opponents : list of str
        P-1 specs, or one spec to fill every other seat.
    rules : Rules
        ``rules.players`` seats.
    params : str or None
        ``"p1,p2"``, ``"all"`` or None (all).
    matches : int
        Matches per trial, rounded up to a multiple of the players.

    Raises
    ------
    TuneError
        For an unknown strategy or opponent, a strategy without parameters, an
        unknown parameter name or a lineup that does not fill the table.
    """
    try:
        cls, base, values = resolve_spec(strategy)
        opps = [P.spec_with(b, v) for b, v in (resolve_spec(o)[1:] for o in opponents)]
    except StrategyNotFound as exc:
        raise TuneError(str(exc)) from None
    declared = [p.name for p in P.declared(cls)]
    if not declared:
        raise TuneError(f"strategy {cls.name or base!r} declares no parameters; there is nothing to tune")
    if params is None or params.strip() == "all":
        tuned = tuple(declared)
    else:
        from nines_sim.game.text_lists import EmptyItem, items_of

        try:
            tuned = tuple(items_of(params, f"--params {params!r}"))
        except EmptyItem as exc:
            raise TuneError(str(exc)) from None
        for x in tuned:
            if x not in declared:
                raise TuneError(
                    f"{cls.name or base} has no parameter {x!r}{did_you_mean(x, declared)}; "
                    f"its parameters are: {', '.join(declared)}"
                )
        if not tuned or len(set(tuned)) != len(tuned):
            raise TuneError("--params takes distinct parameter names separated by commas, or all")
    n_opp = rules.players - 1
    if len(opps) == 1 and n_opp > 1:
        opps = opps * n_opp
    if len(opps) != n_opp:
        raise TuneError(
            f"a {rules.players}-seat table takes {n_opp} opponents (or one to fill every seat), not {len(opps)}"
        )
    per = math.ceil(matches / rules.players)
    return Setup(base, values, tuned, tuple(opps), rules, per * rules.players, seed)


def rotations(spec: str, opponents: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Lineups with ``spec`` at seat 0, 1, ..., P-1, the opponents clockwise after it in the same order."""
    players = len(opponents) + 1
    out = []
    for r in range(players):
        seats = [""] * players
        seats[r] = spec
        for i, o in enumerate(opponents):
            seats[(r + 1 + i) % players] = o
        out.append(tuple(seats))
    return out


def type_of(setup: Setup) -> type:
    return resolve_spec(setup.strategy)[0]


def tune_command(setup: Setup, played: str, rule_list: list[str], trials: int, seed: int, validate: int, name: str,
                 storage: str | None, run_dir: Path) -> str:  # fmt: skip
    """The ``nines tune`` command that reproduces a study (``played``: the rule set as played, a ``@FILE`` as
    the rule set it holds; ``storage``: as given, None for the run folder's own)."""
    return canonical_command(
        "tune",
        [setup.strategy if not setup.base_values else setup.baseline_spec, "--opponents", *setup.opponents],
        {"--players": setup.players, "--rules": played, "--params": ",".join(setup.tuned), "--trials": trials,
         "--matches": setup.matches, "--seed": seed, "--validate": validate, "--study": name,
         "--storage": storage, "--out": str(run_dir)},
        rule_list,
        digest_words_of(setup, []),
    )  # fmt: skip


def versus_command(setup: Setup, played: str, rule_list: list[str], seed: int, validate: int, run_dir: Path,
                   spec: str) -> str:  # fmt: skip
    """The ``nines tune --versus`` command that reproduces a versus run folder."""
    return canonical_command(
        "tune",
        [setup.strategy if not setup.base_values else setup.baseline_spec, "--opponents", *setup.opponents],
        {"--players": setup.players, "--rules": played, "--seed": seed, "--validate": validate,
         "--versus": spec, "--out": str(run_dir)},
        rule_list,
        digest_words_of(setup, [spec]),
    )  # fmt: skip


def digest_words_of(setup: Setup, more: list[str]) -> list[str]:
    """The words a tune command ends with to name the learned files its seats load (``--learned-digests``, as
    the manifest's ``learned_files`` records them; none: [], the command as it was)."""
    from nines_sim.runs.learned_files import digest_words, learned_files

    return digest_words(learned_files([setup.baseline_spec, *setup.opponents, *more], setup.rules))
