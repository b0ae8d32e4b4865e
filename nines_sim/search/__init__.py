"""Search: positions, the sampler of hidden cards, play-outs, the search players' cores, analysis.

- :mod:`~nines_sim.search.position`: a game stopped at a turn, and playing it forward.
- :mod:`~nines_sim.search.sampler` and :mod:`~nines_sim.search.sample_deal`: complete positions consistent
  with what one player may see.
- :mod:`~nines_sim.search.pimc`: determinized search (Perfect Information Monte Carlo), ``lookahead``'s core.
- :mod:`~nines_sim.search.refine`: a second look at close decisions, the own next decision searched too.
- :mod:`~nines_sim.search.ismcts`: Information Set MCTS, ``ismcts``'s core.
- :mod:`~nines_sim.search.play_inference`: weighting sampled worlds by the opponents' plays.
- :mod:`~nines_sim.search.player`: the base class the search players (``lookahead``, ``ismcts``) share.
- :mod:`~nines_sim.search.verdict` and :mod:`~nines_sim.search.analyze`: every move of one position, valued.

``from nines_sim.search import search`` (and the other names the module ``nines_sim.search`` held) works as
before: imported here from where they live, chiefly :mod:`~nines_sim.search.pimc` (none loads numba).
"""

from nines_sim.game.codes import NINE_RANK, PAIR_OF_NINES, DecisionKind
from nines_sim.game.tables import next_seat_table
from nines_sim.search.pimc import (
    MAX_ROWS,
    NINE_SUIT,
    NINE_SUIT_Z,
    TUNED_EXPERT,
    Estimate,
    candidates,
    choose,
    evaluate,
    policy_names,
    rollout_policy,
    rollout_policy_names,
    sample_values,
    search,
)
from nines_sim.search.position import PositionBatch, play_out
from nines_sim.strategy.base import Observation, Strategy

__all__ = [
    "MAX_ROWS",
    "NINE_RANK",
    "NINE_SUIT",
    "NINE_SUIT_Z",
    "PAIR_OF_NINES",
    "TUNED_EXPERT",
    "DecisionKind",
    "Estimate",
    "Observation",
    "PositionBatch",
    "Strategy",
    "candidates",
    "choose",
    "evaluate",
    "next_seat_table",
    "play_out",
    "policy_names",
    "rollout_policy",
    "rollout_policy_names",
    "sample_values",
    "search",
]
