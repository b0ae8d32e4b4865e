"""Mergeable accumulators of match and hand results.

A :class:`Tally` holds only counts and sums (integers), so tallies of chunks
merge by addition in any order to the same bytes: the numbers of a run do not
depend on how it was cut into chunks, batches or worker processes, and memory
stays flat however many matches are played.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, fields

import numpy as np

from nines_sim.results.records import BLOCKED, CAPPED, MatchResults


def njit(**options):  # noqa: ANN201 - a decorator
    """numba's ``njit(**options)``, applied on a function's first call: importing this module (as every
    command that reads or plans a run does) does not load numba; where numba is missing the same loops run
    as plain Python."""

    def decorate(fn):  # noqa: ANN001, ANN202
        compiled = None

        @functools.wraps(fn)
        def call(*args):  # noqa: ANN002, ANN202
            nonlocal compiled
            if compiled is None:
                try:
                    from numba import njit as numba_njit
                except ImportError:  # pragma: no cover - exercised only where numba is missing
                    compiled = fn
                else:
                    compiled = numba_njit(**options)(fn)
            return compiled(*args)

        return call

    return decorate


#: Win shares are 1, 0 or 1/k with k <= 6 tied players; counted in 60ths they are whole numbers.
SHARE_UNIT = 60


def add_hist(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The sum of two histograms whose last axis (the bins from 0) may differ in length.

    Parameters
    ----------
    a, b : numpy.ndarray
        int64 counts, the same shape but for the last axis.

    Returns
    -------
    numpy.ndarray
        int64, the longer last axis: ``a + b`` with the shorter one's missing bins counted 0.
    """
    n = max(a.shape[-1], b.shape[-1])
    out = np.zeros(a.shape[:-1] + (n,), dtype=np.int64)
    out[..., : a.shape[-1]] += a
    out[..., : b.shape[-1]] += b
    return out


# Compiled loops over the rows, not whole-array numpy passes (the (n, P, P) comparison for ``beats``,
# reductions down the columns of (n, P) arrays): the passes were a visible share of a 4-seat tournament's
# time (docs/explanation/benchmark-log.md, "Undated").
@njit(cache=True)
def _hist_rows(values: np.ndarray) -> np.ndarray:
    """Per-column counts of each value of a (n, P) array of int64 >= 0: int64, shape (P, max + 1)."""
    n, P = values.shape
    top = 0
    for i in range(n):
        for a in range(P):
            top = max(top, values[i, a])
    out = np.zeros((P, top + 1), dtype=np.int64)
    for i in range(n):
        for a in range(P):
            out[a, values[i, a]] += 1
    return out


@njit(cache=True)
def _share_sums(s: np.ndarray) -> tuple:
    """``wins60``, ``share_xprod``, ``wins_outright``, ``wins_any`` and ``beats`` of per-match shares ``s``
    (int64, (n, P), 60ths), in one pass over the matches."""
    n, P = s.shape
    wins60 = np.zeros(P, dtype=np.int64)
    xprod = np.zeros((P, P), dtype=np.int64)
    outright = np.zeros(P, dtype=np.int64)
    anyshare = np.zeros(P, dtype=np.int64)
    beats = np.zeros((P, P), dtype=np.int64)
    for i in range(n):
        for a in range(P):
            x = s[i, a]
            wins60[a] += x
            outright[a] += x == SHARE_UNIT
            anyshare[a] += x > 0
            for b in range(P):
                xprod[a, b] += x * s[i, b]
                beats[a, b] += x > s[i, b]
    return wins60, xprod, outright, anyshare, beats


@njit(cache=True)
def _seat_sums(totals: np.ndarray, penalty: np.ndarray, outcome: np.ndarray, dealer: np.ndarray) -> tuple:
    """Per seat: final totals and their squares summed, hand penalties summed, hands gone out in (by seat
    and by offset from the dealer); and the blocked and capped hands (``outcome`` < 0)."""
    P = totals.shape[1]
    total_sum = np.zeros(P, dtype=np.int64)
    total_sq = np.zeros(P, dtype=np.int64)
    for i in range(totals.shape[0]):
        for a in range(P):
            t = totals[i, a]
            total_sum[a] += t
            total_sq[a] += t * t
    penalty_sum = np.zeros(P, dtype=np.int64)
    go_outs = np.zeros(P, dtype=np.int64)
    from_dealer = np.zeros(P, dtype=np.int64)
    blocked = 0
    capped = 0
    for h in range(outcome.shape[0]):
        for a in range(P):
            penalty_sum[a] += penalty[h, a]
        o = outcome[h]
        if o >= 0:
            go_outs[o] += 1
            from_dealer[(o - dealer[h]) % P] += 1
        elif o == BLOCKED:
            blocked += 1
        elif o == CAPPED:
            capped += 1
    return total_sum, total_sq, penalty_sum, go_outs, from_dealer, blocked, capped


@dataclass
class Tally:
    """Counts and sums over matches of one lineup and rule set.

    Attributes (``P`` seats)
    ----------
    players : int
    matches : int
    wins60 : numpy.ndarray
        int64, (P,): win shares summed, in 60ths.
    share_xprod : numpy.ndarray
        int64, (P, P): sums of products of per-match win shares, in 3600ths
        (for the variances of paired differences).
    wins_outright, wins_any : numpy.ndarray
        int64, (P,): matches won outright (share 1) and matches with any share (> 0); equal when no
        win was shared.  Whole counts for the exact tests of :mod:`nines_sim.results.stats`.
    beats : numpy.ndarray
        int64, (P, P): ``beats[a, b]`` counts the matches in which seat ``a`` took a larger win share
        than seat ``b`` (the discordant matches of the paired exact tests).
    total_sum, total_sq : numpy.ndarray
        int64, (P,): sums of final totals and of their squares, points.
    total_hist : numpy.ndarray
        int64, (P, T): counts of each final total, points 0..T-1.
    hands, turns, drawn, reshuffles, nine_starters, blocked, capped, tiebreak_hands : int
        Regular hands and their sums (tie-break hands are only counted).
    go_outs : numpy.ndarray
        int64, (P,): regular hands each seat went out in.
    go_outs_from_dealer : numpy.ndarray
        int64, (P,): regular hands won by going out, by seat offset from the
        dealer (1 = the dealer's left, P-1 ..., 0 = the dealer).
    penalty_sum : numpy.ndarray
        int64, (P,): hand penalties summed, points.
    penalty_hist : numpy.ndarray
        int64, (P, H): counts of each hand penalty, points 0..H-1.
    """

    players: int
    matches: int = 0
    wins60: np.ndarray = field(default=None)  # type: ignore[assignment]
    share_xprod: np.ndarray = field(default=None)  # type: ignore[assignment]
    wins_outright: np.ndarray = field(default=None)  # type: ignore[assignment]
    wins_any: np.ndarray = field(default=None)  # type: ignore[assignment]
    beats: np.ndarray = field(default=None)  # type: ignore[assignment]
    total_sum: np.ndarray = field(default=None)  # type: ignore[assignment]
    total_sq: np.ndarray = field(default=None)  # type: ignore[assignment]
    total_hist: np.ndarray = field(default=None)  # type: ignore[assignment]
    hands: int = 0
    turns: int = 0
    drawn: int = 0
    reshuffles: int = 0
    nine_starters: int = 0
    blocked: int = 0
    capped: int = 0
    tiebreak_hands: int = 0
    go_outs: np.ndarray = field(default=None)  # type: ignore[assignment]
    go_outs_from_dealer: np.ndarray = field(default=None)  # type: ignore[assignment]
    penalty_sum: np.ndarray = field(default=None)  # type: ignore[assignment]
    penalty_hist: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        P = self.players
        for name, shape in (("wins60", (P,)), ("share_xprod", (P, P)), ("wins_outright", (P,)), ("wins_any", (P,)),
                            ("beats", (P, P)), ("total_sum", (P,)), ("total_sq", (P,)),
                            ("total_hist", (P, 1)), ("go_outs", (P,)), ("go_outs_from_dealer", (P,)),
                            ("penalty_sum", (P,)), ("penalty_hist", (P, 1))):  # fmt: skip
            if getattr(self, name) is None:
                setattr(self, name, np.zeros(shape, dtype=np.int64))

    @staticmethod
    def share_counts(s: np.ndarray) -> dict[str, object]:
        """The win-share fields of a tally from per-match win shares.

        Parameters
        ----------
        s : numpy.ndarray
            int64, (n, P): each match's win share per seat, in 60ths.

        Returns
        -------
        dict
            ``matches``, ``wins60``, ``share_xprod``, ``wins_outright``, ``wins_any`` and ``beats``, as
            :class:`Tally` keyword arguments.
        """
        s = np.ascontiguousarray(s, dtype=np.int64)
        wins60, xprod, outright, anyshare, beats = _share_sums(s)
        return {
            "matches": s.shape[0],
            "wins60": wins60,
            "share_xprod": xprod,
            "wins_outright": outright,
            "wins_any": anyshare,
            "beats": beats,
        }

    @classmethod
    def from_results(cls, res: MatchResults) -> Tally:
        """Tally one block of results."""
        s = np.rint(res.win_share * SHARE_UNIT).astype(np.int64)
        hr = res.hand_records
        totals = np.ascontiguousarray(res.totals, dtype=np.int64)
        penalty = np.ascontiguousarray(hr.penalty, dtype=np.int64)
        total_sum, total_sq, penalty_sum, go_outs, from_dealer, blocked, capped = _seat_sums(
            totals,
            penalty,
            np.ascontiguousarray(hr.outcome, dtype=np.int64),
            np.ascontiguousarray(hr.dealer, dtype=np.int64),
        )
        return cls(
            players=totals.shape[1],
            **cls.share_counts(s),
            total_sum=total_sum,
            total_sq=total_sq,
            total_hist=_hist_rows(totals),
            hands=len(hr),
            turns=int(hr.turns.sum()),
            drawn=int(hr.drawn.sum()),
            reshuffles=int(hr.reshuffles.sum()),
            nine_starters=int(hr.nine_starter.sum()),
            blocked=int(blocked),
            capped=int(capped),
            tiebreak_hands=int(res.tiebreak_hands.sum()),
            go_outs=go_outs,
            go_outs_from_dealer=from_dealer,
            penalty_sum=penalty_sum,
            penalty_hist=_hist_rows(penalty),
        )

    def __add__(self, other: Tally) -> Tally:
        if other.players != self.players:
            raise ValueError("cannot merge tallies of different table sizes")
        kw = {}
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            if f.name == "players":
                kw[f.name] = a
            elif f.name.endswith("_hist"):
                kw[f.name] = add_hist(a, b)
            else:
                kw[f.name] = a + b
        return Tally(**kw)


@dataclass
class SeatStats:
    """One seat's (or one strategy's merged seats') share of tallies.

    Attributes are the per-seat columns of :class:`Tally`, as scalars and 1-d histograms;
    ``share_sq`` is the sum of squared win shares in 3600ths.
    """

    matches: int = 0
    hands: int = 0
    wins60: int = 0
    share_sq: int = 0
    wins_outright: int = 0
    wins_any: int = 0
    total_sum: int = 0
    total_sq: int = 0
    go_outs: int = 0
    penalty_sum: int = 0
    total_hist: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    penalty_hist: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))

    @classmethod
    def of(cls, t: Tally, seat: int) -> SeatStats:
        return cls(
            matches=t.matches, hands=t.hands, wins60=int(t.wins60[seat]), share_sq=int(t.share_xprod[seat, seat]),
            wins_outright=int(t.wins_outright[seat]), wins_any=int(t.wins_any[seat]),
            total_sum=int(t.total_sum[seat]), total_sq=int(t.total_sq[seat]), go_outs=int(t.go_outs[seat]),
            penalty_sum=int(t.penalty_sum[seat]), total_hist=t.total_hist[seat].copy(),
            penalty_hist=t.penalty_hist[seat].copy(),
        )  # fmt: skip

    def __add__(self, o: SeatStats) -> SeatStats:
        kw = {}
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(o, f.name)
            kw[f.name] = add_hist(a, b) if f.name.endswith("_hist") else a + b
        return SeatStats(**kw)

    @property
    def wins(self) -> float:
        return self.wins60 / SHARE_UNIT

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches if self.matches else float("nan")

    @property
    def share_se(self) -> float:
        """Standard error of the win rate from the per-match shares."""
        n = self.matches
        if n < 2:
            return float("nan")
        mean = self.win_rate
        var = self.share_sq / SHARE_UNIT**2 / n - mean * mean
        return float(np.sqrt(max(var, 0.0) * n / (n - 1) / n))
