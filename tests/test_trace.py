"""The trace form of the compiled turn loop: the events it writes agree with the results it records.

(The events themselves are checked move for move against the plain-Python reference in
``test_reference_agreement.py``, and as printed text in ``test_replay_transcripts.py``.)
"""

from __future__ import annotations

import numpy as np
import pytest

from nines_sim.engine import batch as compiled
from nines_sim.engine.batch import CompiledEngine
from nines_sim.game.rules import make_rules
from nines_sim.strategy.registry import make_lineup


@pytest.mark.parametrize(
    "preset,lineup",
    [
        ("classic", ["expert", "random", "hold-nines"]),
        ("double-nines+skip-reverse+draw-until-playable", ["random", "dump-faces", "suit-majority", "expert"]),
    ],
)
def test_a_traced_run_of_many_matches_per_slot_holds_each_matchs_events_once(preset, lineup, monkeypatch):
    # a small buffer, so that one slot's matches fill it many times over and the kernel stops to have it drained
    monkeypatch.setattr(compiled, "EVENT_ROWS", 1024)
    rules = make_rules(preset, players=len(lineup))
    n = 30
    eng = CompiledEngine(rules, make_lineup(lineup), 5, 10, n, trace=True)
    res = eng.run()
    plain = CompiledEngine(rules, make_lineup(lineup), 5, 10, n).run()
    assert np.array_equal(res.totals, plain.totals) and np.array_equal(res.win_share, plain.win_share)
    assert sorted(eng.trace) == list(range(10, 10 + n))
    hr = res.hand_records
    for j, m in enumerate(res.match.tolist()):
        ev = eng.trace[m]
        assert ev[-1] == ("match_end", tuple(res.totals[j].tolist()), tuple(res.win_share[j].tolist()))
        ends = [e for e in ev if e[0] == "end"]
        assert len(ends) == res.hands[j] + res.tiebreak_hands[j]
        mine = np.flatnonzero(hr.match == m)
        # the regular hands come first, then any tie-break hands (S4), which keep no hand records
        assert [e[2] for e in ends[: len(mine)]] == [tuple(p) for p in hr.penalty[mine].tolist()]
        # each hand's turns are numbered from 0 and their count is the hand's recorded turns (T8's counter)
        turns, counts = -1, []
        for e in ev:
            if e[0] == "deal":
                turns = -1
            elif e[0] == "turn":
                assert e[1] == turns + 1
                turns = e[1]
            elif e[0] == "end":
                counts.append(turns + 1)
        assert counts[: len(mine)] == hr.turns[mine].tolist()
