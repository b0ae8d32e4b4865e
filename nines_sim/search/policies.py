"""The rollout policies a search may play its play-outs with, by name: a module of its own, with no imports,
so that the command line checks a ``--policy`` before it loads the search."""

from __future__ import annotations

#: The built-ins that decide without searching (:func:`nines_sim.search.pimc.policy_names`).
POLICY_NAMES = ("expert", "dump-faces", "hold-nines", "suit-majority", "random")
