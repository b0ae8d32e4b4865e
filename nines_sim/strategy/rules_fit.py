"""Whether each seat of a run can play under its rules, checked before any match (a learned model file)."""

from __future__ import annotations

from collections.abc import Iterable

from nines_sim.game.rules import Rules


def check_seats_fit(specs: Iterable[str], rules: Rules) -> None:
    """Refuse, before any match is played, a seat that cannot play under ``rules``.

    A ``learned`` seat with a model file (``learned@model.npz``) plays only the rules and table size the model was
    trained for (D1): the engine asks for its decision only once the run has started, so the run's progress bar
    was drawn before the error.  Seats on a shipped model are not checked here: they fall back (with a warning
    when the run plays them) and never refuse.

    Parameters
    ----------
    specs : iterable of str
        The seat specs of one table (a spec repeated is checked once).
    rules : nines_sim.game.rules.Rules
        The rules that table plays, its table size included.

    Raises
    ------
    nines_sim.learn.model.ModelError
        (A kind of :class:`~nines_sim.strategy.registry.StrategyNotFound`.) For a model trained for other rules
        or another table size; the one-line message names the first difference.
    nines_sim.strategy.registry.StrategyNotFound
        For a spec that names no strategy.
    """
    from nines_sim.strategy.registry import make_lineup

    for seat in make_lineup(list(dict.fromkeys(specs))):
        model_for = getattr(seat, "model_for", None)
        if model_for is not None and getattr(seat, "model", ""):
            model_for(rules)
