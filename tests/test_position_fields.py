"""A position holds the slot state's declared fields (issue 39: one declared state): :class:`Position`'s attributes
are what :data:`nines_sim.engine.slots.STATE` names as held by a position, and a batch's fields go into a position
and back unchanged."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from nines_sim.engine import slots
from nines_sim.engine.position import Position, PositionBatch, positions_from_engine
from nines_sim.engine.position_fields import HOLDING, held_mismatch


def _held(state: tuple[slots.Field, ...]) -> dict[str, tuple[str, ...]]:
    """``POSITION_HELD`` as :mod:`nines_sim.engine.slots` derives it, for another declaration."""
    return {h: tuple(f.name for f in state if f.position and f.held == h) for h in dict.fromkeys(f.held for f in state)
            if h}  # fmt: skip


ATTRIBUTES = [f.name for f in dataclasses.fields(Position) if f.name != "rules"]


def test_position_has_an_attribute_for_every_field_the_state_declares_held_and_no_other():
    assert set(ATTRIBUTES) == set(slots.POSITION_HELD)
    assert slots.POSITION_HELD == _held(slots.STATE)
    assert {n for names in slots.POSITION_HELD.values() for n in names} == set(slots.POSITION)
    assert held_mismatch(ATTRIBUTES, slots.POSITION_HELD, HOLDING) == ""


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: (*s, slots.Field("luck", "st", "S_LUCK")), "declares luck held by a position, which Position lacks"),
        (lambda s: tuple(f for f in s if f.name != "drew_on"), "Position has drew_on, which no field"),
        (lambda s: tuple(dataclasses.replace(f, held="dir") if f.name == "dirbit" else f for f in s),
         "declares dir held by a position"),
        (lambda s: (*s, slots.Field("seen", "st", "S_SEEN", held="totals")), "totals holds several fields"),
    ],
)  # fmt: skip
def test_a_declaration_that_position_does_not_hold_is_named(change, message):
    """A field added, dropped or renamed in the declaration without a position holding it is refused, in one line
    (the engine's position module refuses to import)."""
    why = held_mismatch(ATTRIBUTES, _held(change(slots.STATE)), HOLDING)
    assert message in why and "\n" not in why


def test_every_held_field_goes_into_a_position_and_back_unchanged():
    """Games stopped in their second hand (totals, keys and history set), with two decks and reverses: each field
    of the declaration a position holds comes back from a ``Position`` the same (the stock from its next card)."""
    from nines_sim.engine.batch import CompiledEngine
    from nines_sim.game.rules import make_rules
    from nines_sim.strategy.registry import make_lineup

    rules = make_rules("double-nines+skip-reverse", players=4)
    taken = []
    for m in range(12):
        e = CompiledEngine(rules, make_lineup(["random"] * 4), 7, m, 1, trace=True)
        e.stop_at(1, 10 + m)
        while e.B and not e.paused:
            e.advance()
        if e.paused:
            taken.append(positions_from_engine(e))
    assert len(taken) == 12
    positions = [t.position(0) for t in taken]
    again = PositionBatch.from_positions(positions)
    assert {p.direction for p in positions} == {1, -1} and any(p.nine_starter for p in positions)
    for b, batch in enumerate(taken):
        lo, hi = int(batch.column("stock_pos")[0]), int(batch.column("stock_end")[0])
        for name in slots.POSITION:
            got = again.column(name)[:, b] if name in ("hands", "under") else again.column(name)[b]
            want = batch.column(name)[:, 0] if name in ("hands", "under") else batch.column(name)[0]
            if name == "stock":  # a position's stock starts at its next card
                assert list(got[: hi - lo]) == list(want[lo:hi]) and not got[hi - lo :].any()
            elif name in ("stock_pos", "stock_end"):
                assert int(got) == {"stock_pos": 0, "stock_end": hi - lo}[name]
            else:
                assert np.array_equal(got, want), (name, got, want)
    assert any(p.hands_played for p in positions) and any(any(p.totals) for p in positions)
