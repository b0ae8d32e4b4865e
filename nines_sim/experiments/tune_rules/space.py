"""What a rules search may change and what it aims at: the ``--space`` of ``nines tune-rules`` (options and
their bounds or values) and its goals (``--maximize``, ``--minimize``, ``--target``, ``--require``), read
from the command line's words into :class:`Dimension`, :class:`Objective` and :class:`Constraint`.

The search itself is :mod:`nines_sim.experiments.tune_rules.work`, which re-exports every name here.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nines_sim.experiments.design.work import INDEX, MEASURES
from nines_sim.experiments.study import TuneError
from nines_sim.game.rules import Rules, RulesError, option_key, parse_value
from nines_sim.game.text_lists import EmptyItem, items_of
from nines_sim.runs.runfolder import canonical_command
from nines_sim.spelling import did_you_mean

#: Measures by the names a user types (``-`` or ``_``): ``skill`` is the skilled strategy at the table.
ALIASES = {"skill": "skill_table", "seat-unfairness": "seat_unfairness", "unfairness": "seat_unfairness"}
OPS: dict[str, Callable[[float, float], bool]] = {"<=": operator.le, ">=": operator.ge, "<": operator.lt,
                                                  ">": operator.gt}  # fmt: skip
#: Options a search may vary (the table size is the lineup's; ``preset`` is a label).
SEARCHABLE = ("nine_penalty", "hand_sizes", "draw_rule", "skip_reverse", "decks", "pair_of_nines", "no_nine_out",
              "nine_on_nine", "block_rule", "tie_rule", "target", "fixed_hands", "turn_cap")  # fmt: skip


def measure_name(text: str) -> str:
    """The design measure a user named (``skill``, ``seat-unfairness``, ``hands``, ``comeback-1`` ...).

    Raises
    ------
    TuneError
        For an unknown name (the message lists the known ones).
    """
    t = text.strip().lower()
    name = ALIASES.get(t, t.replace("-", "_"))
    if name not in INDEX and name != "seat_unfairness":
        names = ["skill", "seat-unfairness", *(m.replace("_", "-") for m in MEASURES if m != "skill_table")]
        raise TuneError(f"unknown measure {text!r}{did_you_mean(text, names)}; measures are: {', '.join(names)}")
    return name


@dataclass(frozen=True)
class Dimension:
    """One searched option: an integer range ``low..high``, or a choice among ``choices``."""

    option: str
    low: int | None = None
    high: int | None = None
    choices: tuple = ()

    def suggest(self, trial: Any) -> Any:
        if self.choices:
            return typed(self.option, trial.suggest_categorical(self.option, [storable(c) for c in self.choices]))
        return trial.suggest_int(self.option, self.low, self.high)


def typed(option: str, v: Any) -> Any:
    """A stored choice back as the rules take it (``hand_sizes`` text to a tuple)."""
    return parse_value(option, v) if isinstance(getattr(Rules(), option), tuple) and isinstance(v, str) else v


def storable(v: Any) -> Any:
    """A choice as Optuna stores it (tuples as ``7,7,7,5,5`` text)."""
    return ",".join(map(str, v)) if isinstance(v, tuple) else v


def parse_space(items: list[str]) -> tuple[Dimension, ...]:
    """``--space`` items: ``option=LOW..HIGH`` (whole numbers), ``option=a,b,...`` (choices; ``|`` between
    ``hand_sizes`` values), or a switch's bare name (true and false).

    Raises
    ------
    TuneError
        For an unknown or unsearchable option, a bad range or value, or an option named twice.
    """
    dims: list[Dimension] = []
    for item in items:
        option, eq, text = item.partition("=")
        try:
            option = option_key(item, "option=LOW..HIGH or option=a,b, e.g. nine_penalty=0..50")
        except RulesError as exc:
            raise TuneError(str(exc)) from None
        if option not in SEARCHABLE:
            hint = did_you_mean(option, SEARCHABLE)
            raise TuneError(f"cannot search {option!r}{hint}; options are: {', '.join(SEARCHABLE)}")
        if any(d.option == option for d in dims):
            raise TuneError(f"{option} is given twice in --space")
        default = getattr(Rules(), option)
        try:
            if not eq:
                if not isinstance(default, bool):
                    raise TuneError(f"--space {option} needs values: {option}=LOW..HIGH or {option}=a,b")
                dims.append(Dimension(option, choices=(False, True)))
            elif ".." in text:
                lo, _, hi = text.partition("..")
                low, high = parse_value(option, lo), parse_value(option, hi)
                if isinstance(default, bool) or not isinstance(low, int) or not isinstance(high, int) or low >= high:
                    raise TuneError(f"--space {item!r}: a range is LOW..HIGH, whole numbers with LOW < HIGH")
                Rules().replace(**{option: low}), Rules().replace(**{option: high})  # bounds the rules allow
                dims.append(Dimension(option, low, high))
            else:
                try:
                    parts = items_of(text, f"--space {item!r}", "|" if option == "hand_sizes" else ",")
                except EmptyItem as exc:
                    raise TuneError(str(exc)) from None
                choices = tuple(dict.fromkeys(parse_value(option, p) for p in parts))
                if len(choices) < 2:
                    raise TuneError(f"--space {item!r} needs at least two different values")
                if option != "hand_sizes":  # whether hand sizes fit depends on the table and the decks: a trial's
                    for c in choices:  # each value one the rules allow (draw_rule must be one of ...)
                        Rules().replace(**{option: c})
                dims.append(Dimension(option, choices=choices))
        except RulesError as exc:
            raise TuneError(f"--space {item!r}: {exc}") from None
    if not dims:
        raise TuneError("name the options to search: --space nine_penalty=0..50 (repeatable)")
    return tuple(dims)


@dataclass(frozen=True)
class Objective:
    """``maximize``/``minimize`` a measure, or ``target``: bring it to ``value`` (minimise the distance)."""

    kind: str
    measure: str
    value: float = 0.0

    @property
    def direction(self) -> str:
        return "maximize" if self.kind == "maximize" else "minimize"

    @property
    def label(self) -> str:
        return f"{self.measure}={self.value:g}" if self.kind == "target" else self.measure

    def score(self, measured: float) -> float:
        return abs(measured - self.value) if self.kind == "target" else measured


@dataclass(frozen=True)
class Constraint:
    """``measure OP bound`` (``hands<=8``): feasible when it holds."""

    measure: str
    op: str
    bound: float

    def violation(self, measured: float) -> float:
        """Optuna's constraint value: <= 0 when the constraint holds."""
        if math.isnan(measured):
            return 1.0
        if OPS[self.op](measured, self.bound):
            return 0.0
        return abs(measured - self.bound) or 1e-9

    @property
    def text(self) -> str:
        return f"{self.measure}{self.op}{self.bound:g}"


def parse_goals(maximize: list[str], minimize: list[str], target: list[str], require: list[str]
                ) -> tuple[tuple[Objective, ...], tuple[Constraint, ...]]:  # fmt: skip
    """The objectives and constraints of the command line.

    Raises
    ------
    TuneError
        For an unknown measure, a target or constraint that is not ``measure=NUMBER`` /
        ``measure<=NUMBER``, no objective, or one measure as two objectives.
    """
    objs = [Objective("maximize", measure_name(m)) for m in maximize]
    objs += [Objective("minimize", measure_name(m)) for m in minimize]
    for t in target:
        name, eq, v = t.partition("=")
        try:
            objs.append(Objective("target", measure_name(name), float(v)))
        except ValueError:
            raise TuneError(f"--target is written measure=NUMBER (hands=6), not {t!r}") from None
        if not eq:
            raise TuneError(f"--target is written measure=NUMBER (hands=6), not {t!r}")
    if not objs:
        raise TuneError("give an objective: --maximize skill, --minimize seat-unfairness or --target hands=6")
    if len({o.measure for o in objs}) != len(objs):
        raise TuneError("a measure is named by two objectives; give each once")
    cons = []
    for r in require:
        m = re.fullmatch(r"\s*([A-Za-z_-][A-Za-z0-9_-]*)\s*(<=|>=|<|>)\s*([-+0-9.eE]+)\s*", r)
        try:
            bound = float(m.group(3)) if m else math.nan
        except ValueError:
            bound = math.nan
        if m is None or math.isnan(bound):
            raise TuneError(f'--require is written "measure<=NUMBER" (or >=, <, >), e.g. "hands<=8", not {r!r}')
        cons.append(Constraint(measure_name(m.group(1)), m.group(2), bound))
    return tuple(objs), tuple(cons)


def rules_command(words: dict[str, list[str]], options: dict, rule_list: list[str]) -> str:
    """The ``nines tune-rules`` command that reproduces a search: its ``--space``, ``--maximize``,
    ``--minimize``, ``--target`` and ``--require`` items (``words``: each flag's items, as given), its other
    options (a None value is left out) and its ``--rule`` overrides."""
    items = [f"{flag}={item}" for flag in ("--space", "--maximize", "--minimize", "--target", "--require")
             for item in words.get(flag) or []]  # fmt: skip
    return canonical_command("tune-rules", items, options, rule_list)
