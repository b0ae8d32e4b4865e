"""How the screen of ``nines play`` writes cards, moves, seats and the public events.

Cards are written with their suit symbols everywhere on the screen (``5♦``: the hand, the log, the ranking, the
refusals), coloured by suit in a four-colour deck; the person's seat is ``you``, every other seat ``seat 1
(expert)``; :func:`event_line` writes one public event (:func:`nines_sim.play.driver.public_events`) as a line
of the log.  The terminal program, :mod:`nines_sim.play.tui`, lays these out; ``nines play`` writes a finished
match's totals with :func:`per_seat`.  Text only: nothing here needs Textual.
"""

from __future__ import annotations

from rich.text import Text

from nines_sim.game.cards import FACE_SUIT, SUIT_SYMBOLS, card_name
from nines_sim.play.saved import move_text
from nines_sim.results.records import BLOCKED, CAPPED
from nines_sim.strategy.base import DecisionKind

#: Suit colours (a four-colour deck): clubs green, diamonds blue, hearts red, spades white.
SUIT_COLOURS = ("green3", "dodger_blue1", "red1", "bright_white")


def card_text(face: int, style: str = "") -> Text:
    """A card with its suit symbol, coloured by suit: ``10♥``."""
    return Text(shown(face), style=f"bold {SUIT_COLOURS[FACE_SUIT[face]]} {style}".strip())


def shown(face: int) -> str:
    """A card's name with its suit symbol: ``10♥``."""
    return card_name(face)[:-1] + SUIT_SYMBOLS[FACE_SUIT[face]]


def move_shown(kind: DecisionKind, move: int) -> str:
    """A move as the screen writes it, cards and suits by their symbols: ``7♥``, ``two 9s``, ``♠``, ``play``."""
    return move_text(kind, move, shown, SUIT_SYMBOLS)


def seat_name(s: int, names: list[str], seat: int) -> str:
    """A seat as the screen names it: ``you`` (the person's), else ``seat 1 (expert)``."""
    return "you" if s == seat else f"seat {s} ({names[s]})"


def per_seat(values: tuple[int, ...] | list[int], names: list[str], seat: int) -> str:
    """One number per seat, each named: ``you 0, seat 1 (expert) 12``."""
    return ", ".join(f"{seat_name(s, names, seat)} {int(v)}" for s, v in enumerate(values))


def event_line(ev: tuple, names: list[str], seat: int) -> str | None:
    """One public event as a line of the log (None for events not shown); ``seat`` is the person's."""

    def who(s: int, verb: str) -> str:  # "You play", "seat 1 (expert) plays"
        if s == seat:
            return "You " + {"is": "are", "passes": "pass", "must draw": "must draw"}.get(verb, verb.removesuffix("s"))
        return f"seat {s} ({names[s]}) {verb}"

    kind = ev[0]
    if kind == "deal":
        dealer = "you deal" if ev[2] == seat else f"seat {ev[2]} ({names[ev[2]]}) deals"
        return f"Hand {ev[1] + 1}: {dealer}; starter {shown(ev[4])}"
    if kind == "declare":
        return f"{who(ev[1], 'declares')} {SUIT_SYMBOLS[ev[2]]} for the 9 starter"
    declares = "declare" if ev[1] == seat else "declares"
    if kind == "play":
        extra = f", {declares} {SUIT_SYMBOLS[ev[3]]}" if ev[3] >= 0 else ""
        return f"{who(ev[1], 'plays')} {shown(ev[2])}{extra}"
    if kind == "pair":
        return f"{who(ev[1], 'plays')} two 9s, {declares} {SUIT_SYMBOLS[ev[2]]}"
    if kind in ("draw", "penalty_draw"):
        return f"{who(ev[1], 'draws' if kind == 'draw' else 'must draw')} {shown(ev[2]) if ev[2] >= 0 else 'a card'}"
    if kind == "pass":
        return f"{who(ev[1], 'passes')} (nothing to draw)"
    if kind == "skip":
        return f"{who(ev[1], 'is')} skipped"
    if kind == "reshuffle":
        return f"The discard pile is shuffled into a new stock ({ev[1]} cards)"
    if kind == "end":
        how = {BLOCKED: "blocked", CAPPED: "stopped at the turn cap"}.get(
            ev[1], f"{seat_name(ev[1], names, seat)} went out"
        )
        return f"Hand over: {how}; hand penalties: {per_seat(ev[2], names, seat)}"
    if kind == "match_end":
        return f"Match over: totals: {per_seat(ev[1], names, seat)}"
    return None
