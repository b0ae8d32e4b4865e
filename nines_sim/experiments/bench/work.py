"""Named benchmark workloads and their timing (matches/s, hands/s, turns/s).

Each workload plays full matches with a fixed lineup and rule set.  A timing is
the median of ``repeat`` runs; every run plays the same matches (seed 0), so
runs differ only in speed.

A run is what ``nines tournament`` does with that lineup as a table: the same
engine and worker pool play every match and hand, each worker tallies its
finished matches as it goes (:mod:`nines_sim.results.tally`) and sends back only the
tally.  Hands and turns per second are read from the tallies.  It does not
time :func:`nines_sim.runs.simulate.simulate`, which returns every hand record (about
670 bytes a match) and so also measures moving those between processes.
"""

from __future__ import annotations

import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from nines_sim.game.path_lookup import look_up, shown
from nines_sim.game.rules import make_rules
from nines_sim.runs.simulate import DEFAULT_BATCH, cpu_count
from nines_sim.experiments.tournament.work import plan_tournament, run_plan

#: The README's batched plug-in (a Python seat): W7 keeps the plug-in path measured.
PLUGIN = "nines_sim.lowest_first:LowestFirst"

#: What a Ctrl-C prints at once during a timed run: a stopped run's time says nothing, so nothing of it is kept.
STOP_NOTICE = "Stopping (Ctrl-C): the run being timed is dropped; workloads already measured are kept."

#: name -> (description, preset, players, lineup)
WORKLOADS: dict[str, tuple[str, str, int, tuple[str, ...]]] = {
    "W1": ("classic, 4 x random", "classic", 4, ("random",) * 4),
    "W2": ("classic, 2 x random", "classic", 2, ("random",) * 2),
    "W3": ("classic, 6 x random", "classic", 6, ("random",) * 6),
    "W4": ("classic, the four built-ins", "classic", 4, ("random", "hold-nines", "dump-faces", "suit-majority")),
    "W5": ("double-nines, 6 x random", "double-nines", 6, ("random",) * 6),
    "W6": ("classic, expert v the heuristics", "classic", 4, ("expert", "hold-nines", "dump-faces", "suit-majority")),
    "W7": ("classic, README plug-in + 3 random", "classic", 4, (PLUGIN, "random", "random", "random")),
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
    paired : list of float
        With a reference run right before each run (``before_each``): reference matches/s over this
        run's matches/s, one per run (empty otherwise).
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
    paired: list[float] = field(default_factory=list)

    @property
    def paired_ratio(self) -> float | None:
        """Median of :attr:`paired` (reference speed over this workload's), ``None`` without pairs."""
        return statistics.median(self.paired) if self.paired else None

    def as_dict(self) -> dict:
        return asdict(self)


def run_workload(
    name: str,
    matches: int,
    workers: int = 1,
    repeat: int = 3,
    batch_size: int | None = None,
    before_each: Callable[[], float] | None = None,
) -> BenchResult:
    """Time one workload, played as a one-table tournament (see the module docstring).

    Parameters
    ----------
    name : str
        A key of :data:`WORKLOADS`.
    matches : int
        Matches per run, >= 1.
    workers : int
        Worker processes (1 plays in this process).
    repeat : int
        Timed runs, after an untimed one of a few matches; the median wall time is reported.
    batch_size : int, optional
        Games in play at once per process (default: the tournament's).
    before_each : callable, optional
        Run right before each run (e.g. :meth:`CReference.run`), returning a reference speed in
        matches/s: each run is paired with it (``BenchResult.paired``), so that a machine whose
        speed drifts between minutes still gives a fair ratio.

    Raises
    ------
    KeyError
        For an unknown workload name.
    KeyboardInterrupt
        When Ctrl-C stopped a run, the untimed one too (a stopped run's time says nothing about its speed:
        the workload's runs are dropped).
    """
    _, preset, players, lineup = WORKLOADS[name]
    plan = plan_tournament("table", list(lineup), make_rules(preset, players=players))
    times, paired, hands, turns = [], [], 0, 0
    # A few matches first, untimed, so that every timed run plays at full speed: a process's first run of a
    # workload also loads compiled code (the kernel's form for these rules, the tally: about a second, the
    # start-up the README states apart), which made the first of three runs the slowest by a quarter.
    warm = run_plan(plan, min(matches, 100), seed=0, workers=1, batch_size=batch_size or DEFAULT_BATCH,
                    notice=STOP_NOTICE)  # fmt: skip
    if warm.partial:
        raise KeyboardInterrupt
    for _ in range(repeat):
        ref = before_each() if before_each is not None else None
        t0 = time.perf_counter()
        out = run_plan(plan, matches, seed=0, workers=workers, batch_size=batch_size or DEFAULT_BATCH,
                       notice=STOP_NOTICE)  # fmt: skip
        times.append(time.perf_counter() - t0)
        if out.partial:
            raise KeyboardInterrupt
        if ref is not None:
            paired.append(ref * times[-1] / matches)
        tally = out.tallies["table"]
        hands, turns = tally.hands, tally.turns
    sec = statistics.median(times)
    return BenchResult(
        name, matches, workers, sec, matches / sec, hands / sec, turns / sec, cpu_count(), repeat, paired
    )


class ReferenceError(RuntimeError):
    """A reference engine could not be built or run; the message says why."""


def _result_rate(out: str) -> float:
    """Matches/s from the ``RESULT ... median N matches/s`` line of a reference engine."""
    m = re.search(r"^RESULT .*?median ([\d,.]+) matches/s", out, re.MULTILINE)
    if not m:
        raise ReferenceError(f"no 'RESULT ... matches/s' line in the reference's output: {out.strip()[-200:]!r}")
    return float(m.group(1).replace(",", ""))


class CReference:
    """The C reference engine of the repository's ``bench/`` folder, built once and run as often as asked (W1's work).

    Parameters
    ----------
    c_source : Path
        ``nines_c.c``; compiled with ``gcc -O2 -march=native`` into a temporary folder, removed by
        :meth:`close` (or on leaving a ``with`` block).

    Raises
    ------
    ReferenceError
        If the source is missing, or gcc is missing or fails.
    """

    def __init__(self, c_source: Path):
        c_source = Path(c_source)
        kind, why = look_up(c_source)
        if kind == "folder":
            raise ReferenceError(f"{shown(str(c_source))} is a folder; name the C reference's .c file in it")
        if kind != "file":
            raise ReferenceError(f"no C reference at {shown(str(c_source))}{why and ' '}{why}")
        gcc = shutil.which("gcc")
        if gcc is None:
            raise ReferenceError("gcc is not on PATH; it is needed to build the C reference")
        self.source = c_source
        self._tmp = tempfile.TemporaryDirectory()
        self.exe = Path(self._tmp.name) / "nines_c"
        done = subprocess.run(
            [gcc, "-O2", "-march=native", "-o", str(self.exe), str(c_source)], capture_output=True, text=True
        )
        if done.returncode != 0:
            self.close()
            errors = [line for line in done.stderr.splitlines() if "error" in line] or [done.stderr.strip()]
            raise ReferenceError(f"gcc failed on {c_source}: {errors[0].strip()[:300]}")

    def run(self, seconds: float = 3.0, players: int = 4) -> float:
        """Matches/s of full classic matches with random play (the median of the engine's three repeats of
        ``seconds``)."""
        done = subprocess.run([str(self.exe), "match", str(seconds), str(players), "1"], capture_output=True, text=True)
        return _result_rate(done.stdout)

    def close(self) -> None:
        self._tmp.cleanup()

    def __enter__(self) -> CReference:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def reference_speeds(
    c_source: Path, seconds: float = 3.0, players: int = 4, c: CReference | None = None
) -> dict[str, float]:
    """Build and run the reference engines of ``bench/`` in this sitting (W1's work: classic, random play).

    Parameters
    ----------
    c_source : Path
        ``nines_c.c``; compiled with ``gcc -O2 -march=native``.  A ``nines_py.py``
        beside it (the plain-Python loop) is run too.
    seconds : float
        Seconds per repeat (each reference takes the median of three repeats).
    c : CReference, optional
        The C engine already built from ``c_source`` (built here otherwise).

    Returns
    -------
    dict
        ``{"C": matches/s, "plain Python": matches/s}`` (the latter only where ``nines_py.py`` exists).

    Raises
    ------
    ReferenceError
        If the source is missing, gcc is missing or fails, or a reference prints no result.
    """
    out: dict[str, float] = {}
    if c is not None:
        out["C"] = c.run(seconds, players)
    else:
        with CReference(c_source) as built:
            out["C"] = built.run(seconds, players)
    py = Path(c_source).parent / "nines_py.py"
    if look_up(py)[0] == "file":
        run = subprocess.run(
            [sys.executable, str(py), "match", str(seconds), str(players), "1"], capture_output=True, text=True
        )
        out["plain Python"] = _result_rate(run.stdout)
    return out


#: ``nines bench startup``: what a user waits for before an answer, each command a fresh process run as
#: typed (default workers; the compiled cache warm), beside ``python -c "import pandas"`` timed in the same
#: sitting as the yardstick (issue 22: a usage error as fast as ``--help``; a 1,000-match tournament under
#: 2.5 s and at most 4 times the pandas import on a 2-core machine).  name -> (shown as, arguments).
STARTUP: dict[str, tuple[str, list[str]]] = {
    "pandas": ('python -c "import pandas"', ["-c", "import pandas"]),
    "help": ("nines --help", ["-m", "nines_sim", "--help"]),
    "usage error": ("nines tournament no-such-strategy", ["-m", "nines_sim", "tournament", "no-such-strategy"]),
    "tournament": (
        "nines tournament -n 1000 --no-charts --quiet",
        ["-m", "nines_sim", "tournament", "-n", "1000", "--no-charts", "--quiet", "--out", "{out}", "--force"],
    ),
}
#: The exit code each start-up command should end with (a usage error exits 2).
STARTUP_EXIT = {"usage error": 2}


class BenchError(RuntimeError):
    """A timed command failed; the message says which and how."""


@dataclass
class StartupResult:
    """Wall time of one command of :data:`STARTUP`, run as a fresh process.

    Attributes
    ----------
    name : str
        A key of :data:`STARTUP`.
    command : str
        The command as a user types it (run as ``python -m nines_sim``).
    seconds : float
        Median wall time, seconds.
    runs : list of float
        Every timed run, seconds, in order.
    ratio_to_pandas : float
        ``seconds`` over the median of ``python -c "import pandas"`` in the same sitting.
    """

    name: str
    command: str
    seconds: float
    runs: list[float]
    ratio_to_pandas: float

    def as_dict(self) -> dict:
        return asdict(self)


def _timed(args: list[str], expect: int) -> float:
    """Wall seconds of ``python ARGS`` as a fresh process; a :class:`BenchError` on another exit code."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if done.returncode != expect:
        tail = (done.stderr.strip() or done.stdout.strip())[-300:]
        raise BenchError(f"'{' '.join(args)}' exited {done.returncode}, not {expect}: {tail}")
    return seconds


def time_startup(repeat: int = 5, names: list[str] | None = None) -> list[StartupResult]:
    """Time the start-up commands (:data:`STARTUP`) as fresh processes, interleaved, median of ``repeat``.

    Each command runs once untimed first (so that the compiled cache, the file cache and any first
    compile are behind it), then the commands take turns ``repeat`` times, so that a load that comes and
    goes on a shared machine falls on all of them alike.

    Parameters
    ----------
    repeat : int
        Timed runs of each command, >= 1.
    names : list of str, optional
        Keys of :data:`STARTUP` to time (default: all); the pandas import is always timed.

    Returns
    -------
    list of StartupResult
        In the order of :data:`STARTUP`, the pandas import first.

    Raises
    ------
    BenchError
        When a command exits with another code than expected (0; 2 for the usage error).
    """
    wanted = ["pandas"] + [n for n in (names or list(STARTUP)) if n != "pandas"]
    with tempfile.TemporaryDirectory() as tmp:
        args = {n: [a.format(out=str(Path(tmp) / "run")) for a in STARTUP[n][1]] for n in wanted}
        for n in wanted:  # untimed: warm caches
            _timed(args[n], STARTUP_EXIT.get(n, 0))
        runs: dict[str, list[float]] = {n: [] for n in wanted}
        for _ in range(repeat):
            for n in wanted:
                runs[n].append(_timed(args[n], STARTUP_EXIT.get(n, 0)))
    base = statistics.median(runs["pandas"])
    return [
        StartupResult(n, STARTUP[n][0], statistics.median(runs[n]), runs[n], statistics.median(runs[n]) / base)
        for n in wanted
    ]
