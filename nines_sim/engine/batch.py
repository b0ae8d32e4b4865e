"""The compiled engine: the numba turn loop of :mod:`nines_sim.engine.turn_loop`; runs, replays and traces play on it.

:class:`CompiledEngine` plays matches with the results the plain-Python reference
(:mod:`nines_sim.game.reference`) gives, move for move.  Seats played by a built-in strategy
(``random``, ``hold-nines``, ``dump-faces``, ``suit-majority``, ``expert``) decide
inside the kernel; any other strategy (a batched or per-game plug-in, or a
subclass of a built-in) is a Python seat: the kernel stops each game at that
seat's decision, the strategy decides for all waiting games at once through the
usual :class:`~nines_sim.strategy.base.Observation`, and the kernel resumes them.

numba is required.  Decisions of Python seats go through :class:`~nines_sim.engine.broker.DecisionBroker`.
:func:`make_engine` gives the engine of a bulk run; :func:`~nines_sim.engine.warm_up.warm_up` (also read from
here) loads the loop before a pool's workers fork.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields

import numpy as np

from nines_sim.engine import seats
from nines_sim.engine import turn_loop as K  # numba is required: the compiled loop is the engine
from nines_sim.engine.broker import DecisionBroker, IllegalMoveError, move_shown, no_hint, replay_hint
from nines_sim.engine.entry import call_form
from nines_sim.engine.first_failure import lowest_failure
from nines_sim.engine.loop_constants import R_LOG
from nines_sim.engine.slots import COLUMN_OF, COLUMNS
from nines_sim.engine.warm_up import warm_up  # noqa: F401 - also read from here
from nines_sim.game import rng
from nines_sim.game.cards import N_FACES
from nines_sim.game.rules import Rules
from nines_sim.game.tables import legal_table, next_seat_table
from nines_sim.results.records import HandRecords, MatchResults
from nines_sim.strategy import compiled_builtins
from nines_sim.strategy.base import DecisionKind, Observation, Strategy

#: Matches a table of compiled seats starts per :meth:`CompiledEngine.advance` (how often a caller may stop it).
MATCHES_PER_ADVANCE = 8192
#: Rows of the hand and match record buffers drained after each kernel call.
RECORD_BUFFER = 1 << 16
#: Hand records a block of result columns is sized for, per match still to play (more open another block).
HANDS_PER_MATCH = 8
#: Most rows of one block of hand records (about 1.6 GB of address space at 4 seats; only rows written take
#: memory).  A run whose hands outgrow one block pays a copy of all of them when its results are collected
#: (timed in docs/explanation/benchmark-log.md, "Undated"); this holds about 2,000,000 matches' hands.
HAND_BLOCK = 1 << 24
#: Event rows each slot's buffer holds in the trace form (drained after every kernel call).
EVENT_ROWS = 4096
#: Matches whose keys are computed at once: the kernel reads a window of keys, so that an engine's memory does not
#: grow with its range of matches (all of a 10,000,000-match range's keys would take 160 MB).
KEY_WINDOW = 1 << 16


def seat_params(lineup: Sequence[Strategy]) -> np.ndarray:
    """Each seat's parameter values of the heavy built-in (``expert``) as the kernel reads them.

    Returns
    -------
    numpy.ndarray
        float64, shape (MAX_SEATS, n): row ``p`` holds seat ``p``'s values in the order of the heavy class's
        ``params`` (:mod:`nines_sim.strategy.compiled_builtins`) where that seat plays it, the defaults
        elsewhere (unread).
    """
    given = compiled_builtins.given()
    heavy, params = given.heavy[0], given.heavy_params
    xp = np.tile(np.array([float(p.default) for p in params]), (K.MAX_SEATS, 1))
    for seat, s in enumerate(lineup):
        if type(s) is heavy:
            xp[seat] = [float(getattr(s, p.name)) for p in params]
    return xp


class CompiledEngine:
    """Plays matches ``start .. start + n_matches - 1`` of one seed with the compiled turn loop.

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
        Games waiting at once for a Python seat's batched decision; a table of compiled
        seats plays its matches one after the other in one slot.
    trace : bool
        Play the trace form of the loop and keep every event of every match in
        :attr:`trace` (match index -> list of event tuples, :mod:`nines_sim.engine.events`).
    on_step : None
        Not supported (kept in the signature for callers that pass ``None``).
    specs : sequence of str, optional
        How the lineup was named (e.g. ``file.py:Class``), for the replay command that
        error messages print; default: as the command line finds each strategy.
    harvested : bool
        The caller takes the finished matches with :meth:`harvest` as it goes (a tally
        run), so hand records are kept in blocks of about one :meth:`advance` each
        instead of one block sized for the whole range, and memory does not grow with
        the range.
    hint : callable, optional
        ``hint(match) -> str`` appended to a failing strategy's error message
        (:mod:`nines_sim.engine.broker`); default: the ``nines replay`` command, nothing when traced.
    place : callable, optional
        ``place(match) -> str``: where a failing decision was, as error messages say it (default ``in match M
        of seed S``; a ``--luck`` fit names its reserved matches, :func:`nines_sim.luck.measure.reserved_place`).

    Raises
    ------
    ValueError
        If the lineup does not have ``rules.players`` strategies, sizes are not positive,
        the seed is out of range, or ``on_step`` is given.
    """

    #: Advances between a caller's checks for Ctrl-C and harvests when a Python seat plays (one turn of each game).
    PYTHON_CHECK_EVERY = 25

    def __init__(
        self,
        rules: Rules,
        lineup: Sequence[Strategy],
        seed: int,
        start: int,
        n_matches: int,
        batch_size: int = 8192,
        trace: bool = False,
        on_step=None,  # noqa: ANN001 - kept for callers that pass None
        specs: Sequence[str] | None = None,
        harvested: bool = False,
        hint=None,  # noqa: ANN001 - Callable[[int], str], see nines_sim.engine.broker.Hint
        place=None,  # noqa: ANN001 - Callable[[int], str], see nines_sim.engine.broker.Hint
    ):
        if on_step is not None:
            raise ValueError("the compiled engine calls no on_step")
        if len(lineup) != rules.players:
            raise ValueError(f"the lineup has {len(lineup)} strategies but the rules seat {rules.players} players")
        if n_matches < 0 or batch_size < 1:
            raise ValueError("n_matches must be >= 0 and batch_size >= 1")
        if not 0 <= seed < 1 << 64:
            raise ValueError(f"seed must be a whole number from 0 to 2**64-1, not {seed}")
        from nines_sim.strategy.per_game_compiled import compiled_function

        self._sid = seats.seat_ids(lineup)
        self._xp = seat_params(lineup)
        self._python = bool((self._sid == K.SID_PYTHON).any())
        user = [s if sid == K.SID_USER else None for s, sid in zip(lineup, self._sid)]
        self._fs = tuple(compiled_function(s, rules) for s in user + [None] * (K.MAX_SEATS - len(user)))
        self.rules, self.seed = rules, seed
        self.card_root, self.decision_root = rng.roots(seed)
        self.P, self.D, self.S = rules.players, rules.decks, N_FACES * rules.decks
        self.start, self.n_matches, self.batch_size = start, n_matches, batch_size
        #: Whether an illegal move looks for a lower failing match of the range (:func:`lowest_failure`).
        self.find_lowest_failure = not trace
        self.trace: dict[int, list[tuple]] | None = {} if trace else None
        #: Keep the heavy built-in's ``choice`` events in :attr:`trace` (:func:`~nines_sim.engine.events.decode`).
        self.trace_choices = False
        self.lineup = list(lineup)
        self.specs = list(specs) if specs is not None else None
        self.legal_tab = legal_table(rules)
        self.next_tab = next_seat_table(self.P)
        if hint is None:  # where to see a failing decision: the replay command (nothing when this is the replay)
            hint = no_hint if trace else replay_hint(rules, self.lineup, seed, self.specs)
        self.broker = DecisionBroker(rules, self.lineup, seed, self, self.legal_tab, hint, place)
        self._alloc(int(min(batch_size, max(n_matches, 1))))
        # finished matches and regular hands, in blocks, until results() or harvest() takes them
        self._match_parts: list[MatchResults] = []
        self._hand_parts: list[HandRecords] = []
        self.matches_done = 0
        self._rp = K.rules_params(rules)
        self._rp[R_LOG] = self._python or trace  # compiled seats never read the draw log
        self._work = K.scratch(rules)
        self._play = K.slots_kernel(self._rp, seats.heavy_seat(self._sid))
        if trace:  # the trace form: every event into a buffer per slot (kernel.EV_* rows)
            self._play = K.play_slots_trace
            self._events = np.zeros((self.B, EVENT_ROWS, K.EV_WIDTH), dtype=np.int64)
            self._nevents = np.zeros(self.B, dtype=np.int64)
            self._slot_match = [-1] * self.B
            self._stop = np.zeros(3, dtype=np.int64)  # the turn to pause before (stop_at)
            self._work = (*self._work, self._events, self._nevents, self._stop)
        self._next = np.zeros(1, dtype=np.int64)  # matches of the range started so far
        # card and decision match keys of matches start + _win0 .. (see _key_window); _wnext counts within them
        self._win0 = 0
        self._win = np.zeros((0, 2), dtype=np.uint64)
        self._wnext = np.zeros(1, dtype=np.int64)
        P = self.P
        # the kernel writes a record row before the drain reads it: no need to zero megabytes per engine
        self._hrec = np.empty((RECORD_BUFFER, K.NH), dtype=np.int64)
        self._hpen = np.empty((RECORD_BUFFER, P), dtype=np.int64)
        self._hcount = np.zeros(1, dtype=np.int64)
        self._mrec = np.empty((RECORD_BUFFER, K.NM), dtype=np.int64)
        self._mtot = np.empty((RECORD_BUFFER, P), dtype=np.int64)
        self._mshare = np.empty((RECORD_BUFFER, P), dtype=np.float64)
        self._mcount = np.zeros(1, dtype=np.int64)
        self._hblock: HandRecords | None = None  # the block of columns hand records are drained into
        self._hfill = 0
        self._harvested = harvested

    # ------------------------------------------------------------------ state
    def _alloc(self, B: int) -> None:
        # compiled seats need no batch: one slot plays every match in turn
        B = B if self._python else 1
        self.B = B
        self.slots = K.alloc_slots(B, self.P, self.D)  # every per-slot array (nines_sim.engine.slots.FIELDS)
        s = self.slots
        self.st, self.keys, self.hands_arr, self.under_arr, self.stock = s.st, s.keys, s.hands, s.under, s.stock
        self.totals, self.ncards, self.drew_on, self.played = s.totals, s.ncards, s.drew_on, s.played
        self.ar = np.arange(B)
        self._views()

    def _views(self) -> None:
        """Name the kernel's columns as the numpy engine names its arrays (what Observation reads)."""
        self.hands = [self.hands_arr[d] for d in range(self.D)]
        self.under = [self.under_arr[d] for d in range(self.D)]
        # every column a position holds, by its declared name (nines_sim.engine.slots.STATE): what Observation
        # reads, what a position taken from a game holds (nines_sim.engine.positions.positions_from_engine);
        # mkey and hkey are the cards' keys, never shown to a strategy
        for f in COLUMN_OF.values():
            if f.position:
                col = COLUMNS[f.constant]
                cols = self.st if f.array == "st" else self.keys
                setattr(self, f.name, cols[:, col] if f.width == 1 else cols[:, col : col + f.width])

    @property
    def check_every(self) -> int:
        """Advances between a caller's checks: each is a block of whole matches unless a Python seat plays."""
        return self.PYTHON_CHECK_EVERY if self._python else 1

    # ------------------------------------------------------------- decisions
    def observe(
        self, idx: np.ndarray, seats: np.ndarray, kind: DecisionKind, legal: np.ndarray | None = None
    ) -> Observation:
        """What the players at ``seats`` of slots ``idx`` may see (:meth:`DecisionBroker.observe`)."""
        return self.broker.observe(idx, seats, kind, legal)

    def pair_legal(self, idx: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Whether two 9s together are a legal move (V4, V5) in slots ``idx``: bool, shape (n,)."""
        return self.broker.pair_legal(idx, seats)

    # ------------------------------------------------------------------- run
    def start_run(self) -> None:
        """Nothing to prepare: slots take their matches as the kernel runs."""
        self._update_live()

    def _update_live(self) -> None:
        if self._next[0] >= self.n_matches and not (self.st[:, K.S_MATCH] >= 0).any():
            self.B = 0

    def advance(self) -> None:  # type: ignore[override]
        """Play until every game waits on a Python seat (then those seats decide), or a block of matches is done."""
        if self.B == 0:
            return
        if self.paused:  # go on from the turn stop_at named
            self._armed = False
        max_new = self.n_matches if self._python else MATCHES_PER_ADVANCE
        started = 0
        while True:
            nxt = int(self._next[0])
            # a Python seat's table starts at most about a match per slot per call, a compiled one max_new
            mkeys = self._key_window(min(self.n_matches - nxt, self.B if self._python else max_new))
            self._wnext[0] = 0
            code = call_form(
                self._play, *self.slots, self._rp, self.legal_tab, self.next_tab, self._sid, self._xp, mkeys,
                self.start + nxt, mkeys.shape[0], self._wnext, max_new, self._hrec, self._hpen, self._hcount,
                self._mrec, self._mtot, self._mshare, self._mcount, self._fs, self._work,
            )  # fmt: skip
            self._next[0] = nxt + self._wnext[0]
            started += int(self._wnext[0])
            self._drain()
            if self.trace is not None:
                self._drain_events()
            if code == K.ILLEGAL:
                try:
                    self._illegal()
                except IllegalMoveError as exc:
                    raise lowest_failure(self, exc) from None
            # the trace form fills its event rows every few matches: counted across calls, a block still ends the
            # advance, so that a caller can stop it (a --luck unit played its whole chunk before it looked)
            if code != K.BUFFER_FULL or self.paused or (not self._python and started >= max_new):
                break
        waiting = np.flatnonzero(self.st[:, K.S_WAITING])
        if waiting.size:
            try:
                self._answer(waiting)
            except IllegalMoveError as exc:
                raise lowest_failure(self, exc) from None
        self._update_live()

    def _key_window(self, need: int) -> np.ndarray:
        """Card and decision keys of the matches from the next one to start, at least ``need`` of them.

        The kernel is handed this window as if it were the whole range (``start`` moved to the next match),
        so it plays the same matches with the same keys as with every key computed up front.  A window that
        runs out mid-call leaves slots idle until the next call, which changes the order matches finish in,
        never their results.

        Returns
        -------
        numpy.ndarray
            uint64, shape (w, 2), C-contiguous (the kernel's compiled signature): the keys of matches
            ``start + next .. start + next + w - 1``, ``w >= need`` unless the range ends first.
        """
        nxt = int(self._next[0])
        if self._win0 + self._win.shape[0] - nxt < need:
            end = min(self.n_matches, nxt + max(KEY_WINDOW, need))
            m = np.arange(self.start + nxt, self.start + end, dtype=np.int64)
            self._win = np.stack([rng.match_keys(self.card_root, m), rng.match_keys(self.decision_root, m)], axis=1)
            self._win0 = nxt
        return self._win[nxt - self._win0 :]

    def _illegal(self) -> None:
        """Raise for the compiled user strategy's answer the kernel refused."""
        b = int(np.flatnonzero(self.st[:, K.S_WAITING] == 2)[0])
        kind, seat, val = (int(self.st[b, c]) for c in (K.S_WAIT_KIND, K.S_WAIT_SEAT, K.S_ANSWER))
        what = {
            K.K_PLAY: "a card that is not a legal play (T1, T2, V4, V5, V6)",
            K.K_PLAY_DRAWN: "a play_drawn answer other than 0 or 1",
        }.get(kind, "a suit outside 0..3")
        m = int(self.match[b])
        shown = f"{val}{move_shown(val)}" if kind == K.K_PLAY else f"{val}"
        raise IllegalMoveError(
            f"strategy {self.lineup[seat].name!r} returned {what}: {shown} {self.broker.place(m)}{self.broker.hint(m)}",
            match=m,
        )

    def _answer(self, waiting: np.ndarray) -> None:
        """Ask the Python seats for the decisions their games wait on, kind by kind."""
        st = self.st
        kinds = st[waiting, K.S_WAIT_KIND]
        present = np.flatnonzero(np.bincount(kinds)).tolist()  # the kinds waited on, in order (a few small ints)
        for kind in present:
            idx = waiting if len(present) == 1 else waiting[kinds == kind]
            seats = st[idx, K.S_WAIT_SEAT]
            legal = self.keys[idx, K.K_LEGAL] if kind in (K.K_PLAY, K.K_PLAY_DRAWN) else None
            card = st[idx, K.S_CARD] if kind == K.K_PLAY_DRAWN else None
            st[idx, K.S_ANSWER] = self.broker.decide(DecisionKind(kind), idx, seats, legal=legal, card=card)
            st[idx, K.S_HAVE_ANS] = 1
            st[idx, K.S_WAITING] = 0

    def _drain(self) -> None:
        """Move the kernel's finished hands and matches into result blocks."""
        h = int(self._hcount[0])
        if h:
            self._keep_hands(h)
            self._hcount[0] = 0
        m = int(self._mcount[0])
        if m:
            r = self._mrec[:m]
            self._match_parts.append(
                MatchResults(
                    seed=self.seed, match=r[:, K.M_MATCH].copy(), totals=self._mtot[:m].copy(),
                    win_share=self._mshare[:m].copy(), hands=r[:, K.M_HANDS].copy(),
                    tiebreak_hands=r[:, K.M_TB].copy(), first_dealer=r[:, K.M_FIRST].copy(),
                    hand_records=HandRecords.concat([], self.P),
                )
            )  # fmt: skip
            self.matches_done += m
            self._mcount[0] = 0

    def stop_at(self, hand: int, turn: int) -> None:
        """Pause (a traced engine only) before turn ``turn`` (0-based, T8's counter) of hand ``hand`` (0-based,
        every hand dealt in the match counted): :meth:`advance` returns there with :attr:`paused` true and the
        slot's state as at the start of that turn; the next :meth:`advance` goes on."""
        if self.trace is None:
            raise ValueError("only a traced engine (trace=True) stops at a turn")
        self._stop[:] = (hand + 1, turn, 1)
        self._armed = True

    @property
    def paused(self) -> bool:
        """Whether the engine stands at the turn :meth:`stop_at` named (until it is asked to stop elsewhere)."""
        return getattr(self, "_armed", False) and self.trace is not None and self._stop[2] == 0

    def _drain_events(self) -> None:
        """Move each slot's event rows into :attr:`trace` (a list of event tuples per match index)."""
        from nines_sim.engine.events import decode

        trace = self.trace
        assert trace is not None
        for b in np.flatnonzero(self._nevents).tolist():
            rows = self._events[b, : self._nevents[b]]
            m, events = self._slot_match[b], None  # rows before the slot's next deal continue the match it played
            for row_match, event in decode(rows, self.P, self.D, self.trace_choices):
                if row_match >= 0 and row_match != m:
                    m, events = row_match, None
                if events is None:  # the match's list, looked up once per run of its rows
                    events = trace.setdefault(m, [])
                events.append(event)
            self._slot_match[b] = m
            self._nevents[b] = 0

    def _keep_hands(self, h: int) -> None:
        """Append the kernel's ``h`` buffered hand records to the open block of columns.

        Hands go straight into columns sized for the matches left, so that collecting the results takes
        views of one block instead of concatenating a part per kernel call (at hundreds of megabytes a
        second, that copy was a sixth of a table of built-ins' time).  A harvested engine sizes them for
        one advance's matches instead: each harvest takes the block.
        """
        blk = self._hblock
        if blk is None or self._hfill + h > blk.match.shape[0]:
            self._close_hands()
            left = MATCHES_PER_ADVANCE if self._harvested else self.n_matches - self.matches_done
            cap = max(h, min(HAND_BLOCK, HANDS_PER_MATCH * left + RECORD_BUFFER))
            i64 = np.int64
            blk = self._hblock = HandRecords(
                match=np.empty(cap, i64), hand=np.empty(cap, i64), dealer=np.empty(cap, i64),
                outcome=np.empty(cap, i64), penalty=np.empty((cap, self.P), i64), turns=np.empty(cap, i64),
                drawn=np.empty(cap, i64), reshuffles=np.empty(cap, i64), nine_starter=np.empty(cap, bool),
            )  # fmt: skip
        f, r = self._hfill, self._hrec[:h]
        for name, col in (
            ("match", K.H_MATCH), ("hand", K.H_HAND), ("dealer", K.H_DEALER), ("outcome", K.H_OUTCOME),
            ("turns", K.H_TURNS), ("drawn", K.H_DRAWN), ("reshuffles", K.H_RESH), ("nine_starter", K.H_NINE),
        ):  # fmt: skip
            getattr(blk, name)[f : f + h] = r[:, col]
        blk.penalty[f : f + h] = self._hpen[:h]
        self._hfill = f + h

    def _close_hands(self) -> None:
        """Hand the open block's filled rows to the result parts; the next drain opens a new block."""
        if self._hblock is not None and self._hfill:
            blk, n = self._hblock, self._hfill
            self._hand_parts.append(HandRecords(**{f.name: getattr(blk, f.name)[:n] for f in fields(HandRecords)}))
        self._hblock, self._hfill = None, 0

    def results(self) -> MatchResults:
        """Results of the matches finished so far and not yet harvested, ordered by match index.

        Its ``hand_records`` also hold the regular hands of matches still in play.
        """
        return self._collect(keep_unfinished_hands=True)

    def harvest(self) -> MatchResults:
        """Take the matches finished since the last harvest, with their hands, out of the engine.

        Keeps memory flat on long runs: the caller tallies what it takes.
        """
        return self._collect(keep_unfinished_hands=False)

    def _collect(self, keep_unfinished_hands: bool) -> MatchResults:
        self._close_hands()
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

    def run(self) -> MatchResults:
        """Play every match of the range to its end; results ordered by match index."""
        self.start_run()
        while self.B:
            self.advance()
        return self.results()

    def lowest_unfinished(self) -> int:
        """The lowest match index of the range not yet finished (``start + n_matches`` when all are)."""
        live = self.match[self.match >= 0]
        return int(live.min()) if live.size else self.start + int(self._next[0])


def _select(h: HandRecords, mask: np.ndarray) -> HandRecords:
    if mask.all():  # every hand of a compiled table's harvest belongs to a finished match: no copy
        return h
    return HandRecords(**{f.name: getattr(h, f.name)[mask] for f in fields(HandRecords)})


def make_engine(
    rules: Rules,
    lineup: Sequence[Strategy],
    seed: int,
    start: int,
    n_matches: int,
    batch_size: int = 8192,
    specs: Sequence[str] | None = None,
    harvested: bool = False,
) -> CompiledEngine:
    """An engine for a bulk run (no trace).

    ``harvested``: the caller takes finished matches with ``harvest()`` as it goes (see :class:`CompiledEngine`).
    """
    return CompiledEngine(rules, lineup, seed, start, n_matches, batch_size, specs=specs, harvested=harvested)
