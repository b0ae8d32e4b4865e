"""A played tournament's run folder written: its CSVs, ratings, design measures, luck, manifest, charts and report
(what :func:`~nines_sim.experiments.tournament.setup.play_tournament` leaves once the matches are played)."""

from __future__ import annotations

from typing import Any

from nines_sim.runs.ranges import Range
from nines_sim.runs.ranges import total as ranges_total


def write_tournament(run: Any, matches: int, wanted: list[Range], ranges_given: bool, batch_size: int,
                     charts: bool, words: list[str], kept_words: list[str]) -> None:  # fmt: skip
    """Write a played tournament's CSVs, ratings, design measures, manifest, charts and report into its folder
    (``run``: a :class:`~nines_sim.experiments.tournament.setup.TournamentRun`; ``wanted``: the match indices asked
    for; ``ranges_given``: asked for with ``ranges``, which the command then names; ``words``: the command's design
    options; ``kept_words``, the same without ``--luck``, for the ``kept_command``, which plays a part of the
    matches: --luck adjusts whole runs)."""
    from nines_sim.experiments.design.setup import write_design
    from nines_sim.experiments.tournament.tables import manifest, matches_per_game, write_tables
    from nines_sim.luck.tournament import fit_range
    from nines_sim.reporting import redraw
    from nines_sim.runs.learned_files import digest_words, learned_files, manifest_field
    from nines_sim.runs.output import clear_outputs, kept_fields, write_manifest

    setup, outcome, run_dir = run.setup, run.outcome, run.folder
    plan, seed = setup.plan, setup.seed
    learned = learned_files([s for g in plan.games for s in g.lineup], plan.games[0].rules)
    # a command that plays learned models names their digests: run again once one has changed, it says so
    words, kept_words = [*words, *digest_words(learned)], [*kept_words, *digest_words(learned)]
    kept_command = setup.command(matches, outcome.kept, kept_words) if outcome.partial else None
    extra = kept_fields(outcome, matches_per_game(outcome), kept_command)
    extra["specs_given"] = setup.specs_given
    extra |= manifest_field(learned)
    clear_outputs(run_dir)
    tables = write_tables(run_dir, plan, outcome)
    if run.ratings is not None:
        from nines_sim.experiments.tournament.league import RATINGS_FILES, ratings_manifest, write_ratings

        write_ratings(run_dir, plan, outcome, seed, run.ratings)
        extra["ratings"] = ratings_manifest(plan, run.ratings)
        tables = [*tables, *RATINGS_FILES]
    elif run.ratings_stopped:
        extra["ratings"] = {"computed": False, "why": "stopped (Ctrl-C) while rating"}
    tables = [*tables, *write_design(run_dir, run.design)]
    if run.luck is not None:
        from nines_sim.experiments.tournament.tables import summary_frame
        from nines_sim.luck.tournament import write_luck

        tables = [*tables, *write_luck(run_dir, run.luck, plan.labels, summary_frame(plan, outcome))]
        extra["luck"] = run.luck.manifest()
    elif run.luck_absent is not None:
        extra["luck"] = {"computed": False, "why": run.luck_absent, "fit_matches": fit_range(run.luck_fit)}
    command = setup.command(matches, wanted if ranges_given else None, words)
    fields = manifest(command, plan, outcome, seed, ranges_total(wanted), run.workers, batch_size,
                      run.compile_seconds, **extra)  # fmt: skip
    write_manifest(run_dir, fields, files=tables)
    redraw(run_dir, charts=charts)
