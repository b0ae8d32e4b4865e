"""call_form: a compiled function called through its entry point answers as the dispatcher does, for every
kind of argument, and a new kind of argument is typed (and compiled) again rather than given another's code."""

from __future__ import annotations

import numpy as np
from numba import njit

from nines_sim.engine.entry import _ENTRIES, call_form


@njit(cache=False)
def _weighted(a, w, k, scale):  # noqa: ANN001, ANN202 - numba-typed
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i] * w[0][i] + w[1]
    return total * scale + k


def test_entry_calls_answer_as_the_dispatcher_for_each_kind_of_argument():
    a = np.arange(6, dtype=np.int64)
    w = (np.linspace(0.0, 1.0, 6), 2.5)
    kinds = [
        (a, w, 3, 1.0),
        (a[::2], (w[0][::2], 2.5), 3, 1.0),  # strided views: numba's 'A' layout, another compiled form
        (a.astype(np.int32), w, 3, 1.0),
        (a, w, True, 1.0),  # a bool, though an int to Python, is typed boolean
        (a, w, 3, np.float32(0.5)),
    ]
    for args in kinds * 2:  # the second time through, every call takes the stored entry point
        assert call_form(_weighted, *args) == _weighted.py_func(*args), args
    mine = [k for k in _ENTRIES if k[0] == id(_weighted)]
    assert len(mine) == len(kinds)  # one entry per kind of argument, none shared between kinds
    assert len(_weighted.overloads) == len(kinds)
