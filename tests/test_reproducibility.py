"""A match is a pure function of (seed, match index, rules, lineup)."""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest

from nines_sim.engine.batch import CompiledEngine
from nines_sim.game.rules import make_rules
from nines_sim.results.records import HandRecords, MatchResults
from nines_sim.runs.simulate import simulate
from nines_sim.strategy.registry import make_lineup
from tests.interrupt import built_ins_as_python_seats

LINEUP = ["random", "hold-nines", "dump-faces", "suit-majority"]


def assert_same(a: MatchResults, b: MatchResults) -> None:
    for k in ("match", "totals", "win_share", "hands", "tiebreak_hands", "first_dealer"):
        assert np.array_equal(getattr(a, k), getattr(b, k)), k
    for f in fields(HandRecords):
        assert np.array_equal(getattr(a.hand_records, f.name), getattr(b.hand_records, f.name)), f.name


@pytest.mark.parametrize("preset", ["classic", "double-nines+skip-reverse", "draw-until-playable"])
def test_same_results_for_batch_sizes_1_7_1000(preset):
    rules = make_rules(preset)
    runs = [simulate(rules, LINEUP, 60, seed=42, batch_size=b) for b in (1, 7, 1000)]
    assert_same(runs[0], runs[1])
    assert_same(runs[0], runs[2])


def test_same_results_for_one_and_two_worker_processes():
    rules = make_rules("classic")
    one = simulate(rules, LINEUP, 3000, seed=7, workers=1, batch_size=512)
    two = simulate(rules, LINEUP, 3000, seed=7, workers=2, batch_size=256, chunk_size=700)
    assert_same(one, two)


def test_results_merge_in_match_order_whatever_order_the_parts_come_in():
    rules = make_rules("classic")
    parts = [simulate(rules, LINEUP, 40, seed=3, start=s) for s in (0, 40, 80)]
    ordered = MatchResults.concat(parts)
    assert np.array_equal(ordered.match, np.arange(120))
    hr = ordered.hand_records
    assert np.array_equal(np.lexsort((hr.hand, hr.match)), np.arange(len(hr)))
    assert_same(MatchResults.concat(parts[::-1]), ordered)
    assert_same(MatchResults.concat([MatchResults.concat(parts[1:]), parts[0]]), ordered)


def test_several_workers_get_several_chunks_each_and_one_process_one():
    from nines_sim.runs.simulate import default_chunk_size

    assert default_chunk_size(200_000, 1, 32768) == 200_000
    assert default_chunk_size(200_000, 2, 32768) == 25_000
    assert default_chunk_size(3_000, 2, 32768) == 2_000
    assert default_chunk_size(10_000_000, 2, 1000) == 4_000


def test_a_match_replayed_alone_equals_it_inside_a_run():
    rules = make_rules("classic")
    run = simulate(rules, LINEUP, 500, seed=3, batch_size=128)
    alone = simulate(rules, LINEUP, 1, seed=3, start=321)
    assert np.array_equal(alone.totals[0], run.totals[321])
    assert np.array_equal(alone.hand_records.penalty, run.hand_records.penalty[run.hand_records.match == 321])


def test_different_seeds_give_different_matches():
    rules = make_rules("classic")
    a = simulate(rules, LINEUP, 200, seed=1)
    b = simulate(rules, LINEUP, 200, seed=2)
    assert not np.array_equal(a.totals, b.totals)


@pytest.mark.parametrize("preset", ["classic", "double-nines+skip-reverse"])
def test_no_decision_in_a_finished_match_at_any_batch_size(preset, monkeypatch):
    """When the match range runs out, finished slots are masked: strategies are asked about live matches only."""
    built_ins_as_python_seats(monkeypatch)  # the classes are asked, a batch of games at a time
    rules = make_rules(preset)
    played = set()
    for batch in (4, 13, 30):
        e = CompiledEngine(rules, make_lineup(LINEUP), 5, 10, 30, batch_size=batch)
        asked: list[np.ndarray] = []
        decide = e.broker.decide

        def recording(kind, idx, seats, legal=None, card=None, e=e, asked=asked, decide=decide):  # noqa: ANN001, ANN202
            asked.append(e.match[idx].copy())
            return decide(kind, idx, seats, legal=legal, card=card)

        e.broker.decide = recording
        res = e.run()
        asked_matches = np.concatenate(asked)
        assert asked_matches.min() >= 10 and asked_matches.max() < 40  # real matches of the range, never -1
        played.add((int(res.hand_records.turns.sum()), res.totals.tobytes()))
    assert len(played) == 1  # the turns played and the results, whatever the batch
