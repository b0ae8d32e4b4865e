"""Playing one match with a person at one seat, on the batch engine, from a :class:`SavedMatch`.

:func:`run_match` seats a :class:`~nines_sim.play.seat.PersonSeat` among the
saved lineup's strategies and plays the saved match (one game, batch size 1,
every event traced).  The person's decisions come first from the file, then
from the ``ask`` callback; each new one is written into the
:class:`SavedMatch` and handed to ``on_decision`` (which saves the file), so
stopping anywhere loses nothing.  Without ``ask`` the match plays as far as the
file goes: that is how ``nines replay FILE`` shows a saved match and how a
resumed match reaches the point where it stopped.

The same file always gives the same match: the deals and the opponents' random
streams come from the seed (:mod:`nines_sim.game.rng`), the opponents decide only
from their observations, and the person's moves are the file's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from nines_sim.engine.batch import CompiledEngine
from nines_sim.engine.broker import IllegalMoveError, StrategyError
from nines_sim.engine.events import without_open_turn
from nines_sim.game.text_lists import counted
from nines_sim.play.saved import KIND_NAMES, Key, SavedMatch, SavedMatchError, decision_where, move_text
from nines_sim.play.seat import HINT, Ask, PersonSeat, Request, Stop, decision_key, refusal, request_of, with_hint
from nines_sim.play.tutor import tutor_warning
from nines_sim.strategy.base import DecisionKind, Observation, Strategy
from nines_sim.strategy.registry import StrategyNotFound, make_lineup


@dataclass
class Outcome:
    """How far a match got.

    Attributes
    ----------
    events : list of tuple
        Every event of the match so far, as the compiled engine traces them (:mod:`nines_sim.engine.events`)
        (every hand shown: for replays, not for the person's screen), each turn's preceded by a
        ``("turn", t)`` marker as :func:`nines_sim.play.replay.replay` gives them (``t`` from 0 in each
        hand; :func:`nines_sim.play.replay.describe` prints it from 1).
    finished : bool
        Whether the match reached its end (S2, S3).
    totals : list of int, optional
        Final totals of a finished match.
    win_share : list of float, optional
        Each seat's share of the win of a finished match (S2, S4).
    pending : Request, optional
        The person's decision where an unfinished match stopped.
    """

    events: list[tuple]
    finished: bool
    totals: list[int] | None = None
    win_share: list[float] | None = None
    pending: Request | None = None


class _Unasked(BaseException):  # noqa: N818 - a signal through the engine, not an error
    def __init__(self, req: Request):
        super().__init__()
        self.req = req


def public_events(events: list[tuple], seat: int) -> tuple[tuple, ...]:
    """The events as ``seat`` saw them: other seats' dealt hands and drawn cards hidden.

    A ``deal`` becomes ``("deal", hand, dealer, sizes, starter, own_cards)``; a
    ``draw`` or ``penalty_draw`` by another seat shows the face as -1.  Plays,
    declarations, passes, skips, reshuffles and scores are public as they are.
    """
    out: list[tuple] = []
    for ev in events:
        if ev[0] == "deal":
            _, seq, dealer, hands, starter = ev
            out.append(("deal", seq, dealer, tuple(len(h) for h in hands), starter, tuple(hands[seat])))
        elif ev[0] in ("draw", "penalty_draw") and ev[1] != seat:
            out.append((ev[0], ev[1], -1))
        else:
            out.append(ev)
    return tuple(out)


def make_seats(
    saved: SavedMatch,
    answer: Callable[[Observation, np.ndarray | None, bool], int],
    wrap_seat: Callable[[Strategy], Strategy] | None = None,
) -> list:
    """The lineup of a saved match with the person's seat answered by ``answer`` (wrapped by ``wrap_seat``).

    Raises
    ------
    SavedMatchError
        If an opponent's spec names no strategy.
    """
    try:
        others = make_lineup(saved.opponents)
    except StrategyNotFound as exc:
        raise SavedMatchError(f"the saved lineup names an unknown strategy: {exc}") from None
    seats = list(others)
    person: Strategy = PersonSeat(answer)
    seats.insert(saved.seat, wrap_seat(person) if wrap_seat is not None else person)
    return seats


def run_match(
    saved: SavedMatch,
    ask: Ask | None = None,
    on_decision: Callable[[SavedMatch], None] | None = None,
    hint_samples: int = 256,
    wrap_seat: Callable[[Strategy], Strategy] | None = None,
    tutor: float | None = None,
) -> Outcome:
    """Play a saved match: the file's decisions first, then ``ask``'s, to the end or until stopped.

    Parameters
    ----------
    saved : SavedMatch
        Updated in place: each new decision, then ``finished`` and ``totals``.
    ask : callable, optional
        ``ask(request) -> move``: the person's move (checked with :func:`refusal`
        first by the caller), :data:`~nines_sim.play.seat.HINT` to get the request
        back with the search's ranking, or raise :class:`~nines_sim.play.seat.Stop`.
        None: stop at the first decision the file does not hold.
    on_decision : callable, optional
        Called with ``saved`` after every new decision and at the match's end (to save it).
    hint_samples : int
        Samples of the hidden cards for a hint (as ``nines analyze --samples``).
    wrap_seat : callable, optional
        Seats ``wrap_seat(person_seat)`` in place of the person's seat (``nines review``
        watches it); the wrapper's ``engine`` attribute, if it has one, is set to the engine.
    tutor : float, optional
        Points lost above which ``ask``'s move is judged too costly (:mod:`nines_sim.play.tutor`): the request
        comes back to ``ask`` with its :attr:`~nines_sim.play.seat.Request.warning`, and only the warned move
        again (or a move that loses no more) is played.  None: no tutor.

    Returns
    -------
    Outcome

    Raises
    ------
    SavedMatchError
        If the file's decisions do not fit the match: a move the rules forbid
        where it stands, decisions the match never asks for, or final totals
        that differ from the file's.
    ValueError
        If ``ask`` answers a move the rules forbid.
    """
    rules = saved.rules
    used: set[Key] = set()
    eng: CompiledEngine | None = None

    def events_now() -> tuple[tuple, ...]:
        assert eng is not None and eng.trace is not None
        return public_events([e for e in eng.trace.get(saved.match, []) if e[0] != "turn"], saved.seat)

    def answer(obs: Observation, card: np.ndarray | None, pair: bool) -> int:
        key = decision_key(obs)
        req = request_of(obs, card, events_now())
        if key in saved.decisions:
            move = saved.decisions[key]
            why = refusal(req, move, rules)
            if why is not None:
                raise SavedMatchError(
                    f"an impossible match: the saved {KIND_NAMES[key[2]]} at {decision_where(key)} "
                    f"({move_text(key[2], move) if move >= 0 else move}) is refused: {why}"
                )
            used.add(key)
            return move
        if ask is None:
            raise _Unasked(req)
        verdict = None

        def judged():  # noqa: ANN202 - the search's verdict on this decision, once (the ranking and the tutor's)
            nonlocal verdict
            if verdict is None:
                from nines_sim.search.verdict import judge

                pr = np.array([pair]) if req.kind == DecisionKind.DECLARE else None
                verdict = judge(obs, card, pr, samples=hint_samples)
            return verdict

        while True:
            move = ask(req)
            if move == HINT:
                req = with_hint(req, judged().ranking(0))
                continue
            if tutor is None or (req.warning is not None and move == req.warning.move):
                break  # no tutor, or the person confirms the move warned about
            if refusal(req, move, rules) is not None:
                break  # refused below
            warning = tutor_warning(judged(), obs, card, move, tutor)
            if warning is None:
                break
            req = replace(req, warning=warning)
        why = refusal(req, move, rules)
        if why is not None:
            raise ValueError(f"the move asked is refused: {why}")
        saved.decisions[key] = move
        used.add(key)
        if on_decision is not None:
            on_decision(saved)
        return move

    seats = make_seats(saved, answer, wrap_seat)
    eng = CompiledEngine(rules, seats, saved.seed, saved.match, 1, batch_size=1, trace=True, specs=saved.lineup)
    if hasattr(seats[saved.seat], "engine"):
        seats[saved.seat].engine = eng

    def traced() -> list[tuple]:
        return without_open_turn(eng.trace.get(saved.match, []))  # type: ignore[union-attr]

    pending = None
    try:
        res = eng.run()
    except _Unasked as stop:
        res, pending = None, stop.req
    except Stop:  # the person stopped: every decision made is in ``saved`` already
        return Outcome(traced(), False)
    except (StrategyError, IllegalMoveError) as exc:
        if isinstance(exc.__cause__, SavedMatchError | ValueError):
            raise exc.__cause__ from None
        raise
    events = traced()
    unused = [k for k in saved.decisions if k not in used]
    if unused and (res is not None or pending is not None):
        raise SavedMatchError(
            f"an impossible match: the match never asks for the saved {KIND_NAMES[unused[0][2]]} at "
            f"{decision_where(unused[0])} "
            f"({len(unused)} saved decision(s) unused)"
        )
    if res is None:
        if saved.finished:
            raise SavedMatchError("an impossible match: the file says the match is over, but its decisions stop short")
        return Outcome(events, False, pending=pending)
    totals = [int(x) for x in res.totals[0]]
    if saved.finished and saved.totals is not None and saved.totals != totals:
        raise SavedMatchError(f"an impossible match: the file's final totals {saved.totals} differ from {totals}")
    if not saved.finished:
        saved.finished, saved.totals = True, totals
        if on_decision is not None:
            on_decision(saved)
    return Outcome(events, True, totals, [float(x) for x in res.win_share[0]])


def position_from_saved(saved: SavedMatch, hand: int, turn: int):  # noqa: ANN201 - nines_sim.search.position.Position
    """The position at the start of ``turn`` of ``hand`` (both from 0, the file's counters) of a saved match.

    The match is played as :func:`run_match` plays it (the file's decisions at the person's seat, the seed's
    deals and streams), so the position is the one ``nines review FILE`` judged there, its decision stream
    included: ``nines analyze FILE --hand H --turn T --match-stream`` (H, T from 1) reproduces the review's values.

    Raises
    ------
    nines_sim.search.position.PositionError
        If the match, or the file's decisions, end before that turn.
    SavedMatchError
        If an opponent's spec names no strategy.
    """
    from nines_sim.engine.position import PositionError, positions_from_engine

    def answer(obs: Observation, card: np.ndarray | None, pair: bool) -> int:
        key = decision_key(obs)
        if key not in saved.decisions:
            raise _Unasked(request_of(obs, card, ()))
        return saved.decisions[key]

    eng = CompiledEngine(saved.rules, make_seats(saved, answer), saved.seed, saved.match, 1, batch_size=1,
                         trace=True, specs=saved.lineup)  # fmt: skip
    eng.stop_at(hand, turn)
    where = f"hand {hand + 1}, turn {turn + 1}"
    try:
        while eng.B and not eng.paused:
            eng.advance()
    except _Unasked as stop:
        raise PositionError(
            f"the saved match's decisions stop at {decision_where(stop.req.key)}, before {where}"
        ) from None
    if not eng.paused:
        assert eng.trace is not None
        hands = sum(1 for e in eng.trace.get(saved.match, []) if e[0] == "deal")
        if hands > hand:
            raise PositionError(f"hand {hand + 1} of the saved match ends before turn {turn + 1}")
        raise PositionError(f"the saved match ends before {where}: it has {counted(hands, 'hand')}")
    return positions_from_engine(eng).position(0)
