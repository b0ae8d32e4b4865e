"""A model's strength measured by whole matches: a seat's win shares, and two players compared on the same deals.

The units of :func:`nines_sim.learn.train.strength` (a round's measure, run here or on a backend) and the paired
comparison the strategies page reports (``paired_strength``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nines_sim.game.rules import Rules
from nines_sim.learn.work import ModelFile, local_spec


def seat_wins(rules: Rules, lineup: tuple[str | ModelFile, ...], seed: int, start: int, n: int, seat: int, *,
              on_matches: Any = None, should_stop: Any = None) -> float:  # fmt: skip
    """A unit of :func:`strength`: the win shares of ``seat`` over matches ``start .. start+n-1`` of ``lineup``.

    It is not stopped by a Ctrl-C (a measure takes seconds; the round it ends is then kept)."""
    return float(seat_shares(rules, lineup, seed, start, n, seat).sum())


def seat_shares(rules: Rules, lineup: tuple[str | ModelFile, ...], seed: int, start: int, n: int,
                seat: int) -> np.ndarray:  # fmt: skip
    """The win share of ``seat`` in each of matches ``start .. start+n-1`` of ``lineup``: float64 (n,)."""
    from nines_sim.runs.simulate import DEFAULT_BATCH, simulate_range

    r = simulate_range(rules, [local_spec(x) for x in lineup], seed, start, n, DEFAULT_BATCH)
    assert r is not None  # nothing stops it
    return np.asarray(r.win_share[:, seat], dtype=np.float64)


def paired_strength(rules: Rules, spec: str, base: str, against: str, n: int, seed: int
                    ) -> tuple[float, float, float, int]:  # fmt: skip
    """``spec``'s :func:`strength` minus ``base``'s on the same deals (the same matches of ``seed``, each in the same
    seat), compared match by match: far narrower than the two intervals apart.

    Returns
    -------
    (float, float, float, int)
        The difference of the win rates, its 95% t interval over the matches (scipy.stats), and the matches in
        which the two took different win shares.
    """
    from nines_sim.experiments.tune.work import paired_gain

    P = rules.players
    per = max(1, n // P)
    shares = []
    for who in (spec, base):
        parts = []
        for seat in range(P):
            lineup = [against] * P
            lineup[seat] = who
            parts.append(seat_shares(rules, tuple(lineup), seed, seat * per, per, seat))
        shares.append(np.concatenate(parts))
    diff, (low, high), _ = paired_gain(shares[0], shares[1])
    return diff, low, high, int(np.count_nonzero(shares[0] != shares[1]))
