"""The rules of Nines as a program: a deliberately simple, plain-Python player of one match (RULES.md).

This is the executable specification beside the fast engine: a reader learns the rules
from it (each step names the RULES.md clause it implements), and the compiled engine
(:mod:`nines_sim.engine.turn_loop`) is checked against it move for move on every preset, table
size and option (``tests/test_reference_agreement.py``).  One match at a time, one card
at a time, with Python lists and Counters: no numpy, nothing from the engine,
``nines_sim.strategy.choice`` or ``nines_sim.strategy.base``.  Only the rules record and the scalar
random functions are shared with the engine; everything else is written again here
from RULES.md and these conventions:

* faces 0..51, face = 13 * suit + rank, rank 8 is the 9 (wild);
* random words from ``mix_int`` chained as root -> match key -> hand key -> stream,
  where the cards use the root ``blake2b(b"nines-sim/cards/" + seed)`` and the
  strategies' random numbers the root ``blake2b(b"nines-sim/decisions/" + seed)``
  (computed here with ``hashlib`` again, not taken from the engine);
* events are plain tuples (see :func:`play_match`).

The two deterministic strategies mirrored here ("det-lowest", "det-highest-pair")
are plain functions over a small :class:`View` of the deciding player's situation.

Read it in the order of play, one module per stage (every name is also read from here):

1. :mod:`~nines_sim.game.reference.cards`: the cards and their penalties (C1, C2);
2. :mod:`~nines_sim.game.reference.random_keys`: the random words that shuffle, pick the first dealer and
   feed the strategies;
3. :mod:`~nines_sim.game.reference.det_strategies`: the two deterministic strategies and their :class:`View`;
4. :mod:`~nines_sim.game.reference.hand`: one hand, the deal and the turn rules (D4-D7, T1-T8, O1, V1-V6);
5. :mod:`~nines_sim.game.reference.match`: a match, its scoring and end (D1-D3, S1-S4), :func:`play_match`.
"""

from __future__ import annotations

from nines_sim.game.codes import BLOCKED, CAPPED  # noqa: F401 - hand outcomes: no seat can move (T7), the turn cap (T8)
from nines_sim.game.codes import NINE_RANK as NINE  # noqa: F401 - rank index of the 9
from nines_sim.game.codes import PAIR_OF_NINES as PAIR  # noqa: F401 - move code: two 9s together (V4)
from nines_sim.game.reference.cards import is_nine, penalty, rank, suit  # noqa: F401 - also read from here
from nines_sim.game.reference.det_strategies import (  # noqa: F401 - also read from here
    STRATEGIES,
    View,
    highest_pair_declare,
    highest_pair_play,
    highest_pair_play_drawn,
    lowest_declare,
    lowest_play,
    lowest_play_drawn,
)
from nines_sim.game.reference.hand import Hand  # noqa: F401 - also read from here
from nines_sim.game.reference.match import Match, play_match  # noqa: F401 - also read from here
from nines_sim.game.reference.random_keys import (  # noqa: F401 - also read from here
    card_root,
    decision_root,
    decision_word,
    hand_key,
    match_key,
    stream,
)
from nines_sim.game.rng import (  # noqa: F401 - the scalar random functions shared with the engine
    COUNTER,
    DEAL,
    DECISION,
    FIRST_DEALER,
    GOLDEN,
    HAND,
    M64,
    PURPOSE,
    RESHUFFLE,
    below_int,
    mix_int,
)
from nines_sim.game.rules import Rules  # noqa: F401
