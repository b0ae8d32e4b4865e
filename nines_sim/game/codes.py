"""The game's codes, each defined once: ranks, move codes, decision kinds, hand outcomes, kernel seat ids.

Every module that needs one of these numbers imports it from here: the compiled
turn loop (:mod:`nines_sim.engine.turn_loop`), the numpy engine, the strategies, the
results and the card helpers (:mod:`nines_sim.game.cards` re-exports the ranks).
This module imports nothing heavy, so a strategy or a report may import it
without loading numba.
"""

from __future__ import annotations

from enum import IntEnum

# ----------------------------------------------------------------- ranks (RULES.md C1)
#: Ranks ``0..12`` are A 2 3 4 5 6 7 8 9 10 J Q K; a face is ``13 * suit + rank``.
RANK_ACE = 0
#: The wild 9 (C1).
NINE_RANK = 8
#: The jack skips the next seat, the queen reverses the direction (V1); the ace makes the next seat draw two.
RANK_JACK = 10
RANK_QUEEN = 11

# ----------------------------------------------------------------- move codes
#: Move code of "two 9s together" (V4), returned by ``Strategy.play`` in place of a face (0..51).
PAIR_OF_NINES = 52


# ----------------------------------------------------------------- decision kinds
class DecisionKind(IntEnum):
    """The kinds of decision; each has its own random stream family (:mod:`nines_sim.game.rng`)."""

    PLAY = 0
    DECLARE = 1
    PLAY_DRAWN = 2
    DEALER_DECLARE = 3


# The same kinds as plain ints, the form the compiled code compares against.
K_PLAY = int(DecisionKind.PLAY)
K_DECLARE = int(DecisionKind.DECLARE)
K_PLAY_DRAWN = int(DecisionKind.PLAY_DRAWN)
K_DEALER_DECLARE = int(DecisionKind.DEALER_DECLARE)

# ----------------------------------------------------------------- hand outcomes (HandRecords.outcome)
# A seat >= 0 went out (O1); below zero the hand ended without one.
#: No seat can move (T7).
BLOCKED = -1
#: The hand reached the turn cap (T8).
CAPPED = -2
#: A hand still in play (never recorded).
RUNNING = -3

# ----------------------------------------------------------------- kernel seat ids
# A built-in strategy with a compiled twin declares its own id (the class attribute ``kernel_id``, read by
# nines_sim.engine.seats.builtin_ids); these two are the seats without one.
#: A seat decided in Python (a plug-in, or a subclass of a built-in).
SID_PYTHON = 0
#: A compiled user strategy (:mod:`nines_sim.strategy.per_game_compiled`).
SID_USER = 6
