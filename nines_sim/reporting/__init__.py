"""What a person reads of a run: the charts and ``report.md`` of every kind of run folder, from its files alone.

- :mod:`~nines_sim.reporting.folders` reads a run folder into a typed object (``load_run``, ``load_comparison``);
- :mod:`~nines_sim.reporting.check` checks a folder's CSVs against its ``manifest.json`` before a redraw;
- :mod:`~nines_sim.reporting.charts` holds every chart, one module per run kind: a data object built from the
  CSVs and ``plot_x(data, ax=None) -> Figure``;
- :mod:`~nines_sim.reporting.markdown` holds the shared Markdown parts: numbers with units, intervals,
  significance sentences, the run facts and reproduce sections;
- one module per run kind assembles its report: :mod:`~nines_sim.experiments.tournament.report`
  (``nines tournament``), :mod:`~nines_sim.experiments.compare_rules.report` (``nines compare-rules``) and
  :mod:`~nines_sim.experiments.tune.report` (``nines tune``, with the writer of its folder).

``redraw`` draws the charts and writes the report of any kind of run folder.
"""

from __future__ import annotations

from pathlib import Path


def redraw(run_dir: Path | str, charts: bool = True) -> str:
    """Draw the charts (unless ``charts`` is False) and write ``report.md`` of a run folder of any kind.

    Parameters
    ----------
    run_dir : pathlib.Path or str
        A folder written by ``nines tournament``, ``nines compare-rules``, ``nines tune`` (with or without
        ``--versus``), ``nines tune-rules``, ``nines review`` or ``nines train``.
    charts : bool
        Draw the PNG charts first, so that the report embeds them.

    Returns
    -------
    str
        The run kind: ``"tournament"``, ``"comparison"``, ``"tune"``, ``"versus"``, ``"tune-rules"``, ``"review"``
        or ``"train"``.

    Raises
    ------
    FileNotFoundError, ValueError
        If the folder lacks its manifest or main table, or a table lacks a column.
    """
    # Imported here, each kind's report and charts only for that kind: matplotlib loads only when something is
    # drawn, and a tournament does not load the comparison's report.
    from nines_sim.reporting.folders import run_kind

    kind = run_kind(run_dir)
    if kind == "train":
        from nines_sim.learn.report import write_report as write_training

        write_training(Path(run_dir), charts)
    elif kind == "review":
        from nines_sim.experiments.review.report import redraw_folder as redraw_review

        redraw_review(Path(run_dir), charts)
    elif kind == "tune-rules":
        from nines_sim.experiments.tune_rules.report import redraw_folder

        redraw_folder(Path(run_dir), charts)
    elif kind == "versus":  # nines tune --versus: no charts, the answer in report.md
        from nines_sim.experiments.tune import report as tune

        tune.write_versus_report(Path(run_dir))
    elif kind == "tune":
        from nines_sim.experiments.tune import report as tune

        if charts:
            from nines_sim.reporting.charts.tune import save_charts

            save_charts(Path(run_dir))
        tune.write_report(Path(run_dir))
    elif kind == "comparison":
        from nines_sim.experiments.compare_rules.report import write_comparison_report

        if charts:
            from nines_sim.reporting import charts as drawing

            drawing.save_all_comparison(run_dir)
        write_comparison_report(run_dir)
        _add_design(run_dir, charts)
        from nines_sim.reporting import luck

        luck.add_to_report(run_dir)
    else:
        from nines_sim.experiments.tournament.report import write_report

        if charts:
            from nines_sim.reporting import charts as drawing
            from nines_sim.reporting.charts.league import save_chart

            drawing.save_all(run_dir)
            save_chart(run_dir)  # a league's or round robin's ratings.png
        write_report(run_dir)
        _add_design(run_dir, charts)
        from nines_sim.reporting import luck

        luck.add_to_report(run_dir)
    return kind


def _add_design(run_dir: Path | str, charts: bool) -> None:
    """The design measures' section and chart, where the folder has ``design.csv`` (``--design N``); the
    module (and the engine's tallies it reads) loads only then."""
    if (Path(run_dir) / "design.csv").is_file():
        from nines_sim.experiments.design import report as design

        design.add_to_report(run_dir, charts)
