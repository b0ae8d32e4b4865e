"""The retired lockstep numpy batch engine, kept only as a test fixture until its last tests move.

It is no part of the package: the compiled engine (:mod:`nines_sim.engine.batch`) is the engine of
runs, replays, traces, positions and play-outs, checked against the plain-Python reference
(:mod:`nines_sim.game.reference`).  The stacked-deck scenario tests (``tests/scenario.py``: clauses,
variants, expert, strategies) and a few others still step this engine a turn at a time; each is to
move to the compiled engine's trace form or to the reference, then this file goes.

``BatchEngine`` plays ``B`` games at once, one numpy operation over the whole
batch per rule, and never branches per game: games that need something rare
(a reshuffle, a deal, the end of a hand) are handled together as an index
subset.  A finished hand is scored and re-dealt at once and a finished match is
replaced by the next match index, so the batch stays full until the run's
matches run out (then the batch is compacted).

State layout (``B`` games, ``P`` seats, ``D`` decks)
----------------------------------------------------
``hands[d]``      uint64 (B, P)  count-coded hands (:mod:`nines_sim.game.cards`)
``ncards``        int64 (B, P)   cards in each hand
``stock``         int8 (B, 52D)  faces of the stock, drawn from ``stock_pos`` up to ``stock_end``
``under[d]``      uint64 (B,)    count-coded discard pile below the top card
``top, active``   int64 (B,)     top face of the discard pile, active suit (T1)
``seat, dealer``  int64 (B,)     seat to move, dealer of this hand
``dirbit``        int64 (B,)     0 clockwise, 1 counter-clockwise (V3)
``seats_mask``    int64 (B,)     bit per seat dealt into this hand (a tie-break hand has fewer, S4)

Readings where RULES.md is silent: a hand stopped on a turn (going out, a
block, the turn cap) applies no power of the card played on that turn (V3,
V4); the declaration of a 9 is asked for even when it is the last card.

Randomness comes only from :mod:`nines_sim.game.rng` keyed by (seed, match, hand,
counters), which makes a match's play independent of the batch it is in.  Each
game carries two hand keys: ``hkey`` for its cards (from the run's card root)
and ``dkey`` for its strategies' random numbers (from the decision root).

Strategies see a game only through an :class:`~nines_sim.strategy.base.Observation`
built from the deciding seat's own hand and a
:class:`~nines_sim.strategy.base.PublicState` of read-only public arrays; they never
get the engine, another hand, the stock or ``hkey``.  They are asked only about
live matches: when the match range runs out, a slot whose match is over
(``match == -1``) is masked until the next compaction, a no-op under
:meth:`BatchEngine.step`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields

import numpy as np

from nines_sim.engine.broker import (  # noqa: F401 - the errors and move_shown are re-exported: their documented home
    DecisionBroker,
    Hint,
    IllegalMoveError,
    StrategyError,
    move_shown,
    no_hint,
    replay_hint,
)
from nines_sim.game import rng
from nines_sim.game.cards import (
    FACE_RANK,
    FACE_SUIT,
    N_FACES,
    NATURALS,
    NINE_RANK,
    NINES,
    hand_faces,
)
from nines_sim.game.codes import RANK_ACE, RANK_JACK, RANK_QUEEN, RUNNING
from nines_sim.game.rules import Rules
from nines_sim.game.tables import legal_table, next_seat_table, penalty_points  # noqa: F401
from nines_sim.results.records import BLOCKED, CAPPED, HandRecords, MatchResults
from nines_sim.strategy.base import PAIR_OF_NINES, DecisionKind, Observation, Strategy

ONE = np.uint64(1)
U64_NATURALS = np.uint64(NATURALS)
U64_NINES = np.uint64(NINES)
NINE_FACES = tuple(13 * s + NINE_RANK for s in range(4))


def _select(h: HandRecords, mask: np.ndarray) -> HandRecords:
    if mask.all():  # every hand of a compiled table's harvest belongs to a finished match: no copy
        return h
    return HandRecords(**{f.name: getattr(h, f.name)[mask] for f in fields(HandRecords)})


class BatchEngine:
    """Plays the matches ``start .. start + n_matches - 1`` of one seed in lockstep batches.

    Parameters
    ----------
    rules : Rules
    lineup : sequence of Strategy
        One strategy per seat, seat 0 first (seats run clockwise, D1).
    seed : int
        The run's seed, 0 <= seed < 2**64.
    start, n_matches : int
        The match indices to play.
    batch_size : int
        Games in play at once (memory grows linearly; 2,000-20,000 is fast).
    trace : bool
        Record every event of every match (slow; for replay and tests).
    specs : sequence of str, optional
        How the lineup was named (e.g. ``file.py:Class``), for the replay
        command that error messages print; default: the strategies' names.
    hint : callable, optional
        ``hint(match) -> str``, appended to a failing strategy's error message
        (:mod:`nines_sim.engine.broker`); default: the ``nines replay`` command, or
        nothing for a traced engine (the replay itself).

    Raises
    ------
    ValueError
        If the lineup does not have ``rules.players`` strategies, or sizes are not positive.
    """

    #: Steps between a caller's checks for Ctrl-C and harvests (a step here is one turn of every game).
    check_every = 25

    _SLOT_FIELDS = (
        "match", "mkey", "hkey", "dkey", "hand_seq", "hands_played", "tb_hands", "first_dealer", "in_tb",
        "seats_mask", "n_in", "totals", "ncards", "stock", "stock_pos", "stock_end", "top", "active",
        "seat", "dealer", "dirbit", "turn", "streak", "drawn", "reshuffles", "nine_starter",
        "played", "drew_on",
    )  # fmt: skip

    def __init__(
        self,
        rules: Rules,
        lineup: Sequence[Strategy],
        seed: int,
        start: int,
        n_matches: int,
        batch_size: int = 8192,
        trace: bool = False,
        on_step: Callable[[BatchEngine], None] | None = None,
        specs: Sequence[str] | None = None,
        hint: Hint | None = None,
    ):
        if len(lineup) != rules.players:
            raise ValueError(f"the lineup has {len(lineup)} strategies but the rules seat {rules.players} players")
        if n_matches < 0 or batch_size < 1:
            raise ValueError("n_matches must be >= 0 and batch_size >= 1")
        if not 0 <= seed < 1 << 64:
            raise ValueError(f"seed must be a whole number from 0 to 2**64-1, not {seed}")
        self.rules = rules
        self.seed = seed
        self.card_root, self.decision_root = rng.roots(seed)
        self.P = rules.players
        self.D = rules.decks
        self.S = N_FACES * rules.decks
        self.start = start
        self.n_matches = n_matches
        self.trace: dict[int, list[tuple]] | None = {} if trace else None
        self.on_step = on_step
        # One entry per distinct strategy object; seats map onto them.
        uniq: list[Strategy] = []
        for s in lineup:
            if not any(s is u for u in uniq):
                uniq.append(s)
        self.strategies = uniq
        self.lineup = list(lineup)
        self.specs = list(specs) if specs is not None else None
        self.seat_strategy = np.array([next(i for i, u in enumerate(uniq) if u is s) for s in lineup])
        self.legal_tab = legal_table(rules)
        if hint is None:  # where to see a failing decision: the replay command (nothing when this is the replay)
            hint = no_hint if trace else replay_hint(rules, self.lineup, seed, self.specs)
        self.broker = DecisionBroker(rules, self.lineup, seed, self, self.legal_tab, hint)
        self.next_tab = next_seat_table(self.P)
        self.full_mask = (1 << self.P) - 1
        self.nine_penalty = rules.nine_penalty

        self._next_match = start
        B = int(min(batch_size, max(n_matches, 1)))
        self._alloc(B)
        # finished matches and regular hands, in blocks, until results() or harvest() takes them
        self._match_parts: list[MatchResults] = []
        self._hand_parts: list[HandRecords] = []
        self.matches_done = 0
        self.turns_done = 0

    # ------------------------------------------------------------------ state
    def _alloc(self, B: int) -> None:
        P, S = self.P, self.S
        self.B = B
        z = lambda *shape: np.zeros(shape, dtype=np.int64)  # noqa: E731
        self.match = np.full(B, -1, dtype=np.int64)
        self.mkey = np.zeros(B, dtype=np.uint64)
        self.hkey = np.zeros(B, dtype=np.uint64)
        self.dkey = np.zeros(B, dtype=np.uint64)
        for name in ("hand_seq", "hands_played", "tb_hands", "first_dealer", "seats_mask", "n_in",
                     "stock_pos", "stock_end", "top", "active", "seat", "dealer", "dirbit", "turn",
                     "streak", "drawn", "reshuffles"):  # fmt: skip
            setattr(self, name, z(B))
        self.in_tb = np.zeros(B, dtype=bool)
        self.nine_starter = np.zeros(B, dtype=bool)
        self.totals = z(B, P)
        self.ncards = z(B, P)
        self.drew_on = z(B, P)
        self.stock = np.zeros((B, S), dtype=np.int8)
        self.played = np.zeros(B, dtype=np.uint64)
        self.hands = [np.zeros((B, P), dtype=np.uint64) for _ in range(self.D)]
        self.under = [np.zeros(B, dtype=np.uint64) for _ in range(self.D)]
        self.ar = np.arange(B)

    def _compact(self, keep: np.ndarray) -> None:
        for name in self._SLOT_FIELDS:
            setattr(self, name, getattr(self, name)[keep])
        self.hands = [w[keep] for w in self.hands]
        self.under = [w[keep] for w in self.under]
        self.B = int(keep.shape[0])
        self.ar = np.arange(self.B)

    # ------------------------------------------------------------- card moves
    def _add_to_hand(self, idx: np.ndarray, seats: np.ndarray, faces: np.ndarray) -> None:
        bit = ONE << faces.astype(np.uint64)
        h0 = self.hands[0]
        if self.D == 2:
            h1 = self.hands[1]
            h1[idx, seats] |= h0[idx, seats] & bit
        h0[idx, seats] |= bit
        self.ncards[idx, seats] += 1

    def _remove_from_hand(self, idx: np.ndarray, seats: np.ndarray, faces: np.ndarray) -> None:
        bit = ONE << faces.astype(np.uint64)
        if self.D == 2:
            h1 = self.hands[1]
            w1 = h1[idx, seats]
            second = (w1 & bit) != 0
            h1[idx, seats] = w1 & ~bit
            self.hands[0][idx[~second], seats[~second]] &= ~bit[~second]
        else:
            self.hands[0][idx, seats] &= ~bit
        self.ncards[idx, seats] -= 1

    def _add_under(self, idx: np.ndarray, faces: np.ndarray) -> None:
        bit = ONE << faces.astype(np.uint64)
        if self.D == 2:
            self.under[1][idx] |= self.under[0][idx] & bit
        self.under[0][idx] |= bit

    def _reshuffle(self, idx: np.ndarray) -> None:
        """Rebuild the stock from the discard pile below the top card (T5)."""
        S = self.S
        ids = np.arange(S, dtype=np.uint64)
        member = np.zeros((idx.shape[0], S), dtype=bool)
        for d in range(self.D):
            w = self.under[d][idx]
            member[:, d * N_FACES : (d + 1) * N_FACES] = ((w[:, None] >> ids[:N_FACES]) & ONE) == ONE
        counter = ids[None, :] + self.reshuffles[idx, None].astype(np.uint64) * np.uint64(256)
        keys = rng.stream(self.hkey[idx, None], rng.RESHUFFLE, counter)
        keys = np.where(member, keys, np.uint64((1 << 64) - 1))
        order = np.argsort(keys, axis=1, kind="stable")
        count = member.sum(axis=1)
        self.stock[idx] = (order % N_FACES).astype(np.int8)
        self.stock_pos[idx] = 0
        self.stock_end[idx] = count
        for d in range(self.D):
            self.under[d][idx] = 0
        self.reshuffles[idx] += 1
        if self.trace is not None:
            for b, c in zip(idx.tolist(), count.tolist()):
                self._log(b, ("reshuffle", c))

    def _draw(self, idx: np.ndarray, seats: np.ndarray, penalty: bool = False) -> np.ndarray:
        """Each seat draws one card (T4), rebuilding an empty stock first (T5).

        Returns
        -------
        numpy.ndarray
            int64, shape (n,): the face drawn, -1 where nothing could be drawn (T6).
        """
        empty = self.stock_pos[idx] >= self.stock_end[idx]
        if empty.any():
            r = idx[empty]
            r = r[self.under[0][r] != 0]
            if r.size:
                self._reshuffle(r)
        pos = self.stock_pos[idx]
        ok = pos < self.stock_end[idx]
        faces = np.where(ok, self.stock[idx, np.minimum(pos, self.S - 1)], -1).astype(np.int64)
        if not ok.all():
            idx_ok, seats_ok, faces_ok = idx[ok], seats[ok], faces[ok]
        else:
            idx_ok, seats_ok, faces_ok = idx, seats, faces
        self._add_to_hand(idx_ok, seats_ok, faces_ok)
        self.stock_pos[idx_ok] += 1
        self.drawn[idx_ok] += 1
        if self.trace is not None:
            kind = "penalty_draw" if penalty else "draw"
            for b, s, f in zip(idx.tolist(), seats.tolist(), faces.tolist()):
                if f >= 0:
                    self._log(b, (kind, s, f))
        return faces

    # ------------------------------------------------------------- decisions
    def _decide(
        self,
        kind: DecisionKind,
        idx: np.ndarray,
        seats: np.ndarray,
        legal: np.ndarray | None = None,
        card: np.ndarray | None = None,
    ) -> np.ndarray:
        """Ask each seat's strategy for its decision in games ``idx``; validate the answers (the broker's)."""
        return self.broker.decide(kind, idx, seats, legal, card)

    def observe(
        self, idx: np.ndarray, seats: np.ndarray, kind: DecisionKind, legal: np.ndarray | None = None
    ) -> Observation:
        """What the players at ``seats`` of games ``idx`` may see (:meth:`DecisionBroker.observe`)."""
        return self.broker.observe(idx, seats, kind, legal)

    def pair_legal(self, idx: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Whether two 9s together are a legal move (V4, V5): bool, shape (n,)."""
        return self.broker.pair_legal(idx, seats)

    # ------------------------------------------------------------------ deal
    def _deal(self, idx: np.ndarray) -> None:
        """Deal a hand in games ``idx`` (D4-D7); ``dealer`` and ``seats_mask`` are set."""
        S, P = self.S, self.P
        self.hkey[idx] = rng.hand_keys(self.mkey[idx], self.hand_seq[idx])
        self.dkey[idx] = rng.hand_keys(self._decision_match_keys(idx), self.hand_seq[idx])
        self.hand_seq[idx] += 1
        keys = rng.stream(self.hkey[idx, None], rng.DEAL, np.arange(S, dtype=np.uint64)[None, :])
        order = np.argsort(keys, axis=1, kind="stable")
        for d in range(self.D):
            self.hands[d][idx] = 0
            self.under[d][idx] = 0
        self.ncards[idx] = 0
        n_in = self.n_in[idx]
        for k in np.unique(n_in).tolist():
            sub = n_in == k
            gi, go = (idx, order) if sub.all() else (idx[sub], order[sub])
            h = self.rules.hand_size(k)
            mask = self.seats_mask[gi]
            s = self.dealer[gi]
            for i in range(k):
                s = self.next_tab[(mask * 2) * P + s]
                ids = go[:, i : k * h : k]
                bits = ONE << (ids % N_FACES).astype(np.uint64)
                copy = ids // N_FACES
                copy_words = [
                    np.bitwise_or.reduce(np.where(copy == d, bits, np.uint64(0)), axis=1) for d in range(self.D)
                ]
                if self.D == 1:
                    self.hands[0][gi, s] = copy_words[0]
                else:
                    self.hands[0][gi, s] = copy_words[0] | copy_words[1]
                    self.hands[1][gi, s] = copy_words[0] & copy_words[1]
                self.ncards[gi, s] = h
                if i == 0:
                    first = s
            starter = (go[:, k * h] % N_FACES).astype(np.int64)
            rest = S - k * h - 1
            self.stock[gi, :rest] = (go[:, k * h + 1 :] % N_FACES).astype(np.int8)
            self.stock_pos[gi] = 0
            self.stock_end[gi] = rest
            self.top[gi] = starter
            self.active[gi] = FACE_SUIT[starter]
            self.seat[gi] = first
        self.dirbit[idx] = 0
        self.turn[idx] = 0
        self.streak[idx] = 0
        self.drawn[idx] = 0
        self.reshuffles[idx] = 0
        self.drew_on[idx] = 0
        self.played[idx] = ONE << self.top[idx].astype(np.uint64)
        nine = FACE_RANK[self.top[idx]] == NINE_RANK
        self.nine_starter[idx] = nine
        if self.trace is not None:
            for b in idx.tolist():
                hands = tuple(tuple(hand_faces(np.array([w[b, p] for w in self.hands]))) for p in range(P))
                self._log(b, ("deal", int(self.hand_seq[b]) - 1, int(self.dealer[b]), hands, int(self.top[b])))
        if nine.any():  # D6: the dealer declares the active suit at a 9 starter
            ni = idx[nine]
            suits = self._decide(DecisionKind.DEALER_DECLARE, ni, self.dealer[ni])
            self.active[ni] = suits
            if self.trace is not None:
                for b, s in zip(ni.tolist(), suits.tolist()):
                    self._log(b, ("declare", int(self.dealer[b]), s))

    def _decision_match_keys(self, idx: np.ndarray) -> np.ndarray:
        """The decision match keys of games ``idx`` (uint64, (n,)), from which each hand's ``dkey`` is chained."""
        return rng.match_keys(self.decision_root, self.match[idx])

    def _new_matches(self, idx: np.ndarray) -> np.ndarray:
        """Give slots ``idx`` the next match indices; return the slots that got one."""
        n_left = self.start + self.n_matches - self._next_match
        take = idx[: max(0, min(n_left, idx.shape[0]))]
        m = np.arange(self._next_match, self._next_match + take.shape[0], dtype=np.int64)
        self._next_match += take.shape[0]
        self.match[idx] = -1
        self.match[take] = m
        self.mkey[take] = rng.match_keys(self.card_root, m)
        first = rng.below(rng.stream(self.mkey[take], rng.FIRST_DEALER, 0), self.P)
        self.first_dealer[take] = first
        self.dealer[take] = first
        for name in ("hand_seq", "hands_played", "tb_hands"):
            getattr(self, name)[take] = 0
        self.totals[take] = 0
        self.in_tb[take] = False
        self.seats_mask[take] = self.full_mask
        self.n_in[take] = self.P
        return take

    # ------------------------------------------------------------------ step
    def step(self) -> np.ndarray:
        """Every game's player to move takes one turn (T1-T8, O1, V2-V6).

        A slot whose match is over (``match == -1``: the range ran out and the
        batch is not compacted yet) is masked: no strategy is asked about it,
        nothing is drawn or played there, and its outcome is ``RUNNING``.

        Returns
        -------
        numpy.ndarray
            int64, shape (B,): per game, ``RUNNING`` (-3) if the hand goes on
            (or the slot is masked), the seat that went out, ``BLOCKED`` or ``CAPPED``.
        """
        rules = self.rules
        B, P, ar = self.B, self.P, self.ar
        cur = self.seat
        flat = ar * P + cur
        h0 = self.hands[0].reshape(-1)[flat]
        legal = h0 & self.legal_tab[self.top * 4 + self.active]
        if rules.no_nine_out:
            last = self.ncards.reshape(-1)[flat] == 1
            legal = np.where(last, legal & U64_NATURALS, legal)
        has = legal != 0
        in_match = self.match >= 0
        n_live = int(np.count_nonzero(in_match))
        wants_draw = ~has
        if n_live < B:
            has &= in_match
            wants_draw &= in_match
        move = np.full(B, -1, dtype=np.int64)
        passed = np.zeros(B, dtype=bool)

        pi = np.flatnonzero(has)
        if pi.size:
            move[pi] = self._decide(DecisionKind.PLAY, pi, cur[pi], legal=legal[pi])
        di = np.flatnonzero(wants_draw)
        if di.size:
            ds = cur[di]
            self.drew_on[di, ds] |= 1 << self.active[di]
            tab = self.legal_tab[self.top[di] * 4 + self.active[di]]
            faces = self._draw(di, ds)
            if rules.draw_rule == "until-playable":  # V2: draw until a legal card comes
                got = faces >= 0
                ok = got & (((tab >> np.maximum(faces, 0).astype(np.uint64)) & ONE) == ONE)
                again = got & ~ok
                while again.any():
                    ai = np.flatnonzero(again)
                    f2 = self._draw(di[ai], ds[ai])
                    faces[ai] = f2
                    got2 = f2 >= 0
                    ok2 = got2 & (((tab[ai] >> np.maximum(f2, 0).astype(np.uint64)) & ONE) == ONE)
                    ok[ai] = ok2
                    again[:] = False
                    again[ai] = got2 & ~ok2
                passed[di] = faces < 0
                move[di[ok]] = faces[ok]
            else:
                passed[di] = faces < 0
                ok = (faces >= 0) & (((tab >> np.maximum(faces, 0).astype(np.uint64)) & ONE) == ONE)
                oi = np.flatnonzero(ok)
                if oi.size:
                    g = di[oi]
                    bit = np.ones(oi.size, dtype=np.uint64) << faces[oi].astype(np.uint64)
                    yes = self._decide(DecisionKind.PLAY_DRAWN, g, ds[oi], legal=bit, card=faces[oi]).astype(bool)
                    move[g[yes]] = faces[oi][yes]
            if self.trace is not None:
                for b in di[passed[di]].tolist():
                    self._log(b, ("pass", int(cur[b])))

        # Play the chosen cards.
        pl = np.flatnonzero(move >= 0)
        out = np.full(B, RUNNING, dtype=np.int64)
        skip = np.zeros(B, dtype=bool)
        reverse = np.zeros(B, dtype=bool)
        ace = np.zeros(B, dtype=bool)
        if pl.size:
            mv = move[pl]
            ps = cur[pl]
            is_pair = mv == PAIR_OF_NINES
            if is_pair.any():
                self._play_pair(pl[is_pair], ps[is_pair])
                mv = np.where(is_pair, self.top[pl], mv)
            single = np.flatnonzero(~is_pair)
            if single.size:
                si, ss, sf = pl[single], ps[single], mv[single]
                self._remove_from_hand(si, ss, sf)
                self._add_under(si, self.top[si])
                self.top[si] = sf
                self.active[si] = FACE_SUIT[sf]
                self.played[si] |= ONE << sf.astype(np.uint64)
            nine = (FACE_RANK[np.clip(mv, 0, N_FACES - 1)] == NINE_RANK) | is_pair
            ni = np.flatnonzero(nine)
            declared = np.full(pl.size, -1, dtype=np.int64)
            if ni.size:
                suits = self._decide(DecisionKind.DECLARE, pl[ni], ps[ni])
                self.active[pl[ni]] = suits
                declared[ni] = suits
            if self.trace is not None:
                for j, b in enumerate(pl.tolist()):
                    if is_pair[j]:
                        self._log(b, ("pair", int(ps[j]), int(declared[j])))
                    else:
                        self._log(b, ("play", int(ps[j]), int(mv[j]), int(declared[j])))
            gone = self.ncards[pl, ps] == 0
            out[pl[gone]] = ps[gone]
            alive = ~gone
            skip[pl] = is_pair & alive
            if rules.skip_reverse:
                rank = FACE_RANK[np.clip(mv, 0, N_FACES - 1)]
                live = alive & ~is_pair
                skip[pl] |= live & (rank == RANK_JACK)
                reverse[pl] = live & (rank == RANK_QUEEN)
                ace[pl] = live & (rank == RANK_ACE)

        # Blocked hand (T7) and turn cap (T8).
        if rules.block_rule == "pass-circle":
            self.streak = np.where(passed, self.streak + 1, 0)
        else:
            self.streak = np.where(move >= 0, 0, self.streak + 1)
        self.turn += 1
        running = out == RUNNING
        blocked = running & (self.streak >= self.n_in)
        out[blocked] = BLOCKED
        capped = (out == RUNNING) & (self.turn >= rules.turn_cap)
        out[capped] = CAPPED
        if n_live < B:
            out[~in_match] = RUNNING

        # The next seat (D7, V3).
        base = (self.seats_mask * 2) * P
        if reverse.any():
            ri = np.flatnonzero(reverse)
            self.dirbit[ri] ^= 1
            skip[ri] |= self.n_in[ri] == 2  # with two players a reverse acts as a skip
        nxt = self.next_tab[base + self.dirbit * P + cur]
        if skip.any():
            si = np.flatnonzero(skip & (out == RUNNING))
            if self.trace is not None:
                for b in si.tolist():
                    self._log(b, ("skip", int(nxt[b])))
            nxt[si] = self.next_tab[base[si] + self.dirbit[si] * P + nxt[si]]
        if ace.any():
            ai = np.flatnonzero(ace & (out == RUNNING))
            if ai.size:
                victim = nxt[ai]
                for _ in range(2):
                    self._draw(ai, victim, penalty=True)
                if self.trace is not None:
                    for b in ai.tolist():
                        self._log(b, ("skip", int(nxt[b])))
                nxt[ai] = self.next_tab[base[ai] + self.dirbit[ai] * P + victim]
        self.seat = nxt
        self.turns_done += n_live
        return out

    def _play_pair(self, idx: np.ndarray, seats: np.ndarray) -> None:
        """Play two 9s as one move (V4): the first 9 removed ends on top, the second goes under it."""
        faces = []
        for _ in range(2):
            # the highest 9 held, its second copy first, so that each removal is well defined
            pick_from = self.hands[-1][idx, seats] & U64_NINES
            pick_from = np.where(pick_from != 0, pick_from, self.hands[0][idx, seats] & U64_NINES)
            f = np.full(idx.shape[0], -1, dtype=np.int64)
            for nine in NINE_FACES:  # ascending, so the highest held wins
                f = np.where((pick_from >> np.uint64(nine)) & ONE == ONE, nine, f)
            self._remove_from_hand(idx, seats, f)
            faces.append(f)
        self._add_under(idx, self.top[idx])
        self._add_under(idx, faces[1])
        self.top[idx] = faces[0]
        self.played[idx] |= (ONE << faces[0].astype(np.uint64)) | (ONE << faces[1].astype(np.uint64))

    # ------------------------------------------------------------ hand end
    def _end_hands(self, idx: np.ndarray, outcome: np.ndarray) -> None:
        """Score finished hands (S1, S4), end matches (S2, S3), deal what comes next."""
        P = self.P
        pen = penalty_points([w[idx] for w in self.hands], self.nine_penalty)
        if self.trace is not None:
            for j, b in enumerate(idx.tolist()):
                self._log(b, ("end", int(outcome[j]), tuple(int(x) for x in pen[j])))
        tb = self.in_tb[idx]
        finish_idx: list[np.ndarray] = []
        finish_share: list[np.ndarray] = []
        deal_idx: list[np.ndarray] = []

        reg = np.flatnonzero(~tb)
        if reg.size:
            r = idx[reg]
            self.totals[r] += pen[reg]
            self._hand_parts.append(
                HandRecords(
                    match=self.match[r].copy(), hand=self.hands_played[r].copy(), dealer=self.dealer[r].copy(),
                    outcome=outcome[reg].copy(), penalty=pen[reg].copy(), turns=self.turn[r].copy(),
                    drawn=self.drawn[r].copy(), reshuffles=self.reshuffles[r].copy(),
                    nine_starter=self.nine_starter[r].copy(),
                )
            )  # fmt: skip
            self.hands_played[r] += 1
            self.dealer[r] = (self.dealer[r] + 1) % P
            if self.rules.fixed_hands > 0:
                over = self.hands_played[r] >= self.rules.fixed_hands
            else:
                over = self.totals[r].max(axis=1) >= self.rules.target
            deal_idx.append(r[~over])
            o = r[over]
            if o.size:
                tot = self.totals[o]
                tied = tot == tot.min(axis=1, keepdims=True)
                k = tied.sum(axis=1)
                settle = (k == 1) | (self.rules.tie_rule == "share")
                finish_idx.append(o[settle])
                finish_share.append(tied[settle] / k[settle, None])
                t = o[~settle]
                if t.size:
                    mask = (tied[~settle] * (1 << np.arange(P))).sum(axis=1)
                    self.in_tb[t] = True
                    self.seats_mask[t] = mask
                    self.n_in[t] = k[~settle]
                    # first tied seat clockwise from the seat due to deal next, inclusive
                    self.dealer[t] = self.next_tab[(mask * 2) * P + (self.dealer[t] - 1) % P]
                    deal_idx.append(t)

        tbi = np.flatnonzero(tb)
        if tbi.size:
            t = idx[tbi]
            self.tb_hands[t] += 1
            oc = outcome[tbi]
            win = oc >= 0
            share = np.zeros((t.size, P))
            share[np.flatnonzero(win), oc[win]] = 1.0
            inmask = ((self.seats_mask[t, None] >> np.arange(P)) & 1) == 1
            p = np.where(inmask, pen[tbi], np.iinfo(np.int64).max)
            low = (p == p.min(axis=1, keepdims=True)) & inmask
            k = low.sum(axis=1)
            single = ~win & (k == 1)
            share[single] = low[single]
            done = win | single
            finish_idx.append(t[done])
            finish_share.append(share[done])
            again = t[~done]
            if again.size:
                mask = (low[~done] * (1 << np.arange(P))).sum(axis=1)
                self.seats_mask[again] = mask
                self.n_in[again] = k[~done]
                self.dealer[again] = self.next_tab[(mask * 2) * P + self.dealer[again]]
                deal_idx.append(again)

        if finish_idx:
            f = np.concatenate(finish_idx)
            if f.size:
                share = np.concatenate(finish_share)
                self._match_parts.append(
                    MatchResults(
                        seed=self.seed, match=self.match[f].copy(), totals=self.totals[f].copy(), win_share=share,
                        hands=self.hands_played[f].copy(), tiebreak_hands=self.tb_hands[f].copy(),
                        first_dealer=self.first_dealer[f].copy(), hand_records=HandRecords.concat([], self.P),
                    )
                )  # fmt: skip
                self.matches_done += f.size
                if self.trace is not None:
                    for j, b in enumerate(f.tolist()):
                        self._log(
                            b, ("match_end", tuple(int(x) for x in self.totals[b]), tuple(float(x) for x in share[j]))
                        )
                f = np.sort(f)
                deal_idx.append(self._new_matches(f))
        d = np.concatenate(deal_idx) if deal_idx else np.zeros(0, dtype=np.int64)
        if d.size:
            self._deal(np.sort(d))

    def _log(self, b: int, event: tuple) -> None:
        assert self.trace is not None
        self.trace.setdefault(int(self.match[b]), []).append(event)

    # ------------------------------------------------------------------- run
    def run(self) -> MatchResults:
        """Play every match of the range to its end.

        Returns
        -------
        MatchResults
            Ordered by match index.

        Raises
        ------
        IllegalMoveError, StrategyError
            When a strategy misbehaves (the message says how to replay the match).
        """
        self.start_run()
        while self.B:
            self.advance()
        return self.results()

    def start_run(self) -> None:
        """Give every slot its first match and deal (called by :meth:`run`)."""
        if self.n_matches:
            slots = self._new_matches(self.ar)
            self._deal(slots)
            if slots.size < self.B:
                self._compact(slots)

    def advance(self) -> np.ndarray:
        """One turn in every game, then score, re-deal and replace what finished.

        Returns
        -------
        numpy.ndarray
            int64, shape (B,): the step's outcome per game (see :meth:`step`),
            in the slot order before any compaction.
        """
        outcome = self.step()
        ended = np.flatnonzero(outcome != RUNNING)
        if ended.size:
            self._end_hands(ended, outcome[ended])
            live = self.match >= 0
            n_live = int(live.sum())
            # finished slots are masked in step() but still cost array work: drop them once an
            # eighth of the batch is finished (a few dozen compactions in a run's tail)
            if n_live < self.B and (n_live <= self.B - self.B // 8 or n_live == 0):
                self._compact(np.flatnonzero(live))
        if self.on_step is not None:
            self.on_step(self)
        return outcome

    def results(self) -> MatchResults:
        """Results of the matches finished so far and not yet harvested, ordered by match index.

        Its ``hand_records`` also hold the regular hands of matches still in play.
        """
        return self._collect(keep_unfinished_hands=True)

    def lowest_unfinished(self) -> int:
        """The lowest match index of the range not yet finished (``start + n_matches`` when all are)."""
        live = self.match[self.match >= 0]
        return int(live.min()) if live.size else self._next_match

    def harvest(self) -> MatchResults:
        """Take the matches finished since the last harvest, with their hands, out of the engine.

        Keeps memory flat on long runs: the caller tallies what it takes.
        """
        return self._collect(keep_unfinished_hands=False)

    def _collect(self, keep_unfinished_hands: bool) -> MatchResults:
        hands = HandRecords.concat(self._hand_parts, self.P)
        if self._match_parts:
            done = MatchResults.concat(self._match_parts)
        else:
            z = np.zeros(0, dtype=np.int64)
            zp = np.zeros((0, self.P), dtype=np.int64)
            done = MatchResults(self.seed, z, zp, zp.astype(np.float64), z, z, z, hands)
        if keep_unfinished_hands:
            done.hand_records = hands
        else:
            finished = np.isin(hands.match, done.match)
            done.hand_records = _select(hands, finished)
            self._match_parts = []
            self._hand_parts = [_select(hands, ~finished)] if (~finished).any() else []
        return done

    # ------------------------------------------------------------ inspection
    def card_counts(self) -> np.ndarray:
        """Copies of each face in every place (hands, discard pile, stock), for checks.

        Returns
        -------
        numpy.ndarray
            int64, shape (B, 52): should equal ``rules.decks`` everywhere.
        """
        B = self.B
        bits = np.arange(N_FACES, dtype=np.uint64)
        counts = np.zeros((B, N_FACES), dtype=np.int64)
        for d in range(self.D):
            for p in range(self.P):
                counts += ((self.hands[d][:, p, None] >> bits) & ONE).astype(np.int64)
            counts += ((self.under[d][:, None] >> bits) & ONE).astype(np.int64)
        counts[self.ar, self.top] += 1
        col = np.arange(self.S)
        in_stock = (col >= self.stock_pos[:, None]) & (col < self.stock_end[:, None])
        flat = (self.ar[:, None] * N_FACES + self.stock.astype(np.int64))[in_stock]
        counts += np.bincount(flat, minlength=B * N_FACES).reshape(B, N_FACES)
        return counts
