"""``nines bench --against-c``'s ratios, computed in the benchmark's home (``experiments/bench/ratios.py``): the
command only prints them."""

from __future__ import annotations

import pytest

from nines_sim.experiments.bench import ratios
from nines_sim.experiments.bench.work import BenchResult


def _result(matches_per_s: float, paired: list[float]) -> BenchResult:
    return BenchResult("W1", 1000, 1, 1000 / matches_per_s, matches_per_s, 6 * matches_per_s, 150 * matches_per_s,
                       2, len(paired) or 1, paired)  # fmt: skip


def test_a_workload_is_paired_with_c_and_set_against_the_other_references_timed_at_the_start(monkeypatch):
    """C's ratio is the median of the per-run pairs (C just before each run); plain Python's is its speed at the
    start of the sitting over the workload's."""
    asked = {}

    def timed(name, matches, workers, repeat, batch_size, before_each):
        asked.update(name=name, matches=matches, repeat=repeat, before_each=before_each)
        return _result(4000.0, [3.0, 9.0, 5.0])

    monkeypatch.setattr(ratios, "run_workload", timed)
    sitting = ratios.Sitting(None)
    sitting.references = {"C": 20_000.0, "plain Python": 100.0}
    m = sitting.measure("W1", 1000, repeat=3)
    assert asked == {"name": "W1", "matches": 1000, "repeat": 3, "before_each": None}
    assert m.slower == {"C": 5.0, "plain Python": 0.025}
    assert m.ratio_words() == "  = 1/5.0 of C  = 40.0x of plain Python"
    row = m.as_json()
    assert row["ratio_to_C"] == pytest.approx(0.2) and row["ratio_to_plain_Python"] == pytest.approx(40.0)
    assert row["c_over_this_per_run"] == [3.0, 9.0, 5.0] and row["matches_per_s"] == 4000.0
    assert ratios.bench_json([m], sitting.references) == {"references": sitting.references, "workloads": [row]}


def test_without_references_there_are_no_ratios():
    m = ratios.Measured(_result(4000.0, []))
    assert m.ratio_words() == ""
    assert "c_over_this_per_run" not in m.as_json() and not any(k.startswith("ratio_to") for k in m.as_json())
    assert ratios.bench_json([m], {}) == [m.as_json()]


@pytest.mark.parametrize(("x", "ref", "text"), [(1.0, 3.2, "1/3.2"), (4.1, 1.0, "4.1x"), (1.0, 1.0, "1.0x")])
def test_a_ratio_reads_as_a_fraction_below_the_reference_and_a_multiple_above(x, ref, text):
    assert ratios.ratio_text(x, ref) == text
