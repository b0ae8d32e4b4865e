"""``nines tune``: seat rotation, common matches, storage and resume, validation range, outputs, errors.

Studies here are tiny (a 2-seat table, a few trials of a few matches): they test the
machinery, not the tuning.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.experiments import study as S
from nines_sim.experiments.tune import work as T
from nines_sim.game.rules import make_rules
from nines_sim.strategy.registry import make_lineup

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
    from nines_sim.runs.simulate import simulate

    for r, lineup in enumerate(T.rotations("expert", setup.opponents)):
        res = simulate(setup.rules, list(lineup), 3, seed=2)
        assert shares[shares["rotation"] == r]["share"].tolist() == res.win_share[:, r].tolist()


@pytest.fixture(scope="module")
def studied(tmp_path_factory) -> tuple[str, Path]:
    """A short study (:data:`TUNE`, two trials) as its command wrote it, and what it said: the tests that read a
    study's folder share it (each such run, with its charts and report, cost about a second of processor time);
    those that change the folder copy it first."""
    out = tmp_path_factory.mktemp("tune") / "run"
    r = runner.invoke(app, [*TUNE, "--trials", "2", "--out", str(out)])
    assert r.exit_code == 0, r.output
    return r.output, out


def _copy(folder: Path, tmp_path: Path) -> Path:
    """A copy of the shared study's folder (its study.db with it), to change."""
    out = tmp_path / "run"
    shutil.copytree(folder, out)
    return out


def test_a_short_study_writes_every_output_and_resumes_without_repeating_trials_or_its_old_charts(studied, tmp_path):
    """Resumed with --no-charts: no chart drawn, and none left of the trials before (they show fewer trials)."""
    out = _copy(studied[1], tmp_path)
    for f in OUTPUTS:
        assert (out / f).is_file(), f
    first = pd.read_csv(out / "trials.csv")
    assert first["trial"].tolist() == [0, 1] and set(first["state"]) == {"complete"}
    assert first.loc[0, "shed_nine_at"] == 2 and first.loc[0, "w_follow"] == 3.0  # trial 0 is the baseline
    assert (first["matches"] == 8).all()
    manifest = json.loads((out / "manifest.json").read_text())
    # the same command, asking for more trials, resumes the study (the copy's: its folder and the study.db in it)
    assert f"--out {studied[1]}" in manifest["command"]
    command = manifest["command"].replace(str(studied[1]), str(out))
    again = shlex.split(command.replace("--trials 2", "--trials 4"))[1:] + ["--quiet", "--no-charts"]
    r = runner.invoke(app, again)
    assert r.exit_code == 0, r.output
    after = pd.read_csv(out / "trials.csv")
    assert after["trial"].tolist() == [0, 1, 2, 3]
    pd.testing.assert_frame_equal(after.iloc[:2], first)  # finished trials kept as they were, not replayed
    assert json.loads((out / "manifest.json").read_text())["trials_run"] == 2
    best = json.loads((out / "best.json").read_text())
    assert make_lineup([f"expert@{out / 'best.json'}"])[0].values == best["params"]
    # the closing line: the moved values rounded (or the baseline named), and the spec that plays them
    moved = {k: v for k, v in best["params"].items() if best["baseline"][k] != v}
    closing = r.output.strip().splitlines()[-1]
    assert closing.endswith(f": play it as expert@{out / 'best.json'}") and len(closing) < 140 + len(str(out))
    assert ("best expert(" if moved else "best expert at the baseline values") in closing, closing
    report = (out / "report.md").read_text()
    assert "fresh matches" in report and "expert@" in report
    assert not list(out.glob("*.png")) and ".png)" not in report


def test_validation_plays_a_match_range_disjoint_from_the_trials_and_pairs_it(studied):
    out = studied[1]
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

    def run(self, work):  # noqa: ANN001, ANN201
        self.left -= 1
        if self.left < 0:
            return True
        return super().run(work)


def test_an_interrupted_study_keeps_finished_trials_and_resumes(tmp_path):
    setup = T.make_setup("expert", ["hold-nines"], make_rules("classic", players=2), "shed_nine_at", 4, 1)
    url = f"sqlite:///{tmp_path / 's.db'}"
    study = S.open_study(url, "s", setup, create=True)
    with pytest.raises(T.TuneInterrupted):
        T.optimize(study, setup, 5, StopAfter(5))  # two trials of two rotations, then Ctrl-C in the third
    study = S.open_study(url, "s", setup, create=False)
    states = [t.state.name for t in study.trials]
    assert states == ["COMPLETE", "COMPLETE", "FAIL", "WAITING"]  # the stopped one is queued again
    kept = [t.params for t in study.trials[:2]]
    T.optimize(study, setup, 3, T.Runner())
    assert len(S.finished(study)) == 3 and [t.params for t in study.trials[:2]] == kept
    # the stopped trial says why, and its values are played again first: no trial is lost
    frame = T.trials_of(study, setup)
    assert frame["note"].tolist() == ["", "", S.STOPPED_BY_CTRL_C, "replays trial 2"]
    assert study.trials[3].params == study.trials[2].params and study.trials[3].state.name == "COMPLETE"
    from nines_sim.experiments.tune.report import write_tune_folder

    write_tune_folder(tmp_path, study, setup, None, "nines tune ...", url, "s", 1.0, 1, 1, charts=False)
    assert pd.read_csv(tmp_path / "trials.csv", keep_default_na=False)["note"].tolist() == frame["note"].tolist()
    report = (tmp_path / "report.md").read_text()
    assert "Failed trials do not count towards --trials (trial 2: stopped by Ctrl-C)" in report


def test_a_trial_left_running_by_a_process_that_ended_is_failed_and_played_again(tmp_path):
    setup = T.make_setup("expert", ["hold-nines"], make_rules("classic", players=2), "shed_nine_at", 4, 1)
    url = f"sqlite:///{tmp_path / 's.db'}"
    study = S.open_study(url, "s", setup, create=True)
    # the baseline, claimed by a process that then dies without telling
    trial = S.claim(study, setup, 1, [])
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    trial.set_user_attr("process", f"{S.claimant().rpartition(':')[0]}:{ended.pid}")
    assert T.optimize(study, setup, 1, T.Runner(), storage=url) == 1
    states = [(t.state.name, t.params, t.user_attrs.get("note")) for t in study.trials]
    assert states == [("FAIL", {}, S.PROCESS_GONE), ("COMPLETE", {"shed_nine_at": 2}, None)]  # the baseline, again
    from nines_sim.experiments.tune.report import write_tune_folder

    m = write_tune_folder(tmp_path, study, setup, None, "nines tune ...", url, "s", 1.0, 1, 1, charts=False)
    assert m["in_sample_gain"] == 0.0  # the replayed baseline is found as the baseline (it is also the best)
    assert "trial 0: its process ended before the trial finished" in (tmp_path / "report.md").read_text()


def test_a_running_trial_of_a_live_process_is_waited_for_not_doubled(tmp_path):
    setup = T.make_setup("expert", ["hold-nines"], make_rules("classic", players=2), "shed_nine_at", 4, 1)
    url = f"sqlite:///{tmp_path / 's.db'}"
    study = S.open_study(url, "s", setup, create=True)
    trial = S.claim(study, setup, 1, [])
    assert trial.suggest_int("shed_nine_at", 0, 4) == 2  # the baseline comes first
    assert S.claim(study, setup, 1, []) == "wait"  # this process is alive: its trial is not taken
    assert S.claim(study, setup, 2, []) != "wait"  # with room for another, another is claimed
    assert [t.number for t in study.trials] == [0, 1]


@pytest.mark.parametrize(("storage", "processes", "trials"), [("sqlite", 2, 1), ("journal", 2, 3)])
def test_processes_started_together_on_a_new_study_share_it(storage, processes, trials, tmp_path):
    """The issue's race: N processes on one new storage, study and run folder, all started before any ends.

    On SQLite two (the issue had six) for one trial: more processes than trials, so one has none to claim and
    an extra trial or a doubled baseline would show; on a journal file two for three, so that a process claims a
    second trial while the other runs (and the trials after the baseline are not the baseline again).  Each
    process costs about 4 s of processor time, most of it its imports and its folder (no charts: none is read),
    whether it runs a trial or none: three on SQLite for two trials checked no more than two for one."""
    url = f"sqlite:///{tmp_path / 'X.db'}" if storage == "sqlite" else f"journal:{tmp_path / 'X.log'}"
    out = tmp_path / "out"
    at = TUNE.index("--validate")
    args = [*TUNE[:at], "--validate", "0", *TUNE[at + 2 :], "--trials", str(trials), "--storage", url, "--study",
            "S", "--out", str(out), "--no-charts"]  # fmt: skip
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "nines_sim", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )  # fmt: skip
        for _ in range(processes)
    ]
    results = [(p.returncode, o, e) for p in procs for o, e in [p.communicate()]]
    for code, stdout, stderr in results:
        assert code == 0 and "Traceback" not in stderr, stderr
        assert f"{trials} trials (" in stdout, stdout
    assert sum(int(o.split("trials (")[1].split()[0]) for _, o, _ in results) == trials  # each run by one process
    study = S.open_study(url, "S", T.make_setup("expert", ["hold-nines"], make_rules("classic", players=2),
                                                "shed_nine_at,w_follow", 8, 4), create=False)  # fmt: skip
    assert [(t.number, t.state.name) for t in study.trials] == [(k, "COMPLETE") for k in range(trials)]
    baseline = {"shed_nine_at": 2, "w_follow": 3.0}
    assert [t.params == baseline for t in study.trials] == [True] + [False] * (trials - 1)  # the baseline once
    assert len({json.dumps(t.params, sort_keys=True) for t in study.trials}) == trials
    # the shared folder is whole and readable, and nines report accepts it
    table = pd.read_csv(out / "trials.csv")
    assert table["trial"].tolist() == list(range(trials)) and (table["matches"] == 8).all()
    assert json.loads((out / "manifest.json").read_text())["trials_finished"] == trials
    assert json.loads((out / "best.json").read_text())["trial"] in range(trials)
    assert runner.invoke(app, ["report", str(out), "--no-charts"]).exit_code == 0


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
        (["tune", "expert", "--opponents", "hold-nines", "--storage", "postgresql://h/db"], "--storage must be sqlite:///PATH"),
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


@pytest.mark.parametrize("form", ["sqlite:///{}.db", "journal:{}.log", "{}.log"])
def test_a_storage_that_is_not_a_database_is_refused(form, tmp_path):
    url = form.format(tmp_path / "x")
    (tmp_path / ("x.db" if url.endswith(".db") else "x.log")).write_text("not a database\n")
    r = runner.invoke(app, [*TUNE, "--storage", url, "--out", str(tmp_path / "o")])
    assert "cannot open the storage" in _one_line_error(r)
    assert not (tmp_path / "o").exists()


def test_a_study_name_taken_by_another_setup_is_refused(tmp_path):
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    other = T.make_setup("expert", ["dump-faces"], make_rules("classic", players=2), "all", 8, 4)
    S.open_study(url, "mine", other, create=True)
    r = runner.invoke(app, [*TUNE, "--storage", url, "--study", "mine", "--out", str(tmp_path / "o")])
    line = _one_line_error(r)
    assert "study 'mine'" in line and "opponents" in line and "tuned" in line
    assert not (tmp_path / "o").exists()


def test_nines_report_redraws_a_tune_folder_to_the_same_report(studied):
    """In the shared study's folder itself (a copy's report names the copy, where the run's names its folder): a
    right redraw leaves it as the run wrote it."""
    out = studied[1]
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
    # the answer first, in one short line with the specs as typed; nines report redraws the folder
    line, where = [x for x in r.output.splitlines() if x.strip()][-2:]
    assert where == f"full specs and numbers in {tmp_path / 'v'}"
    lo, hi = v.loc["difference", "low"] * 100, v.loc["difference", "high"] * 100
    verdict = "wins more often than" if lo > 0 else "wins less often than" if hi < 0 else "and expert are not"
    assert line.startswith(f"expert:shed_nine_at=0,w_follow=9 {verdict}") and len(line) < 250, line
    assert (
        f"{v.loc['difference', 'win_rate'] * 100:+.2f} points of win rate (95% interval {lo:+.2f} to {hi:+.2f}" in line
    )
    written = (tmp_path / "v" / "report.md").read_text()
    assert line in written
    (tmp_path / "v" / "report.md").unlink()
    rep = runner.invoke(app, ["report", str(tmp_path / "v")])
    assert rep.exit_code == 0, rep.output
    assert (tmp_path / "v" / "report.md").read_text() == written
    # a spec too long to read is named by its role in the line and the report; the CSV keeps it whole
    long = "expert:" + ",".join(f"{k}={x}" for k, x in [("w_follow", 9), ("shed_nine_at", 0), ("w_block", 2.5)])
    r = runner.invoke(app, [*base, "--versus", long, "--out", str(tmp_path / "l")])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[-2].startswith("the --versus spec ") and long not in r.output
    assert "w_block=2.5" in (tmp_path / "l" / "validation.csv").read_text()
    bad = runner.invoke(app, [*base, "--versus", "expert:nope=1", "--out", str(tmp_path / "b")])
    assert bad.exit_code == 2 and "nope" in bad.output and not (tmp_path / "b").exists()


@pytest.mark.parametrize("n_params", [1, 2, 4])
def test_params_chart_title_clears_every_panel_and_the_colour_has_a_bar(n_params):
    import numpy as np

    from nines_sim.reporting.charts.tune import plot_params

    names = [f"param_{i}" for i in range(n_params)]
    rng = np.random.default_rng(0)
    trials = pd.DataFrame({"trial": range(12), "state": "complete", "win_rate": rng.uniform(0.3, 0.5, 12)})
    trials = trials.assign(**{n: rng.uniform(0, 9, 12) for n in names})
    fig = plot_params(trials, names, {n: 1.0 for n in names})
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    title = fig._suptitle.get_window_extent(renderer)
    width, height = fig.bbox.width, fig.bbox.height
    assert 0 <= title.x0 and title.x1 <= width and title.y1 <= height  # the whole title is on the figure
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]
    assert len(panels) == n_params
    for ax in panels:
        assert ax.get_tightbbox(renderer).y1 <= title.y0  # no panel (tick labels included) reaches the title
    bars = [ax for ax in fig.axes if ax.get_label() == "<colorbar>"]
    assert len(bars) == 1 and bars[0].get_ylabel() == "trial number"
    assert bars[0].get_ylim() == (0, 11)  # the colours span trial 0 to the last trial


SEATS2 = "the next multiple of the 2 seats"


@pytest.mark.parametrize(
    ("extra", "notes"),
    [
        (["--matches", "3", "--validate", "5"],
         [f"note: --matches 3 is played as 4, {SEATS2} (2 matches with the strategy in each seat; 2 is the multiple "
          "below)",
          f"note: --validate 5 is played as 6, {SEATS2} (3 matches with the strategy in each seat; 4 is the multiple "
          "below)"]),
    ],
)  # fmt: skip
def test_matches_that_are_not_a_multiple_of_the_seats_are_said_to_be_rounded(extra, notes, tmp_path):
    """Both options rounded in one run (a whole tuning study with its report: about a second of processor time);
    neither, in the shared study's run (below); the note's wording for one match a seat is :func:`rounded_note`'s."""
    base = [a for a in TUNE if a not in ("--matches", "--validate", "8")]
    r = runner.invoke(app, [*base, *extra, "--trials", "1", "--no-charts", "--out", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    assert [x for x in r.output.splitlines() if x.startswith("note:")] == notes
    m = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert m["setup"]["matches"] == -(-int(extra[1]) // 2) * 2  # what the note says is what was played
    assert m["validate"] == -(-int(extra[3]) // 2) * 2


def test_matches_that_are_a_multiple_of_the_seats_are_played_as_given_without_a_note(studied):
    said, out = studied  # --matches 8 --validate 8 on 2 seats
    assert TUNE[TUNE.index("--matches") + 1] == TUNE[TUNE.index("--validate") + 1] == "8"
    assert [x for x in said.splitlines() if x.startswith("note:")] == []
    m = json.loads((out / "manifest.json").read_text())
    assert m["setup"]["matches"] == 8 and m["validate"] == 8


def test_rounded_note_for_a_four_seat_table():
    from nines_sim.cli.tune import rounded_note

    assert rounded_note("--matches", 4001, 4) == (
        "note: --matches 4,001 is played as 4,004, the next multiple of the 4 seats "
        "(1,001 matches with the strategy in each seat; 4,000 is the multiple below)"
    )
    assert rounded_note("--validate", 10, 3).startswith("note: --validate 10 is played as 12,")
    assert (
        rounded_note("--matches", 1, 2)
        == f"note: --matches 1 is played as 2, {SEATS2} (1 match with the strategy in each seat)"
    )
    assert rounded_note("--matches", 4000, 4) is None


def test_a_baseline_stopped_while_it_drew_its_values_is_replayed_whole():
    """Ctrl-C while the enqueued baseline's values were being set: the replay must carry all of them."""
    import optuna

    from nines_sim.experiments.study import _fail

    study = optuna.create_study(direction="maximize")
    base = {"w_follow": 3.0, "w_block": 4.0}
    study.enqueue_trial(base)
    trial = study.ask()
    trial.suggest_float("w_follow", 0.0, 10.0)  # the stop came before w_block was set
    _fail(study, trial, "stopped by Ctrl-C", replay=True)
    replay = study.get_trials(deepcopy=False)[-1]
    assert replay.state.name == "WAITING" and replay.user_attrs["replays"] == trial.number
    assert replay.system_attrs["fixed_params"] == base
