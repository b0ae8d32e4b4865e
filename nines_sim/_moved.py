"""Module paths of earlier releases, still importable for one minor version: each names the module it moved to.

Code, docs and saved run folders (a manifest's command names strategies such as
``nines_sim.lowest_first:LowestFirst``; user plug-ins import ``nines_sim.pergame``)
keep working after the package was split into stages.  Importing an old path gives
the very module at its new path (one module object, so ``isinstance`` checks and
monkeypatching see one thing), with a :class:`DeprecationWarning` that names the new path;
the old paths go in :data:`REMOVED_IN` (CHANGELOG.md).  ``engine``, ``strategy``, ``results``
and ``search`` are packages now; each imports what the old module of that name held.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from typing import Any

#: The release that drops the old paths (the version after the one that deprecated them, 0.2.0).
REMOVED_IN = "0.3.0"

#: old path under ``nines_sim.`` -> the module's path now
MOVED: dict[str, str] = {
    "analyze": "nines_sim.search.analyze",
    "backends": "nines_sim.runs.backends",
    "bench": "nines_sim.experiments.bench.work",
    "broker": "nines_sim.engine.broker",
    "cards": "nines_sim.game.cards",
    "choice": "nines_sim.strategy.choice",
    "chunks": "nines_sim.runs.chunks",
    "cluster": "nines_sim.runs.cluster",
    "codes": "nines_sim.game.codes",
    "compare": "nines_sim.experiments.compare_rules.work",
    "compiled": "nines_sim.engine.batch",
    "compiled_strategy": "nines_sim.strategy.per_game_compiled",
    "debug": "nines_sim.strategy.debug",
    "design": "nines_sim.experiments.design.work",
    "driver": "nines_sim.runs.driver",
    "events": "nines_sim.engine.events",
    "ismcts_search": "nines_sim.search.ismcts",
    "kernel": "nines_sim.engine.turn_loop",
    "kernel_bits": "nines_sim.engine.bits",
    "league": "nines_sim.experiments.tournament.league",
    "output": "nines_sim.runs.output",
    "params": "nines_sim.strategy.params",
    "pergame": "nines_sim.strategy.per_game",
    "play_inference": "nines_sim.search.play_inference",
    "pool": "nines_sim.runs.pool",
    "position": "nines_sim.search.position",
    "position_kernel": "nines_sim.engine.positions",
    "progress": "nines_sim.runs.progress",
    "ranges": "nines_sim.runs.ranges",
    "ratings": "nines_sim.results.ratings",
    "reference": "nines_sim.game.reference",
    "registry": "nines_sim.strategy.registry",
    "replay": "nines_sim.play.replay",
    "review": "nines_sim.experiments.review.work",
    "review_report": "nines_sim.experiments.review.report",
    "rng": "nines_sim.game.rng",
    "rounding": "nines_sim.results.rounding",
    "rules": "nines_sim.game.rules",
    "runfolder": "nines_sim.runs.runfolder",
    "sampler": "nines_sim.search.sampler",
    "sampler_kernel": "nines_sim.search.sample_deal",
    "schedule": "nines_sim.experiments.tournament.schedule",
    "simulate": "nines_sim.runs.simulate",
    "slots": "nines_sim.engine.slots",
    "stats": "nines_sim.results.stats",
    "tally": "nines_sim.results.tally",
    "tournament": "nines_sim.experiments.tournament.work",
    "tune": "nines_sim.experiments.tune.work",
    "tune_rules": "nines_sim.experiments.tune_rules.work",
    "verdict": "nines_sim.search.verdict",
    # the experiments gathered into experiments/<kind>/ (issue 39)
    "experiments.comparison": "nines_sim.experiments.compare_rules.setup",
    "reporting.comparison": "nines_sim.experiments.compare_rules.report",
    "reporting.coupling": "nines_sim.experiments.compare_rules.coupling",
    "reporting.design": "nines_sim.experiments.design.report",
    "reporting.league": "nines_sim.experiments.tournament.report_league",
    "reporting.tournament": "nines_sim.experiments.tournament.report",
    "reporting.tune": "nines_sim.experiments.tune.report",
    "reporting.tune_rules": "nines_sim.experiments.tune_rules.report",
    "reporting.review": "nines_sim.experiments.review.report",
    "play.review": "nines_sim.experiments.review.work",
    "runs.bench": "nines_sim.experiments.bench.work",
    "runs.compare": "nines_sim.experiments.compare_rules.work",
    "runs.design": "nines_sim.experiments.design.work",
    "runs.design_measures": "nines_sim.experiments.design.measures",
    "runs.design_sums": "nines_sim.experiments.design.sums",
    "runs.league": "nines_sim.experiments.tournament.league",
    "runs.schedule": "nines_sim.experiments.tournament.schedule",
    "runs.study": "nines_sim.experiments.study",
    "runs.tournament": "nines_sim.experiments.tournament.work",
    "runs.tournament_tables": "nines_sim.experiments.tournament.tables",
    "runs.tune": "nines_sim.experiments.tune.work",
    "runs.tune_rules": "nines_sim.experiments.tune_rules.work",
    "runs.tune_rules_space": "nines_sim.experiments.tune_rules.space",
    "runs.tune_rules_study": "nines_sim.experiments.tune_rules.study",
    "runs.tune_setup": "nines_sim.experiments.tune.setup",
    "runs.tune_study": "nines_sim.experiments.tune.study",
}


#: The names of a rule comparison's tables, in its work module until they got a module of their own.
COMPARE_TABLES = ("COMPARISON_COLUMNS", "DISTRIBUTION_COLUMNS", "comparison_frame", "comparison_rows",
                  "distribution_frame", "terminal_table")  # fmt: skip

#: Names a package or module held in an earlier release and now imports only on demand, with a warning: the
#: package or module, each name and the module it lives in (``nines_sim.play`` must not load the engine its driver
#: needs until a match is played).
MOVED_NAMES: dict[str, dict[str, str]] = {
    "nines_sim.play": dict.fromkeys(("Outcome", "public_events", "run_match"), "nines_sim.play.driver"),
    "nines_sim.engine": {
        **dict.fromkeys(
            ("ONE", "DecisionBroker", "Hint", "move_shown", "no_hint", "replay_hint"), "nines_sim.engine.broker"
        ),
        **dict.fromkeys(("Observation", "Strategy"), "nines_sim.strategy.base"),
    },  # fmt: skip
    # the module of nines_sim.compare (and runs.compare) holds only the comparison's work on the driver now
    "nines_sim.experiments.compare_rules.work": {
        **dict.fromkeys(("rule_sets_from", "deals_coupled"), "nines_sim.experiments.compare_rules.rule_sets"),
        **dict.fromkeys(COMPARE_TABLES, "nines_sim.experiments.compare_rules.tables"),
    },
    # the tuners' shared study protocol left nines_sim.runs.tune_study (tune.study) for a module of its own
    "nines_sim.experiments.tune.study": dict.fromkeys(
        ("check_target", "open_in_folder"), "nines_sim.experiments.study_folder"
    ),
}


def warn_moved(old: str, new: str, stacklevel: int = 3) -> None:
    """Warn that ``old`` (a dotted module path or name) is ``new`` now and goes in :data:`REMOVED_IN`.

    ``stacklevel`` counts from this function to the code that used the old path (the import system's frames
    are not counted).

    Raises
    ------
    DeprecationWarning
        Issued (not raised, unless warnings are errors), pointing at the code that used the old path.
    """
    warnings.warn(
        f"{old} moved to {new}; import it from there (the old path goes in nines-sim {REMOVED_IN})",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def moved_name(package: str, name: str) -> Any:
    """The name ``name`` that ``package`` held in an earlier release, from its new module, with a warning.

    For a package's ``__getattr__``: ``def __getattr__(name): return moved_name(__name__, name)``.

    Raises
    ------
    AttributeError
        If ``package`` never held ``name``.
    """
    home = MOVED_NAMES.get(package, {}).get(name)
    if home is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    warn_moved(f"{package}.{name}", f"{home}.{name}", stacklevel=4)
    value = getattr(importlib.import_module(home), name)
    setattr(sys.modules[package], name, value)  # once: ``from package import name`` looks it up twice
    return value


class _Alias(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        # the import system's own frames are skipped: the warning points at the importing line
        warn_moved(spec.name, self.target)
        return importlib.import_module(self.target)

    def exec_module(self, module: types.ModuleType) -> None:
        pass  # already executed under its new name


class MovedFinder(importlib.abc.MetaPathFinder):
    """Finds ``nines_sim.<old>`` for every old path in :data:`MOVED`."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        old = name[len("nines_sim.") :] if name.startswith("nines_sim.") else None
        if old not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(name, _Alias(MOVED[old]))


def install() -> None:
    """Put :class:`MovedFinder` on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(MovedFinder())
