"""Every run kind's report, redrawn from a small stored run folder, equals the stored report.md byte for byte.

The folders under ``tests/data/runs`` (see its README for the commands that wrote them) hold the CSVs and
``manifest.json`` of a table, a round robin, a field, a rule comparison and a sweep, and the ``report.md``
written with them. Reports are rendered from the files alone, so any change of wording, number format or
section order shows up here; a deliberate change regenerates the stored reports in its own commit.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.experiments.compare_rules.report import write_comparison_report
from nines_sim.experiments.tournament.report import write_report
from tests.run_fixtures import comparison_figures

RUNS = Path(__file__).parent / "data" / "runs"
KINDS = {"table": "tournament", "round-robin": "tournament", "field": "tournament", "compare": "comparison",
         "sweep": "comparison"}  # fmt: skip
CHARTS = {
    "tournament": {"win_rates.png", "final_totals.png", "hand_penalties.png", "go_out_by_seat.png"},
    "comparison": {"win_rates_by_rule_set.png", "shifts_by_rule_set.png", "final_totals_by_rule_set.png"},
}


def _copy(name: str, tmp_path: Path) -> Path:
    dst = tmp_path / name
    shutil.copytree(RUNS / name, dst)
    return dst


@pytest.mark.parametrize("name", sorted(KINDS))
def test_rendering_a_stored_run_reproduces_its_report_byte_for_byte(name: str, tmp_path: Path) -> None:
    run = _copy(name, tmp_path)
    (run / "report.md").unlink()
    write = write_comparison_report if KINDS[name] == "comparison" else write_report
    write(run)
    assert (run / "report.md").read_bytes() == (RUNS / name / "report.md").read_bytes()


@pytest.mark.parametrize("name", sorted(KINDS))
def test_nines_report_redraws_every_kind_of_run_folder(name: str, tmp_path: Path) -> None:
    run = _copy(name, tmp_path)
    result = CliRunner().invoke(app, ["report", str(run)])
    assert result.exit_code == 0, result.output
    drawn = {p.name for p in run.glob("*.png")}
    want = set(CHARTS[KINDS[name]])
    want |= {"head_to_head.png"} if name == "round-robin" else set()
    want |= {"sweep.png"} if name == "sweep" else set()
    assert drawn == want
    text = (run / "report.md").read_text(encoding="utf-8")
    for png in drawn:
        assert f"]({png})" in text
    # Apart from the charts it now embeds, the report is the stored one.
    without_charts = re.sub(r"## Charts\n.*?(?=## Reproduce)", "", text, flags=re.S)
    assert without_charts == (RUNS / name / "report.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(KINDS))
def test_nines_report_no_charts_rewrites_the_report_alone_embedding_no_chart(name: str, tmp_path: Path) -> None:
    run = _copy(name, tmp_path)
    (run / "report.md").unlink()
    result = CliRunner().invoke(app, ["report", str(run), "--no-charts"])
    assert result.exit_code == 0, result.output
    assert result.output == f"wrote {run / 'report.md'}\n"
    assert not list(run.glob("*.png"))
    assert (run / "report.md").read_bytes() == (RUNS / name / "report.md").read_bytes()  # no Charts section


def _figures(run: Path) -> dict[str, object]:
    """Every chart of a stored run folder as a figure, drawn by the functions that save_all uses."""
    from nines_sim.reporting import charts
    from nines_sim.reporting.folders import load_comparison, load_run

    if KINDS[run.name] == "comparison":
        c = load_comparison(run)
        return comparison_figures(c)
    t = load_run(run)
    return {
        "win rates": charts.plot_win_rates(charts.win_rate_data(t.summary, t.format, t.players)),
        "totals": charts.plot_final_totals(charts.distribution_data(t.score_distribution, "final_total")),
        "penalties": charts.plot_hand_penalties(charts.distribution_data(t.score_distribution, "hand_penalty")),
        "seats": charts.plot_go_out_by_seat(charts.seat_go_out_data(t.seat_go_out)),
    }


@pytest.mark.parametrize("name", sorted(KINDS))
def test_no_legend_covers_the_data_of_any_chart(name: str) -> None:
    import matplotlib.pyplot as plt

    for chart, fig in _figures(RUNS / name).items():
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        for ax in fig.axes:
            legend = ax.get_legend()
            if legend is None:
                continue
            box, plot = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
            # The legend lies wholly to the right of the plotting area: no point, bar or band under it.
            assert box.x0 >= plot.x1, (name, chart, box, plot)
            assert box.x1 <= fig.bbox.x1 + 1, (name, chart, "legend cut off by the figure's edge")
        plt.close(fig)


def test_the_hand_penalty_axis_names_points_not_bins_of_point() -> None:
    import matplotlib.pyplot as plt

    figs = _figures(RUNS / "table")
    label = figs["penalties"].axes[0].get_xlabel()
    for fig in figs.values():
        plt.close(fig)
    assert "bins of point" not in label and label == "Hand penalty (points; 0 = went out)"
