"""A learned value of a position for one seat: the hand's expected outcome from what that seat sees.

A search cuts its rollouts short (``lookahead:leaf=learned,depth=K``): each rollout plays ``K`` turns past the
candidate move on the compiled engine (:func:`nines_sim.engine.positions.play_out_leaves`), and a hand still
running there is scored by this value instead of being played to its end.  The value is a linear model of
:data:`VALUE_FEATURES`, each computed from the searching seat's observation only (its own hand, the top card and
active suit, every seat's card count, the suits each seat drew on, the faces played this hand, the stock's size,
the seat to move and the direction): never another hand or the stock's order, so two positions that look the same
to the seat have the same value, however the hidden cards lie.

It predicts what a rollout would have scored: the other seats' mean hand penalty minus the seat's own (C2, S1),
at the hand's end, with the rollout policy playing every seat.  It is fitted (:func:`fit_value`, ridge regression
from scikit-learn) on the engine's own play: fresh deals played by that policy to a random turn, each seat's
features there, and the same positions played on to the hand's end.  A value file (``.npz``) holds the weights,
the rules and table size, the rollout policy it was fitted for and the command that fitted it; the shipped ones
are in ``nines_sim/learn/values`` (:func:`shipped_value`).
"""

from __future__ import annotations

import json
import warnings
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from nines_sim.engine.bits import I_NINES, PEN_BIT_MASK, RANK_MASKS, SUIT_MASKS, face_rank, popcount
from nines_sim.engine.code_cache import seal_module
from nines_sim.engine.slots import S_ACTIVE, S_DIR, S_END, S_POS, S_SEAT, S_TOP
from nines_sim.game.rules import Rules, RulesError
from nines_sim.strategy.registry import StrategyNotFound

FORMAT = "nines-value/1"
#: The features of a position for one seat (:func:`value_features`), in this order.
VALUE_FEATURES = (
    "bias", "own_points", "own_cards", "own_nines", "own_playable", "mean_other_cards", "min_other_cards",
    "unseen_mean_points", "other_points_guess", "to_move", "turns_to_me", "stock", "next_drew_on_active",
    "other_one_card", "other_two_cards", "own_one_card", "own_points_x_other_near", "guess_x_own_near",
    "own_points_x_to_move", "own_cards_x_other_cards",
)  # fmt: skip
NFV = len(VALUE_FEATURES)
#: Every face of one deck, a bit each.
ALL_FACES = np.int64((1 << 52) - 1)
#: Ridge penalty of the fit (features are in points and cards, a few to a few dozen).
RIDGE = 1.0
#: The shipped values, in the package.
SHIPPED = Path(__file__).parent / "values"


class ValueFileError(StrategyNotFound):
    """A value file that cannot be used here; the message (one line) says why (a usage error on the command line)."""


@njit(cache=True, error_model="numpy")
def _points(w, nine_pen):
    pts = 0
    for k in range(PEN_BIT_MASK.shape[0]):
        pts += popcount(w & PEN_BIT_MASK[k]) << k
    return pts + nine_pen * popcount(w & I_NINES)


@njit(cache=True, error_model="numpy")
def value_features(hands, ncards, drew_on, played, st, seat, nine_pen):  # noqa: ANN001, ANN201 - numba-typed
    """The features of each position for one seat, from that seat's observation only.

    Parameters
    ----------
    hands : numpy.ndarray
        uint64, (D, B, P): the count-coded hands; only row ``seat[b]`` of each position is read.
    ncards, drew_on : numpy.ndarray
        int64, (B, P): every seat's card count and the suits it drew on this hand (public).
    played : numpy.ndarray
        uint64, (B,): the faces played this hand (public).
    st : numpy.ndarray
        int64, (B, NST): the slots' scalars; the top card, active suit, seat to move, direction and stock's
        size are read (public).
    seat : numpy.ndarray
        int64, (B,): the seat whose value it is.
    nine_pen : int
        The 9's penalty (C2).

    Returns
    -------
    numpy.ndarray
        float64, (B, NFV): :data:`VALUE_FEATURES`.
    """
    return value_features_at(hands, ncards, drew_on, played, st, np.arange(hands.shape[1]), seat, nine_pen)


@njit(cache=True, error_model="numpy")
def value_features_at(hands, ncards, drew_on, played, st, rows, seat, nine_pen):  # noqa: ANN001, ANN201 - numba-typed
    """:func:`value_features` of the positions ``rows`` (int64 (B,)) of the arrays, ``seat`` (int64 (B,)) one per
    row: the same floats as of the positions taken out first, without copying their arrays (a search values
    every leaf of a batch of rollouts at once).

    Returns
    -------
    numpy.ndarray
        float64, (B, NFV).
    """
    D, P = hands.shape[0], hands.shape[2]
    B = rows.shape[0]
    out = np.zeros((B, NFV))
    deck_points = D * _points(ALL_FACES, nine_pen)
    for i in range(B):
        b = rows[i]
        s = seat[i]
        own_pts = 0
        own_nines = 0
        playable = 0
        top = st[b, S_TOP]
        legal = SUIT_MASKS[st[b, S_ACTIVE]] | I_NINES | (RANK_MASKS[face_rank(top)] if top >= 0 else 0)
        for d in range(D):
            w = np.int64(hands[d, b, s])
            own_pts += _points(w, nine_pen)
            own_nines += popcount(w & I_NINES)
            playable += popcount(w & legal)
        pl = np.int64(played[b])
        own = ncards[b, s]
        unseen = 52 * D - own - popcount(pl)
        unseen_pts = deck_points - own_pts - _points(pl, nine_pen)
        mean_pts = unseen_pts / unseen if unseen > 0 else 0.0
        n_other, sum_other, min_other, one, two = 0, 0, 99, 0, 0
        for p in range(P):
            if p != s and ncards[b, p] > 0:
                n_other += 1
                sum_other += ncards[b, p]
                min_other = min(min_other, ncards[b, p])
                one += ncards[b, p] == 1
                two += ncards[b, p] == 2
        mean_other = sum_other / n_other if n_other else 0.0
        if min_other == 99:
            min_other = 0
        mover = st[b, S_SEAT]
        step = -1 if st[b, S_DIR] else 1
        to_me = (s - mover) * step % P
        nxt = (s + step) % P
        near = 1.0 if 0 < min_other <= 2 else 0.0
        guess = mean_other * mean_pts
        x = out[i]
        x[0] = 1.0
        x[1] = own_pts
        x[2] = own
        x[3] = own_nines
        x[4] = playable
        x[5] = mean_other
        x[6] = min_other
        x[7] = mean_pts
        x[8] = guess
        x[9] = 1.0 if mover == s else 0.0
        x[10] = to_me
        x[11] = st[b, S_END] - st[b, S_POS]
        x[12] = (drew_on[b, nxt] >> st[b, S_ACTIVE]) & 1
        x[13] = one
        x[14] = two
        x[15] = 1.0 if own == 1 else 0.0
        x[16] = own_pts * near
        x[17] = guess * (1.0 if own <= 2 else 0.0)
        x[18] = own_pts * x[9]
        x[19] = own * mean_other
    return out


@dataclass(frozen=True)
class LeafValue:
    """A linear value of positions for one seat (:func:`value_features`' dot product with ``weights``).

    Attributes
    ----------
    weights : numpy.ndarray
        float64 (NFV,).
    rules : Rules
        The rules and table size it was fitted for.
    meta : dict
        The policy it predicts (``policy``), the command that fitted it, what the fit measured.
    """

    weights: np.ndarray
    rules: Rules
    meta: dict[str, Any] = field(default_factory=dict)

    def of(self, state: Any, rows: np.ndarray, seat: np.ndarray) -> np.ndarray:
        """The value (points: the others' mean hand penalty minus the seat's own) of positions ``rows`` of a
        slot state (:class:`~nines_sim.engine.slots.SlotState`) for ``seat`` (int64, one per row)."""
        x = value_features_at(state.hands, state.ncards, state.drew_on, state.played, state.st,
                              np.asarray(rows, dtype=np.int64), np.asarray(seat, dtype=np.int64),
                              self.rules.nine_penalty)  # fmt: skip
        return x @ self.weights

    def save(self, path: str | Path) -> None:
        """Write the value as ``.npz`` (a few hundred bytes)."""
        from nines_sim.learn.model import rules_dict

        meta = {**self.meta, "format": FORMAT, "features": list(VALUE_FEATURES), "rules": rules_dict(self.rules)}
        with open(path, "wb") as fh:
            np.savez(fh, weights=self.weights, meta=np.array(json.dumps(meta, sort_keys=True)))


def load_value(path: str | Path) -> LeafValue:
    """Read a value file.

    Raises
    ------
    ValueFileError
        For a missing, damaged or foreign file, other features, or weights that are not finite.
    """
    p, name = Path(path), str(path)
    if not p.is_file():
        raise ValueFileError(f"no such value file: {name}")
    try:
        with np.load(p, allow_pickle=False) as z:
            w, meta = z["weights"], json.loads(str(z["meta"]))
    except (ValueError, EOFError, zipfile.BadZipFile, KeyError, OSError) as exc:
        raise ValueFileError(f"{name} is not a readable value file ({type(exc).__name__})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("features") != list(VALUE_FEATURES):
        raise ValueFileError(f"{name} is not a value of this version (format {FORMAT!r}, these features): fit it again")
    if w.shape != (NFV,) or w.dtype.kind != "f" or not np.isfinite(w).all():
        raise ValueFileError(f"{name}: weights must be {NFV} finite numbers")
    try:
        rules = Rules(**{**meta["rules"], "hand_sizes": tuple(meta["rules"]["hand_sizes"])})
    except (KeyError, TypeError, RulesError) as exc:
        raise ValueFileError(f"{name}: its rules are not readable ({exc})") from None
    rest = {k: v for k, v in meta.items() if k not in ("format", "features", "rules")}
    return LeafValue(np.ascontiguousarray(w, dtype=np.float64), rules, rest)


def shipped_value_path(rules: Rules, policy: str) -> Path:
    """Where the value for these rules, table size and rollout policy ships (``values/classic-2-learned.npz``),
    whether or not it is there."""
    return SHIPPED / f"{rules.preset}-{rules.players}-{policy}.npz"


def shipped_value(rules: Rules, policy: str) -> LeafValue:
    """The shipped value for these rules, table size and rollout policy (``values/classic-2-learned.npz``).

    Raises
    ------
    ValueFileError
        Where none ships (one line: how to fit one).
    """
    from nines_sim.learn.model import rules_dict

    path = shipped_value_path(rules, policy)
    if not path.is_file():
        raise ValueFileError(
            f"leaf=learned: no value ships for {rules.preset} rules at {rules.players} seats with policy={policy} "
            f"(shipped: {', '.join(sorted(q.stem for q in SHIPPED.glob('*.npz'))) or 'none'})"
        )
    value = load_value(path)
    if rules_dict(value.rules) != rules_dict(rules):
        raise ValueFileError(f"leaf=learned: the shipped value {path.name} was fitted for other rules than these")
    fitted = value.meta.get("model_digest")
    if fitted is not None:
        from nines_sim.learn.model import shipped

        if shipped(rules)[0].digest != fitted:
            warnings.warn(
                f"leaf=learned: {path.name} was fitted for another learned model than the one shipped now; fit it "
                f"again: {value.meta.get('command')}",
                StaleValueWarning,
                stacklevel=2,
            )
    return value


class StaleValueWarning(UserWarning):
    """A shipped value fitted for the rollouts of another ``learned`` model than the one shipped now."""


seal_module(globals())
