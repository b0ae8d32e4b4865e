"""How each hand and the match ended, read from the public events, for the screens of ``nines play``.

:func:`hand_ends` cuts a match's public events (:func:`nines_sim.play.driver.public_events`) into the hands
that are over: each :class:`HandEnd` holds the hand's events, the move that went out, every seat's hand
penalty, the running totals after it and what the rules did there (:func:`rule_notes`: a 9 out, a block, a
tie-break hand, the match's end).  Only what the person's seat may see: the events are the public ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from nines_sim.game.cards import FACE_RANK
from nines_sim.game.codes import BLOCKED, CAPPED, NINE_RANK
from nines_sim.game.rules import Rules


@dataclass(frozen=True)
class HandEnd:
    """One hand that is over.

    Attributes
    ----------
    number : int
        The hand in the match, from 1 (tie-break hands counted too, as ``nines replay`` numbers them).
    tiebreak : bool
        Whether it was a tie-break hand (S4), which adds nothing to the totals.
    outcome : int
        The seat that went out (O1), or ``BLOCKED`` (T7) or ``CAPPED`` (T8).
    penalties : tuple of int
        Every seat's hand penalty (S1, C2); 0 for the seat that went out and for seats left out of a tie-break.
    totals : tuple of int
        The running totals after the hand (S1).
    events : tuple of tuple
        The hand's public events, its deal first and its end last.
    out_move : tuple or None
        The ``play`` or ``pair`` event that went out (None for a blocked or capped hand).
    dealt : tuple of bool
        Which seats the hand was dealt to (all but in a tie-break hand).
    next_tiebreak : tuple of int or None
        The seats dealt into a tie-break hand that follows (S4), if one does.
    match_end : tuple or None
        ``(totals, shares)`` of the match when this hand ended it (S2, S3, S4).
    """

    number: int
    tiebreak: bool
    outcome: int
    penalties: tuple[int, ...]
    totals: tuple[int, ...]
    events: tuple[tuple, ...]
    out_move: tuple | None
    dealt: tuple[bool, ...]
    next_tiebreak: tuple[int, ...] | None
    match_end: tuple | None


def hand_ends(events: tuple[tuple, ...] | list[tuple], rules: Rules) -> list[HandEnd]:
    """Every hand of ``events`` that is over, in order.

    Parameters
    ----------
    events : sequence of tuple
        A match's public events from its start (``deal`` as ``("deal", seq, dealer, sizes, starter,
        own_cards)``), turn markers left out or not.
    rules : Rules
        The match's rules: a hand after the regular ones (S2's target reached, or S3's hands played) is a
        tie-break hand, even one that deals every seat (all of them tied).

    Returns
    -------
    list of HandEnd
    """
    events = [ev for ev in events if ev[0] != "turn"]
    deals = [i for i, ev in enumerate(events) if ev[0] == "deal"]
    out: list[HandEnd] = []
    running: tuple[int, ...] | None = None
    regular = 0  # regular hands over
    for k, start in enumerate(deals):
        stop = deals[k + 1] if k + 1 < len(deals) else len(events)
        hand = events[start:stop]
        end = next((i for i, ev in enumerate(hand) if ev[0] == "end"), None)
        if end is None:
            break  # the hand in play
        sizes = hand[0][3]
        dealt = tuple(s > 0 for s in sizes)
        outcome, pens = hand[end][1], tuple(int(p) for p in hand[end][2])
        running = running or (0,) * len(pens)
        tiebreak = _regular_over(rules, regular, running)
        if not tiebreak:
            regular += 1
            running = tuple(r + p for r, p in zip(running, pens))
        moves = [ev for ev in hand[:end] if ev[0] in ("play", "pair") and ev[1] == outcome]
        after = events[stop] if stop < len(events) else None
        following = tuple(s for s, n in enumerate(after[3]) if n > 0) if after is not None else ()
        finish = next((ev for ev in hand[end + 1 :] if ev[0] == "match_end"), None)
        out.append(HandEnd(
            number=int(hand[0][1]) + 1, tiebreak=tiebreak, outcome=int(outcome), penalties=pens, totals=running,
            events=tuple(hand[: end + 1]), out_move=moves[-1] if moves and outcome >= 0 else None, dealt=dealt,
            next_tiebreak=following if after is not None and _regular_over(rules, regular, running) else None,
            match_end=(tuple(finish[1]), tuple(finish[2])) if finish is not None else None,
        ))  # fmt: skip
    return out


def _regular_over(rules: Rules, regular: int, totals: tuple[int, ...]) -> bool:
    """Whether a match's regular hands are over: S3's number played, or S2's target reached."""
    return regular >= rules.fixed_hands if rules.fixed_hands else max(totals) >= rules.target


def went_out_on_a_nine(end: HandEnd) -> bool:
    """Whether the hand's last move was a 9 (or two 9s together, V4)."""
    mv = end.out_move
    return mv is not None and (mv[0] == "pair" or int(FACE_RANK[mv[2]]) == NINE_RANK)


def rule_notes(end: HandEnd, rules: Rules, who: list[str]) -> list[str]:
    """What the rules did at the end of a hand, each with its RULES.md clause.

    Parameters
    ----------
    end : HandEnd
    rules : Rules
        The match's rules (the target or fixed hands, the tie rule, the block rule).
    who : list of str
        How each seat is named on the screen ("you", "seat 1 (expert)").

    Returns
    -------
    list of str
        A line each: going out on a 9, a block or the turn cap, a tie-break hand and its result, a tie-break
        that follows, the match's end.
    """
    notes = []
    if end.outcome >= 0 and went_out_on_a_nine(end):
        notes.append(f"{who[end.outcome]} went out on a 9: a 9 may be the last card (O1); its suit declared no longer "
                     f"matters")  # fmt: skip
    if end.outcome == BLOCKED:
        notes.append(f"Blocked (T7, block_rule={rules.block_rule}): no one went out, so every seat dealt in adds "
                     f"its hand penalty, no one excepted")  # fmt: skip
    elif end.outcome == CAPPED:
        notes.append(f"Stopped at the turn cap of {rules.turn_cap} turns (T8) and scored as blocked")
    if end.tiebreak:
        if end.next_tiebreak is not None:
            won = "no one wins the tie yet"
        else:
            won = f"{who[end.outcome]} went out and so won the tie" if end.outcome >= 0 else (
                "the lowest hand penalty won the tie")  # fmt: skip
        notes.append(f"A tie-break hand (S4): it adds nothing to the totals; {won}")
    if end.next_tiebreak is not None:
        seats = ", ".join(who[s] for s in end.next_tiebreak)
        low = min(end.totals[s] for s in end.next_tiebreak)
        why = ("the tie-break hand was blocked and its lowest hand penalties tie" if end.tiebreak else
               f"the match has reached its end with the lowest totals tied at {low}")  # fmt: skip
        notes.append(f"Next, {why}: a tie-break hand among {seats} (S4, tie_rule=playoff)")
    if end.match_end is not None and not end.tiebreak:
        if rules.fixed_hands:
            notes.append(f"The match's {rules.fixed_hands} hands are played (S3): the lowest total wins")
        else:
            top = max(end.totals)
            notes.append(f"A total reached the target ({top} >= {rules.target}, S2): the match is over, the lowest "
                         f"total wins")  # fmt: skip
    if end.match_end is not None:
        if sum(x > 0 for x in end.match_end[1]) > 1:
            notes.append("The lowest totals tie and the tied seats share the win (S4, tie_rule=share)")
    return notes
