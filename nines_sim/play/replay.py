"""Replaying one match turn by turn, with the numbers it has inside any run."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nines_sim.engine.broker import replay_command, rule_overrides  # noqa: F401 - replay_command is used from here too
from nines_sim.game.cards import SUIT_SYMBOLS, card_name
from nines_sim.game.rules import Rules
from nines_sim.results.records import BLOCKED, CAPPED, MatchResults
from nines_sim.strategy.base import Observation, Strategy
from nines_sim.strategy.debug import user_traceback
from nines_sim.strategy.per_game import views
from nines_sim.strategy.registry import make_lineup


def rules_text(rules: Rules) -> str:
    """The rules as a reader needs them named: the preset, and every option that differs from it.

    ``classic``, or ``classic with target=50, nine_penalty=20`` (the players left out: the lineup seats them).
    """
    over = rule_overrides(rules)
    return f"{rules.preset} with {', '.join(over)}" if over else rules.preset


def header(rules: Rules, names: Sequence[str], seed: int, match: int) -> str:
    """The first line of a replay: the match, the seats, the rules with their overrides."""
    seats = ", ".join(f"seat {i} {n}" for i, n in enumerate(names))
    return f"Match {match} of seed {seed}: {seats}; rules {rules_text(rules)}"


class ReplayFailure(RuntimeError):
    """A strategy failed in the replayed match: the events up to then, the position, the user's exception.

    Attributes
    ----------
    events : list of tuple
        The match's events before the failing decision (:mod:`nines_sim.engine.events`).
    position : dict
        The failing decision: ``seat``, ``kind`` ("play", "declare", "play_drawn"),
        ``hand``, ``legal`` and ``top`` (card names), ``active_suit``, ``drawn``.
    error : Exception
        The broker's :class:`~nines_sim.engine.broker.StrategyError` or
        :class:`~nines_sim.engine.broker.IllegalMoveError`; its ``__cause__`` is what
        the strategy raised, if it raised.
    """

    def __init__(self, events: list[tuple], position: dict, error: Exception):
        super().__init__(str(error))
        self.events, self.position, self.error = events, position, error


class _Watched(Strategy):
    """A strategy seen through: records the position of each decision before asking it."""

    def __init__(self, inner: Strategy, last: dict):
        self.inner, self.last = inner, last
        self.name = inner.name  # type: ignore[misc] - shown under the inner strategy's name
        self.classifier = inner.classifier  # type: ignore[misc]
        if hasattr(inner, "reveal"):  # the hook through which the engine shows the hidden cards, passed on
            self.reveal = inner.reveal

    def _see(self, obs: Observation, kind: str, card: np.ndarray | None = None) -> None:
        v = views(obs)[0]  # a replay plays one match: one game per decision
        self.last.clear()
        drawn = None if card is None else card_name(int(card[0]))
        self.last.update(seat=v.seat, kind=kind, hand=v.hand, legal=v.legal, top=v.top, active_suit=v.active_suit,
                         drawn=drawn)  # fmt: skip

    def play(self, obs: Observation) -> np.ndarray:
        self._see(obs, "play")
        return self.inner.play(obs)

    def declare(self, obs: Observation) -> np.ndarray:
        self._see(obs, "declare")
        return self.inner.declare(obs)

    def play_drawn(self, obs: Observation, card: np.ndarray) -> np.ndarray:
        self._see(obs, "play_drawn", card)
        return self.inner.play_drawn(obs, card)


def replay(rules: Rules, lineup: Sequence[str | Strategy], seed: int, match: int,
           choices: bool = False) -> tuple[list[tuple], MatchResults]:  # fmt: skip
    """Play match ``match`` of ``seed`` alone, recording every event (with ``choices``, ``expert``'s ``choice``
    events too: the luck walk's, :func:`~nines_sim.engine.events.decode`).

    Returns
    -------
    tuple
        (events, results): the events as the compiled engine's trace form writes them
        (:mod:`nines_sim.engine.events`), each turn's preceded by a ``("turn", t)`` marker
        (``t`` from 0 in each hand: the engine's turn counter, which ``nines analyze
        --turn`` counts from 1), and the one-match results (equal to that match's row
        in any run).

    Raises
    ------
    ReplayFailure
        If a strategy raises or returns an illegal answer: the events up to
        that decision and its position.
    """
    from nines_sim.engine.batch import CompiledEngine
    from nines_sim.engine.broker import IllegalMoveError, StrategyError
    from nines_sim.engine.events import without_open_turn
    from nines_sim.engine.seats import plays_builtin

    specs = [s if isinstance(s, str) else s.name for s in lineup]
    last: dict = {}
    seen: dict[int, Strategy] = {}
    # the built-ins decide inside the loop; every other seat is watched, so that a failing decision has a position
    players = [s if plays_builtin(s) else seen.setdefault(id(s), _Watched(s, last)) for s in make_lineup(list(lineup))]
    e = CompiledEngine(rules, players, seed, match, 1, batch_size=1, trace=True, specs=specs)
    assert e.trace is not None
    e.trace_choices = choices
    try:
        res = e.run()
    except (StrategyError, IllegalMoveError) as exc:
        raise ReplayFailure(without_open_turn(e.trace.get(match, [])), dict(last), exc) from exc
    return e.trace.get(match, []), res


def describe_failure(failure: ReplayFailure, names: Sequence[str]) -> list[str]:
    """Readable lines for the failing decision: the position, and the strategy's traceback if it raised."""
    p = failure.position
    if not p:
        return []
    what = {"play": "to play", "declare": "to declare a suit", "play_drawn": "to play the card drawn or keep it"}
    lines = [
        f"\n== seat {p['seat']} ({names[p['seat']]}) {what[p['kind']]}: this decision fails",
        f"   hand: {' '.join(p['hand'])}",
        f"   legal cards: {' '.join(p['legal']) or '-'}",
        f"   top card {p['top']}, active suit {p['active_suit']}"
        + (f", card drawn {p['drawn']}" if p["drawn"] else ""),
    ]
    cause = failure.error.__cause__
    if cause is not None:
        lines += ["", user_traceback(cause)]
    return lines


def describe(events: list[tuple], names: Sequence[str]) -> list[str]:
    """Readable lines for a match's events; ``names`` labels the seats.

    Hands are numbered from 1, tie-break hands too, as ``nines analyze --hand``
    counts them; a turn's first line is numbered from 1 in its hand (``turn 3:``),
    as ``--turn`` counts them, and the turn's further lines are indented under it.
    """

    def who(seat: int) -> str:
        return f"seat {seat} ({names[seat]})"

    lines: list[str] = []
    running = [0] * len(names)
    tiebreak = False
    label: str | None = None  # "turn N: " until the turn's first line is written
    width = 0  # the current turn label's width: its further lines are indented by it

    def say(text: str) -> None:
        """One line of the current turn (or of the deal, before the first turn)."""
        nonlocal label, width
        if label is not None:
            lines.append(f"   {label}{text}")
            width, label = len(label), None
        else:
            lines.append("   " + " " * width + text)

    for ev in events:
        kind = ev[0]
        if kind == "turn":
            label = f"turn {ev[1] + 1}: "
        elif kind == "deal":
            _, seq, dealer, hands, starter = ev
            width = 0
            tiebreak = any(len(h) == 0 for h in hands)  # only a tie-break hand leaves seats out (S4)
            title = "tie-break hand" if tiebreak else "hand"
            lines.append(f"\n== {title} {seq + 1}: {who(dealer)} deals; starter {card_name(starter)}")
            for seat, cards in enumerate(hands):
                if cards:
                    lines.append(f"   {who(seat)}: {' '.join(card_name(c) for c in cards)}")
        elif kind == "declare":
            say(f"{who(ev[1])} (dealer) declares {SUIT_SYMBOLS[ev[2]]} for the 9 starter")
        elif kind == "play":
            extra = f", declares {SUIT_SYMBOLS[ev[3]]}" if ev[3] >= 0 else ""
            say(f"{who(ev[1])} plays {card_name(ev[2])}{extra}")
        elif kind == "pair":
            say(f"{who(ev[1])} plays two 9s, declares {SUIT_SYMBOLS[ev[2]]}")
        elif kind == "draw":
            say(f"{who(ev[1])} draws {card_name(ev[2])}")
        elif kind == "penalty_draw":
            say(f"{who(ev[1])} must draw {card_name(ev[2])}")
        elif kind == "pass":
            say(f"{who(ev[1])} passes (nothing to draw)")
        elif kind == "skip":
            say(f"{who(ev[1])} is skipped")
        elif kind == "reshuffle":
            say(f"the discard pile is shuffled into a new stock ({ev[1]} cards)")
        elif kind == "end":
            width = 0
            outcome, pens = ev[1], ev[2]
            how = {BLOCKED: "blocked", CAPPED: "stopped at the turn cap"}.get(outcome, f"{who(outcome)} goes out")
            if tiebreak:
                lines.append(f"   -- tie-break hand over: {how}; hand penalties {list(pens)} (totals unchanged)")
            else:
                running = [r + p for r, p in zip(running, pens)]
                lines.append(f"   -- hand over: {how}; penalties {list(pens)}; running totals {running}")
        elif kind == "match_end":
            totals, shares = ev[1], ev[2]
            winners = [who(s) for s, x in enumerate(shares) if x > 0]
            lines.append(f"\n== match over: totals {list(totals)}; winner: {', '.join(winners)}")
    return lines
