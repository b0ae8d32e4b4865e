"""Writing a run folder: the CSVs, the manifest, the saved matches.

Headers are the column lists declared in :mod:`nines_sim.experiments.tournament.work`; floats
are written with a fixed format so that equal numbers give equal bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from nines_sim.results.rounding import FLOAT_FORMAT

if TYPE_CHECKING:
    import pandas as pd

RUN_FILES = ("summary.csv", "hands.csv", "score_distribution.csv", "seat_go_out.csv", "pairwise.csv",
             "head_to_head.csv", "comparison.csv", "matches.csv.gz", "manifest.json", "report.md",
             "win_rates.png", "final_totals.png", "hand_penalties.png", "go_out_by_seat.png", "head_to_head.png",
             "win_rates_by_rule_set.png", "final_totals_by_rule_set.png", "sweep.png",
             "ratings.csv", "rating_differences.csv", "calibration.csv", "ratings.png")  # fmt: skip


class OutputExists(FileExistsError):
    """The output folder cannot take the results: it holds files already (without --force) or is not writable."""


def default_run_dir(kind: str, root: Path = Path("reports")) -> Path:
    """A new folder name under ``reports/``: ``<kind>-<UTC date-time>``."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    path = root / f"{kind}-{stamp}"
    n = 1
    while path.exists():
        n += 1
        path = root / f"{kind}-{stamp}-{n}"
    return path


def prepare_dir(path: Path, force: bool) -> bool:
    """Check, before any match is played, that the run folder can take the results (:func:`make_dir`, then
    :func:`check_dir`).

    Returns
    -------
    bool
        Whether the folder was created (so that a failed run can remove it again).

    Raises
    ------
    OutputExists
        As :func:`make_dir` and :func:`check_dir`.
    """
    created = make_dir(path)
    check_dir(path, force)
    return created


def make_dir(path: Path) -> bool:
    """Create the run folder (and its parents) if it is missing; whether this call created it.

    Of two runs that create one folder at once, exactly one did (a failed run removes only a folder it created).

    Raises
    ------
    OutputExists
        If the path is a file, or the folder cannot be created.
    """
    if path.exists() and not path.is_dir():
        raise OutputExists(f"{path} exists and is not a folder; choose another --out")
    try:
        path.mkdir(parents=True)
    except FileExistsError:
        if not path.is_dir():
            raise OutputExists(f"{path} exists and is not a folder; choose another --out") from None
        return False
    except OSError as exc:
        raise OutputExists(f"cannot write to {path} ({exc.strerror or exc}); choose another --out") from None
    return True


def check_dir(path: Path, force: bool) -> None:
    """Check that the run folder (which exists) can take the results: it holds no files unless ``force``, and can
    be written.  Nothing is deleted here: with ``force``, :func:`clear_outputs` removes the previous run's files
    only once the new results are ready to be written.

    Raises
    ------
    OutputExists
        If the folder holds files and ``force`` is off, or cannot be written.
    """
    if any(path.iterdir()) and not force:
        raise OutputExists(
            f"{path} already holds files; choose another --out or add --force to overwrite"
            " (in Python: out=..., force=True)"
        )
    try:
        probe = path / ".nines-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise OutputExists(f"cannot write to {path} ({exc.strerror or exc}); choose another --out") from None


def clear_outputs(path: Path) -> None:
    """Remove a previous run's files (only the names nines-sim writes; nothing else in the folder)."""
    remove_files(path, RUN_FILES)


def remove_files(path: Path, names: Iterable[str]) -> None:
    """Remove the files ``names`` from the folder ``path``, those that are there."""
    for name in names:
        (path / name).unlink(missing_ok=True)


def discard_dir(path: Path, created: bool) -> None:
    """After a failed run: remove the run folder if this run created it and it is still empty."""
    if created and path.is_dir() and not any(path.iterdir()):
        path.rmdir()


def replace_whole(path: Path, write: Callable[[Path], object]) -> Path:
    """Write ``path`` through ``write(temporary path)`` in the same folder, then rename it into place.

    Processes sharing a study may share a run folder: a reader (another process,
    ``nines report``) then sees the old file or the new one, never a half-written one.
    The temporary name is hidden and keeps the suffix (matplotlib picks the format from it).
    """
    tmp = path.with_name(f".{path.stem}-{os.getpid()}.tmp{path.suffix}")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def write_csv(df: pd.DataFrame, path: Path) -> Path:
    """Write ``df`` to ``path`` as a run folder's CSVs are written (:data:`FLOAT_FORMAT`, ``\\n`` line ends); a
    negative zero as ``0`` (``-0`` shows a sign where there is none: a luck of ``-0`` points)."""
    floats = [c for c in df.columns if df[c].dtype.kind == "f"]
    if floats:
        df = df.copy()
        df[floats] = df[floats] + 0.0  # -0.0 + 0.0 is 0.0; every other value stays as it was
    df.to_csv(path, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
    return path


def run_fields(workers: int, batch_size: int, wall_seconds: float, compile_seconds: float, matches: int,
               partial: bool) -> dict:  # fmt: skip
    """The manifest's fields of how any run went, in their order: ``workers``, ``batch_size``, the speed
    (:func:`speed_fields`), ``partial``, ``started``, and the Python and numpy versions."""
    return {
        "workers": workers,
        "batch_size": batch_size,
        **speed_fields(wall_seconds, compile_seconds, matches),
        "partial": partial,
        "started": started_at(wall_seconds),
        "python": platform.python_version(),
        "numpy": np.__version__,
    }


def speed_fields(wall_seconds: float, compile_seconds: float, matches: int) -> dict:
    """The manifest's time and speed: wall time, the part of it spent compiling, and matches/s of play.

    On a first run the engine's compiled code is built while the run waits (``compile_seconds``, as the
    progress bar counts it); the speed counts play only, as the closing line does, so that it does not read
    many times too slow.

    Parameters
    ----------
    wall_seconds : float
        Seconds from the start of the run to its end.
    compile_seconds : float
        Seconds of that spent compiling (0 on a warm cache).
    matches : int
        Matches played (over every game or rule set).

    Returns
    -------
    dict
        ``wall_seconds``, ``compile_seconds`` and ``matches_per_s`` (None when no time was measured).
    """
    compiled = min(max(compile_seconds, 0.0), wall_seconds)
    play = wall_seconds - compiled
    return {
        "wall_seconds": round(wall_seconds, 3),
        "compile_seconds": round(compiled, 3),
        "matches_per_s": round(matches / play, 1) if play > 0 else None,
    }


def kept_fields(out, matches_kept: int, kept_command: str | None) -> dict:  # noqa: ANN001 - either outcome
    """Manifest fields saying which matches a run played and kept, and whether they are enough to rank.

    Parameters
    ----------
    out : nines_sim.experiments.tournament.games.RunOutcome or nines_sim.experiments.compare_rules.work.CompareOutcome
        With ``ranges`` (asked for) and ``kept`` (held by the results), half-open match index pairs.
    matches_kept : int
        Matches each game (or rule set) kept.
    kept_command : str or None
        For a partial run, the command that plays exactly the kept matches again (``--ranges``).

    Returns
    -------
    dict
        ``ranges``, ``kept_ranges`` (lists of [start, end) pairs), ``kept_command``,
        ``too_small_to_rank`` and ``min_matches_to_rank`` (see :data:`nines_sim.results.stats.MIN_MATCHES_TO_RANK`).
    """
    from nines_sim.results.stats import MIN_MATCHES_TO_RANK, too_small_to_rank

    return {
        "ranges": [list(r) for r in out.ranges],
        "kept_ranges": [list(r) for r in out.kept],
        "kept_command": kept_command,
        "too_small_to_rank": too_small_to_rank(matches_kept, out.partial),
        "min_matches_to_rank": MIN_MATCHES_TO_RANK,
    }


def started_at(wall_seconds: float) -> str:
    """When a run that has just ended after ``wall_seconds`` began (ISO 8601, UTC, seconds): manifests
    are written at the end of the run."""
    return (datetime.now(UTC) - timedelta(seconds=wall_seconds)).isoformat(timespec="seconds")


#: Every data file a run folder of any kind may hold, which ``nines report`` reads: the manifest records the
#: SHA-256 of each one a run wrote (not ``report.md`` or the charts, which ``nines report`` redraws).
DATA_FILES = ("summary.csv", "hands.csv", "score_distribution.csv", "seat_go_out.csv", "pairwise.csv",
              "head_to_head.csv", "comparison.csv", "matches.csv.gz",
              "trials.csv", "best.json", "validation.csv", "importances.csv",
              "ratings.csv", "rating_differences.csv", "calibration.csv")  # fmt: skip

#: The manifest's key for the digests: ``{"summary.csv": "<64 hex digits>", ...}``.
DIGESTS_KEY = "sha256"
#: The manifest's key for the digest of its own other fields (:func:`manifest_digest`).
MANIFEST_DIGEST_KEY = "manifest_sha256"


def manifest_digest(manifest: dict) -> str:
    """SHA-256 of a manifest's fields other than :data:`MANIFEST_DIGEST_KEY`, as canonical JSON (sorted keys).

    Written into the manifest by :func:`write_manifest`, so that ``nines report`` finds an edited manifest
    (a changed seed, player count or lineup) as it finds an edited CSV.
    """
    import hashlib

    fields = json.loads(json.dumps({k: v for k, v in manifest.items() if k != MANIFEST_DIGEST_KEY}))  # as read back
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode("utf-8")).hexdigest()


def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes, as 64 lower-case hex digits.

    Raises
    ------
    OSError
        If the file cannot be read.
    """
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def write_manifest(run_dir: Path, data: dict, files: Iterable[str | Path] | None = None) -> Path:
    """Write ``manifest.json`` with the SHA-256 of each data file of the folder, so that an edit is found later.

    Every writer of a run folder (tournament, compare-rules, tune, tune --versus) calls this last, once its data
    files are final: ``nines report`` refuses a folder whose listed files are missing or differ
    (:func:`nines_sim.reporting.check.check_digests`).

    Parameters
    ----------
    run_dir : pathlib.Path
        The run folder.
    data : dict
        The manifest's fields (JSON-serialisable); a ``"sha256"`` key is added (any given one is replaced).
    files : iterable of str or pathlib.Path, optional
        The data files to record (names in ``run_dir``, or paths of files in it); by default every file of
        :data:`DATA_FILES` the folder holds.

    Returns
    -------
    pathlib.Path
        The manifest written.

    Raises
    ------
    FileNotFoundError
        If a file named in ``files`` does not exist.
    ValueError
        If a file named in ``files`` is not in ``run_dir``.
    """
    if files is None:
        names = [n for n in DATA_FILES if (run_dir / n).is_file()]
    else:
        names = []
        for f in files:
            f = Path(f)
            if f.parent not in (Path(), run_dir):
                raise ValueError(f"{f} is not a file of the run folder {run_dir}")
            names.append(f.name)
    digests = {name: file_digest(run_dir / name) for name in names}
    path = run_dir / "manifest.json"
    # written whole and renamed into place: processes sharing a tune folder may read it meanwhile
    tmp = path.with_name(f".manifest-{os.getpid()}.tmp.json")
    try:
        fields = {**data, DIGESTS_KEY: digests}
        fields[MANIFEST_DIGEST_KEY] = manifest_digest(fields)
        tmp.write_text(json.dumps(fields, indent=2) + "\n")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path
