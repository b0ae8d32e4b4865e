"""Which strategies of a lineup see hidden cards (classifier ``sees_hidden_cards``, e.g. ``clairvoyant``): not fair
players, so the tables and reports that include them say so."""

from __future__ import annotations

from nines_sim.strategy.base import Strategy
from nines_sim.strategy.registry import StrategyNotFound, load_class


def hidden_card_players(specs: list) -> list[str]:
    """The specs whose strategy sees hidden cards (classifier ``sees_hidden_cards``, e.g. ``clairvoyant``).

    Such a strategy is not a fair player: tables and reports that include it say so.
    Specs that do not resolve are skipped (they fail elsewhere, with their own message).
    """
    out = []
    for s in specs:
        try:
            c = type(s) if isinstance(s, Strategy) else load_class(str(s))
        except StrategyNotFound:
            continue
        if c.classifier.get("sees_hidden_cards") and str(s) not in out:
            out.append(s.name if isinstance(s, Strategy) else str(s))
    return out


def hidden_card_note(specs: list) -> str | None:
    """One sentence saying which strategies of a lineup see hidden cards, or None."""
    names = hidden_card_players(specs)
    if not names:
        return None
    return (
        f"Not a fair comparison: {', '.join(names)} sees every hand and the stock (sees_hidden_cards); "
        f"its results measure what hidden information is worth."
    )
