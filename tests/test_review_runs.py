"""``nines review`` as a run (issue 38): Ctrl-C keeps the finished matches, a manifest, ``nines report``, labels.

Every interruption is driven by an event (the progress callback, or the first decision judged, raising SIGINT
in this process), never by the clock.
"""

from __future__ import annotations

import json
import shlex
import signal
import textwrap
from pathlib import Path

from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.experiments.review import work as review_module
from tests.interrupt import ctrl_c_in_process

runner = CliRunner()
SAMPLES = ("--samples", "16")

PLUGIN = textwrap.dedent(
    '''
    from nines_sim.strategies.expert import Expert

    class Lowest(Expert):
        """expert under another name: a plug-in loaded from its file."""
        name = "lowest"
    '''
)


def manifest(d: Path) -> dict:
    return json.loads((d / "manifest.json").read_text())


def test_ctrl_c_keeps_the_finished_matches_marks_the_report_partial_and_its_command_reviews_them_again(
    tmp_path, monkeypatch
):
    ctrl_c_in_process(monkeypatch, lambda played, kept: kept > 0)
    d = tmp_path / "cc"
    # seed 1: matches 0 and 1 end first, so two are kept (one for each of the two workers below) while eight still
    # play; seed 2's first 100 matches kept 26, whose review and review again cost about 5 s more processor time
    r = runner.invoke(app, ["review", "suit-majority", "--matches", "10", "--seed", "1", *SAMPLES, "--workers", "1",
                            "--no-charts", "--out", str(d)])  # fmt: skip
    assert r.exit_code == 130, r.output
    assert "PARTIAL" in r.output and "Traceback" not in r.output
    m = manifest(d)
    k = m["matches_played"]
    assert m["partial"] and 1 < k < 10 and m["kept_ranges"] == [[0, k]] and m["ranges"] == [[0, 10]]
    assert m["kept_command"] is not None and f"--ranges 0:{k}" not in m["command"]
    report = (d / "report.md").read_text()
    assert "PARTIAL" in report and m["kept_command"] in report and m["kept_command"] in r.output
    monkeypatch.undo()
    args = shlex.split(m["kept_command"])
    assert args[:2] == ["nines", "review"]
    again = runner.invoke(app, [*args[1:], "--workers", "2", "--no-charts", "--out", str(tmp_path / "again")])
    assert again.exit_code == 0, again.output
    assert "PARTIAL" not in again.output and not manifest(tmp_path / "again")["partial"]
    assert (d / "review.csv").read_bytes() == (tmp_path / "again" / "review.csv").read_bytes()


def test_ctrl_c_before_any_match_is_reviewed_writes_no_review(tmp_path, monkeypatch):
    judge = review_module.Reviewed._judge
    heard: list[int] = []

    def first_decision_stops(self, *args, **kwargs):  # noqa: ANN001, ANN202
        judge(self, *args, **kwargs)
        if not heard:
            heard.append(1)
            signal.raise_signal(signal.SIGINT)  # the run's own Ctrl-C handler hears it at once

    monkeypatch.setattr(review_module.Reviewed, "_judge", first_decision_stops)
    d = tmp_path / "none"
    r = runner.invoke(app, ["review", "expert", "--matches", "50", *SAMPLES, "--workers", "1", "--out", str(d)])
    assert heard and r.exit_code == 130, r.output
    assert "Stopped before any match was kept: no results were written." in r.output
    assert "decisions with a choice" not in r.output and "Traceback" not in r.output
    assert not d.exists()


def test_a_review_folder_has_a_manifest_and_nines_report_redraws_it(tmp_path):
    d = tmp_path / "rev"
    r = runner.invoke(app, ["review", "hold-nines", "--matches", "3", "--seed", "1", *SAMPLES, "--out", str(d)])
    assert r.exit_code == 0, r.output
    m = manifest(d)
    assert m["kind"] == "review" and not m["partial"] and m["kept_command"] is None
    assert m["matches_played"] == 3 and m["command"].startswith("nines review hold-nines --against expert")
    assert "sha256" in m and set(m["sha256"]) == {"review.csv"}
    written = {name: (d / name).read_bytes() for name in ("report.md", "points_lost.png")}
    for name in written:
        (d / name).unlink()
    rep = runner.invoke(app, ["report", str(d)])
    assert rep.exit_code == 0, rep.output
    assert (d / "report.md").read_bytes() == written["report.md"]  # the same report from the folder alone
    assert (d / "points_lost.png").is_file()
    # the manifest's command makes the same rows again
    args = shlex.split(m["command"])
    again = runner.invoke(app, [*args[1:], "--no-charts", "--out", str(tmp_path / "again")])
    assert again.exit_code == 0, again.output
    assert (tmp_path / "again" / "review.csv").read_bytes() == (d / "review.csv").read_bytes()
    # drawn, the chart is shown; not drawn (--no-charts), the report links no chart (it linked a missing file)
    assert "![points lost](points_lost.png)" in written["report.md"].decode()
    assert not (tmp_path / "again" / "points_lost.png").exists()
    assert "points_lost.png" not in (tmp_path / "again" / "report.md").read_text()


def test_nines_report_refuses_an_edited_review(tmp_path):
    # one worker here and below: the default (one process per core) forked two for a review of two matches
    d = tmp_path / "rev"
    args = ["review", "random", "-n", "2", *SAMPLES, "--workers", "1", "--no-charts", "--out", str(d)]
    assert runner.invoke(app, args).exit_code == 0
    assert runner.invoke(app, ["report", str(d), "--no-charts"]).exit_code == 0
    text = (d / "review.csv").read_text().splitlines()
    (d / "review.csv").write_text("\n".join(text[:-1]) + "\n")  # one decision dropped
    r = runner.invoke(app, ["report", str(d)])
    assert r.exit_code == 2 and "review.csv was changed after the run wrote it" in r.output, r.output


def test_a_plugin_is_shown_by_its_short_label_not_its_path(tmp_path):
    f = tmp_path / "deep" / "folder" / "lowest.py"
    f.parent.mkdir(parents=True)
    f.write_text(PLUGIN)
    d = tmp_path / "rev"
    r = runner.invoke(app, ["review", f"{f}:Lowest", "-n", "2", *SAMPLES, "--workers", "1", "--no-charts", "--out",
                            str(d)])  # fmt: skip
    assert r.exit_code == 0, r.output
    report = (d / "report.md").read_text()
    title = report.splitlines()[0]
    assert title == "# Review of lowest.py:Lowest", title
    lineup = report.splitlines()[2]
    assert "seat 0 lowest.py:Lowest" in lineup and str(tmp_path) not in lineup
    from nines_sim.experiments.review import report as reporting
    from nines_sim.experiments.review.work import Review

    shown: list[str] = []
    draw = reporting.plot_points_lost

    def spy(kind, situation, title="", ax=None):  # noqa: ANN001, ANN202
        shown.append(title)
        return draw(kind, situation, title, ax)

    rev: Review = reporting.review_of_folder(d)
    reporting.plot_points_lost = spy
    try:
        reporting.redraw_folder(d)
    finally:
        reporting.plot_points_lost = draw
    assert shown == ["Points lost by lowest.py:Lowest against the search"] and rev.player == f"{f}:Lowest"
