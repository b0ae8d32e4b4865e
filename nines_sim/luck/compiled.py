"""The luck walk of :mod:`nines_sim.luck.walk` in compiled code, fed from the engine: the trace form's raw event
rows, each slot's as its buffer drains, walked by :func:`nines_sim.luck.steps.walk` (numba).

The Python walk reads the event tuples that the trace form's rows are decoded into (most of a traced run's time
goes to decoding and walking them); this one reads the rows themselves, straight from each slot's buffer, and
gives the same numbers (tested to 1e-12 against :class:`~nines_sim.luck.walk.Walker`).  The events, the parts
and their exact expectations are the Python walk's; see its module text.

Errors (a move outside its policy's choices, totals that disagree) stop the walk with a code and the match, and
:func:`walk_rows` raises :class:`~nines_sim.luck.walk.LuckError` with the same words as the Python walk.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from nines_sim.engine.batch import CompiledEngine
from nines_sim.engine.loop_constants import EV_END
from nines_sim.game.cards import N_FACES
from nines_sim.game.rules import Rules
from nines_sim.game.tables import legal_table
from nines_sim.luck.features import N_FEATURES, NB, NC, NJ, NQ
from nines_sim.luck.kernel import NK
from nines_sim.luck.steps import E_NONE, ERRORS, IST_WIDTH, walk, walk_scratch
from nines_sim.luck.value import LinearValue, constant_value
from nines_sim.luck.value_kernel import draw_tables
from nines_sim.luck.walk import LuckError, Walker

#: Event rows of a one-slot engine's buffer (compiled seats), 9.4 MB at 6 seats.
ONE_SLOT_ROWS = 1 << 16
#: Most slots of a traced table with a Python seat (each holds a buffer of event rows, 0.6 MB at 6 seats).
TRACE_BATCH = 256
#: Hands a walker that keeps them makes room for at first (then twice as many each time it runs out).
HAND_ROWS = 4096
#: This thread's reused arrays, by name and shape (:func:`scratch`): per thread, as a Dask worker's threads may
#: trace chunks at once.
_SCRATCH = threading.local()


def scratch(name: str, shape: tuple[int, ...], dtype: type = np.float64) -> np.ndarray:
    """An array of ``shape`` that this thread reuses for ``name``, its contents left from its last use.

    A chunk of matches fills megabytes of event rows and features; a fresh array for each chunk costs the system
    a zeroed page for every 4 kB of them (about as much time as the walk itself), a reused one none.  Only for
    arrays every row of which is written before it is read, and none of which outlives the next use.
    """
    kept = _SCRATCH.__dict__.setdefault("arrays", {})
    key = (name, tuple(shape), np.dtype(dtype).str)
    if key not in kept:
        kept[key] = np.zeros(shape, dtype=dtype)
    return kept[key]


class TracingEngine(CompiledEngine):
    """The trace form of the compiled engine, keeping each slot's raw event rows (no tuples decoded).

    A slot plays its matches one after another, so each slot's rows, joined in the order written, hold whole
    matches in a row: what :func:`walk_rows` reads.
    """

    def __init__(self, *args, **kwargs):  # noqa: ANN002, ANN003 - CompiledEngine's
        super().__init__(*args, trace=True, **kwargs)
        self.raw: list[list[np.ndarray]] = [[] for _ in range(self.B)]
        #: Walks each slot's rows as they are drained, when set (keeps none); else they are kept in :attr:`raw`.
        self.walker: RowWalker | None = None
        if self.B == 1:  # one slot: a larger buffer, fewer kernel calls (each costs a drain and Python's overhead)
            self._events = scratch("events", (1, ONE_SLOT_ROWS, self._events.shape[2]), np.int64)
            self._work = (*self._work[:-3], self._events, self._nevents, self._stop)

    def _drain_events(self) -> None:
        for b in np.flatnonzero(self._nevents).tolist():
            rows = self._events[b, : self._nevents[b]]
            if self.walker is not None:
                self.walker.feed(b, rows)
            else:
                self.raw[b].append(rows.copy())
            self._nevents[b] = 0

    def rows(self) -> np.ndarray:
        """Every event row, slot after slot: int64, shape (rows, EV_WIDTH)."""
        parts = [r for slot in self.raw for r in slot]
        return np.concatenate(parts) if parts else np.zeros((0, self._events.shape[2]), dtype=np.int64)


@lru_cache(maxsize=16)
def _tables(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """The legal faces of every (top, active suit) as int64 sets of faces, and a deal's mean card block: per rule
    set, once per process (a few milliseconds each, for each chunk of matches)."""
    return legal_table(rules).astype(np.int64), Walker(rules, [-1] * rules.players).deal_mean


def value_factors(value: LinearValue) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A value's weights as the walk reads them (:func:`nines_sim.luck.kernel.hand_corrections`).

    Returns
    -------
    tuple
        ``(vw, vm, vh, rank1)``: float64 (3, P, N_FEATURES), the weights per kind of event; float64 (3, P, NC) and
        (3, P, NJ), for each kind and seat whose weights are, to the bit, the outer product of match weights'
        coefficients and a card block's value (a fitted value: :attr:`~nines_sim.luck.value.LinearValue.points`
        times its second stage), those two; int64 (3, P), 1 where so (the walk then takes NC + NJ = 109 products a
        hand, not NC x NJ = 990).
    """
    w = value.weights
    P = w.shape[-2]
    # a fresh, writeable, C-ordered copy: one signature of the walk (numpy keeps a broadcast (P, N) value's odd
    # strides in the copy, and numba compiled the whole walk a second time for that layout)
    vw = np.array(np.broadcast_to(w, (3, P, N_FEATURES)), dtype=np.float64, order="C")
    vm, vh, rank1 = np.zeros((3, P, NC)), np.zeros((3, P, NJ)), np.zeros((3, P), dtype=np.int64)
    if value.points is not None and value.points.shape == (3, P, NJ):
        for k in range(3):
            for p in range(P):
                m = _factor(vw[k, p].reshape(NC, NJ), value.points[k, p])
                if m is not None:
                    vm[k, p], vh[k, p], rank1[k, p] = m, value.points[k, p], 1
    return vw, vm, vh, rank1


def _factor(full: np.ndarray, h: np.ndarray) -> np.ndarray | None:
    """The ``m`` (NC,) with ``outer(m, h) == full`` to the bit, or None: each row's coefficient as its quotient by
    one of ``h``'s entries (the largest first) that gives the whole row back."""
    order = [j for j in np.argsort(-np.abs(h), kind="stable").tolist() if h[j] != 0.0]
    m = np.zeros(full.shape[0])
    for c in range(full.shape[0]):
        found = [q for q in (full[c, j] / h[j] for j in order) if np.array_equal(q * h, full[c])]
        if not found:
            return None
        m[c] = found[0]
    return m


class RowWalker:
    """Walks the raw rows of matches ``start .. start + n - 1`` as a traced engine drains them, slot by slot
    (:class:`TracingEngine`): each slot's walk goes on from where its last rows left it.

    Parameters
    ----------
    rules : Rules
    seat_ids : sequence of int
        Each seat's kernel strategy id (the heuristics' decisions are corrected).
    start, n : int
        The match range.
    slots : int
        The engine's slots.
    choices : bool
        Correct the known random decisions (False: chance events only).
    keep_hands : bool
        Keep each hand's card block differences and penalties (a value's fit needs them).
    reuse : bool
        Walk into this thread's reused arrays (:func:`scratch`): the results are good until the next walker
        with ``reuse`` on this thread (a caller that takes what it needs of them at once).
    value : LinearValue or tuple, optional
        Walk each match's corrections under it, each hand's added as the hand ends, instead of its parts; or its
        :func:`value_factors` (taken once for a run's many chunks).
    keep_parts : bool
        Without a value: keep each match's parts (False: none, only the hands when ``keep_hands``).
    columns : bool
        Walk a fitted value's corrections through each hand's card block columns, as a fit walks, even where no hand
        is kept (the reference).  Else a value whose weights are all factored (a fitted one,
        :func:`value_factors`), with no hand kept, is walked in numbers: each event's change of the value as it
        happens, no column kept (:func:`~nines_sim.luck.steps.walk`'s ``scalar``), the same corrections to 1e-15.

    Attributes
    ----------
    parts, shares, totals : numpy.ndarray
        float64 (n, 3, P, N_FEATURES), float64 (n, P), int64 (n, P): :class:`~nines_sim.luck.walk.MatchLuck`'s
        (``parts`` with no rows when not kept).
    corrections : numpy.ndarray
        float64 (n, 3, P): :meth:`~nines_sim.luck.value.LinearValue.corrections` of the parts, to rounding (each
        hand's corrections summed, not the parts' weights); no rows without a value.
    """

    def __init__(self, rules: Rules, seat_ids: Sequence[int], start: int, n: int, slots: int = 1,
                 choices: bool = True, keep_hands: bool = True, reuse: bool = False,
                 value: LinearValue | tuple | None = None, keep_parts: bool = True, columns: bool = False):  # fmt: skip
        P = rules.players
        self.P, self.D, self.start, self.n, self.keep_hands = P, rules.decks, start, n, keep_hands
        self.sids = np.array([int(s) if choices else -1 for s in seat_ids], dtype=np.int64)
        self.legal, self.deal_mean = _tables(rules)
        self.rule_args = (float(rules.target), int(rules.fixed_hands or 0), bool(rules.no_nine_out),
                          bool(rules.pair_of_nines), bool(rules.nine_on_nine))  # fmt: skip
        self.H, self.stock = np.zeros((slots, P, N_FACES)), np.zeros((slots, N_FACES))
        self.pile, self.acc = np.zeros((slots, N_FACES)), np.zeros((slots, 3, P, NJ))
        self.run_totals, self.ist = np.zeros((slots, P), dtype=np.int64), np.zeros((slots, IST_WIDTH), dtype=np.int64)
        # the walk sets each match's parts or corrections, shares and totals (from 0.0 at its first deal)
        rows = n if keep_parts and value is None else 0
        self.parts = scratch("parts", (rows, 3, P, N_FEATURES)) if reuse else np.zeros((rows, 3, P, N_FEATURES))
        self.value = value if isinstance(value, tuple) else value_factors(value or constant_value(P))
        vh, rank1 = self.value[2], self.value[3]
        self.scalar = value is not None and not keep_hands and not columns and bool(rank1.all())
        self.dt = draw_tables(vh[1]) if self.scalar else np.zeros((P, NQ, 2, NB))
        self.sums = np.zeros((slots, NK + 2 * NQ, P))
        self.corrections = np.zeros((0 if value is None else n, 3, P))
        self.shares, self.totals = np.zeros((n, P)), np.zeros((n, P), dtype=np.int64)
        self.err = np.zeros(6, dtype=np.int64)
        self.scratch = walk_scratch(P)
        # each hand's blocks, penalties, match and match weights, in the order walked: the first _nh rows
        self.reuse, self._nh = reuse, 0
        self._hands = self._hand_arrays(0)

    def feed(self, slot: int, rows: np.ndarray) -> None:
        """Walk slot ``slot``'s next rows (int64, shape (rows, EV_WIDTH)).

        Raises
        ------
        LuckError
            As the Python walk: a move outside its policy's choices, totals that disagree with the events.
        """
        P, b = self.P, slot
        h = int(np.count_nonzero(rows[:, 0] == EV_END)) if self.keep_hands else 0
        nh = self._nh + h
        if nh > self._hands[0].shape[0]:  # more room, the hands so far kept (every row is written: one a hand's end)
            grown = self._hand_arrays(max(nh, 2 * self._hands[0].shape[0], HAND_ROWS))
            for new, old in zip(grown, self._hands, strict=True):
                new[: self._nh] = old[: self._nh]
            self._hands = grown
        blocks, pen, match, weights = (a[self._nh : nh] for a in self._hands)
        walk(np.ascontiguousarray(rows, dtype=np.int64), P, self.D, self.sids, self.legal, self.deal_mean,
              *self.rule_args, self.start, self.H[b], self.stock[b], self.pile[b], self.acc[b], self.run_totals[b],
              self.ist[b], self.parts, self.value, self.corrections, self.shares, self.totals, blocks, pen, match,
              weights, self.err, self.scratch, self.scalar, self.dt, self.sums[b])  # fmt: skip
        code, m, x, y = (int(v) for v in self.err[:4])
        if code != E_NONE:
            raise LuckError(ERRORS[code].format(a=x, b=y) + f" (match {m})")
        self._nh = nh

    def _hand_arrays(self, rows: int) -> tuple[np.ndarray, ...]:
        """Room for ``rows`` hands' blocks, penalties, matches and match weights: this thread's reused arrays with
        ``reuse`` (a fit's 500 reserved matches fill hundreds of megabytes of them, whose fresh pages cost the system
        as much as the walk), else new ones."""
        P, make = self.P, (scratch if self.reuse else lambda _, shape, dtype: np.empty(shape, dtype))
        return (make("hand_blocks", (rows, 3, P, NJ), np.float64), make("hand_pen", (rows, P), np.int64),
                make("hand_match", (rows,), np.int64), make("hand_w", (rows, P, NC), np.float64))  # fmt: skip

    def results(self) -> tuple[np.ndarray, ...]:
        """``(parts, shares, totals, hand_blocks, hand_penalties, hand_match, hand_weights)``, the hands in match
        order (none unless kept): each hand's match (its index less ``start``) and its match weights (float64, shape
        (hands, P, NC)), from which the parts are the sums over each match's hands of the weights times the blocks.
        With a value, :attr:`corrections` in place of the parts; without one and its parts not kept, None.

        Raises
        ------
        LuckError
            If the rows walked did not end every match of the range.
        """
        if self.err[5] != self.n:
            raise LuckError(f"the events hold {int(self.err[5])} matches' ends, not {self.n}")
        blocks, pen, match, weights = (a[: self._nh] for a in self._hands)
        match = match - self.start
        first = self.corrections if self.corrections.shape[0] else self.parts if self.parts.shape[0] else None
        if (match[1:] >= match[:-1]).all():  # one slot walks its matches in order: no copy to sort them
            return first, self.shares, self.totals, blocks, pen, match, weights
        order = np.argsort(match, kind="stable")
        return first, self.shares, self.totals, blocks[order], pen[order], match[order], weights[order]


def walk_rows(rules: Rules, seat_ids: Sequence[int], rows: np.ndarray, start: int, n: int, choices: bool = True):  # noqa: ANN201
    """The luck of matches ``start .. start + n - 1`` from rows holding each match's rows in a row.

    Returns
    -------
    tuple
        :meth:`RowWalker.results`.

    Raises
    ------
    LuckError
        As :meth:`RowWalker.feed` and :meth:`RowWalker.results`.
    """
    walker = RowWalker(rules, seat_ids, start, n, choices=choices)
    walker.feed(0, rows)
    return walker.results()


def walking_engine(rules: Rules, lineup: Sequence, specs: Sequence[str], seed: int, start: int, n: int,
                   batch_size: int = TRACE_BATCH, choices: bool = True, keep_hands: bool = True,
                   reuse: bool = False, value: LinearValue | tuple | None = None, keep_parts: bool = True,
                   columns: bool = False, **engine_options) -> TracingEngine:  # noqa: ANN003 - CompiledEngine's  # fmt: skip
    """The trace form's engine for matches ``start .. start + n - 1`` of ``seed``, its rows walked as they come by a
    :class:`RowWalker` (``choices`` .. ``columns``: its arguments); :func:`walked` takes the walk's results.

    ``batch_size`` is capped at :data:`TRACE_BATCH` (a Python seat's table: each slot holds a buffer of event
    rows); ``engine_options`` go to :class:`~nines_sim.engine.batch.CompiledEngine` (``harvested``, ``hint``,
    ``place``).
    """
    from nines_sim.engine.seats import seat_ids

    batch = max(1, min(n, batch_size, TRACE_BATCH))
    engine = TracingEngine(rules, lineup, seed, start, n, batch_size=batch, specs=list(specs), **engine_options)
    engine.walker = RowWalker(
        rules, seat_ids(lineup), start, n, engine.B, choices, keep_hands, reuse, value, keep_parts, columns
    )
    return engine


def walked(engine: TracingEngine):  # noqa: ANN201
    """:meth:`RowWalker.results` of an engine of :func:`walking_engine` that played its whole range; the engine lets
    go of its walker (it lives in a reference cycle: not it, but the walk's arrays, go now).

    Raises
    ------
    LuckError
        As :meth:`RowWalker.results`.
    """
    walker, engine.walker = engine.walker, None
    assert walker is not None
    return walker.results()


def trace_luck(rules: Rules, lineup: Sequence, specs: Sequence[str], seed: int, start: int, n: int,
               choices: bool = True, keep_hands: bool = True, reuse: bool = False,
               value: LinearValue | tuple | None = None, keep_parts: bool = True, columns: bool = False,
               **engine_options):  # noqa: ANN003, ANN201 - CompiledEngine's  # fmt: skip
    """Play matches ``start .. start + n - 1`` of ``seed`` in the trace form and walk their rows as they come
    (``reuse``, ``value``, ``keep_parts``, ``columns``: :class:`RowWalker`'s; ``engine_options``:
    :func:`walking_engine`'s, such as the ``hint`` and ``place`` of a failing strategy's error).

    Returns
    -------
    tuple
        :meth:`RowWalker.results`.
    """
    engine = walking_engine(rules, lineup, specs, seed, start, n, TRACE_BATCH, choices, keep_hands, reuse, value,
                            keep_parts, columns, **engine_options)  # fmt: skip
    engine.run()
    return walked(engine)
