"""``nines train --draws log`` (issue 40): the label rollouts' worlds sampled from the seats' draw logs, as
``lookahead:draws=log`` samples them, instead of from the suits each seat drew on."""

from __future__ import annotations

import json

import numpy as np

from nines_sim.game.rules import make_rules


def _round_one(draws: str):  # noqa: ANN202
    from nines_sim.learn.train import TrainSettings, collect_unit

    s = TrainSettings(matches=6, samples=4, draws=draws)
    got = collect_unit(make_rules("classic", players=2), None, s, 7, 0, s.matches)
    assert got is not None
    return got[0].canonical()


def test_the_draw_log_labels_the_same_positions_with_other_values():
    """Round 1 plays ``expert``'s moves whatever the labels, so both label the very same decisions and candidates;
    the draw log weighs a card lacked at a draw by the cards drawn since (not lacked for the rest of the hand), so
    the worlds and the rollouts' values differ (on the old code ``draws`` was not a setting: a TypeError)."""
    suits, log = _round_one("suits"), _round_one("log")
    for which in ("card", "suit", "drawn"):
        xs, ys, gs = suits.arrays(which)
        xl, yl, gl = log.arrays(which)
        np.testing.assert_array_equal(xs, xl)
        np.testing.assert_array_equal(gs, gl)
    ys, yl = suits.arrays("card")[1], log.arrays("card")[1]
    assert ys.size > 100 and np.count_nonzero(ys != yl) > ys.size // 4


def test_the_command_names_draws_log_and_a_run_of_other_draws_is_not_continued(tmp_path, monkeypatch):
    """The manifest's command trains the same model again (``--draws log`` in it; the default ``suits`` left out of
    the command and of a stopped run's identity, as before it was a setting, so that such a run still continues),
    a stopped run is continued only with the same draws, and a bad value is a one-line usage error."""
    import pytest
    from typer.testing import CliRunner

    from nines_sim.cli import app
    from nines_sim.learn.resume import ResumeError, _identity, resume_state
    from nines_sim.learn.train import PROGRESS, TrainSettings
    from tests.test_output_paths import one_error_line

    rules = make_rules("classic", players=2)
    assert "draws" not in _identity(3, rules, TrainSettings())["settings"]
    monkeypatch.chdir(tmp_path)
    args = ["train", "--seed", "3", "--rounds", "1", "-n", "2", "--samples", "2", "--eval-matches", "10",
            "--workers", "1"]  # fmt: skip
    res = CliRunner().invoke(app, [*args, "--draws", "log", "--out", "run"])
    assert res.exit_code == 0, res.output
    assert " --draws log " in json.loads((tmp_path / "run" / "manifest.json").read_text())["command"]
    log = TrainSettings(rounds=1, matches=2, samples=2, eval_matches=10, draws="log")
    (tmp_path / PROGRESS).write_text(json.dumps({"identity": _identity(3, rules, log), "rows": []}))
    assert resume_state(tmp_path, 3, rules, log)["rows"] == []
    with pytest.raises(ResumeError, match="draws log, not suits"):  # the default named, though left out
        resume_state(tmp_path, 3, rules, TrainSettings(rounds=1, matches=2, samples=2, eval_matches=10))
    assert "Invalid value for '--draws'" in one_error_line(CliRunner().invoke(app, [*args, "--draws", "all"]))
    returns = CliRunner().invoke(app, [*args, "--draws", "log", "--targets", "returns", "--out", "other"])
    assert "--targets returns plays none" in one_error_line(returns) and not (tmp_path / "other").exists()
