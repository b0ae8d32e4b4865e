"""``nines tune``: seat rotation, common matches, storage and resume, validation range, outputs, errors.

Studies here are tiny (a 2-seat table, a few trials of a few matches): they test the
machinery, not the tuning.
"""

from __future__ import annotations

import json
import shlex

import pandas as pd
import pytest
from typer.testing import CliRunner

from nines_sim import tune as T
from nines_sim.cli import app
from nines_sim.registry import make_lineup
from nines_sim.rules import make_rules

runner = CliRunner()
TUNE = ["tune", "expert", "--opponents", "hold-nines", "--params", "shed_nine_at,w_follow", "--matches", "8",
        "--validate", "8", "--workers", "1", "--seed", "4", "--quiet"]  # fmt: skip
OUTPUTS = ("trials.csv", "best.json", "validation.csv", "importances.csv", "manifest.json", "report.md",
           "history.png", "params.png", "study.db")  # fmt: skip


def test_rotation_seats_the_tuned_strategy_in_every_seat_once_with_opponents_in_order():
    lineups = T.rotations("t", ("a", "b", "c"))
    assert [lu.index("t") for lu in lineups] == [0, 1, 2, 3]
    for lu in lineups:
        i = lu.index("t")
        assert [lu[(i + k) % 4] for k in range(4)] == ["t", "a", "b", "c"]  # same clockwise order


def test_play_gives_every_seat_the_same_matches():
    setup = T.make_setup("expert", ["dump-faces", "hold-nines"], make_rules("classic", players=3), "all", 9, 2)
    assert setup.matches == 9 and setup.per_rotation == 3
    played = T.play(setup, "expert", 0, 3, T.Runner(), keep=True)
    shares = played.shares()
    assert played.stats.matches == 9
    assert shares.groupby("rotation")["match"].apply(list).to_dict() == {0: [0, 1, 2], 1: [0, 1, 2], 2: [0, 1, 2]}
    # the same numbers whatever the workers (two rotations at a time, in two processes)
    pd.testing.assert_frame_equal(T.play(setup, "expert", 0, 3, T.Runner(workers=2), keep=True).shares(), shares)
    # the tuned strategy's share in rotation r is seat r's share of a plain run of that lineup
    from nines_sim.simulate import simulate

    for r, lineup in enumerate(T.rotations("expert", setup.opponents)):
        res = simulate(setup.rules, list(lineup), 3, seed=2)
        assert shares[shares["rotation"] == r]["share"].tolist() == res.win_share[:, r].tolist()


def test_a_short_study_writes_every_output_and_resumes_without_repeating_trials(tmp_path):
    out = tmp_path / "run"
    r = runner.invoke(app, [*TUNE, "--trials", "2", "--out", str(out)])
    assert r.exit_code == 0, r.output
    for f in OUTPUTS:
        assert (out / f).is_file(), f
    first = pd.read_csv(out / "trials.csv")
    assert first["trial"].tolist() == [0, 1] and set(first["state"]) == {"complete"}
    assert first.loc[0, "shed_nine_at"] == 2 and first.loc[0, "w_follow"] == 3.0  # trial 0 is the baseline
    assert (first["matches"] == 8).all()
    manifest = json.loads((out / "manifest.json").read_text())
    # the same command, asking for more trials, resumes the study
    again = shlex.split(manifest["command"].replace("--trials 2", "--trials 4"))[1:] + ["--quiet"]
    r = runner.invoke(app, again)
    assert r.exit_code == 0, r.output
    after = pd.read_csv(out / "trials.csv")
    assert after["trial"].tolist() == [0, 1, 2, 3]
    pd.testing.assert_frame_equal(after.iloc[:2], first)  # finished trials kept as they were, not replayed
    assert json.loads((out / "manifest.json").read_text())["trials_run"] == 2
    best = json.loads((out / "best.json").read_text())
    assert make_lineup([f"expert@{out / 'best.json'}"])[0].values == best["params"]
    report = (out / "report.md").read_text()
    assert "fresh matches" in report and "expert@" in report


def test_validation_plays_a_match_range_disjoint_from_the_trials_and_pairs_it(tmp_path):
    out = tmp_path / "run"
    r = runner.invoke(app, [*TUNE, "--trials", "1", "--out", str(out)])
    assert r.exit_code == 0, r.output
    m = json.loads((out / "manifest.json").read_text())
    lo, hi = m["validation_match_range"]
    t_lo, t_hi = m["trial_match_range"]
    assert (t_lo, t_hi) == (0, 4) and lo >= t_hi and hi - lo == 4
    v = pd.read_csv(out / "validation.csv").set_index("row")
    assert v.loc["gain", "win_rate"] == pytest.approx(v.loc["best", "win_rate"] - v.loc["baseline", "win_rate"])
    assert v.loc["best", "matches"] == 8


def test_paired_gain_interval_is_scipys_t_interval():
    a = [1, 0, 1, 1, 0.5, 1, 0, 1]
    b = [0, 0, 1, 0, 0.5, 1, 1, 0]
    gain, (lo, hi), p = T.paired_gain(a, b)
    from scipy import stats

    d = [x - y for x, y in zip(a, b)]
    ref = stats.ttest_1samp(d, 0.0)
    assert gain == pytest.approx(sum(d) / len(d))
    assert (lo, hi) == pytest.approx(tuple(ref.confidence_interval(0.95))) and p == pytest.approx(ref.pvalue)
    assert lo < gain < hi


class StopAfter(T.Runner):
    """Reports a Ctrl-C on its n-th batch of units, as the pool does after SIGINT."""

    def __init__(self, n: int) -> None:
        super().__init__(workers=1)
        self.left = n

    def run(self, units, take):  # noqa: ANN001, ANN201
        self.left -= 1
        if self.left < 0:
            return True
        return super().run(units, take)


def test_an_interrupted_study_keeps_finished_trials_and_resumes(tmp_path):
    setup = T.make_setup("expert", ["hold-nines"], make_rules("classic", players=2), "shed_nine_at", 4, 1)
    url = f"sqlite:///{tmp_path / 's.db'}"
    study = T.open_study(url, "s", setup, create=True)
    with pytest.raises(T.TuneInterrupted):
        T.optimize(study, setup, 5, StopAfter(5))  # two trials of two rotations, then Ctrl-C in the third
    study = T.open_study(url, "s", setup, create=False)
    states = [t.state.name for t in study.trials]
    assert states == ["COMPLETE", "COMPLETE", "FAIL"]
    kept = [t.params for t in study.trials[:2]]
    T.optimize(study, setup, 3, T.Runner())
    assert len(T.finished(study)) == 3 and [t.params for t in study.trials[:2]] == kept


def _one_line_error(result) -> str:  # noqa: ANN001
    assert result.exit_code == 2, result.output
    lines = [x for x in result.output.splitlines() if x.strip()]
    assert len(lines) == 1, result.output
    return lines[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tune", "nosuch", "--opponents", "hold-nines"], "unknown strategy 'nosuch'"),
        (["tune", "expert", "--opponents", "nosuch"], "unknown strategy 'nosuch'"),
        (["tune", "random", "--opponents", "hold-nines"], "declares no parameters; there is nothing to tune"),
        (["tune", "expert", "--opponents", "hold-nines", "--params", "w_follow,nope"], "no parameter 'nope'"),
        (["tune", "expert", "--opponents", "hold-nines", "--trials", "0"], "--trials must be at least 1"),
        (["tune", "expert", "--opponents", "hold-nines", "--storage", "postgresql://h/db"], "must be a SQLite file"),
        (["tune", "expert", "--opponents", "hold-nines", "--storage", "sqlite:////no/such/dir/x.db"],
         "cannot open the storage"),
        (["tune", "expert", "--opponents", "a", "b", "--players", "4"], "unknown strategy 'a'"),
        (["tune", "expert", "--opponents", "hold-nines", "dump-faces", "--players", "4"], "takes 3 opponents"),
        (["tune", "expert"], "give the opponents"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_exit_2_and_writes_nothing(args, message, tmp_path):
    out = tmp_path / "o"
    line = _one_line_error(runner.invoke(app, [*args, "--out", str(out)]))
    assert message in line
    assert not out.exists()


def test_a_storage_that_is_not_a_database_is_refused(tmp_path):
    db = tmp_path / "x.db"
    db.write_text("not a database")
    r = runner.invoke(app, [*TUNE, "--storage", f"sqlite:///{db}", "--out", str(tmp_path / "o")])
    assert "cannot open the storage" in _one_line_error(r)
    assert not (tmp_path / "o").exists()


def test_a_study_name_taken_by_another_setup_is_refused(tmp_path):
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    other = T.make_setup("expert", ["dump-faces"], make_rules("classic", players=2), "all", 8, 4)
    T.open_study(url, "mine", other, create=True)
    r = runner.invoke(app, [*TUNE, "--storage", url, "--study", "mine", "--out", str(tmp_path / "o")])
    line = _one_line_error(r)
    assert "study 'mine'" in line and "opponents" in line and "tuned" in line
    assert not (tmp_path / "o").exists()


def test_nines_report_redraws_a_tune_folder_to_the_same_report(tmp_path):
    out = tmp_path / "run"
    assert runner.invoke(app, [*TUNE, "--trials", "2", "--out", str(out)]).exit_code == 0
    written = (out / "report.md").read_text()
    for f in ("report.md", "history.png", "params.png"):
        (out / f).unlink()
    r = runner.invoke(app, ["report", str(out)])
    assert r.exit_code == 0, r.output
    assert (out / "report.md").read_text() == written  # drawn from the folder's files alone
    assert (out / "history.png").is_file() and (out / "params.png").is_file()


def test_versus_plays_a_spec_against_the_strategy_on_the_validation_matches_paired(tmp_path):
    """``--versus``: no study, the cross-over check (a strategy tuned under other rules against this one)."""
    base = ["tune", "expert", "--opponents", "hold-nines", "--validate", "40", "--workers", "1", "--seed", "4", "-q"]
    r = runner.invoke(app, [*base, "--versus", "expert:shed_nine_at=0,w_follow=9", "--out", str(tmp_path / "v")])
    assert r.exit_code == 0, r.output
    v = pd.read_csv(tmp_path / "v" / "validation.csv").set_index("row")
    assert v.loc["versus", "spec"] == "expert:w_follow=9.0,shed_nine_at=0" and v.loc["strategy", "spec"] == "expert"
    # the same matches as the study's validation of that spec (paired, from the validation range)
    setup = T.make_setup("expert", ["hold-nines"], make_rules("classic", players=2), "all", 8, 4)
    ref = T.validate(setup, "expert:w_follow=9.0,shed_nine_at=0", 40, T.Runner())
    assert v.loc["difference", "win_rate"] == pytest.approx(ref.gain) and ref.gain != 0
    assert v.loc["versus", "win_rate"] == pytest.approx(ref.best)
    assert json.loads((tmp_path / "v" / "manifest.json").read_text())["match_range"][0] == T.VALIDATION_START
    assert not (tmp_path / "v" / "study.db").exists()
    bad = runner.invoke(app, [*base, "--versus", "expert:nope=1", "--out", str(tmp_path / "b")])
    assert bad.exit_code == 2 and "nope" in bad.output and not (tmp_path / "b").exists()
