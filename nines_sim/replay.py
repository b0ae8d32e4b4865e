"""Replaying one match turn by turn, with the numbers it has inside any run."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from nines_sim.cards import SUIT_SYMBOLS, card_name
from nines_sim.engine import BatchEngine
from nines_sim.registry import make_lineup
from nines_sim.results import BLOCKED, CAPPED, MatchResults
from nines_sim.rules import Rules
from nines_sim.strategy import Strategy


def replay_command(rules: Rules, lineup: Sequence[str], seed: int, match: int) -> str:
    """The ``nines replay`` command line that shows match ``match`` of a run."""
    parts = ["nines", "replay", *lineup, "--seed", str(seed), "--match", str(match), "--rules", rules.preset]
    for k, v in rules.overrides().items():
        if k == "players":
            continue  # the lineup seats the players
        text = ",".join(map(str, v)) if isinstance(v, tuple) else str(v).lower() if isinstance(v, bool) else str(v)
        parts += ["--rule", f"{k}={text}"]
    return shlex.join(parts)


def replay(rules: Rules, lineup: Sequence[str | Strategy], seed: int, match: int) -> tuple[list[tuple], MatchResults]:
    """Play match ``match`` of ``seed`` alone, recording every event.

    Returns
    -------
    tuple
        (events, results): the events as ``BatchEngine`` traces them, and the
        one-match results (equal to that match's row in any run).
    """
    specs = [s if isinstance(s, str) else s.name for s in lineup]
    e = BatchEngine(rules, make_lineup(list(lineup)), seed, match, 1, batch_size=1, trace=True, specs=specs)
    res = e.run()
    return e.trace.get(match, []), res


def describe(events: list[tuple], names: Sequence[str]) -> list[str]:
    """Readable lines for a match's events; ``names`` labels the seats."""

    def who(seat: int) -> str:
        return f"seat {seat} ({names[seat]})"

    lines: list[str] = []
    running = [0] * len(names)
    tiebreak = False
    for ev in events:
        kind = ev[0]
        if kind == "deal":
            _, seq, dealer, hands, starter = ev
            tiebreak = any(len(h) == 0 for h in hands)  # only a tie-break hand leaves seats out (S4)
            title = "tie-break hand" if tiebreak else "hand"
            lines.append(f"\n== {title} {seq + 1}: {who(dealer)} deals; starter {card_name(starter)}")
            for seat, cards in enumerate(hands):
                if cards:
                    lines.append(f"   {who(seat)}: {' '.join(card_name(c) for c in cards)}")
        elif kind == "declare":
            lines.append(f"   {who(ev[1])} (dealer) declares {SUIT_SYMBOLS[ev[2]]} for the 9 starter")
        elif kind == "play":
            extra = f", declares {SUIT_SYMBOLS[ev[3]]}" if ev[3] >= 0 else ""
            lines.append(f"   {who(ev[1])} plays {card_name(ev[2])}{extra}")
        elif kind == "pair":
            lines.append(f"   {who(ev[1])} plays two 9s, declares {SUIT_SYMBOLS[ev[2]]}")
        elif kind == "draw":
            lines.append(f"   {who(ev[1])} draws {card_name(ev[2])}")
        elif kind == "penalty_draw":
            lines.append(f"   {who(ev[1])} must draw {card_name(ev[2])}")
        elif kind == "pass":
            lines.append(f"   {who(ev[1])} passes (nothing to draw)")
        elif kind == "skip":
            lines.append(f"   {who(ev[1])} is skipped")
        elif kind == "reshuffle":
            lines.append(f"   the discard pile is shuffled into a new stock ({ev[1]} cards)")
        elif kind == "end":
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
