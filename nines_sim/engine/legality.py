"""The engine's legality, asked from Python: whether two 9s together may be played (V4, V5, V6).

The turn loop decides it in compiled code (:func:`nines_sim.engine.decisions.pair_legal`); an
:class:`~nines_sim.strategy.base.Observation` and the broker's check of a Python seat's answer ask the
same function here, so the rule is stated once.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from nines_sim.engine.code_cache import seal_module
from nines_sim.engine.decisions import pair_legal
from nines_sim.engine.loop_constants import rules_params
from nines_sim.game.rules import Rules


@njit(cache=True, error_model="numpy", _nrt=False)
def _pair_legal_rows(top, active, hands, ncards, rp, legal_tab, out):  # noqa: ANN001, ANN202 - compiled
    for b in range(top.shape[0]):
        out[b] = pair_legal(top[b], active[b], hands, ncards, rp, legal_tab, b, 0, hands.shape[0], True)


def pair_legal_rows(hand: list[np.ndarray], top: np.ndarray, active: np.ndarray, count: np.ndarray, rules: Rules,
                    legal_tab: np.ndarray) -> np.ndarray:  # fmt: skip
    """Whether two 9s together are a legal move (V4, V5, V6), as the turn loop decides it.

    Parameters
    ----------
    hand : list of numpy.ndarray
        ``D`` uint64 arrays, (n,): the player's count-coded hand.
    top, active, count : numpy.ndarray
        int64, (n,): top face, active suit, cards in the player's hand.
    rules : Rules
    legal_tab : numpy.ndarray
        The table of :func:`nines_sim.game.tables.legal_table`.

    Returns
    -------
    numpy.ndarray
        bool, (n,); all False unless the rules allow two 9s together (V4).
    """
    n = top.shape[0]
    out = np.zeros(n, dtype=np.bool_)
    if not rules.pair_of_nines or n == 0:
        return out
    hands = np.ascontiguousarray(np.stack(hand)[:, :, None], dtype=np.uint64)  # (D, n, 1): seat 0 of n slots
    ncards = np.ascontiguousarray(count, dtype=np.int64)[:, None]
    _pair_legal_rows(np.ascontiguousarray(top, dtype=np.int64), np.ascontiguousarray(active, dtype=np.int64), hands,
                     ncards, rules_params(rules), legal_tab, out)  # fmt: skip
    return out


# numba's cache checks only this file's timestamp: key it by every file the code takes in
seal_module(globals())
