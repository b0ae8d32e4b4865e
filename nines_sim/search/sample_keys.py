"""The sampled worlds' own numbers, compiled: each sample's four random keys and its match index.

A world's card and decision keys (what its rollouts' reshuffles and strategies draw on) come from its game's
decision stream, four counters a sample (:func:`nines_sim.search.sampler.sample_positions`); with the match index
they are the only fields a sample does not share with its game besides the dealt cards.  Written here in one pass
over the samples' rows, where numpy took a stream over all of them and a strided write per column.
"""

from __future__ import annotations

from numba import njit

from nines_sim.engine.code_cache import seal_module
from nines_sim.engine.slots import COLUMNS
from nines_sim.engine.turn_loop import stream

#: The columns written: the keys' (``keys``) in the order of their counters, and the match index's (``st``).
_K_CHK, _K_DHK, _K_CMK, _K_DMK = (COLUMNS[c] for c in ("K_CHK", "K_DHK", "K_CMK", "K_DMK"))
_S_MATCH = COLUMNS["S_MATCH"]


@njit(cache=True, error_model="numpy")
def write_sample_keys(base, purpose, K, keys, st):  # noqa: ANN001, ANN201 - numba types them
    """Sample ``k`` of game ``g`` (row ``r = g * K + k``): its hand key, decision hand key, match key and decision
    match key from counters ``4k`` to ``4k + 3`` of the game's stream, and match index ``r``.

    Parameters
    ----------
    base : numpy.ndarray
        uint64, (n,): each game's random word for the decision (:meth:`~nines_sim.strategy.base.Observation.random`).
    purpose : numpy.uint64
        The stream's purpose (:func:`nines_sim.search.sample_deal.purpose_word`).
    K : int
        Samples per game.
    keys, st : numpy.ndarray
        uint64 (n K, NKEY) and int64 (n K, NST): the samples' slot state (:data:`nines_sim.engine.slots.FIELDS`),
        written in place.
    """
    for g in range(base.shape[0]):
        for k in range(K):
            r = g * K + k
            c = 4 * k
            keys[r, _K_CHK] = stream(base[g], purpose, c)
            keys[r, _K_DHK] = stream(base[g], purpose, c + 1)
            keys[r, _K_CMK] = stream(base[g], purpose, c + 2)
            keys[r, _K_DMK] = stream(base[g], purpose, c + 3)
            st[r, _S_MATCH] = r


# numba's cache checks only this file's timestamp: key it by every file the code takes in
seal_module(globals())
