"""The seating of a league: which strategies sit at each table, in which seats.

A league draws ``tables`` tables of ``players`` seats from a pool of ``n``
strategies.  The schedule is balanced so that no strategy's rating leans on
luck of the draw:

- every strategy sits at a table as often as every other, within one (the
  tables take the least-seated strategies first);
- every pair of strategies meets about equally often (among the allowed
  tables, the one whose pairs have met least);
- every strategy sits in every seat about equally often (seats assigned by a
  least-cost assignment on how often each has had each seat).

Ties between equally good choices are broken by a generator seeded from the
run's seed alone (a stream of its own: the deals' streams are untouched), so
the same seed, pool and sizes give the same tables.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
from scipy.optimize import linear_sum_assignment

#: Most candidate tables weighed per draw; beyond it a seeded sample of them.
MAX_CANDIDATES = 4000
#: Tag mixed into the schedule's seed, so that its stream differs from every deal stream of the same seed.
SCHEDULE_STREAM = 0x5C4ED
#: Swaps tried in a row without a gain before the pair balancing stops.
STALE_TRIES = 5_000
#: Most tables a league seats (``--tables``): every table plays every match, so the run grows with it.
MAX_TABLES = 2_000


def default_tables(n: int, players: int) -> int:
    """Tables of a league when ``--tables`` is not given: every set of ``players`` strategies once
    (each pair then meets equally often), at most ``max(200, n)``; at least one table per strategy.
    """
    return max(n, min(math.comb(n, players), max(200, n)))


def fewest_tables_seating_all(n: int, players: int) -> int:
    """Fewest tables of ``players`` that seat each of ``n`` strategies at least once: ``ceil(n / players)``
    (the schedule seats the least-seated first, so that many always do)."""
    return -(-n // players)


def groups_apart(schedule: np.ndarray, n: int) -> int:
    """How many groups the strategies fall into when two are joined if they sat at a table together.

    Parameters
    ----------
    schedule : numpy.ndarray
        int64, (tables, players): a league's seating, as :func:`league_schedule` returns it.
    n : int
        Strategies in the pool; one never seated is a group of its own.

    Returns
    -------
    int
        1 when the tables connect the pool (every rating difference is identifiable), more when not.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    rows = np.repeat(schedule[:, :1], schedule.shape[1], axis=1).ravel()
    graph = coo_matrix((np.ones(rows.size), (rows, schedule.ravel())), shape=(n, n))
    return int(connected_components(graph, directed=False)[0])


def fewest_connecting_tables(n: int, players: int, tables: int, seed: int) -> int | None:
    """Fewest tables above ``tables`` whose schedule (same seed) connects the pool; None if none up to
    :data:`MAX_TABLES` does."""
    start = max(tables + 1, -(-(n - 1) // (players - 1)))  # a connected graph needs n - 1 joins, P - 1 per table
    for t in range(start, MAX_TABLES + 1):
        if groups_apart(league_schedule(n, players, t, seed), n) == 1:
            return t
    return None


def league_schedule(n: int, players: int, tables: int, seed: int) -> np.ndarray:
    """Seat ``tables`` tables of ``players`` from ``n`` strategies, balanced and seeded.

    Parameters
    ----------
    n : int
        Strategies in the pool, numbered 0..n-1.
    players : int
        Seats per table (RULES.md D1: 2 to 6), at most ``n``.
    tables : int
        Tables to seat, at least 1.
    seed : int
        The run's seed.

    Returns
    -------
    numpy.ndarray
        int64, shape (tables, players): the strategy in each seat of each table, seat 0 first.

    Raises
    ------
    ValueError
        If ``players`` exceeds ``n`` or ``tables`` is below 1.
    """
    if players > n:
        raise ValueError(f"a table of {players} needs at least {players} strategies; the pool has {n}")
    if tables < 1:
        raise ValueError("a league needs at least one table")
    rng = np.random.default_rng([SCHEDULE_STREAM, seed, n, players])
    groups = _table_sets(n, players, tables, rng)
    return _seat_tables(groups, n, rng)


def _table_sets(n: int, players: int, tables: int, rng: np.random.Generator) -> np.ndarray:
    """Which strategies sit at each table (sorted rows): whole rounds of every set, then the best of the rest.

    While the tables last, every set of ``players`` strategies is seated once per round (a round is exactly
    balanced); the tables left over are drawn one by one (least seated first, then the set whose pairs met
    least), then improved by swaps of strategies between those tables that lower the spread of pair meetings.
    """
    every = np.array(list(combinations(range(n), players)), dtype=np.int64)
    rounds = tables // len(every) if len(every) <= MAX_CANDIDATES else 0
    parts = [every[rng.permutation(len(every))] for _ in range(rounds)]
    sat = np.full(n, rounds * math.comb(n - 1, players - 1), dtype=np.int64)
    met = np.zeros((n, n), dtype=np.int64)
    rest = np.empty((tables - rounds * len(every), players), dtype=np.int64)
    for t in range(len(rest)):
        rest[t] = _draw_members(sat, met, players, rng)
        sat[rest[t]] += 1
        met[np.ix_(rest[t], rest[t])] += 1
    _improve_pairs(rest, met, rng)
    return np.concatenate([*parts, rest]) if parts else rest


def _improve_pairs(rest: np.ndarray, met: np.ndarray, rng: np.random.Generator, tries: int = 50_000) -> None:
    """Swap strategies between two tables (each stays seated as often) while that does not raise the sum of
    pair meetings to the fourth power (a pair far from the others costs more than several a little off);
    sideways swaps walk off plateaus.  Stops after :data:`STALE_TRIES` tries without a gain.  ``rest`` and
    ``met`` are updated in place."""
    T, P = rest.shape
    if T < 2:
        return
    tables = rng.integers(T, size=(tries, 2))
    seats = rng.integers(P, size=(tries, 2))
    idle = 0
    for (t1, t2), (i, j) in zip(tables, seats):
        idle += 1
        if idle > STALE_TRIES:
            break
        a, b = rest[t1, i], rest[t2, j]
        if t1 == t2 or a == b or b in rest[t1] or a in rest[t2]:
            continue
        o1 = np.delete(rest[t1], i)
        o2 = np.delete(rest[t2], j)
        # a leaves t1 for t2 and b leaves t2 for t1: the pairs they leave lose a meeting, those they join gain one
        before = _cost(met[a, o1]) + _cost(met[b, o2]) + _cost(met[b, o1]) + _cost(met[a, o2])
        after = _cost(met[a, o1] - 1) + _cost(met[b, o2] - 1) + _cost(met[b, o1] + 1) + _cost(met[a, o2] + 1)
        if after <= before:
            for x, others, d in ((a, o1, -1), (b, o2, -1), (b, o1, 1), (a, o2, 1)):
                met[x, others] += d
                met[others, x] += d
            rest[t1, i], rest[t2, j] = b, a
            if after < before:
                idle = 0
    rest.sort(axis=1)


def _cost(met: np.ndarray) -> int:
    return int((met**4).sum())


def _seat_tables(groups: np.ndarray, n: int, rng: np.random.Generator, passes: int = 4) -> np.ndarray:
    """Seat order of every table: each table's members in the seats they have had least, table by table,
    then again table by table against all the other tables' seats, ``passes`` times."""
    T, P = groups.shape
    out = np.empty_like(groups)
    seat_count = np.zeros((n, P), dtype=np.int64)
    cols = np.arange(P)
    for t in range(T):
        out[t] = _assign_seats(groups[t], seat_count, rng)
        seat_count[out[t], cols] += 1
    for _ in range(passes):
        for t in range(T):
            seat_count[out[t], cols] -= 1
            out[t] = _assign_seats(groups[t], seat_count, rng)
            seat_count[out[t], cols] += 1
    return out


def _draw_members(sat: np.ndarray, met: np.ndarray, players: int, rng: np.random.Generator) -> np.ndarray:
    """The strategies of the next table (sorted): the least seated, then the set whose pairs met least."""
    order = np.argsort(sat, kind="stable")
    cut = sat[order[players - 1]]  # the players-th lowest count
    must = [int(s) for s in order if sat[s] < cut]
    pool = [int(s) for s in order if sat[s] == cut]
    k = players - len(must)
    if math.comb(len(pool), k) <= MAX_CANDIDATES:
        picks = np.array(list(combinations(pool, k)), dtype=np.int64).reshape(-1, k)
    else:
        picks = np.array(pool, dtype=np.int64)[rng.random((MAX_CANDIDATES, len(pool))).argsort(1)[:, :k]]
    groups = np.concatenate([np.broadcast_to(np.array(must, dtype=np.int64), (len(picks), len(must))), picks], 1)
    i, j = np.triu_indices(players, 1)
    pairs = met[groups[:, i], groups[:, j]]
    keys = np.lexsort((rng.random(len(groups)), (pairs * pairs).sum(1), pairs.max(1, initial=0)))
    return np.sort(groups[keys[0]])


def _assign_seats(members: np.ndarray, seat_count: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Seat order of a table: each member in a seat it has had least (a least-cost assignment)."""
    counts = seat_count[members].astype(np.float64)
    cost = counts * counts + rng.random(counts.shape) * 1e-3  # squares: spread before the seat totals
    rows, cols = linear_sum_assignment(cost)
    seats = np.empty(len(members), dtype=np.int64)
    seats[cols] = members[rows]
    return seats
