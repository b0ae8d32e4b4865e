"""A rule comparison as one library call: one lineup under several rule sets, written into its run folder.

:func:`run_rule_comparison` writes the folder ``nines compare-rules`` writes for the same arguments (the CSVs
byte for byte); :func:`comparison_setup` and :func:`play_comparison` are its two steps, and
:meth:`ComparisonRun.summary` the console summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack, closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nines_sim import __version__
from nines_sim.game.rules import parse_overrides
from nines_sim.runs.output import run_fields
from nines_sim.runs.ranges import Range, format_ranges
from nines_sim.runs.ranges import total as ranges_total
from nines_sim.runs.runfolder import (
    canonical_command,
    kept_lines,
    play_in_folder,
    play_seconds,
    without_players,
    writing,
)


@dataclass(frozen=True)
class ComparisonSetup:
    """A rule comparison checked, not yet played (:func:`comparison_setup`).

    Attributes
    ----------
    rule_sets : list of nines_sim.experiments.compare_rules.rule_sets.RuleSet
        The rule sets, the first the reference.
    sweep : dict or None
        The sweep's option and values, for the manifest.
    lineup : tuple of str
        The canonical specs, in seat order.
    labels : list of str
        The names the CSVs give the seats (distinct).
    specs_given : list of str
        The lineup as given.
    rules_args : tuple of str
        The ``--rules`` and ``--sweep`` arguments as given (a ``@FILE`` as the rule set it holds), for the
        manifest's command.
    rule : tuple of str
        The ``key=value`` overrides as given (``--rule``).
    """

    rule_sets: list
    sweep: dict | None
    lineup: tuple[str, ...]
    labels: list[str]
    specs_given: list[str]
    rules_args: tuple[str, ...]
    rule: tuple[str, ...]

    def command(self, matches: int, seed: int, ranges: list[Range] | None, design: Sequence[str] = ()) -> str:
        """The ``nines compare-rules`` command that plays ``ranges`` of ``matches`` (all of them for None), with
        the words of its design measures (:func:`nines_sim.experiments.design.setup.design_words`)."""
        options = {"--players": len(self.lineup), "--matches": matches, "--seed": seed,
                   "--ranges": format_ranges(ranges) if ranges else None}  # fmt: skip
        extra = [*self.rules_args, *design]
        return canonical_command("compare-rules", list(self.lineup), options, list(self.rule), extra)


def comparison_setup(
    lineup: Sequence[str] | None = None,
    *,
    rules: Sequence[str] | None = None,
    rule: Sequence[str] | None = None,
    sweep: str | None = None,
) -> ComparisonSetup:
    """Check a rule comparison: one lineup under several rule sets, before anything is played.

    Parameters
    ----------
    lineup : sequence of str, optional
        Strategy specs in seat order (default :data:`nines_sim.experiments.tournament.plan.DEFAULT_LINEUP`).
    rules : sequence of str, optional
        Rule sets (``preset[+preset][:key=value,...]``), the first the reference: at least two, or one
        (default ``classic``) with a ``sweep``.
    rule : sequence of str, optional
        ``key=value`` overrides applied to every rule set.
    sweep : str, optional
        ``option=v1,v2,...``: one rule set per value, on top of ``rules``.

    Returns
    -------
    ComparisonSetup

    Raises
    ------
    nines_sim.strategy.registry.StrategyNotFound
        For a spec that names no strategy.
    nines_sim.game.rules.RulesError
        For rule sets that cannot be read, fewer than two, or a sweep that cannot be read.
    """
    from nines_sim.experiments.compare_rules.rule_sets import rule_sets_from
    from nines_sim.experiments.tournament.plan import DEFAULT_LINEUP, entry_names
    from nines_sim.strategy.registry import canonical_spec, make_lineup

    given = list(lineup or DEFAULT_LINEUP)  # as typed: a parameter file names its seat in reports
    make_lineup(given)
    common = parse_overrides(without_players(rule))
    sets, sweep_info = rule_sets_from(list(rules or []), sweep, len(given), common)
    names = [canonical_spec(s) for s in given]
    parts: list[str] = []  # a @FILE as the rule set it holds: the command replays what was played
    for r in [s.label for s in sets] if sweep is None else [sweep_info["base"]] if rules else []:
        parts += ["--rules", r]
    if sweep:
        parts += ["--sweep", sweep]
    return ComparisonSetup(sets, sweep_info, tuple(names), entry_names(names), given, tuple(parts), tuple(rule or ()))


@dataclass
class ComparisonRun:
    """A rule comparison played into its run folder (:func:`play_comparison`).

    Attributes
    ----------
    folder : pathlib.Path
    setup : ComparisonSetup
    outcome : nines_sim.experiments.compare_rules.work.CompareOutcome
        ``outcome.partial`` when Ctrl-C stopped the run.
    table : pandas.DataFrame
        ``comparison.csv``: win rates per rule set and seat, with the paired tests of their shifts.
    workers : int
    compile_seconds : float
    design : tuple of pandas.DataFrame or None
        ``design.csv`` and ``design_distribution.csv`` of ``design=N`` (None without, or when stopped).
    design_stopped : bool
        Whether Ctrl-C stopped the design part (its measures are not written).
    """

    folder: Path
    setup: ComparisonSetup
    outcome: Any
    table: Any
    workers: int
    compile_seconds: float
    design: Any = None
    design_stopped: bool = False
    luck: Any = None  # nines_sim.luck.compare.RulesLuck of luck=True
    luck_absent: str | None = None  # why luck=True wrote no luck.csv (nines_sim.reporting.luck's words)

    def summary(self, table: bool = True) -> list[str]:
        """What ``nines compare-rules`` prints on stdout: the comparison (``table``), the closing line, and for
        a partial run the matches kept."""
        from nines_sim.experiments.compare_rules.tables import terminal_table

        out = self.outcome
        lines = [terminal_table(self.table, self.setup.specs_given)] if table else []
        if self.luck is not None and table:
            lines += self.luck.lines(self.setup.specs_given, [r.label for r in self.setup.rule_sets])
        if self.luck_absent is not None:
            lines.append(f"Luck not taken out: {self.luck_absent}; no luck.csv")
        status = "PARTIAL (interrupted): " if out.partial else ""
        play, compiling = play_seconds(out.wall_seconds, self.compile_seconds)
        n = out.matches_played
        lines.append(
            f"{status}{n:,} match{'' if n == 1 else 'es'} x {len(self.setup.rule_sets)} rule sets in {play:.1f} s"
            f"{compiling}; results in {self.folder}"
        )
        return lines + kept_lines(out)


def play_comparison(
    setup: ComparisonSetup,
    *,
    matches: int = 100_000,
    seed: int = 0,
    out: str | Path | None = None,
    force: bool = False,
    charts: bool = True,
    workers: int | None = None,
    batch_size: int = 32768,
    chunk_size: int | None = None,
    ranges: str | None = None,
    scheduler: str | None = None,
    quiet: bool = True,
    design: int = 0,
    skilled: str = "expert",
    weak: str = "random",
    luck: bool = False,
    luck_fit: int = 4000,
) -> ComparisonRun:
    """Play a rule comparison and write its run folder (what ``nines compare-rules`` does after its checks).

    Every rule set plays the same seed and match indices (common random numbers).  The keywords are those
    of :func:`play_tournament`; ``matches`` counts per rule set.  ``design=N`` measures the game itself under
    every rule set on ``N`` matches per design lineup (skill, seat fairness, length, comebacks; paired across the
    rule sets), with ``skilled`` and ``weak`` as the design lineups' strategies.  ``luck``: also each shift with
    the luck taken out (:mod:`nines_sim.luck.compare`, each rule set's value fitted on ``luck_fit`` reserved
    matches), into ``luck.csv``.

    Returns
    -------
    ComparisonRun

    Raises
    ------
    Exception
        As :func:`play_tournament`.
    """
    from nines_sim.experiments.compare_rules.tables import comparison_frame
    from nines_sim.experiments.design.setup import check_design
    from nines_sim.experiments.extras import design_after, extra_words, keep_design, take_luck

    sets, names = setup.rule_sets, setup.lineup
    check_design(skilled, weak)

    def play(client: Any, bar: Any, wanted: list[Range], n_workers: int) -> Any:
        from nines_sim.experiments.compare_rules.work import run_comparison

        return run_comparison(sets, names, matches, seed, n_workers, batch_size, chunk_size, bar, wanted, client)

    with ExitStack() as held:  # the folder's lock, until the results are written: one writer at a time
        if luck:  # a first run: the luck's forms compile side by side meanwhile (nines_sim.luck.forms)
            from nines_sim.luck.forms import LuckForms

            forms = held.enter_context(closing(LuckForms()))
        played = play_in_folder("compare", play, lambda o: o.matches_played, units=len(sets), matches=matches,
                                out=out, force=force, workers=workers, ranges=ranges, scheduler=scheduler,
                                quiet=quiet, held=held, after=design_after(lambda: sets, design, skilled, weak, seed,
                                                                           batch_size, quiet))  # fmt: skip
        outcome, wanted = played.outcome, played.wanted
        run = ComparisonRun(played.folder, setup, outcome, comparison_frame(sets, setup.labels, outcome),
                            played.workers, played.compile_seconds)  # fmt: skip
        keep_design(run, played, design)
        words = extra_words(design, skilled, weak, luck, luck_fit)
        kept_words = extra_words(design, skilled, weak, False, luck_fit)  # a part of the matches: no --luck

        def rules_luck() -> Any:
            from nines_sim.luck.compare import rules_luck as measure

            forms.ready()
            return measure(sets, list(names), seed, matches, played.workers, luck_fit)

        take_luck(run, luck, outcome.partial, rules_luck)
        with writing():
            _write_comparison(run, matches, seed, wanted, ranges is not None, batch_size, charts, words, kept_words)
    return run


def _write_comparison(run: ComparisonRun, matches: int, seed: int, wanted: list[Range], ranges_given: bool,
                      batch_size: int, charts: bool, words: list[str], kept_words: list[str]) -> None:  # fmt: skip
    """Write a played comparison's CSVs, design measures, manifest, charts and report into its folder
    (``wanted``, ``ranges_given``, ``words``: as for a tournament; ``kept_words``, the same without ``--luck``, for
    the ``kept_command``, which plays a part of the matches: --luck adjusts whole runs)."""
    from nines_sim.experiments.compare_rules.tables import distribution_frame
    from nines_sim.experiments.design.setup import write_design
    from nines_sim.reporting import redraw
    from nines_sim.runs.learned_files import digest_words, learned_files, manifest_field
    from nines_sim.runs.output import clear_outputs, kept_fields, write_csv, write_manifest

    setup, outcome, run_dir = run.setup, run.outcome, run.folder
    learned = [f for r in setup.rule_sets for f in learned_files(setup.lineup, r.rules, r.label)]
    # a command that plays learned models names their digests: run again once one has changed, it says so
    words, kept_words = [*words, *digest_words(learned)], [*kept_words, *digest_words(learned)]
    kept_command = setup.command(matches, seed, outcome.kept, kept_words) if outcome.partial else None
    extra = kept_fields(outcome, outcome.matches_played, kept_command)
    extra["specs_given"] = setup.specs_given
    extra |= manifest_field(learned)
    clear_outputs(run_dir)
    write_csv(run.table, run_dir / "comparison.csv")
    write_csv(distribution_frame(setup.rule_sets, setup.labels, outcome), run_dir / "score_distribution.csv")
    design_files = write_design(run_dir, run.design)
    if run.luck is not None:
        frame = run.luck.frame(setup.specs_given, [r.label for r in setup.rule_sets])
        design_files.append(write_csv(frame, run_dir / "luck.csv").name)
        extra["luck"] = run.luck.manifest()
    elif run.luck_absent is not None:
        extra["luck"] = {"computed": False, "why": run.luck_absent}
    command = setup.command(matches, seed, wanted if ranges_given else None, words)
    fields = comparison_manifest(command, setup.rule_sets, setup.sweep, list(setup.lineup), ranges_total(wanted),
                                 seed, outcome, run.workers, batch_size, run.compile_seconds)  # fmt: skip
    write_manifest(run_dir, fields | extra, files=["comparison.csv", "score_distribution.csv", *design_files])
    redraw(run_dir, charts=charts)


def run_rule_comparison(
    lineup: Sequence[str] | None = None,
    *,
    rules: Sequence[str] | None = None,
    rule: Sequence[str] | None = None,
    sweep: str | None = None,
    matches: int = 100_000,
    seed: int = 0,
    out: str | Path | None = None,
    force: bool = False,
    charts: bool = True,
    workers: int | None = None,
    batch_size: int = 32768,
    chunk_size: int | None = None,
    ranges: str | None = None,
    scheduler: str | None = None,
    quiet: bool = True,
    design: int = 0,
    skilled: str = "expert",
    weak: str = "random",
) -> Path:
    """Play a rule comparison and write its run folder, as ``nines compare-rules`` does; return the folder.

    The arguments are those of :func:`comparison_setup` and :func:`play_comparison`, with the CLI's defaults
    (but no progress bar unless ``quiet=False``).  The CSVs equal, byte for byte, those of
    ``nines compare-rules`` with the same arguments; ``manifest.json`` holds that command.

    Returns
    -------
    pathlib.Path
        The run folder.

    Raises
    ------
    Exception
        Those of :func:`comparison_setup` and :func:`play_comparison`.
    """
    setup = comparison_setup(lineup, rules=rules, rule=rule, sweep=sweep)
    return play_comparison(setup, matches=matches, seed=seed, out=out, force=force, charts=charts, workers=workers,
                           batch_size=batch_size, chunk_size=chunk_size, ranges=ranges, scheduler=scheduler,
                           quiet=quiet, design=design, skilled=skilled, weak=weak).folder  # fmt: skip


def comparison_manifest(
    command: str,
    rule_sets: list,
    sweep: dict | None,
    lineup: list[str],
    n_matches: int,
    seed: int,
    out,  # noqa: ANN001 - a nines_sim.experiments.compare_rules.work.CompareOutcome
    workers: int,
    batch_size: int,
    compile_seconds: float = 0.0,
) -> dict:
    """What reproduces a rule comparison, and how it went (``compile_seconds``: see :func:`speed_fields`)."""
    from nines_sim.experiments.compare_rules.rule_sets import deals_coupled

    return {
        "command": command,
        "version": __version__,
        "seed": seed,
        "rule_sets": [
            {
                "label": rs.label,
                "preset": rs.rules.preset,
                "rules": rs.rules.options() | {"hand_sizes": list(rs.rules.hand_sizes)},
                "deals_coupled": deals_coupled(rule_sets[0].rules, rs.rules),
            }
            for rs in rule_sets
        ],
        "sweep": sweep,
        "lineup": lineup,
        "players": len(lineup),
        "matches": n_matches,
        "matches_played": out.matches_played,
        **run_fields(
            workers, batch_size, out.wall_seconds, compile_seconds, out.matches_played * len(rule_sets), out.partial
        ),  # fmt: skip
    }
