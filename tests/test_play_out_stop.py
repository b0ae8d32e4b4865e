"""Play-outs stopped at a turn (T8's counter): with no stop they are today's play-outs byte for byte, and a
stopped hand played on ends as the hand played through would have."""

from __future__ import annotations

import numpy as np
import pytest

from nines_sim.engine.position import PositionBatch, PositionError
from nines_sim.engine.positions import PositionSlots, play_out, play_out_leaves
from nines_sim.game.rules import make_rules
from nines_sim.learn.value_fit import dealt_positions
from nines_sim.strategy.registry import make_lineup


@pytest.fixture(scope="module", params=[("classic", 2), ("hard-nines", 4)])
def dealt(request):
    preset, players = request.param
    rules = make_rules(preset, players=players)
    lineup = make_lineup(["expert", "dump-faces", "learned", "random"][:players])
    return rules, lineup, dealt_positions(rules, lineup, seed=5, n=24)


def test_no_stop_is_todays_play_out(dealt):
    rules, lineup, batch = dealt
    pen, _ = play_out(batch, lineup, to="hand")
    for stop in (np.zeros(batch.n, dtype=np.int64), np.full(batch.n, rules.turn_cap, dtype=np.int64)):
        got, stopped, _ = play_out_leaves(batch, lineup, stop)
        assert not stopped.any()
        assert np.array_equal(got, pen)
    assert np.array_equal(play_out(batch, lineup, to="hand")[0], pen)  # the batch itself is not changed


def test_a_stopped_hand_played_on_ends_as_played_through(dealt):
    rules, lineup, batch = dealt
    pen, _ = play_out(batch, lineup, to="hand")
    stop = np.random.default_rng(3).integers(1, 30, size=batch.n)
    got, stopped, leaves = play_out_leaves(batch, lineup, stop)
    assert stopped.any() and not stopped.all()
    st = PositionBatch(rules, state=leaves)
    assert np.array_equal(st.column("turn")[stopped], stop[stopped])  # every leaf stands before its turn
    assert np.array_equal(got[~stopped], pen[~stopped])  # hands that ended first score as before
    # the stop scores nothing (S1, D2)
    assert np.array_equal(st.column("dealer")[stopped], batch.column("dealer")[stopped])
    assert np.array_equal(leaves.totals[stopped], batch.state.totals[stopped])
    on, _ = play_out(st.take(np.flatnonzero(stopped)), lineup, to="hand")
    assert np.array_equal(on, pen[stopped])


def test_a_stop_only_to_the_hands_end(dealt):
    rules, lineup, batch = dealt
    with pytest.raises(PositionError, match="only to the hand's end"):
        PositionSlots(batch, "match", lineup, stop=np.ones(batch.n, dtype=np.int64))
