"""Ratings of strategies from finishing orders: a Plackett-Luce model fitted by maximum likelihood.

Each match gives a finishing order of its seats: the winner first (RULES.md
S4: the player with the lowest total, after any tie-break hand), the others
by final total (S1, S2), lower first; seats that stay equal share their
places.  The Plackett-Luce model gives strategy ``i`` a strength ``theta_i``
and reads a finishing order as a sequence of choices: first place goes to
``i`` among the seats still unplaced, ``S``, with probability
``exp(theta_i) / sum(exp(theta_k), k in S)``, then second place among the
rest, and so on.  Heads-up (a round robin) this is the Bradley-Terry model.
Places shared by ``k`` seats count as each of their ``k!`` orders with weight
``1 / k!``.

The log-likelihood depends on the matches only through each strategy's
weighted count of choices won and each choice set's weighted count, so the
fit takes a handful of numbers however many matches were played;
``scipy.optimize.minimize`` maximises it (Newton trust region with the exact
gradient and Hessian; ``choix.ilsr_rankings`` fits the same model match by
match and agrees, see the tests).  A ridge of :data:`RIDGE` keeps a strategy
that never won a choice finite.

Ratings are on an Elo-like scale: ``ANCHOR + ELO_PER_UNIT * theta`` with the
strengths centred (the mean rating is ``ANCHOR``); 400 points are odds of
10 to 1 heads-up.  Intervals are 95% percentile intervals of a bootstrap over
matches: match indices fall into :data:`MATCH_GROUPS` groups by index, and
each bootstrap sample draws groups with replacement, every table's matches of
a group together (the tables of a league play the same deals, so their
results at one match index are not independent).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from itertools import combinations, permutations

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.special import logsumexp
from scipy.stats import norm

from nines_sim.results.stats import competition_ranks, holm, wilson_array

#: Rating points per unit of log-strength: 400 points are odds of 10 to 1 (Elo's scale).
ELO_PER_UNIT = 400 / math.log(10)
#: The mean rating.
ANCHOR = 1500.0
#: Bootstrap samples behind every interval.
BOOTSTRAP_SAMPLES = 1000
#: Matches fall into this many groups by index (``match % MATCH_GROUPS``), the units the bootstrap draws.
MATCH_GROUPS = 256
#: Ridge on the strengths (in log-likelihood units): negligible against any real run, finite for a strategy
#: that never won a choice.
RIDGE = 1e-3
#: Tag mixed into the bootstrap's seed, so that its stream differs from every deal stream of the same seed.
BOOTSTRAP_STREAM = 0xB007
#: Level of the calibration checks (Holm-adjusted over all cells).
ALPHA = 0.05

RATINGS_COLUMNS = [
    "rank", "strategy", "rating", "rating_low", "rating_high", "strength", "matches", "mean_position",
    "mean_position_low", "mean_position_high", "win_rate", "win_rate_low", "win_rate_high",
]  # fmt: skip
DIFFERENCE_COLUMNS = ["a", "b", "difference", "low", "high", "resolved"]
CALIBRATION_COLUMNS = [
    "table", "strategy", "matches", "observed", "observed_low", "observed_high", "predicted", "z", "p_value",
    "p_holm", "fails",
]  # fmt: skip


# ---------------------------------------------------------------- finishing orders


def finish_codes(totals: np.ndarray, shares: np.ndarray) -> np.ndarray:
    """Each match's finishing order as one integer: seat ``s``'s place (0 = first) in base-P digit ``s``.

    A seat's place is the number of seats ahead of it: a larger win share (the winner, S4), or an equal
    share and a lower final total (S1, S2).  Seats level on both share the place.

    Parameters
    ----------
    totals : numpy.ndarray
        int64, (n, P): final totals, points.
    shares : numpy.ndarray
        float64, (n, P): win shares (1, 0 or 1/k).

    Returns
    -------
    numpy.ndarray
        int64, (n,): ``sum(place[s] * P**s)``.
    """
    totals = np.asarray(totals, dtype=np.int64)
    s60 = np.rint(np.asarray(shares, dtype=np.float64) * 60).astype(np.int64)
    P = totals.shape[1]
    # ahead[m, a, b]: seat b finished ahead of seat a in match m
    ahead = (s60[:, None, :] > s60[:, :, None]) | (
        (s60[:, None, :] == s60[:, :, None]) & (totals[:, None, :] < totals[:, :, None])
    )
    place = ahead.sum(axis=2)
    return place @ (P ** np.arange(P, dtype=np.int64))


def decode(code: int, players: int) -> list[int]:
    """Places by seat of a :func:`finish_codes` code.

    Parameters
    ----------
    code : int
        ``sum(place[s] * players**s)``.
    players : int
        Seats at the table (RULES.md D1: 2 to 6).

    Returns
    -------
    list of int
        ``players`` places, 0 = first; level seats share a place and the next place is skipped.
    """
    return [(code // players**s) % players for s in range(players)]


def shared_places(places: list[int]) -> list[float]:
    """Finishing position of each seat, from 1, with level seats sharing the mean of their places.

    Parameters
    ----------
    places : list of int
        Places by seat from :func:`decode` (0 = first).

    Returns
    -------
    list of float
        Positions by seat: two seats level for second get 2.5 each.
    """
    return [p + (sum(q == p for q in places) + 1) / 2 for p in places]


def choice_events(lineup: tuple[int, ...], places: list[int]) -> list[tuple[tuple[int, ...], int, float]]:
    """The Plackett-Luce choices of one finishing order.

    Parameters
    ----------
    lineup : tuple of int
        The strategy index in each seat (each strategy once).
    places : list of int
        Places by seat from :func:`decode`.

    Returns
    -------
    list of (tuple of int, int, float)
        ``(set, chosen, weight)``: the strategy placed next among those still unplaced (a sorted tuple).
        Seats level at a place count as each of their ``k!`` orders, each weighted ``1 / k!``; a full
        order of P seats gives choices of total weight P - 1.
    """
    by_place: dict[int, list[int]] = {}
    for seat, p in enumerate(places):
        by_place.setdefault(p, []).append(lineup[seat])
    events: Counter = Counter()
    left = sorted(lineup)
    for p in sorted(by_place):
        group = by_place[p]
        orders = list(permutations(group))
        for order in orders:
            rest = list(left)
            for who in order:
                if len(rest) > 1:
                    events[(tuple(rest), who)] += 1 / len(orders)
                rest.remove(who)
        left = [x for x in left if x not in group]
    return [(s, w, c) for (s, w), c in events.items()]


# ---------------------------------------------------------------- the data of a fit


@dataclass
class OrderData:
    """Finishing orders of a run, as group-by-feature sums (the only thing a fit or a bootstrap needs).

    Attributes
    ----------
    n : int
        Strategies.
    sets : list of tuple of int
        The choice sets met, sorted tuples of strategy indices.
    members : numpy.ndarray
        bool, (len(sets), n): which strategies each set holds.
    features : numpy.ndarray
        float64, (G, 4n + len(sets)): per match group, columns ``[won (n) | chosen-from (sets) | position sum (n)
        | win shares (n) | matches (n)]``.
    tables : dict
        Per table composition (sorted tuple of strategy indices): ``(matches, win share sums (n,))``.
    """

    n: int
    sets: list[tuple[int, ...]]
    members: np.ndarray
    features: np.ndarray
    tables: dict[tuple[int, ...], tuple[int, np.ndarray]]

    def split(self, row: np.ndarray) -> tuple[np.ndarray, ...]:
        """``(won, chosen_from, position_sum, win_sum, matches)`` of one summed feature row."""
        n, k = self.n, len(self.sets)
        return row[:n], row[n : n + k], row[n + k : 2 * n + k], row[2 * n + k : 3 * n + k], row[3 * n + k :]


def order_data(games: list[tuple[tuple[int, ...], dict[tuple[int, int], int]]], n: int) -> OrderData:
    """Gather the finishing orders of every table into :class:`OrderData`.

    Parameters
    ----------
    games : list of (lineup, counts)
        ``lineup``: the strategy index in each seat; ``counts``: matches per ``(group, code)``, ``group`` the
        match index modulo :data:`MATCH_GROUPS` and ``code`` from :func:`finish_codes`.
    n : int
        Strategies.
    """
    set_index: dict[tuple[int, ...], int] = {}
    rows: list[tuple] = []  # (group, count, lineup, events, positions, shares) before the set columns are known
    tables: dict[tuple[int, ...], tuple[int, np.ndarray]] = {}
    cache: dict[tuple[tuple[int, ...], int], tuple] = {}
    for lineup, counts in games:
        P = len(lineup)
        comp = tuple(sorted(lineup))
        for (group, code), c in sorted(counts.items()):
            key = (lineup, code)
            if key not in cache:
                places = decode(code, P)
                events = choice_events(lineup, places)
                for s, _, _ in events:
                    set_index.setdefault(s, len(set_index))
                win = [1 / places.count(0) if p == 0 else 0.0 for p in places]
                cache[key] = (events, shared_places(places), win)
            events, pos, win = cache[key]
            rows.append((group, c, lineup, events, pos, win))
            matches, wins = tables.get(comp, (0, np.zeros(n)))
            wins = wins.copy()
            for seat, who in enumerate(lineup):
                wins[who] += c * win[seat]
            tables[comp] = (matches + c, wins)
    sets = sorted(set_index)
    col = {s: i for i, s in enumerate(sets)}
    k = len(sets)
    features = np.zeros((MATCH_GROUPS, 4 * n + k))
    for group, c, lineup, events, pos, win in rows:
        f = features[group]
        for s, who, w in events:
            f[who] += c * w
            f[n + col[s]] += c * w
        for seat, who in enumerate(lineup):
            f[n + k + who] += c * pos[seat]
            f[2 * n + k + who] += c * win[seat]
            f[3 * n + k + who] += c
    members = np.zeros((k, n), dtype=bool)
    for i, s in enumerate(sets):
        members[i, list(s)] = True
    return OrderData(n, sets, members, features, tables)


# ---------------------------------------------------------------- fitting


def fit_strengths(
    won: np.ndarray, chosen_from: np.ndarray, members: np.ndarray, start: np.ndarray | None = None
) -> np.ndarray:
    """Maximum-likelihood Plackett-Luce strengths from the sufficient statistics of the choices.

    Parameters
    ----------
    won : numpy.ndarray
        float64, (n,): weighted choices each strategy won.
    chosen_from : numpy.ndarray
        float64, (m,): weighted choices made from each set.
    members : numpy.ndarray
        bool, (m, n): the sets.
    start : numpy.ndarray, optional
        float64, (n,): strengths to start from (a bootstrap starts from the full data's).

    Returns
    -------
    numpy.ndarray
        float64, (n,): log-strengths, centred on 0.
    """
    n = members.shape[1]
    mask = members.astype(np.float64)

    def sets_of(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """log of each set's summed strengths, (m,), and each member's share of it, (m, n)."""
        top = theta.max()
        e = mask * np.exp(theta - top)[None, :]
        total = e.sum(axis=1)
        return top + np.log(total), e / total[:, None]

    def f(theta: np.ndarray) -> float:
        return float(-won @ theta + chosen_from @ sets_of(theta)[0] + RIDGE / 2 * theta @ theta)

    def grad(theta: np.ndarray) -> np.ndarray:
        return -won + sets_of(theta)[1].T @ chosen_from + RIDGE * theta

    def hess(theta: np.ndarray) -> np.ndarray:
        p = sets_of(theta)[1]
        return np.diag(p.T @ chosen_from) - (p * chosen_from[:, None]).T @ p + RIDGE * np.eye(n)

    x0 = np.zeros(n) if start is None else start
    res = minimize(
        f, x0, jac=grad, hess=hess, method="trust-exact", options={"gtol": 1e-9 * max(1.0, float(chosen_from.sum()))}
    )
    return res.x - res.x.mean()


def elo(theta: np.ndarray) -> np.ndarray:
    """Ratings of centred log-strengths.

    Parameters
    ----------
    theta : numpy.ndarray
        float64, any shape: log-strengths centred on 0.

    Returns
    -------
    numpy.ndarray
        float64, same shape: ``ANCHOR + ELO_PER_UNIT * theta``, rating points.
    """
    return ANCHOR + ELO_PER_UNIT * np.asarray(theta)


@dataclass
class Ratings:
    """A fit and its bootstrap: the three tables a run folder stores.

    ``ranked`` is False for a stopped run too small to rank (:func:`nines_sim.results.stats.too_small_to_rank`):
    then ``rank``, ``resolved`` and ``fails`` are empty and the strategies are in lineup order.
    """

    ratings: pd.DataFrame
    differences: pd.DataFrame
    calibration: pd.DataFrame
    samples: int
    ranked: bool = True


def rate(data: OrderData, labels: list[str], seed: int, samples: int = BOOTSTRAP_SAMPLES) -> Ratings:
    """Fit the strengths, bootstrap their intervals and check the fit against each table's win rates.

    Parameters
    ----------
    data : OrderData
    labels : list of str
        The strategies' names, index order.
    seed : int
        The run's seed; the bootstrap's stream is derived from it (and :data:`BOOTSTRAP_STREAM`).
    samples : int
        Bootstrap samples.

    Returns
    -------
    Ratings
        ``ratings`` (``RATINGS_COLUMNS``, best first), ``differences`` (``DIFFERENCE_COLUMNS``, every pair,
        the higher rated first) and ``calibration`` (``CALIBRATION_COLUMNS``).
    """
    n = data.n
    total = data.features.sum(axis=0)
    won, chosen, pos_sum, win_sum, matches = data.split(total)
    theta = fit_strengths(won, chosen, data.members)
    rng = np.random.default_rng([BOOTSTRAP_STREAM, seed])
    used = np.flatnonzero(data.features[:, 3 * n + len(data.sets) :].sum(axis=1) > 0)
    boot_theta = np.empty((samples, n))
    boot_pos = np.empty((samples, n))
    boot_win = np.empty((samples, n))
    for b in range(samples):
        weights = np.bincount(rng.integers(len(used), size=len(used)), minlength=len(used)).astype(np.float64)
        w, c, ps, ws, m = data.split(weights @ data.features[used])
        boot_theta[b] = fit_strengths(w, c, data.members, start=theta)
        with np.errstate(invalid="ignore", divide="ignore"):
            boot_pos[b] = ps / m
            boot_win[b] = ws / m

    def interval(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.nanpercentile(x, 2.5, axis=0), np.nanpercentile(x, 97.5, axis=0)

    r_lo, r_hi = interval(elo(boot_theta))
    p_lo, p_hi = interval(boot_pos)
    w_lo, w_hi = interval(boot_win)
    rating = elo(theta)
    with np.errstate(invalid="ignore", divide="ignore"):
        table = pd.DataFrame({
            "rank": competition_ranks(rating), "strategy": labels, "rating": rating, "rating_low": r_lo,
            "rating_high": r_hi, "strength": theta, "matches": matches.astype(np.int64),
            "mean_position": pos_sum / matches, "mean_position_low": p_lo, "mean_position_high": p_hi,
            "win_rate": win_sum / matches, "win_rate_low": w_lo, "win_rate_high": w_hi,
        }, columns=RATINGS_COLUMNS)  # fmt: skip
    table = table.sort_values(["rank", "strategy"], kind="stable").reset_index(drop=True)
    return Ratings(table, _differences(rating, elo(boot_theta), labels), _calibration(data, theta, labels), samples)


def _differences(rating: np.ndarray, boot: np.ndarray, labels: list[str]) -> pd.DataFrame:
    """Every pair's rating difference, the higher rated first, with its bootstrap interval."""
    order = np.argsort(-rating, kind="stable")
    rows = []
    for i, j in combinations(order.tolist(), 2):
        d = boot[:, i] - boot[:, j]
        lo, hi = np.percentile(d, 2.5), np.percentile(d, 97.5)
        rows.append((labels[i], labels[j], rating[i] - rating[j], lo, hi, bool(lo > 0 or hi < 0)))
    return pd.DataFrame(rows, columns=DIFFERENCE_COLUMNS)


def _calibration(data: OrderData, theta: np.ndarray, labels: list[str]) -> pd.DataFrame:
    """Observed win rate of each strategy at each table composition against the model's prediction.

    The prediction is the chance of first place, ``exp(theta_i) / sum(exp(theta_k))`` over the table;
    ``z`` is the observed wins' distance from it in binomial standard errors, its two-sided p-value
    Holm-adjusted over every cell, and a cell ``fails`` where the adjusted p is below :data:`ALPHA`.
    """
    rows = []
    for comp in sorted(data.tables):
        m, wins = data.tables[comp]
        e = np.exp(theta[list(comp)] - logsumexp(theta[list(comp)]))
        for who, pred in zip(comp, e):
            obs = wins[who] / m
            lo, hi = wilson_array(np.array([wins[who]]), np.array([m]))
            z = (wins[who] - m * pred) / math.sqrt(m * pred * (1 - pred)) if 0 < pred < 1 else math.nan
            p = 2 * norm.sf(abs(z)) if np.isfinite(z) else math.nan
            rows.append([", ".join(labels[k] for k in comp), labels[who], m, obs, float(lo[0]), float(hi[0]),
                         float(pred), z, p])  # fmt: skip
    df = pd.DataFrame(rows, columns=CALIBRATION_COLUMNS[:-2])
    df["p_holm"] = holm(df["p_value"].fillna(1.0).tolist()) if len(df) else []
    df["fails"] = df["p_holm"] < ALPHA
    return df
