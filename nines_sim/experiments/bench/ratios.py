"""The workloads timed against the reference engines of ``bench/`` in one sitting (``nines bench --against-c``).

A :class:`Sitting` builds the C engine once, times the references (C and, beside it, the plain-Python loop)
and then each workload, with C run again right before each of the workload's runs
(:data:`PAIRED_C_SECONDS`): a machine whose speed drifts between minutes still gives a fair ratio to C.
A :class:`Measured` holds a workload's timing and its ratios; :func:`bench_json` is ``--json``'s document.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from nines_sim.experiments.bench.work import BenchResult, CReference, reference_speeds, run_workload

#: Seconds of each of the C engine's three repeats run right before each bench run (``--against-c``).
PAIRED_C_SECONDS = 0.5


@dataclass
class Measured:
    """One workload's timing and how much slower it ran than each reference.

    Attributes
    ----------
    result : BenchResult
    slower : dict of str to float
        Per reference (``"C"``, ``"plain Python"``): its matches/s over the workload's.  For C, the median
        over the runs of C's speed just before each run (:attr:`BenchResult.paired_ratio`); for the
        others, their speed at the start of the sitting.  Empty without references.
    """

    result: BenchResult
    slower: dict[str, float] = field(default_factory=dict)

    def ratio_words(self) -> str:
        """The ratios as the table's line ends them: ``  = 1/1.8 of C  = 50.8x of plain Python``."""
        return "".join(f"  = {ratio_text(1.0, x)} of {k}" for k, x in self.slower.items())

    def as_json(self) -> dict:
        """The workload's entry of ``--json``: its timing, ``ratio_to_<reference>`` (the workload's speed over
        the reference's) and, with C paired, ``c_over_this_per_run``."""
        keys = ("workload", "matches", "workers", "seconds", "matches_per_s", "hands_per_s", "turns_per_s", "cores")
        row = {k: self.result.as_dict()[k] for k in keys}
        row.update({f"ratio_to_{k.replace(' ', '_')}": 1.0 / x for k, x in self.slower.items()})
        if self.result.paired:
            row["c_over_this_per_run"] = self.result.paired
        return row


def ratio_text(x: float, ref: float) -> str:
    """``x`` against ``ref`` as a reader compares speeds: ``1/3.2`` below the reference, ``4.1x`` above it."""
    return f"{x / ref:.1f}x" if x >= ref else f"1/{ref / x:.1f}"


def bench_json(measured: list[Measured], references: dict[str, float]) -> list[dict] | dict:
    """``nines bench --json``: the workloads' entries (:meth:`Measured.as_json`), in an object with the
    references' speeds (matches/s) when there are any."""
    listed = [m.as_json() for m in measured]
    return {"references": references, "workloads": listed} if references else listed


class Sitting:
    """The workloads of one ``nines bench``, timed against the references built in the same sitting.

    Parameters
    ----------
    c_source : Path or None
        The C reference's ``nines_c.c`` (built here, with :class:`CReference`), or None: no references, no
        ratios.

    Raises
    ------
    nines_sim.experiments.bench.work.ReferenceError
        If the C reference is missing or does not build.
    """

    def __init__(self, c_source: Path | None) -> None:
        self.c_source = c_source
        self.c = CReference(c_source) if c_source is not None else None
        #: The references' speeds, matches/s (:meth:`time_references`; empty until then, or without them).
        self.references: dict[str, float] = {}

    def time_references(self) -> dict[str, float]:
        """Time the references (:func:`reference_speeds`: W1's work, one core), kept for the ratios.

        Raises
        ------
        nines_sim.experiments.bench.work.ReferenceError
            If a reference prints no result.
        """
        if self.c is not None:
            self.references = reference_speeds(self.c_source, c=self.c)
        return self.references

    def measure(
        self, name: str, matches: int, workers: int = 1, repeat: int = 3, batch_size: int | None = None
    ) -> Measured:
        """Time workload ``name`` (:func:`run_workload`), each run right after :data:`PAIRED_C_SECONDS` of C when
        there is a C reference, and its ratios to the references.

        Raises
        ------
        KeyError
            For an unknown workload.
        KeyboardInterrupt
            When Ctrl-C stopped a run (the workload is not measured).
        """
        before = (lambda: self.c.run(PAIRED_C_SECONDS)) if self.c is not None else None
        r = run_workload(name, matches, workers=workers, repeat=repeat, batch_size=batch_size, before_each=before)
        slower = {k: (r.paired_ratio if k == "C" else v / r.matches_per_s) for k, v in self.references.items()}
        return Measured(r, slower)

    def close(self) -> None:
        """Remove the built C engine."""
        if self.c is not None:
            self.c.close()

    def __enter__(self) -> Sitting:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
