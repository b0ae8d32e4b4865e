"""Which rule sets of a comparison share their deals with the first (common random numbers), and the report's
section that says so: from the manifest's rules (deck size, players, hand sizes) and ``deals_coupled``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nines_sim.reporting.folders import ComparisonFolder
from nines_sim.reporting.markdown import code_list, join_words


def _hand_size(rules: dict[str, Any]) -> int | None:
    """Cards dealt to each player at this rule set's table, or None if the manifest does not say."""
    sizes, players = rules.get("hand_sizes"), rules.get("players")
    if isinstance(sizes, list | tuple) and isinstance(players, int) and 0 <= players - 2 < len(sizes):
        return int(sizes[players - 2])
    return None


def deal_differences(reference: dict[str, Any], other: dict[str, Any]) -> list[str]:
    """Why two rule sets deal different cards: deck size, players or hand size, in words.

    Parameters
    ----------
    reference, other : dict
        ``rules`` of two entries of ``manifest["rule_sets"]``.

    Returns
    -------
    list of str
        E.g. ``["2 decks instead of 1"]``; empty when deck, table and hand sizes agree.
    """
    out = []
    if other.get("decks") != reference.get("decks"):
        out.append(f"{other.get('decks')} decks instead of {reference.get('decks')}")
    if other.get("players") != reference.get("players"):
        out.append(f"{other.get('players')} players instead of {reference.get('players')}")
    a, b = _hand_size(reference), _hand_size(other)
    if a != b:
        out.append(f"{b} cards dealt to each player instead of {a}")
    elif list(reference.get("hand_sizes") or []) != list(other.get("hand_sizes") or []):
        out.append("different hand_sizes")
    return out


@dataclass
class Coupling:
    """Whether one rule set shares its deals with the reference (the first rule set).

    Attributes
    ----------
    label : str
        The rule set.
    coupled : bool
        Same deck size, players and hand sizes as the reference, so match i is dealt the same cards.
    reasons : list of str
        Why not, when not coupled (may be empty if the manifest gives no rules).
    """

    label: str
    coupled: bool
    reasons: list[str]


def coupling(run: ComparisonFolder) -> list[Coupling]:
    """Coupling of every rule set after the first, from the manifest.

    ``deals_coupled`` is taken as written; where it is missing it is derived from the rules.
    """
    entries = {str(e.get("label")): e for e in run.manifest.get("rule_sets") or [] if isinstance(e, dict)}
    ref_rules = (entries.get(run.reference) or {}).get("rules") or {}
    out = []
    for label in run.rule_sets[1:]:
        entry = entries.get(label) or {}
        reasons = deal_differences(ref_rules, entry.get("rules") or {}) if ref_rules and entry.get("rules") else []
        coupled = entry.get("deals_coupled")
        out.append(Coupling(label, bool(coupled) if coupled is not None else not reasons, reasons))
    return out


def coupling_paragraph(run: ComparisonFolder) -> list[str]:
    """The section that says which rule sets share deals with the first (common random numbers) and why not."""
    ref = run.reference
    couplings = coupling(run)
    shared = [c.label for c in couplings if c.coupled]
    apart = [c for c in couplings if not c.coupled]
    lines = [
        "## Common random numbers",
        "",
        f"Every rule set plays the same seed and the same match indices, and each change is measured against "
        f"the first rule set, `{ref}`, match by match.",
    ]
    text = []
    if shared:
        verb = "uses" if len(shared) == 1 else "use"
        text.append(
            f"{code_list(shared)} {verb} the same deck size, number of players and hand size as `{ref}`, so "
            "the deals coincide match by match (common random numbers): a shift in win rate there comes from the "
            "rules rather than from the luck of the deal, and the paired intervals are narrower than independent "
            "samples would give."
        )
    for c in apart:
        why = join_words(c.reasons) if c.reasons else "a different deck size, number of players or hand size"
        text.append(
            f"`{c.label}` does not share deals with `{ref}` ({why}), so its matches are dealt other cards. "
            "Its change is still computed over the same "
            "match indices and its test remains valid, but it gains little from the pairing and its interval is "
            "about as wide as for independent samples."
        )
    if text:
        lines[-1] += " " + " ".join(text)
    return [*lines, ""]
