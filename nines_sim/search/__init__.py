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

``from nines_sim.search import search`` (and the other names the module
``nines_sim.search`` held) works as before: re-exported from :mod:`~nines_sim.search.pimc`.
"""

from __future__ import annotations

import os
from typing import Any

# a submodule's name is never looked up in the re-exported module: the import system imports the submodule
_OWN = {n[:-3] for n in os.listdir(os.path.dirname(__file__)) if n.endswith(".py")}


def __getattr__(name: str) -> Any:
    if name in _OWN or name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from nines_sim.search import pimc

    try:
        return getattr(pimc, name)
    except AttributeError:
        raise AttributeError(f"module 'nines_sim.search' has no attribute {name!r}") from None
