"""The learned model and value files a run's seats load, with their digests: recorded in its manifest, and checked
when the run is played again.

A seat plays a file that can change under the same name: plain ``learned`` (and a search's ``policy=learned`` or
``play_model=learned``) plays the model shipped for the rules (``nines_sim/learn/models``), ``leaf=learned`` the
value shipped for them (``nines_sim/learn/values``), and ``learned@FILE`` whatever the file holds now.  So a run's
manifest records, for each seat spec that loads one, the file and the digest of its weights
(:func:`learned_files`, under :data:`KEY`; no key at all for a run without one, whose manifest stays as it was),
and a later replay says in one line when a file would load other weights (:func:`stale_lines`), naming the file of
the recorded weights where one is known (:func:`file_of`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np

#: The manifest's key for the files: a list of ``{"spec", "uses", "file", "digest"}`` (``"rule_set"`` too where
#: a run plays several rule sets).
KEY = "learned_files"
#: Where a seat loads a file: ``model`` (``learned`` itself), ``policy`` (a search's rollouts), ``play_model`` (a
#: search's play inference), ``leaf`` (a search's leaf value).
USES = ("model", "policy", "play_model", "leaf")
#: The folder the shipped files' names are written relative to (``nines_sim/learn/models/classic-2.npz``).
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]


def value_digest(value: Any) -> str:
    """16 hex digits of a leaf value's weights (every array it holds, in order): two values with the same
    weights score the same positions, as :attr:`nines_sim.learn.model.Model.digest` is for models."""
    arrays = [getattr(value, f.name) for f in fields(value)]
    return hashlib.sha256(b"".join(a.tobytes() for a in arrays if isinstance(a, np.ndarray))).hexdigest()[:16]


def _shown(path: Path) -> str:
    """A shipped file's path from the repository's root (the same on every installation); another as given."""
    try:
        return Path(path).resolve().relative_to(_PACKAGE_ROOT).as_posix()
    except ValueError:
        return str(path)


def _loads(spec: str, rules: Any) -> list[tuple[str, str, str]]:
    """``(uses, file, digest)`` for each learned file the seat ``spec`` loads under ``rules`` (none: []).

    A file that cannot be read is left out: the run itself says why, in one line, before any match."""
    from nines_sim.strategy.params import defaults
    from nines_sim.strategy.registry import StrategyNotFound, resolve_spec

    try:
        cls, _, values = resolve_spec(spec)
    except StrategyNotFound:
        return []
    values = {**defaults(cls), **values}
    out = []
    if getattr(cls, "name", None) == "learned":
        out.append(("model", values.get("model") or ""))
    else:
        if values.get("policy") == "learned":
            out.append(("policy", ""))
        if values.get("play_model") == "learned" and values.get("infer_plays", 0) > 0:
            out.append(("play_model", ""))
    found = []
    for uses, given in out:
        found += _model_file(uses, given, rules)
    if values.get("leaf") == "learned":
        found += _value_file(str(values.get("policy")), rules)
    return found


def _model_file(uses: str, given: str, rules: Any) -> list[tuple[str, str, str]]:
    from nines_sim.learn.model import ModelError, load, shipped_file

    try:
        if given:
            return [(uses, given, load(given).digest)]
        path, model, _ = shipped_file(rules)
        return [(uses, _shown(path), model.digest)]
    except ModelError:
        return []


def _value_file(policy: str, rules: Any) -> list[tuple[str, str, str]]:
    from nines_sim.learn.value import ValueFileError, load_value, shipped_value_path

    path = shipped_value_path(rules, policy)
    try:
        return [("leaf", _shown(path), value_digest(load_value(path)))]
    except ValueFileError:
        return []


def learned_files(specs: Iterable[str], rules: Any, rule_set: str | None = None) -> list[dict[str, str]]:
    """For each seat spec that loads a learned model or leaf value under ``rules``, the file and its digest.

    Parameters
    ----------
    specs : iterable of str
        The run's strategy specs (a spec repeated is recorded once).
    rules : nines_sim.game.rules.Rules
        The rules the seats play under (they choose the shipped files).
    rule_set : str, optional
        The rule set's label, recorded with each entry, for a run that plays several.

    Returns
    -------
    list of dict
        ``{"spec", "uses", "file", "digest"}`` (and ``"rule_set"``): ``uses`` one of :data:`USES`, ``file`` a
        shipped file's path from the repository's root or a given one as given, ``digest`` 16 hex digits of its
        weights.  Empty for a run that loads none (its manifest gets no :data:`KEY`).
    """
    out: list[dict[str, str]] = []
    for spec in dict.fromkeys(specs):
        for uses, file, digest in _loads(spec, rules):
            entry = {"spec": spec, "uses": uses, "file": file, "digest": digest}
            out.append(entry if rule_set is None else {**entry, "rule_set": rule_set})
    return out


def manifest_field(entries: Sequence[dict[str, str]]) -> dict[str, list[dict[str, str]]]:
    """``{KEY: entries}`` for a manifest, or ``{}`` where there are none (a manifest without learned files keeps
    every byte it had)."""
    return {KEY: list(entries)} if entries else {}


def file_of(digest: str, uses: str) -> str | None:
    """A file of the package whose weights have this digest (a shipped model or value, or one retired to
    ``retired/`` beside them), from the repository's root; None where none has."""
    from nines_sim.learn.model import SHIPPED as MODELS
    from nines_sim.learn.value import SHIPPED as VALUES

    folder = VALUES if uses == "leaf" else MODELS
    for path in sorted(folder.rglob("*.npz")):
        try:
            if _digest_of(path, uses) == digest:
                return _shown(path)
        except Exception:  # noqa: BLE001 - a file that cannot be read is not the one
            continue
    return None


def _digest_of(path: Path | str, uses: str) -> str:
    if uses == "leaf":
        from nines_sim.learn.value import load_value

        return value_digest(load_value(path))
    from nines_sim.learn.model import load

    return load(path).digest


def stale_lines(recorded: Sequence[dict[str, str]], rules_of: Any) -> list[str]:
    """One line for each recorded learned file that would load other weights now (or is gone), naming the file
    to play instead where the package holds one of the recorded digest.

    Parameters
    ----------
    recorded : sequence of dict
        A manifest's :data:`KEY` entries.
    rules_of : callable
        ``rules_of(entry)``: the rules the entry's seat played under (the run's, or its rule set's); None where
        the folder does not record them (the entry is passed over).

    Returns
    -------
    list of str
        Empty where every file loads the recorded weights.
    """
    lines = []
    for entry in recorded:
        spec, uses, file, digest = entry["spec"], entry["uses"], entry["file"], entry["digest"]
        rules = rules_of(entry)
        if rules is None:  # a folder that records no rules of its own (a tune study's): nothing to compare
            continue
        current = [(f, d) for u, f, d in _loads(spec, rules) if u == uses]
        if any(d == digest for _, d in current):  # the same weights play the same moves, whatever the file's name
            continue
        lines.append(_stale_line(spec, uses, file, digest, current[0] if current else None))
    return lines


def _stale_line(spec: str, uses: str, file: str, digest: str, now: tuple[str, str] | None) -> str:
    """A seat ``spec`` played ``file`` of ``digest`` (as ``uses``); now it loads ``now``, (file, digest) or None."""
    is_now = f"{now[0]} of digest {now[1]}" if now else "no file it can read"
    instead = file_of(digest, uses)
    if uses == "model":
        use = f"learned@{instead}" if instead else f"learned@FILE with FILE a copy of {file} of digest {digest}"
    else:
        where = instead or f"a copy of {file} of digest {digest}"
        use = f"{where} in place of the shipped {Path(file).name} (the search plays the shipped file only)"
    kind = "value" if uses == "leaf" else "model"
    return f"{spec} played {file} of digest {digest} in this run; it loads {is_now} now, another {kind}: use {use}"


#: The option of a run's command (and a replay's) that names the learned files its seats played and their
#: digests: ``FILE=DIGEST[,FILE=DIGEST...]`` (:func:`digest_words`, :func:`check_digests`).
OPTION = "--learned-digests"


def digest_words(entries: Sequence[dict[str, str]]) -> list[str]:
    """The words a run's recorded command ends with to name its learned files' digests (none: [], so that a
    command without learned files stays as it was)."""
    pairs = dict.fromkeys(f"{e['file']}={e['digest']}" for e in entries)
    return [OPTION, ",".join(pairs)] if pairs else []


def parse_digests(text: str) -> dict[str, str]:
    """``FILE=DIGEST[,FILE=DIGEST...]`` as ``{file: digest}``.

    Raises
    ------
    ValueError
        One line, for a pair without ``=`` or a digest that is not 16 hex digits (either case; kept in lower case,
        as manifests write them).
    """
    out = {}
    for pair in text.split(","):
        file, eq, digest = pair.strip().rpartition("=")
        digest = digest.lower()
        if not eq or not file or len(digest) != 16 or any(c not in "0123456789abcdef" for c in digest):
            raise ValueError(
                f"{OPTION} takes FILE=DIGEST pairs, comma-separated, each DIGEST 16 hex digits (as a run's "
                f"manifest.json records them), not {pair.strip()!r}"
            )
        out[file] = digest
    return out


def check_digests(text: str | None, specs: Iterable[str], rule_sets: Sequence[Any]) -> list[str]:
    """Warn (:class:`StaleFileWarning`, a line each) where a seat of ``specs`` would load, under one of
    ``rule_sets``, a learned file whose digest is not the one ``text`` (:data:`OPTION`'s value, as a run's command
    records it) names; the lines.

    Raises
    ------
    ValueError
        For a ``text`` that :func:`parse_digests` cannot read.
    """
    if text is None:
        return []
    import warnings

    expected = [(_places(file), digest) for file, digest in parse_digests(text).items()]
    specs = list(specs)
    lines: dict[str, None] = {}
    for rules in rule_sets:
        for e in learned_files(specs, rules):
            here = _places(e["file"])
            want = next((digest for places, digest in expected if places & here), None)
            if want is not None and want != e["digest"]:
                lines[_stale_line(e["spec"], e["uses"], e["file"], want, (e["file"], e["digest"]))] = None
    for line in lines:
        warnings.warn(line, StaleFileWarning, stacklevel=2)
    return list(lines)


def _places(file: str) -> set[str]:
    """Where a file named in :data:`OPTION` or loaded by a seat may be, resolved: the same file however it is
    spelt (``./x``, absolute, through a link).  A relative name is read from the current folder (a ``learned@FILE``
    seat's) and from the repository's root (a shipped file's, as manifests write it); its text itself too."""
    places = {file}
    for root in (".", _PACKAGE_ROOT):
        try:
            places.add(str((Path(root) / file).resolve()))
        except (OSError, ValueError):  # a name the system cannot look up is matched as written
            pass
    return places


def _rules_of(fields: dict[str, Any]) -> Any:
    """The rules a manifest (or one of its ``rule_sets``) records: ``preset`` and ``rules``."""
    from nines_sim.game.rules import Rules

    options = {k: tuple(v) if isinstance(v, list) else v for k, v in fields["rules"].items()}
    return Rules(**{**options, "preset": fields["preset"]})


def stale_in_folder(folder: str | Path) -> list[str]:
    """:func:`stale_lines` for the run folder's ``manifest.json`` (none for a folder without one or without
    :data:`KEY`, or one that cannot be read: what reads the folder says why)."""
    import json

    try:
        manifest = json.loads((Path(folder) / "manifest.json").read_text(encoding="utf-8"))
        recorded = manifest.get(KEY) or []
        sets = {s["label"]: _rules_of(s) for s in manifest.get("rule_sets") or []}
        run_rules = _rules_of(manifest) if "rules" in manifest else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []
    return stale_lines(recorded, lambda e: sets.get(e["rule_set"]) if "rule_set" in e else run_rules)


class StaleFileWarning(UserWarning):
    """A run's seat played a learned model or value other than the one its command loads now
    (:func:`stale_lines`)."""


def warn_stale(folder: str | Path) -> list[str]:
    """Warn (:class:`StaleFileWarning`, a line each) for the learned files of the run in ``folder`` that would load
    other weights now (:func:`stale_in_folder`); the lines."""
    import warnings

    lines = stale_in_folder(folder)
    for line in lines:
        warnings.warn(line, StaleFileWarning, stacklevel=2)
    return lines
