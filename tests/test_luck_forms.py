"""What a first ``--luck`` run compiles (issue 42): the luck walk once for the fit and the run.  Counted from
numba's signatures, never timed."""

from __future__ import annotations

import numba
import numpy as np

from nines_sim.engine.loop_constants import EV_WIDTH
from nines_sim.engine.seats import seat_ids
from nines_sim.game.rules import make_rules
from nines_sim.luck import compiled
from nines_sim.luck.features import N_FEATURES, NJ
from nines_sim.luck.measure import FIT_START
from nines_sim.luck.value import LinearValue
from nines_sim.strategy.registry import make_lineup


def test_the_fit_and_the_run_walk_with_one_signature(monkeypatch):
    """The fit's walker (no value: the constant one, of shape (P, N_FEATURES)) and a run's walker (a fitted value, (3,
    P, N_FEATURES) with its points) pass the walk arrays of the same kinds: numba compiles it once.  numpy kept the
    constant value's broadcast strides in its copy, and the fit compiled the whole walk a second time for that layout
    (about 10 s of processor time)."""
    kinds = []
    monkeypatch.setattr(compiled, "walk", lambda *args: kinds.append(tuple(numba.typeof(a) for a in args)))
    rules = make_rules("classic", players=2)
    sids = seat_ids(make_lineup(["expert", "dump-faces"]))
    rows = np.zeros((0, EV_WIDTH), dtype=np.int64)
    compiled.RowWalker(rules, sids, FIT_START, 0, reuse=True, keep_parts=False).feed(0, rows)  # a fit's chunk
    fitted = LinearValue(np.ones((3, 2, N_FEATURES)), "fitted", np.ones((3, 2, NJ)))
    value = compiled.value_factors(fitted)
    compiled.RowWalker(rules, sids, 0, 0, keep_hands=False, value=value, keep_parts=False).feed(0, rows)  # a run's
    assert len(kinds) == 2 and len(set(kinds)) == 1, set(kinds)
