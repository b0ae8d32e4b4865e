"""A learned model as arrays in a small ``.npz`` file: its weights, the rules and table size it was trained for,
and the command that trained it.

A model scores each candidate card with ``card_weights @ features`` (plus products of chosen pairs of
features, a hidden layer and boosted regression trees, when it has them) and each suit to declare with
``suit_weights @ features`` (:mod:`nines_sim.learn.features`); the highest score is played.  The file holds
``card_weights`` float64 (NFC,), ``suit_weights`` float64 (NFS,), the optional arrays of :class:`Model` and
``meta``, a JSON text: the format, the feature names (a model of other features is refused), the rules (every
option of :class:`~nines_sim.game.rules.Rules`, the table size among them), the command that trained it, and
what training measured.  Every defect is a :class:`ModelError` with a one-line message.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nines_sim.game.path_lookup import look_up, shown
from nines_sim.game.rules import Rules, RulesError
from nines_sim.learn.features import CARD_FEATURES, NFC, NFS, SUIT_FEATURES, UNITS_AT_ONCE
from nines_sim.strategy.registry import StrategyNotFound

FORMAT = "nines-learned/1"
#: The format of a model with pair products (``pair_index``): a version that reads only :data:`FORMAT` would
#: play it without them, so it refuses it instead.
FORMAT_PAIRS = "nines-learned/2"
#: The format of a model with regression trees (``tree_feature`` ...): refused by a version that would play it
#: without them.
FORMAT_TREES = "nines-learned/3"
FORMATS = (FORMAT, FORMAT_PAIRS, FORMAT_TREES)
#: The deepest tree a model file may hold (each level is one comparison a tree per candidate card).
MAX_TREE_DEPTH = 8
#: Rule options that do not change how a hand is played, and so not what a model learned.
_IGNORED = ("preset", "turn_cap")
#: The shipped models, in the package.
SHIPPED = Path(__file__).parent / "models"


class ModelError(StrategyNotFound):
    """A model file that cannot be played here; the message (one line) says why.  A kind of
    :class:`~nines_sim.strategy.registry.StrategyNotFound`: the command line says it as a usage error."""


@dataclass(frozen=True)
class Model:
    """A model of one seat's decisions: a card's score is linear in its features plus products of chosen pairs
    of them plus a hidden layer of rectified units plus the sum of regression trees' leaves (none of these: a
    linear model), a suit's score linear.

    Attributes
    ----------
    card_weights : numpy.ndarray
        float64 (NFC,): the linear part of a card's score (its features' dot product with these).
    suit_weights : numpy.ndarray
        float64 (NFS,): the same for a suit to declare (T3, D6).
    rules : Rules
        The rules, table size included, the model was trained for.
    meta : dict
        The rest of the file's metadata (``command``, measured strength, ...).
    hidden_weights, hidden_bias, out_weights : numpy.ndarray
        float64 (H, NFC), (H,), (H,): the hidden layer of the card score (H = 0: none).
    drawn_weights : numpy.ndarray
        float64 (NFC,) or (0,): the drawn card (T4) is played when these weights' dot product with its features
        as a card to play is above 0 (the learned advantage of playing it over keeping it); (0,): ``expert``'s
        rule (a drawn natural played, a drawn 9 kept unless 2 cards or fewer are left).
    pair_index, pair_weights : numpy.ndarray
        int64 (K, 2) and float64 (K,): the card score adds ``pair_weights[k]`` times the product of the
        features ``pair_index[k]`` (K = 0: none; the products a linear score cannot express, such as a card's
        penalty times the stock's size).
    tree_feature, tree_threshold, tree_children, tree_value : numpy.ndarray
        int64 (T, N), float64 (T, N), int64 (T, N, 2) and float64 (T, N): T regression trees of N nodes each
        (T = 0: none), node 0 the root.  A node whose ``tree_feature`` is a feature index ``i`` (0 to NFC - 1)
        goes to child ``tree_children[t, n, 0]`` when the feature is ``<= tree_threshold[t, n]``, else to child
        ``[t, n, 1]`` (children come after their node); a node whose feature is -1 is a leaf, and the card score
        adds its ``tree_value`` (the learning rate already in it).  The trees are summed in order from 0.0 and
        added after the pairs.
    """

    card_weights: np.ndarray
    suit_weights: np.ndarray
    rules: Rules
    meta: dict[str, Any] = field(default_factory=dict)
    hidden_weights: np.ndarray = field(default_factory=lambda: np.zeros((0, NFC)))
    hidden_bias: np.ndarray = field(default_factory=lambda: np.zeros(0))
    out_weights: np.ndarray = field(default_factory=lambda: np.zeros(0))
    drawn_weights: np.ndarray = field(default_factory=lambda: np.zeros(0))
    pair_index: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    pair_weights: np.ndarray = field(default_factory=lambda: np.zeros(0))
    tree_feature: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))
    tree_threshold: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    tree_children: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 2), dtype=np.int64))
    tree_value: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))

    @property
    def digest(self) -> str:
        """16 hex digits of the weights: two files with the same weights play the same moves."""
        h = hashlib.sha256(b"".join(w.tobytes() for w in self.arrays().values()))
        return h.hexdigest()[:16]

    def arrays(self) -> dict[str, np.ndarray]:
        """The weights by their names in the file (empty ``drawn_weights``, pairs or trees add no bytes to the
        digest; a model without trees writes none of their arrays, as before they were learned)."""
        arrays = {"card_weights": self.card_weights, "suit_weights": self.suit_weights,
                  "hidden_weights": self.hidden_weights, "hidden_bias": self.hidden_bias,
                  "out_weights": self.out_weights, "drawn_weights": self.drawn_weights,
                  "pair_index": self.pair_index, "pair_weights": self.pair_weights}  # fmt: skip
        if self.tree_value.size:
            arrays |= {"tree_feature": self.tree_feature, "tree_threshold": self.tree_threshold,
                       "tree_children": self.tree_children, "tree_value": self.tree_value}  # fmt: skip
        return arrays

    def save(self, path: str | Path) -> None:
        """Write the model as ``.npz`` (uncompressed: a few hundred bytes of weights)."""
        fmt = FORMAT_TREES if self.tree_value.size else FORMAT_PAIRS if self.pair_weights.size else FORMAT
        meta = {**self.meta, "format": fmt, "card_features": list(CARD_FEATURES),
                "suit_features": list(SUIT_FEATURES), "rules": rules_dict(self.rules)}  # fmt: skip
        with open(path, "wb") as fh:
            np.savez(fh, **self.arrays(), meta=np.array(json.dumps(meta, sort_keys=True)))

    def check_rules(self, rules: Rules, where: str) -> None:
        """Refuse to play under rules other than the model's (one line naming the first difference).

        Raises
        ------
        ModelError
        """
        if rules.players != self.rules.players:
            raise ModelError(
                f"{where} was trained for {self.rules.players} players, not {rules.players}: "
                f"train one for this table (nines train --players {rules.players})"
            )
        mine, theirs = rules_dict(self.rules), rules_dict(rules)
        for k in mine:
            if mine[k] != theirs.get(k):
                raise ModelError(
                    f"{where} was trained under {k}={mine[k]!r}, these rules have {k}={theirs.get(k)!r}: "
                    f"train one for these rules (nines train --rules ...)"
                )


def rules_dict(rules: Rules) -> dict[str, Any]:
    """The rule options that shape play, as JSON values (a model's ``rules``)."""
    d = dataclasses.asdict(rules)
    for k in _IGNORED:
        d.pop(k, None)
    d["hand_sizes"] = list(d["hand_sizes"])
    return d


def load(path: str | Path) -> Model:
    """Read a model file.

    Raises
    ------
    ModelError
        For a missing, truncated or corrupt file, one of another format or other features, or weights that
        are not finite numbers of the right shape.
    """
    p = Path(path)
    name = str(path)
    kind, why = look_up(p)  # a name too long to look up is said as such, not as an OSError of the strategy
    if kind != "file":
        raise ModelError(f"no such model file: {shown(name)}{why and ' '}{why}")
    try:
        with np.load(p, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (ValueError, EOFError, zipfile.BadZipFile, KeyError, OSError) as exc:
        why = "not an .npz archive" if isinstance(exc, ValueError) else f"damaged or cut short ({type(exc).__name__})"
        raise ModelError(f"{name} is not a readable model file: {why}") from None
    for key in ("card_weights", "suit_weights", "hidden_weights", "hidden_bias", "out_weights", "meta"):
        if key not in arrays:
            raise ModelError(f"{name} is not a model file: it has no {key!r}")
    try:
        meta = json.loads(str(arrays["meta"]))
    except (json.JSONDecodeError, TypeError) as exc:
        raise ModelError(f"{name}: its metadata is not JSON ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") not in FORMATS:
        raise ModelError(f"{name} is not a model of this version (format {' or '.join(map(repr, FORMATS))} expected)")
    if meta.get("card_features") != list(CARD_FEATURES) or meta.get("suit_features") != list(SUIT_FEATURES):
        raise ModelError(f"{name} was trained on other features than this version computes: train it again")
    cw, sw = arrays["card_weights"], arrays["suit_weights"]
    hw, hb, ow = arrays["hidden_weights"], arrays["hidden_bias"], arrays["out_weights"]
    dw = arrays.get("drawn_weights", np.zeros(0))  # a file of before the drawn card was learned: expert's rule
    pi = arrays.get("pair_index", np.zeros((0, 2), dtype=np.int64))
    pw = arrays.get("pair_weights", np.zeros(0))
    if meta["format"] != FORMAT_TREES and (pw.size > 0) != (meta["format"] == FORMAT_PAIRS):
        raise ModelError(f"{name}: pair_weights and the format {meta['format']!r} disagree")
    trees = _trees(name, arrays, meta["format"] == FORMAT_TREES)
    K = pw.shape[0] if pw.ndim == 1 else -1
    if pi.shape != (K, 2) or pi.dtype.kind not in "iu" or pi.size and not ((pi >= 0) & (pi < NFC)).all():
        raise ModelError(f"{name}: pair_index must be integer feature indices (0-{NFC - 1}) of shape ({K}, 2)")
    H = hb.shape[0] if hb.ndim == 1 and hb.shape[0] % UNITS_AT_ONCE == 0 else -1
    shapes = (("card_weights", cw, (NFC,)), ("suit_weights", sw, (NFS,)), ("hidden_weights", hw, (H, NFC)),
              ("hidden_bias", hb, (H,)), ("out_weights", ow, (H,)),
              ("drawn_weights", dw, (NFC,) if dw.size else (0,)), ("pair_weights", pw, (K,)))  # fmt: skip
    for label, w, shape in shapes:
        if w.shape != shape or w.dtype.kind != "f" or not np.isfinite(w).all():
            raise ModelError(
                f"{name}: {label} must be finite numbers of shape {shape} (hidden units: a multiple of {UNITS_AT_ONCE})"
            )
    try:
        rules = Rules(**{**meta["rules"], "hand_sizes": tuple(meta["rules"]["hand_sizes"])})
    except (KeyError, TypeError, RulesError) as exc:
        raise ModelError(f"{name}: its rules are not readable ({type(exc).__name__}: {exc})") from None
    rest = {k: v for k, v in meta.items() if k not in ("format", "card_features", "suit_features", "rules")}
    f64 = [np.ascontiguousarray(w, dtype=np.float64) for w in (cw, sw, hw, hb, ow, dw, pw)]
    pairs = np.ascontiguousarray(pi, dtype=np.int64)
    return Model(f64[0], f64[1], rules, rest, f64[2], f64[3], f64[4], f64[5], pairs, f64[6], *trees)


_TREE_KEYS = ("tree_feature", "tree_threshold", "tree_children", "tree_value")


def _trees(name: str, arrays: dict[str, np.ndarray], has: bool) -> tuple[np.ndarray, ...]:
    """A file's trees (:class:`Model`'s ``tree_*``), checked: contiguous int64 and float64 arrays.

    Raises
    ------
    ModelError
        Trees in a file of a format without them (or none in one with them), arrays of the wrong shape or type,
        a feature index out of range, a child not after its node, a tree deeper than :data:`MAX_TREE_DEPTH`, or
        numbers that are not finite.
    """
    present = [k for k in _TREE_KEYS if k in arrays]
    if not has:
        if present:
            raise ModelError(f"{name}: {present[0]} in a model of format {FORMAT!r} or {FORMAT_PAIRS!r} (no trees)")
        return np.zeros((0, 0), dtype=np.int64), np.zeros((0, 0)), np.zeros((0, 0, 2), dtype=np.int64), np.zeros((0, 0))
    if len(present) < len(_TREE_KEYS):
        missing = next(k for k in _TREE_KEYS if k not in arrays)
        raise ModelError(f"{name}: a model of format {FORMAT_TREES!r} without {missing!r}")
    feat, thr, kids, val = (arrays[k] for k in _TREE_KEYS)
    T, N = feat.shape if feat.ndim == 2 else (-1, -1)
    ints = feat.dtype.kind in "iu" and kids.dtype.kind in "iu"
    floats = thr.dtype.kind == "f" and val.dtype.kind == "f"
    if T < 1 or N < 1 or not ints or not floats or kids.shape != (T, N, 2) or not thr.shape == val.shape == (T, N):
        raise ModelError(
            f"{name}: the trees must be tree_feature and tree_children integers of shapes (T, N) and (T, N, 2), "
            "tree_threshold and tree_value floats of shape (T, N)"
        )
    feat, kids = feat.astype(np.int64), kids.astype(np.int64)
    split = feat >= 0
    node = np.arange(N)[None, :, None]
    if ((feat < -1) | (feat >= NFC)).any() or not np.isfinite(np.where(split, thr, 0.0)).all():
        raise ModelError(
            f"{name}: tree_feature must be -1 (a leaf) or a feature index 0-{NFC - 1}, with finite thresholds"
        )
    if not (np.where(split[..., None], (kids > node) & (kids < N), kids == -1)).all():
        raise ModelError(f"{name}: tree_children must name two later nodes of a split (-1 for a leaf's)")
    if not np.isfinite(val).all():
        raise ModelError(f"{name}: tree_value must be finite numbers")
    depth = np.zeros((T, N), dtype=np.int64)
    for n in range(N):  # children come after their node: one pass sets every depth
        for t in np.flatnonzero(split[:, n]):
            for c in kids[t, n]:
                depth[t, c] = max(depth[t, c], depth[t, n] + 1)
    if depth.max() > MAX_TREE_DEPTH:
        raise ModelError(f"{name}: a tree deeper than {MAX_TREE_DEPTH} levels")
    return (np.ascontiguousarray(feat), np.ascontiguousarray(thr, dtype=np.float64), np.ascontiguousarray(kids),
            np.ascontiguousarray(val, dtype=np.float64))  # fmt: skip


def shipped_name(rules: Rules) -> str:
    """The file name of the shipped model for these rules and table size (``classic-5.npz``)."""
    return f"{rules.preset}-{rules.players}.npz"


class FallbackWarning(UserWarning):
    """``learned`` plays a shipped model trained for other rules or another table size (none ships for these)."""


def shipped(rules: Rules) -> tuple[Model, str | None]:
    """The shipped model for these rules and table size, or the nearest one that ships, with a note.

    Where none ships for exactly these rules and this table, ``learned`` plays, in this order of preference, the
    model of the same preset at the nearest table size (the smaller of two as near), the classic model at
    this table size, the classic model at the nearest size; the note (one line) says which, and that it was
    trained for something else.

    Returns
    -------
    tuple
        ``(model, note)``: ``note`` None for a model trained for exactly these rules and table size.

    Raises
    ------
    ModelError
        Where no model ships at all.
    """
    _, model, note = shipped_file(rules)
    return model, note


def shipped_file(rules: Rules) -> tuple[Path, Model, str | None]:
    """The file of the model :func:`shipped` plays under these rules, the model, and its note.

    Raises
    ------
    ModelError
        Where no model ships at all.
    """
    path = SHIPPED / shipped_name(rules)
    if path.is_file():
        model = load(path)
        try:
            model.check_rules(rules, f"the shipped model {path.name}")
            return path, model, None
        except ModelError:  # a preset with options changed: not the preset's model
            pass
    have = {q.stem: q for q in SHIPPED.glob("*.npz")}
    if not have:
        raise ModelError("no model ships with this installation: train one with nines train (learned@model.npz)")
    sizes = sorted(range(2, 7), key=lambda p: (abs(p - rules.players), p))
    for preset in (rules.preset, "classic"):
        for p in sizes:
            name = f"{preset}-{p}"
            if name in have and have[name] != path:
                note = (
                    f"learned: no model ships for {rules.preset} rules as set here at {rules.players} seats; it plays "
                    f"{name} (trained for other rules or another table, expect it weaker; nines train makes one)"
                )
                return have[name], load(have[name]), note
    name = sorted(have)[0]
    note = f"learned: no model ships for these rules at {rules.players} seats; it plays {name}"
    return have[name], load(have[name]), note
