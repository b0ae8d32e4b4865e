"""The luck of a match, measured without bias (AIVAT), and estimates with the luck taken out.

At every chance event of a match (each hand's deal with its starter, and the first dealer, D2 D4-D7; each draw
from the stock, T4 V2 V3; a reshuffle, T5, changes no value by itself: its cards are known and their order is
drawn one card at a time) and at every decision of a seat whose policy is known and random (the heuristics'
uniform choices and tie-breaks), the *correction* is ``V(after) - E[V(after) | before]``, the expectation exact.
Its mean is zero whatever the value function ``V`` is, so a result minus the match's corrections estimates the
same thing as the result, with less variance when ``V`` is good.

Modules, in the order the data flows: :mod:`~nines_sim.luck.features` (the features a value is linear in),
:mod:`~nines_sim.luck.walk` (one match's events to its summed feature differences; :mod:`~nines_sim.luck.compiled`
the same walk in compiled code over the trace form's raw rows, a step per event kind in
:mod:`~nines_sim.luck.steps`, the plays chosen at random in :mod:`~nines_sim.luck.play_choices`, their helpers in
:mod:`~nines_sim.luck.kernel`), :mod:`~nines_sim.luck.value` (the value function: its weights, fitted on reserved
matches), :mod:`~nines_sim.luck.measure` (matches traced and walked in chunks) and :mod:`~nines_sim.luck.estimate`
(adjusted estimates, the variance ratio, the check); for the commands, :mod:`~nines_sim.luck.tournament`,
:mod:`~nines_sim.luck.compare` (rule comparisons) and :mod:`~nines_sim.luck.review` (a match's luck hand by hand, in
win share and in points, beside the review's skill).
"""
