"""The rule comparison (``nines compare-rules``) in one home.

- :mod:`~nines_sim.experiments.compare_rules.setup`: the arguments, the reproduce command and the one library
  call (:func:`run_rule_comparison`, :func:`comparison_setup`, :func:`play_comparison`).
- :mod:`~nines_sim.experiments.compare_rules.rule_sets`: the rule sets read from the arguments, and which deals
  they share.
- :mod:`~nines_sim.experiments.compare_rules.work`: the rule sets' matches played on :func:`nines_sim.runs.driver.run`.
- :mod:`~nines_sim.experiments.compare_rules.tables`: the run folder's tables and the terminal table.
- :mod:`~nines_sim.experiments.compare_rules.report` and :mod:`~nines_sim.experiments.compare_rules.coupling`:
  ``report.md``.
"""

from nines_sim.experiments.compare_rules.setup import (
    ComparisonRun,
    ComparisonSetup,
    comparison_setup,
    play_comparison,
    run_rule_comparison,
)

__all__ = ["ComparisonRun", "ComparisonSetup", "comparison_setup", "play_comparison", "run_rule_comparison"]
