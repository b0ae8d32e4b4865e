"""The rule sets of a comparison: read from ``--rules`` and ``--sweep``, and which of them deal alike.

:func:`rule_sets_from` turns the arguments into labelled :class:`RuleSet` s, the first the reference;
:func:`deals_coupled` says whether two of them deal identical hands for the same seed and match (the
manifest's ``deals_coupled``, the report's coupling notes).
"""

from __future__ import annotations

from dataclasses import dataclass

from nines_sim.game.rules import Rules, RulesError, option_key, parse_rule_set, parse_value, resolve_rule_set
from nines_sim.game.text_lists import EmptyItem, items_of


@dataclass(frozen=True)
class RuleSet:
    """A labelled rule set of a comparison (``value``: the swept value, if any)."""

    label: str
    rules: Rules
    value: object = None


def rule_sets_from(
    specs: list[str], sweep: str | None, players: int | None, overrides: dict | None = None
) -> tuple[list[RuleSet], dict | None]:
    """Rule sets from ``--rules`` specs and an optional ``--sweep option=v1,v2,...``.

    Parameters
    ----------
    specs : list of str
        Rule sets written ``preset[+preset][:key=value,...]`` (see :func:`nines_sim.game.rules.parse_rule_set`);
        a ``@FILE`` is labelled with the rule set it holds.
    sweep : str or None
        ``option=v1,v2,...``: one rule set per value, on top of the one spec (default classic).
    players : int or None
        The lineup's table size, given to every rule set.
    overrides : dict, optional
        Options applied to every rule set (``--rule key=value``, parsed).

    Raises
    ------
    nines_sim.game.rules.RulesError
        For fewer than two rule sets, an unknown preset or option, a value of the
        wrong type or out of range, a sweep of an option that does not exist or
        that ``overrides`` sets, or an option set both in a spec and in ``overrides``.
    """

    def build(spec: str, **over: object) -> Rules:
        base = parse_rule_set(spec, overrides, players)
        return base.replace(**over) if over else base

    if sweep is None:
        if len(specs) < 2:
            for s in specs:  # a misspelt preset is the error to tell first
                build(s)
            raise RulesError("compare at least two rule sets: --rules A --rules B (or --sweep option=v1,v2)")
        if len(set(specs)) != len(specs):
            raise RulesError("a rule set is given twice; each --rules must differ")
        built = [build(s) for s in specs]  # an error in a @FILE names the file
        labels = [resolve_rule_set(s) for s in specs]  # what a @FILE plays, as the CSVs and the command say it
        if len(set(labels)) != len(labels):
            raise RulesError("a rule set is given twice (a @FILE holds another's); each --rules must differ")
        return [RuleSet(label, r) for label, r in zip(labels, built)], None
    if len(specs) > 1:
        raise RulesError("--sweep varies one base rule set: give at most one --rules with it")
    if "=" not in sweep:
        raise RulesError(f"a sweep is written option=v1,v2,..., not {sweep!r}")
    option, values_text = option_key(sweep, "option=v1,v2,..., e.g. nine_penalty=15,25"), sweep.partition("=")[2]
    if option in (overrides or {}):
        raise RulesError(f"{option} is both swept and set by --rule; give it once")
    base_spec = specs[0] if specs else "classic"
    if option == "hand_sizes":
        raise RulesError("hand_sizes cannot be swept (its values hold commas); compare --rules sets instead")
    if option == "players":
        raise RulesError("players cannot be swept: the lineup fixes the table size (compare lineups with tournaments)")
    try:
        texts = items_of(values_text, f"--sweep {sweep!r}")
    except EmptyItem as exc:
        raise RulesError(str(exc)) from None
    values = [parse_value(option, v) for v in texts]
    if len(values) < 2:
        raise RulesError("a sweep needs at least two values: option=v1,v2")
    if len(set(values)) != len(values):
        raise RulesError(f"a value is swept twice in {sweep!r}")
    sets = [RuleSet(f"{option}={t}", build(base_spec, **{option: v}), v) for t, v in zip(texts, values)]
    return sets, {"option": option, "values": values, "base": resolve_rule_set(base_spec)}


def deals_coupled(a: Rules, b: Rules) -> bool:
    """Whether two rule sets deal identical hands for the same seed and match.

    Same deck and table, and the same hand size at this table and at every
    smaller one a tie-break hand may be dealt for.
    """
    if (a.decks, a.players) != (b.decks, b.players):
        return False
    return all(a.hand_size(p) == b.hand_size(p) for p in range(2, a.players + 1))
