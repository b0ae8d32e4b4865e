"""Named benchmark workloads and their timing (matches/s, hands/s, turns/s).

Each workload plays full matches with a fixed lineup and rule set.  A timing is
the median of ``repeat`` runs; every run plays the same matches (seed 0), so
runs differ only in speed.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass

from nines_sim.rules import make_rules
from nines_sim.simulate import cpu_count, simulate

#: name -> (description, preset, players, lineup)
WORKLOADS: dict[str, tuple[str, str, int, tuple[str, ...]]] = {
    "W1": ("classic, 4 x random", "classic", 4, ("random",) * 4),
    "W2": ("classic, 2 x random", "classic", 2, ("random",) * 2),
    "W3": ("classic, 6 x random", "classic", 6, ("random",) * 6),
    "W4": ("classic, the four built-ins", "classic", 4, ("random", "hold-nines", "dump-faces", "suit-majority")),
    "W5": ("double-nines, 6 x random", "double-nines", 6, ("random",) * 6),
}


@dataclass
class BenchResult:
    """Median timing of one workload.

    Attributes
    ----------
    workload : str
    matches : int
        Matches per run.
    workers : int
        Worker processes.
    seconds : float
        Median wall time of a run, seconds.
    matches_per_s, hands_per_s, turns_per_s : float
        Throughput of the median run (regular hands; turns of regular hands).
    cores : int
        CPU cores available to this process.
    repeat : int
        Runs timed.
    """

    workload: str
    matches: int
    workers: int
    seconds: float
    matches_per_s: float
    hands_per_s: float
    turns_per_s: float
    cores: int
    repeat: int

    def as_dict(self) -> dict:
        return asdict(self)


def run_workload(
    name: str, matches: int, workers: int = 1, repeat: int = 3, batch_size: int | None = None
) -> BenchResult:
    """Time one workload.

    Raises
    ------
    KeyError
        For an unknown workload name.
    """
    _, preset, players, lineup = WORKLOADS[name]
    rules = make_rules(preset, players=players)
    kw = {} if batch_size is None else {"batch_size": batch_size}
    times, hands, turns = [], 0, 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = simulate(rules, list(lineup), matches, seed=0, workers=workers, **kw)
        times.append(time.perf_counter() - t0)
        hands = len(res.hand_records)
        turns = int(res.hand_records.turns.sum())
    sec = statistics.median(times)
    return BenchResult(name, matches, workers, sec, matches / sec, hands / sec, turns / sec, cpu_count(), repeat)
