"""The decision broker: asks a table's Python seats for their decisions and checks the answers.

An engine keeps the per-slot state; when games wait on a Python seat (a batched or per-game plug-in,
a search player, a person), it hands the broker the slots, the seats and the decision's kind.  The
broker groups the games by strategy, builds each group's :class:`~nines_sim.strategy.base.Observation`,
gives a strategy that declares the ``reveal`` hook the hidden cards first, asks, and validates every
answer against the engine's own legal moves (never the observation's copy).  When a strategy raises or
answers outside the rules it names the culprit: the strategy, the match (the first game whose decision
alone fails), the seed, and where to see it: ``hint(match)``, a callback the engine's caller supplies
(:func:`replay_hint` gives the ``nines replay`` command line; the broker imports no command-line code).
"""

from __future__ import annotations

import operator
import shlex
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from nines_sim.engine.failures import OWN_FAILURES, IllegalMoveError, StrategyError, StrategyFailure
from nines_sim.game.cards import N_FACES, card_name
from nines_sim.game.rules import Rules
from nines_sim.strategy.base import (
    PAIR_OF_NINES,
    DecisionKind,
    Observation,
    PublicState,
    Strategy,
    pair_legal,
    read_only,
)
from nines_sim.strategy.debug import user_location

ONE = np.uint64(1)
SHIFT_MASK = np.uint64(63)
#: A slot state's public arrays, in the order of ``PublicState.ARRAYS``.
_PUBLIC_ARRAYS = operator.attrgetter(*PublicState.ARRAYS)

#: ``hint(match) -> str``: the text that follows an error message, saying where to see the failing decision.
Hint = Callable[[int], str]


class SlotState(Protocol):
    """What the broker reads of an engine: the per-slot arrays, by name (``B`` slots, ``P`` seats, ``D`` decks).

    ``hands`` and ``under`` are lists of ``D`` uint64 arrays ((B, P) and (B,)); ``match``, ``top``, ``active``
    int64 (B,); ``ncards`` int64 (B, P); ``stock`` int8 (B, 52 D); every name of ``PublicState.ARRAYS``.
    """

    hands: list[np.ndarray]
    under: list[np.ndarray]
    match: np.ndarray
    top: np.ndarray
    active: np.ndarray
    ncards: np.ndarray
    stock: np.ndarray
    stock_pos: np.ndarray
    stock_end: np.ndarray


def move_shown(val: int) -> str:
    """How an error message names a play a strategy answered: `` (two 9s)``, `` (5C)``, a number just past the
    faces (below 64) as out of range, a larger set of faces (one bit per face, as ``obs.legal`` holds them) named
    as the set it is, or nothing."""
    if val == PAIR_OF_NINES:
        return " (two 9s)"
    if 0 <= val < N_FACES:
        return f" ({card_name(val)})"
    if 0 < val < 1 << N_FACES:  # a bit set where a face number was asked: the first plug-in's slip
        faces = [f for f in range(N_FACES) if val >> f & 1]
        named = ", ".join(card_name(f) for f in faces[:4]) + (", ..." if len(faces) > 4 else "")
        if val < 64:  # a face number a little too big is likelier than a set of the lowest six faces
            return f" (out of range: play returns one face number 0-{N_FACES - 1}; as a set of faces: {named})"
        return f" (a set of faces, {named}: play returns one face number 0-{N_FACES - 1}, not a set)"
    return ""


def rule_overrides(rules: Rules) -> list[str]:
    """The options that differ from the preset as ``key=value`` (as ``--rule`` takes them), players left out.

    The lineup seats the players, so a table size other than the preset's is no override here.
    """
    out = []
    for k, v in rules.overrides().items():
        if k == "players":
            continue
        text = ",".join(map(str, v)) if isinstance(v, tuple) else str(v).lower() if isinstance(v, bool) else str(v)
        out.append(f"{k}={text}")
    return out


def replay_command(rules: Rules, lineup: Sequence[str], seed: int, match: int | str, command: str = "replay") -> str:
    """The ``nines replay`` command line that shows match ``match`` of a run (or another ``command`` that takes
    the run's lineup, seed and match, such as ``analyze``; ``match`` a placeholder such as ``K``)."""
    parts = ["nines", command, *lineup, "--seed", str(seed), "--match", str(match), "--rules", rules.preset]
    for over in rule_overrides(rules):
        parts += ["--rule", over]
    return shlex.join(parts)


def replay_hint(rules: Rules, lineup: Sequence[Strategy], seed: int, specs: Sequence[str] | None = None) -> Hint:
    """The usual hint: the ``nines replay`` command that shows the failing decision's position and traceback.

    ``specs``: how the lineup was named (``file.py:Class``); default: as the command line finds each strategy.
    """

    def hint(match: int) -> str:
        from nines_sim.strategy.registry import spec_of

        names = list(specs) if specs is not None else [spec_of(s) for s in lineup]
        return f"; see the position and the traceback with: {replay_command(rules, names, seed, match)}"

    return hint


def no_hint(match: int) -> str:
    """No hint (the replay itself, which shows the position)."""
    return ""


class DecisionBroker:
    """Asks the strategies of a table for decisions in an engine's slots, and checks their answers.

    Parameters
    ----------
    rules : Rules
    lineup : sequence of Strategy
        One per seat; a strategy seated twice is one object, asked once per decision for both seats.
    seed : int
        The run's seed, named in error messages.
    state : SlotState
        The engine whose slots are asked about (read at each decision: an engine may replace its arrays).
    legal_tab : numpy.ndarray
        uint64 (52 * 4,): the faces legal on each (top, active suit) (T1, V6).
    hint : callable, optional
        ``hint(match) -> str`` appended to error messages (:func:`replay_hint`, :func:`no_hint`).
    place : callable, optional
        ``place(match) -> str``: where a failing decision was, as error messages say it (default
        ``in match M of seed S``; a position analysed on its own, outside any run, says so instead).
    """

    def __init__(
        self,
        rules: Rules,
        lineup: Sequence[Strategy],
        seed: int,
        state: SlotState,
        legal_tab: np.ndarray,
        hint: Hint | None = None,
        place: Hint | None = None,
    ):
        uniq: list[Strategy] = []
        for s in lineup:
            if not any(s is u for u in uniq):
                uniq.append(s)
        self.rules, self.seed, self.state, self.legal_tab = rules, seed, state, legal_tab
        self.strategies = uniq
        self.seat_strategy = np.array([next(i for i, u in enumerate(uniq) if u is s) for s in lineup])
        self.hint: Hint = hint if hint is not None else no_hint
        self.place: Hint = place if place is not None else lambda m: f"in match {m} of seed {seed}"
        #: (the engine's arrays it views, the PublicState of those views): see :meth:`public`
        self._public: tuple[tuple, PublicState] | None = None

    # ------------------------------------------------------------------ asking
    def decide(
        self,
        kind: DecisionKind,
        idx: np.ndarray,
        seats: np.ndarray,
        legal: np.ndarray | None = None,
        card: np.ndarray | None = None,
    ) -> np.ndarray:
        """Each seat's strategy's answer in games ``idx``, validated.

        Parameters
        ----------
        kind : DecisionKind
        idx, seats : numpy.ndarray
            int64 (n,): the slots and the deciding seat in each.
        legal : numpy.ndarray, optional
            uint64 (n,): the legal faces (a play, or the drawn card for ``PLAY_DRAWN``).
        card : numpy.ndarray, optional
            int64 (n,): the card drawn (``PLAY_DRAWN``).

        Returns
        -------
        numpy.ndarray
            int64 (n,): a face or ``PAIR_OF_NINES`` (T1, T2, V4), a suit 0-3 (D6, T3), or 0/1 (T4).

        Raises
        ------
        StrategyError
            A strategy raised (its exception is the ``__cause__``).
        IllegalMoveError
            A strategy answered outside the rules or with the wrong shape or type.
        """
        n = idx.shape[0]
        if len(self.strategies) == 1:
            groups = [(0, None)]
        else:
            sid = self.seat_strategy[seats]
            groups = [(s, np.flatnonzero(sid == s)) for s in range(len(self.strategies))]
        out = np.empty(n, dtype=np.int64)
        for s, sel in groups:
            if sel is not None and sel.size == 0:
                continue
            gi = idx if sel is None else idx[sel]
            gs = seats if sel is None else seats[sel]
            gl = legal if sel is None or legal is None else legal[sel]
            gc = card if sel is None or card is None else card[sel]
            res = self._ask_group(self.strategies[s], kind, gi, gs, gl, gc)
            if sel is None:
                out = res
            else:
                out[sel] = res
        return out

    def _ask_group(
        self,
        strat: Strategy,
        kind: DecisionKind,
        idx: np.ndarray,
        seats: np.ndarray,
        legal: np.ndarray | None,
        card: np.ndarray | None,
    ) -> np.ndarray:
        """One strategy's answers for its games: the ``reveal`` hook, the question, the checks."""
        obs = self.observe(idx, seats, kind, legal)
        reveal = getattr(strat, "reveal", None)
        if reveal is not None:  # a strategy that declares the hook sees the hidden cards (an openly unfair player)
            st = self.state
            reveal([w[idx] for w in st.hands], st.stock[idx], st.stock_pos[idx], st.stock_end[idx])
        try:
            res = self.ask(strat, kind, obs, card)
        except StrategyFailure:  # already says whose and where (a compiled decide that does not compile)
            raise
        except OWN_FAILURES as exc:  # a plug-in's own bug: say whose and where, keep the cause
            m = self.culprit(strat, kind, idx, seats, legal, card)
            raise StrategyError(
                f"strategy {strat.name!r} raised {type(exc).__name__}: {exc}{user_location(exc, type(strat))} "
                f"while deciding ({kind.name.lower()}) {self.place(m)}{self.hint(m)}"
            ) from exc
        return self.validate(strat, kind, idx, seats, legal, res)

    def observe(
        self, idx: np.ndarray, seats: np.ndarray, kind: DecisionKind, legal: np.ndarray | None = None
    ) -> Observation:
        """What the players at ``seats`` of games ``idx`` may see, for a decision of ``kind``.

        Returns
        -------
        Observation
            The seat's own hand (gathered now) and lazy views of public state only.
        """
        st = self.state
        # read-only: the broker checks the answers against this very array
        legal = None if legal is None else read_only(legal)
        return Observation(self.public(), idx, seats, kind, [w[idx, seats] for w in st.hands], legal)

    def public(self) -> PublicState:
        """This decision's public state: read-only views of the engine's public arrays, as they are now.

        The views are built once and kept while the engine keeps the same arrays (again when it replaces any):
        building the twenty-odd views at every decision was about a sixth of the broker's time at a table of
        Python seats (profiled).  Each decision still gets a :class:`PublicState` of its own (a shallow copy),
        with its own copy of ``dkey`` and its own list of ``under``: an observation kept past its call reads the
        keys of its decision, and a strategy that reassigns its state's attributes changes no other seat's.  The
        ``dkey`` copy also keeps a view's ``.base`` from reaching the cards' keys beside it.
        """
        st = self.state
        sources = (*st.under, *_PUBLIC_ARRAYS(st))
        made = self._public
        if made is None or len(made[0]) != len(sources) or not all(map(operator.is_, made[0], sources)):
            arrays = dict(zip(PublicState.ARRAYS, sources[len(st.under) :]))
            made = self._public = (sources, PublicState(self.rules, self.legal_tab, under=st.under, **arrays))
        return made[1].for_decision(np.array(st.dkey))

    @staticmethod
    def ask(strat: Strategy, kind: DecisionKind, obs: Observation, card: np.ndarray | None) -> object:
        """The strategy's raw answer (unchecked)."""
        if kind == DecisionKind.PLAY:
            return strat.play(obs)
        if kind == DecisionKind.PLAY_DRAWN:
            return strat.play_drawn(obs, card)
        return strat.declare(obs)

    def culprit(
        self,
        strat: Strategy,
        kind: DecisionKind,
        idx: np.ndarray,
        seats: np.ndarray,
        legal: np.ndarray | None,
        card: np.ndarray | None,
    ) -> int:
        """The match of the first game whose decision alone makes the strategy raise (else the first game's)."""
        for j in range(idx.shape[0]):
            one = self.observe(idx[j : j + 1], seats[j : j + 1], kind, None if legal is None else legal[j : j + 1])
            try:
                self.ask(strat, kind, one, None if card is None else card[j : j + 1])
            except OWN_FAILURES:
                return int(self.state.match[idx[j]])
        return int(self.state.match[idx[0]])

    # ------------------------------------------------------------------ checking
    def validate(
        self,
        strat: Strategy,
        kind: DecisionKind,
        idx: np.ndarray,
        seats: np.ndarray,
        legal: np.ndarray | None,
        res: object,
    ) -> np.ndarray:
        """Check a strategy's answers against the engine's own legal moves; int64 (n,) if they pass.

        Raises
        ------
        IllegalMoveError
            Naming the lowest match whose answer is wrong in this batch, and how (T1, T2, V4-V6 for a play,
            0..3 for a suit).
        """
        arr = np.asarray(res)
        n = idx.shape[0]
        what, bad, arr = self._wrong(kind, idx, seats, legal, res, arr)
        if what is not None and bad.any():
            rows = np.flatnonzero(bad)
            j = int(rows[np.argmin(self.state.match[idx[rows]])])  # the lowest match: not the slot order's first
            m = int(self.state.match[idx[j]])
            if arr.shape != (n,):
                # a shape error depends on the batch, which a replay of one match does not have
                raise IllegalMoveError(
                    f"strategy {strat.name!r} returned {what} {self.place(m)}; return an array of shape (obs.n,)"
                )
            val = arr[j].item() if res is not None else None
            shown = "" if val is None else f": {val!r}"
            if kind == DecisionKind.PLAY and isinstance(val, int):
                shown += move_shown(val)
            raise IllegalMoveError(
                f"strategy {strat.name!r} returned {what}{shown} {self.place(m)}{self.hint(m)}", match=m
            )
        return arr.astype(np.int64, copy=False)

    def _wrong(
        self,
        kind: DecisionKind,
        idx: np.ndarray,
        seats: np.ndarray,
        legal: np.ndarray | None,
        res: object,
        arr: np.ndarray,
    ) -> tuple[str | None, np.ndarray, np.ndarray]:
        """(what is wrong or None, bool (n,) which answers, the answers as read) for :meth:`validate`."""
        n = idx.shape[0]
        if res is None:
            return "nothing (None; return one value per game)", np.ones(n, dtype=bool), np.zeros(n, dtype=np.int64)
        if arr.shape != (n,):
            bad = np.zeros(n, dtype=bool)
            bad[0] = True
            return f"an answer of shape {arr.shape} for {n} games (return one value per game)", bad, arr
        if arr.dtype.kind == "u" and (arr > np.iinfo(np.int64).max).any():
            return "values too large to be cards or suits", arr > np.iinfo(np.int64).max, arr
        if kind == DecisionKind.PLAY_DRAWN:
            if arr.dtype != np.bool_:
                return f"{arr.dtype} instead of bool for play_drawn", np.ones(n, dtype=bool), arr
            return None, np.zeros(n, dtype=bool), arr.astype(np.int64)
        if not np.issubdtype(arr.dtype, np.integer):
            return f"{arr.dtype} values instead of integers", np.ones(n, dtype=bool), arr
        arr = arr.astype(np.int64, copy=False)
        if kind == DecisionKind.PLAY:
            assert legal is not None
            # a face out of range fails the range test whatever bit the wrapped shift reads
            bit = (legal >> (arr.astype(np.uint64) & SHIFT_MASK)) & ONE
            ok = (arr >= 0) & (arr < N_FACES) & (bit == ONE)
            if self.rules.pair_of_nines:
                is_pair = arr == PAIR_OF_NINES
                if is_pair.any():
                    ok |= is_pair & self.pair_legal(idx, seats)
            return "a card that is not a legal play (T1, T2, V4, V5, V6)", ~ok, arr
        return "a suit outside 0..3", (arr < 0) | (arr > 3), arr

    def pair_legal(self, idx: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Whether two 9s together are a legal move (V4, V5): bool, shape (n,)."""
        st = self.state
        hand = [w[idx, seats] for w in st.hands]
        return pair_legal(hand, st.top[idx], st.active[idx], st.ncards[idx, seats], self.rules, self.legal_tab)
