"""Names a search setting takes, in a module of its own with no imports, so that they can be checked before the
search loads: the rollout policies (the command line's ``--policy``) and the ways draws weigh sampled hands."""

from __future__ import annotations

#: The built-ins that decide without searching (:func:`nines_sim.search.pimc.policy_names`).
POLICY_NAMES = ("expert", "dump-faces", "hold-nines", "suit-majority", "random")
#: The ``draws`` setting (:func:`nines_sim.search.sampler.sample_positions`): ``suits``, only the suits drawn on,
#: and the 9s, as lacked (``drew_on``); ``log``, the draw log's faces, weighed by the cards drawn since;
#: ``log+declare``, and the suit each seat last declared.
DRAW_MODELS = ("suits", "log", "log+declare")
