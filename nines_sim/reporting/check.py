"""Checking a run folder before its charts and report are redrawn: every CSV readable and in line with manifest.json.

``nines report`` redraws from the files alone, so a hand-edited or truncated CSV
would otherwise give a report that looks right and is not (a summary cut to one
strategy ranks that one first, a raised win rate lies outside its own interval).
A manifest written by this version carries the SHA-256 of each data file, and a
folder whose files differ from them is refused; an older folder without digests
is checked as far as its tables and manifest agree. Each check names the file at fault.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from nines_sim.experiments.compare_rules.tables import COMPARISON_COLUMNS
from nines_sim.experiments.compare_rules.tables import DISTRIBUTION_COLUMNS as COMPARISON_DISTRIBUTION_COLUMNS
from nines_sim.experiments.tournament.plan import (
    DISTRIBUTION_COLUMNS,
    HANDS_COLUMNS,
    HEAD_TO_HEAD_COLUMNS,
    PAIRWISE_COLUMNS,
    SEAT_COLUMNS,
    SUMMARY_COLUMNS,
)

TOURNAMENT_FILES = {
    "summary.csv": SUMMARY_COLUMNS,
    "hands.csv": HANDS_COLUMNS,
    "score_distribution.csv": DISTRIBUTION_COLUMNS,
    "seat_go_out.csv": SEAT_COLUMNS,
    "pairwise.csv": PAIRWISE_COLUMNS,
    "head_to_head.csv": HEAD_TO_HEAD_COLUMNS,
}
COMPARISON_FILES = {"comparison.csv": COMPARISON_COLUMNS, "score_distribution.csv": COMPARISON_DISTRIBUTION_COLUMNS}
#: The files ``nines report`` reads from each kind of folder.
READ_FILES = {
    "tournament": (*TOURNAMENT_FILES, "ratings.csv", "rating_differences.csv", "calibration.csv"),
    "comparison": tuple(COMPARISON_FILES),
    "tune": ("trials.csv", "best.json", "validation.csv", "importances.csv"),
    "versus": ("validation.csv",),
    "review": ("review.csv",),
    "train": ("learning_curve.csv",),
}


class RunFolderError(ValueError):
    """A folder that is not a complete, consistent run folder; the message names the file."""


def check_digests(run_dir: Path, manifest: dict) -> None:
    """Refuse a folder whose data files differ from the ones its run wrote.

    The manifest's ``"sha256"`` (written by :func:`nines_sim.runs.output.write_manifest`) holds the SHA-256 of each
    data file the run wrote.  A folder written before manifests carried digests has none, and is checked only
    as far as its tables and manifest agree (:func:`check_run_folder`).

    Parameters
    ----------
    run_dir : pathlib.Path
        The run folder.
    manifest : dict
        Its ``manifest.json``, parsed.

    Raises
    ------
    RunFolderError
        Naming the file: a listed file is missing or its bytes differ from the digest; the manifest's own
        fields were edited (:data:`nines_sim.runs.output.MANIFEST_DIGEST_KEY`); or the digests are not a mapping of
        file names to hex text.
    """
    from nines_sim.runs.output import DIGESTS_KEY, MANIFEST_DIGEST_KEY, file_digest, manifest_digest

    digests = manifest.get(DIGESTS_KEY)
    if digests is None:
        return
    rerun = "rerun the manifest's command to rewrite the folder"
    if not isinstance(digests, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and k and Path(k).name == k and k not in (".", "..")
        for k, v in digests.items()
    ):
        raise RunFolderError(f"{run_dir / 'manifest.json'} is not a nines-sim manifest: its {DIGESTS_KEY!r} "
                             f"is not a mapping of file names to digests")  # fmt: skip
    for name in digests:
        path = run_dir / name
        if not path.is_file():
            raise RunFolderError(f"{path} is missing: the run wrote it (manifest.json lists it); {rerun}")
    own = manifest.get(MANIFEST_DIGEST_KEY)
    if own is not None and own != manifest_digest(manifest):
        raise RunFolderError(
            f"{run_dir / 'manifest.json'} was changed after the run wrote it (its fields differ from the digest it "
            f"was written with); {rerun}"
        )
    for name, want in digests.items():
        path = run_dir / name
        try:
            got = file_digest(path)
        except OSError as exc:
            raise RunFolderError(f"{path} cannot be read ({exc.strerror or exc})") from None
        if got != want.lower():
            raise RunFolderError(
                f"{path} was changed after the run wrote it (its SHA-256 differs from the one in manifest.json); "
                f"{rerun}"
            )


def check_unlisted(run_dir: Path, manifest: dict, read: tuple[str, ...]) -> None:
    """Refuse a data file that the redraw would read but the run did not write (not in the manifest's digests).

    Parameters
    ----------
    run_dir : pathlib.Path
        The run folder.
    manifest : dict
        Its ``manifest.json``, parsed; a manifest without digests (an older folder) is not checked.
    read : tuple of str
        The files the redraw of this kind of folder reads; other files (a user's notes) are left alone.

    Raises
    ------
    RunFolderError
        Naming the file.
    """
    from nines_sim.runs.output import DIGESTS_KEY

    digests = manifest.get(DIGESTS_KEY)
    if not isinstance(digests, dict):
        return
    rerun = "rerun the manifest's command to rewrite the folder"
    for name in read:
        if name not in digests and (run_dir / name).is_file():
            raise RunFolderError(
                f"{run_dir / name} is not one of the run's files (manifest.json does not list it); remove it or {rerun}"
            )


def _read(path: Path, columns: list[str]) -> pd.DataFrame:
    try:
        df = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={"strategy": str, "rule_set": str})
    except (OSError, ValueError) as exc:  # pandas' parser errors are ValueErrors
        raise RunFolderError(f"{path} cannot be read ({type(exc).__name__}: {exc})") from None
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise RunFolderError(f"{path} is not a nines-sim table: it lacks the column(s) {', '.join(missing)}")
    return df


def _expected_matches(manifest: dict) -> list[int] | None:
    """Matches behind each summary.csv row, in position order, from the manifest's games (None if not recorded)."""
    games = manifest.get("games")
    if not isinstance(games, list) or not games:
        return None
    played = [(list(g["lineup"]), int(g["matches_played"])) for g in games]
    fmt = manifest.get("format")
    if fmt == "table":
        return [played[0][1]] * len(played[0][0])
    strategies = manifest.get("strategies") or []
    if fmt == "field":
        return [sum(n for lineup, n in played if lineup[0] == s) for s in strategies]
    return [sum(n for lineup, n in played if s in lineup) for s in strategies]


def _check_tournament(run_dir: Path, manifest: dict) -> None:
    tables = {n: _read(run_dir / n, cols) for n, cols in TOURNAMENT_FILES.items() if (run_dir / n).is_file()}
    summary = tables["summary.csv"].sort_values("position", kind="stable")
    path = run_dir / "summary.csv"
    try:
        expected = _expected_matches(manifest)
    except (KeyError, TypeError, ValueError) as exc:
        raise RunFolderError(f"{run_dir / 'manifest.json'} lacks what the run recorded ({exc})") from None
    if expected is None:
        return
    if len(summary) != len(expected):
        raise RunFolderError(
            f"{path} does not match manifest.json: {len(summary)} row(s), but the run ranks {len(expected)} "
            f"(the manifest's lineup); rerun the manifest's command to rewrite the folder"
        )
    if summary["position"].tolist() != list(range(len(expected))):
        raise RunFolderError(f"{path} does not match manifest.json: positions {summary['position'].tolist()}")
    for pos, (got, want) in enumerate(zip(summary["matches"].tolist(), expected)):
        if got != want:
            raise RunFolderError(
                f"{path} does not match manifest.json: position {pos} has {got} matches, the manifest {want}"
            )
    scores = tables.get("score_distribution.csv")
    if scores is not None and not set(scores["strategy"]) <= set(summary["strategy"]):
        extra = sorted(set(scores["strategy"]) - set(summary["strategy"]))
        raise RunFolderError(f"{run_dir / 'score_distribution.csv'} names strategies not in summary.csv: {extra}")


def _check_comparison(run_dir: Path, manifest: dict) -> None:
    tables = {n: _read(run_dir / n, cols) for n, cols in COMPARISON_FILES.items() if (run_dir / n).is_file()}
    table, path = tables["comparison.csv"], run_dir / "comparison.csv"
    labels = [rs.get("label") for rs in manifest.get("rule_sets") or []]
    lineup = manifest.get("lineup") or []
    if labels and lineup and len(table) != len(labels) * len(lineup):
        raise RunFolderError(
            f"{path} does not match manifest.json: {len(table)} row(s), but {len(labels)} rule sets x "
            f"{len(lineup)} strategies make {len(labels) * len(lineup)}"
        )
    if labels and set(table["rule_set"]) != {str(x) for x in labels}:
        raise RunFolderError(
            f"{path} does not match manifest.json: rule sets {sorted(set(table['rule_set']))}, the manifest {labels}"
        )
    played = manifest.get("matches_played")
    if isinstance(played, int) and not (table["matches"] == played).all():
        raise RunFolderError(f"{path} does not match manifest.json: matches other than the {played} played")


def check_run_folder(run_dir: Path) -> str:
    """Check a run folder before redrawing it.

    Returns
    -------
    str
        ``"comparison"`` for a ``nines compare-rules`` folder, ``"tournament"`` for a ``nines tournament`` one,
        ``"tune"`` for a ``nines tune`` one, ``"versus"`` for a ``nines tune --versus`` one, ``"review"`` for a
        ``nines review`` one, ``"train"`` for a ``nines train`` one.

    Raises
    ------
    RunFolderError
        If the folder does not exist, lacks ``manifest.json`` or its table, a
        file the manifest lists is missing or differs from its digest (``check_digests``), a
        file cannot be read or lacks a declared column, or a table disagrees
        with the manifest (its lineup, rule sets or matches played).
    """
    if not os.path.exists(run_dir):  # False, not OSError, for a name too long to look up
        raise RunFolderError(f"{run_dir} does not exist")
    if not os.path.isdir(run_dir):
        raise RunFolderError(f"{run_dir} is not a folder")
    path = run_dir / "manifest.json"
    if not path.is_file():
        raise RunFolderError(
            f"{run_dir} is not a run folder (it needs manifest.json and summary.csv or comparison.csv)"
        )
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RunFolderError(f"{path} cannot be read ({type(exc).__name__}: {exc})") from None
    if not isinstance(manifest, dict):
        raise RunFolderError(f"{path} is not a nines-sim manifest (not a JSON object)")
    check_digests(run_dir, manifest)  # first: an edited file is named as edited, before its contents are read
    kind = None
    if (run_dir / "comparison.csv").is_file():
        _check_comparison(run_dir, manifest)
        kind = "comparison"
    elif (run_dir / "summary.csv").is_file():
        _check_tournament(run_dir, manifest)
        kind = "tournament"
    elif manifest.get("kind") == "review" and (run_dir / "review.csv").is_file():  # nines review
        from nines_sim.experiments.review.work import COLUMNS as REVIEW_COLUMNS

        _read(run_dir / "review.csv", list(REVIEW_COLUMNS))
        kind = "review"
    elif manifest.get("kind") == "tune-rules":  # nines tune-rules: its files are checked by their digests
        return "tune-rules"
    elif manifest.get("kind") == "versus":  # nines tune --versus: validation.csv and the manifest
        from nines_sim.experiments.tune.work import VALIDATION_COLUMNS

        _read(run_dir / "validation.csv", VALIDATION_COLUMNS)
        kind = "versus"
    elif (run_dir / "learning_curve.csv").is_file():  # nines train: its files are checked by their digests
        kind = "train"
    elif (run_dir / "trials.csv").is_file():
        for name in ("trials.csv", "best.json"):
            if not (run_dir / name).is_file():
                raise RunFolderError(f"{run_dir} is a tune folder without {name}; rerun the manifest's command")
        kind = "tune"
    if kind is not None:
        check_unlisted(run_dir, manifest, READ_FILES[kind])
        return kind
    raise RunFolderError(
        f"{run_dir} is not a run folder (it needs summary.csv, comparison.csv, trials.csv, review.csv or "
        "learning_curve.csv)"
    )
