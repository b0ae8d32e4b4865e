"""A move for each of a batch of positions, as the engine applies it (:mod:`nines_sim.engine.positions`).

This module imports no compiled code.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nines_sim.game.codes import DecisionKind


@dataclass(frozen=True)
class Moves:
    """A move for each of a batch of positions: the seat to move's answer to the decision it stands at.

    The engine applies it as it applies a Python seat's answer (:func:`slot_state`), so a search steps its
    positions by the same code as every run.

    Attributes
    ----------
    kind : DecisionKind
        The decision the positions stand at: a play at the start of the turn (T1), the drawn card (T4), the
        suit after a 9 the seat played (T3), or the dealer's suit for a 9 starter (D6).
    moves : numpy.ndarray
        int64, (B,): a face or :data:`~nines_sim.game.codes.PAIR_OF_NINES` (V4) for a play (-1: none, the
        seat's strategy decides), a suit 0..3 for a declaration, 1 (play it) or 0 (keep it) for a drawn card.
    card : numpy.ndarray, optional
        int64, (B,): the card drawn, for ``PLAY_DRAWN``.
    pair : numpy.ndarray, optional
        bool, (B,): for ``DECLARE``, the 9s were two played together (V4: the next seat is skipped).
    suit : numpy.ndarray, optional
        int64, (B,): for ``PLAY``, the suit the seat declares after the 9 it plays (T3); -1: its strategy does.
    """

    kind: DecisionKind
    moves: np.ndarray
    card: np.ndarray | None = None
    pair: np.ndarray | None = None
    suit: np.ndarray | None = None

    @property
    def asks(self) -> bool:
        """Whether a seat answers from outside the loop (anything but a card played at the turn's start)."""
        return self.kind != DecisionKind.PLAY or (self.suit is not None and bool((self.suit >= 0).any()))
