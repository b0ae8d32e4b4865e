"""``nines analyze``: every legal move of one position, with its estimated outcome, and what each strategy plays.

The position is either reached in a replay of a match (seed, match, hand,
turn) or described directly (the player's cards, the top card, the other
seats' hand sizes).  The estimate is the search player's
(:mod:`nines_sim.search.pimc`): the hidden cards are sampled from what the player
sees and every move is played out with a rollout policy.
"""

from __future__ import annotations

import copy
import hashlib
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from nines_sim.engine.position import Position, PositionBatch, PositionError, positions_from_engine
from nines_sim.game.cards import N_FACES, NINE_RANK, SUIT_NAMES, card_name, hand_faces, parse_card
from nines_sim.game.rules import Rules
from nines_sim.strategy.base import PAIR_OF_NINES, DecisionKind, Strategy
from nines_sim.strategy.registry import builtin_classes, make_lineup, resolve_spec

if TYPE_CHECKING:
    from nines_sim.engine.broker import DecisionBroker, Hint


@dataclass
class Analysis:
    """The result of :func:`analyze`: per legal move the mean outcome and its 95% interval, and each strategy's move."""

    position: Position
    moves: list[str]
    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    samples: int
    outcome: str
    choices: dict[str, str]


def position_from_replay(rules: Rules, lineup: Sequence[str], seed: int, match: int, hand: int, turn: int) -> Position:
    """The position at the start of ``turn`` (0-based) of ``hand`` (0-based, every hand dealt counted) of a match.

    Raises
    ------
    PositionError
        If the match ends before that hand or that hand before that turn.
    nines_sim.engine.failures.StrategyFailure
        If a strategy of the lineup fails on the way (the message names the replay that shows it).
    """
    from nines_sim.engine.batch import CompiledEngine  # the engine loads only once a position is asked for
    from nines_sim.engine.broker import replay_hint

    players = make_lineup(list(lineup))
    # a strategy failing on the way is named with the replay that shows its position, as a run names it
    hint = replay_hint(rules, players, seed, list(lineup))
    reached = _position_at_a_play(rules, players, seed, match, hand, turn, hint)
    if reached is not None:
        return reached
    eng = CompiledEngine(rules, players, seed, match, 1, batch_size=1, trace=True, hint=hint)
    eng.stop_at(hand, turn)
    while eng.B and not eng.paused:
        eng.advance()
    if not eng.paused:
        assert eng.trace is not None
        if sum(1 for e in eng.trace.get(match, []) if e[0] == "deal") > hand:
            raise PositionError(f"hand {hand} of match {match} ends before turn {turn}")
        raise PositionError(f"match {match} of seed {seed} ends before hand {hand}, turn {turn}")
    return positions_from_engine(eng).position(0)


def _position_at_a_play(
    rules: Rules, players: list[Strategy], seed: int, match: int, hand: int, turn: int, hint: Hint
) -> Position | None:
    """The position of :func:`position_from_replay` reached on the turn loop's form that a first default
    tournament compiled, not the trace form (8-11 s of processor time to compile on its own, the most of a first
    ``nines analyze``); None where that does not apply, and the trace form is played instead.

    It applies under rules of the classic shape with a lineup of built-ins, each seated as its Python class
    (which plays as its compiled twin does, byte for byte: ``tests/test_compiled.py``): a Python seat's table
    plays the classic ``expert`` form, which keeps the draw log, and stops at every decision, where the
    position is taken as the seat to move is asked for its play at ``turn`` of ``hand`` (what a position holds
    is as at the turn's start: the turn has only found the legal cards).  A turn whose seat has no legal card
    asks no play there (it draws): None, as for a match that ends first, whose words the trace form gives.
    """
    from nines_sim.engine.batch import CompiledEngine
    from nines_sim.engine.loop_constants import classic_shape, rules_params
    from nines_sim.engine.seats import seat_ids
    from nines_sim.engine.slots import S_HAND_SEQ, S_TURN, S_WAIT_KIND
    from nines_sim.game.codes import K_PLAY, SID_PYTHON, SID_USER

    sids = seat_ids(players)
    if not classic_shape(rules_params(rules)) or ((sids == SID_PYTHON) | (sids == SID_USER)).any():
        return None
    made: dict[int, Strategy] = {}
    for s in players:  # each built-in as its Python class (a seat shared stays shared)
        if id(s) not in made:
            twin = copy.copy(s)
            twin.__class__ = type(f"AskedInPython{type(s).__name__}", (type(s),), {})
            made[id(s)] = twin
    wanted = (hand + 1, turn)  # hand_seq counts the hands dealt from 1

    class StopAtThePlay(CompiledEngine):
        reached: Position | None = None
        passed = False

        def _answer(self, waiting: np.ndarray) -> None:
            st = self.st[0]
            at = (int(st[S_HAND_SEQ]), int(st[S_TURN]))
            if at == wanted and st[S_WAIT_KIND] == K_PLAY:
                self.reached = positions_from_engine(self).position(0)
                return  # left waiting: nothing more is played
            self.passed = at > wanted
            if not self.passed:
                super()._answer(waiting)

    eng = StopAtThePlay(rules, [made[id(s)] for s in players], seed, match, 1, batch_size=1, hint=hint)
    while eng.B and eng.reached is None and not eng.passed:
        eng.advance()
    return eng.reached


def position_from_cards(
    rules: Rules, cards: str, top: str, sizes: Sequence[int], active: str | None = None, pile: str = "",
    totals: Sequence[int] | None = None,
) -> Position:  # fmt: skip
    """A position where seat 0 is to move holding ``cards``; the other seats hold ``sizes`` cards (seat 1 first).

    The hidden cards are placed arbitrarily (the analysis samples them anyway).

    ``active`` is the active suit (C, D, H or S); it is required when the top card is a 9,
    whose declared suit rules, not its printed one (RULES.md T1), and otherwise it must be the
    top card's suit (default).

    Raises
    ------
    PositionError
        For a card name that is not a card, a wrong number of sizes, a suit that is not C/D/H/S,
        a 9 on top without ``active``, or an impossible position (see :meth:`Position.validate`).
    """
    try:
        mine = [parse_card(c) for c in cards.split()]
        t = parse_card(top)
        under = [parse_card(c) for c in pile.split()]
    except ValueError as exc:
        raise PositionError(str(exc)) from None
    P = rules.players
    if len(sizes) != P - 1:
        raise PositionError(f"--sizes gives {len(sizes)} hand sizes; the other {P - 1} seats need one each")
    if any(s < 1 for s in sizes):
        raise PositionError("every other seat holds at least one card (a hand ends when a player goes out)")
    if active is not None and active.upper() not in SUIT_NAMES:
        raise PositionError(f"active suit {active!r} is not one of C, D, H, S")
    if active is None:
        if t % 13 == NINE_RANK:
            raise PositionError(
                f"the top card {card_name(t)} is a 9: the active suit is the one declared, not its own (T1); "
                "give it with --active C, D, H or S"
            )
        suit = t // 13
    else:
        suit = SUIT_NAMES.index(active.upper())
    counts = np.bincount(np.array(mine + under + [t], dtype=np.int64), minlength=N_FACES)
    if counts.max() > rules.decks:
        f = int(np.argmax(counts))
        raise PositionError(f"card {card_name(f)} appears {counts[f]} times (the deck has {rules.decks} of each)")
    rest = [f for f in range(N_FACES) for _ in range(rules.decks - int(counts[f]))]
    if sum(sizes) > len(rest):
        raise PositionError(f"the other hands hold {sum(sizes)} cards but only {len(rest)} are unseen")
    hands = [tuple(mine)]
    at = 0
    for s in sizes:
        hands.append(tuple(rest[at : at + s]))
        at += s
    return Position(rules, tuple(hands), tuple(rest[at:]), tuple(under), t, suit, seat=0, dealer=P - 1,
                    totals=tuple(totals) if totals else None)  # fmt: skip


def _move_name(m: int, kind: DecisionKind) -> str:
    if kind == DecisionKind.PLAY:
        return "two 9s" if m == PAIR_OF_NINES else card_name(m)
    if kind == DecisionKind.PLAY_DRAWN:
        return "play it" if m == 1 else "keep it"
    return SUIT_NAMES[m]


def analysis_key(pos: Position, seed: int) -> int:
    """The decision key of an analysis of ``pos``: from ``seed`` and what the seat to move sees.

    A one-way digest (BLAKE2b, 8 bytes, little-endian, as :func:`nines_sim.game.rng.root`) of the seed
    and the seat to move's observation: the rules, its hand, the discard pile and top card, the
    active suit, seats, sizes, totals and the hand's public history.  Two positions that the seat
    sees differently get independent streams (so errors averaged over many positions average
    out); two that it sees alike (they differ only in hidden cards) get the same one.

    Returns
    -------
    int
        A 64-bit key (0 .. 2**64 - 1).
    """
    # not the draw log, which came later: the keys, and so every printed analysis, stay as they were
    seen = (
        repr(pos.rules), pos.seat, sorted(pos.hands[pos.seat]), sorted(pos.pile), pos.top, pos.active, pos.dealer,
        pos.direction, pos.sizes, len(pos.stock), pos.in_hand, pos.totals, pos.played, pos.drew_on, pos.turn,
        pos.streak, pos.drawn, pos.reshuffles, pos.nine_starter, pos.in_tiebreak, pos.hands_played, pos.tb_hands,
    )  # fmt: skip
    text = b"nines-sim/analyze/" + str(seed).encode("ascii") + b"/" + repr(seen).encode("ascii")
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little")


def analyze(
    pos: Position,
    samples: int = 256,
    policy: str = "expert",
    outcome: str = "hand",
    strategies: Sequence[str] = (),
    infer: float = 0.0,
    seed: int | None = 0,
    place: Hint | None = None,
) -> Analysis:
    """Estimate every legal play of the seat to move, and ask each strategy what it would play.

    ``infer`` weighs the sampled hands by the draws each seat made (T1), as ``lookahead``'s setting.
    ``seed`` picks the random stream of the samples and rollouts: each seed gives each position
    its own stream (:func:`analysis_key`), so the estimates of different positions, or of one
    position under different seeds, have independent errors; ``None`` uses the position's own
    decision key (``Position.dkey``, 0 in a described position).  The strategies are asked on
    the position as given (in a replay, with the match's own stream).  ``place(match) -> str`` says where
    the position is if one of them fails when asked (:class:`~nines_sim.engine.broker.DecisionBroker`;
    default: "at the position analysed").

    Raises
    ------
    PositionError
        If the seat to move holds no legal card (it draws: there is no choice to analyse).
    nines_sim.engine.failures.StrategyFailure
        If one of ``strategies`` raises or answers an illegal move at the position.
    """
    keyed = pos if seed is None else pos.with_(dkey=analysis_key(pos, seed))
    batch = PositionBatch.from_positions([keyed])
    pol = make_lineup([policy])[0]
    here = _broker(batch, pol)
    st = here.state
    idx = np.zeros(1, dtype=np.int64)
    seats = st.seat.copy()
    legal = st.hands[0][idx, seats] & here.legal_tab[st.top * 4 + st.active]
    if legal[0] == 0:
        raise PositionError("the seat to move holds no legal card: it draws (T1, T4), there is no play to analyse")
    obs = here.observe(idx, seats, DecisionKind.PLAY, legal)
    from nines_sim.search.pimc import candidates, evaluate  # compiled: loaded once a position is checked
    from nines_sim.search.sampler import sample_positions

    moves = candidates(obs)

    est = evaluate(obs, sample_positions(obs, samples, salt=5, infer=infer), moves, pol, outcome)
    ok = moves[0] >= 0
    mv = moves[0][ok]
    mean, se = est.mean[0][ok], est.se[0][ok]
    order = np.argsort(-mean, kind="stable")
    choices: dict[str, str] = {}
    asked = PositionBatch.from_positions([pos])
    for name in strategies:
        strat: Strategy = make_lineup([name])[0]
        # a built-in asked here that plays a model made for other rules (learned's fallback) says so in its
        # label, not in a warning above the position
        with warnings.catch_warnings(record=True) as fell_back:
            warnings.simplefilter("always")
            said = _broker(asked, strat, place or _analysed).decide(DecisionKind.PLAY, idx, seats, legal=legal)
        for w in fell_back:
            if type(w.message).__name__ != "FallbackWarning":
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        label = (
            f"{name} (nearest model)" if any(type(w.message).__name__ == "FallbackWarning" for w in fell_back) else name
        )
        choices[label] = _move_name(int(said[0]), DecisionKind.PLAY)
    return Analysis(
        pos, [_move_name(int(m), DecisionKind.PLAY) for m in mv[order]], mean[order],
        (mean - 1.96 * se)[order], (mean + 1.96 * se)[order], samples, outcome, choices,
    )  # fmt: skip


def _analysed(match: int) -> str:
    """Where a position analysed on its own is, in a failing strategy's message (it is in no run)."""
    return "at the position analysed"


def _broker(batch: PositionBatch, strategy: Strategy, place: Hint = _analysed) -> DecisionBroker:
    """A decision broker that asks ``strategy`` (at every seat) about the positions of ``batch`` as they stand;
    a failing strategy's message says ``place(match)`` for where."""
    from nines_sim.engine.broker import DecisionBroker
    from nines_sim.game.tables import legal_table

    state = SimpleNamespace(**batch.arrays)  # the per-slot arrays, by the engine's names
    rules = batch.rules
    return DecisionBroker(rules, [strategy] * rules.players, 0, state, legal_table(rules), place=place)


def builtin_names(sees_hidden: bool) -> list[str]:
    """Built-in strategies to ask, without those that see hidden cards unless ``sees_hidden``."""
    return [n for n, c in builtin_classes().items() if sees_hidden or not c.classifier.get("sees_hidden_cards")]


def names_to_ask(lineup: Sequence[str], sees_hidden: bool) -> list[str]:
    """The built-ins (:func:`builtin_names`), then each strategy of ``lineup`` that is not one of them.

    The lineup's own entries (plug-ins, tuned parameters, settings) are asked as written, once
    each; one that sees hidden cards is left out unless ``sees_hidden``.

    Raises
    ------
    StrategyNotFound
        For a lineup entry that names no strategy.
    """
    out = builtin_names(sees_hidden)
    for spec in lineup:
        if spec in out:
            continue
        cls = resolve_spec(spec)[0]
        if sees_hidden or not cls.classifier.get("sees_hidden_cards"):
            out.append(spec)
    return out


def render(a: Analysis) -> list[str]:
    """Lines of text for the terminal."""
    p = a.position
    held = " ".join(card_name(f) for f in hand_faces(np.array([sum(1 << f for f in set(p.hands[p.seat]))])))
    unit = "opponents' mean hand penalty minus your own" if a.outcome == "hand" else "your match win share"
    lines = [
        f"Seat {p.seat} to move, holding {held}; top {card_name(p.top)}, active suit {SUIT_NAMES[p.active]}; "
        f"hand sizes {','.join(map(str, p.sizes))}; stock {len(p.stock)}; totals {','.join(map(str, p.totals))}",
        f"Each legal play, over {a.samples} samples of the hidden cards ({unit}; higher is better; 95% interval):",
    ]
    for i, m in enumerate(a.moves):
        best = "  <- best" if i == 0 else ""
        lines.append(f"  {m:<8} {a.mean[i]:+8.2f}  [{a.low[i]:+.2f}, {a.high[i]:+.2f}]{best}")
    if a.choices:
        lines.append("What each strategy plays: " + ", ".join(f"{k} {v}" for k, v in a.choices.items()))
    return lines
