"""``nines train`` stopped by Ctrl-C at each point of its run (issue 40, a user's probe): while starting, during a
round's self-play, between two rounds, just after the last round and while the folder is written.  Each stop
exits 130 with a line that says what was kept, leaves the folder whole (a PARTIAL report and a manifest with its
``kept_command``, or nothing at all when no round finished), and the same command then finishes the folder as a
run never stopped.  The Ctrl-C is a SIGINT raised in this process by the step it interrupts (an event, no clock)."""

from __future__ import annotations

import json
import signal

import pandas as pd
import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.game.rules import make_rules
from nines_sim.learn import report as training_report
from nines_sim.learn import train as training
from nines_sim.learn.model import load

#: One worker: the SIGINT is raised in this process, by the step it interrupts.  The first two rounds of
#: tests/shared_training.py's run: their models' compiled decisions are then in numba's disk cache.
ARGS = ["train", "--rounds", "2", "-n", "4", "--samples", "2", "--eval-matches", "10", "--seed", "3", "--workers", "1"]


def _run(folder, *more: str):  # noqa: ANN001, ANN202
    return CliRunner().invoke(app, [*ARGS, "--out", str(folder), *more])


@pytest.fixture(scope="module")
def whole(tmp_path_factory):  # noqa: ANN001, ANN201
    folder = tmp_path_factory.mktemp("whole") / "run"
    res = _run(folder)
    assert res.exit_code == 0, res.output
    return folder


def _kept_of(command: str, folder) -> str:  # noqa: ANN001
    """The kept_command of a stopped run of ``command``: no --out, a new folder (into the stopped run's folder
    it continued the run and closed it as finished with fewer rounds; the command itself was then refused)."""
    assert command.endswith(f" --out {folder}")
    return command.removesuffix(f" --out {folder}")


def _ctrl_c_in(monkeypatch, name: str, when, times: int = 1) -> None:  # noqa: ANN001
    """Raise SIGINT (``times`` in a row) the first time ``learn.train.<name>`` (``learn.report.<name>`` for the
    chart) is called with arguments ``when`` accepts."""
    module = training_report if name == "_chart" else training
    original = getattr(module, name)
    fired = []

    def hooked(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        if not fired and when(*args, **kwargs):
            fired.append(1)
            for _ in range(times):
                signal.raise_signal(signal.SIGINT)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, hooked)


def _same_as_whole(folder, whole) -> None:  # noqa: ANN001
    curves = [pd.read_csv(f / "learning_curve.csv").drop(columns="cpu_seconds") for f in (folder, whole)]
    pd.testing.assert_frame_equal(*curves)
    assert load(folder / "model.npz").digest == load(whole / "model.npz").digest
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["partial"] is False and manifest["kept_command"] is None
    assert not (folder / training.PROGRESS).exists() and not (folder / "data").exists()
    assert "PARTIAL" not in (folder / "report.md").read_text()
    assert "nan" not in (folder / "report.md").read_text()  # round 1 has no round before it: an empty cell


POINTS = {
    # name: (function, when it is hooked, rounds kept[, SIGINTs in a row])
    "while starting": ("resume_state", lambda *a, **k: True, 0),
    "during round 2's self-play": ("play_collection", lambda rules, collector, seed, start, *a: start > 0, 1),
    "between the rounds": ("checkpoint", lambda out, data, rows, *a: len(rows) == 1, 1),
    # before: the fit finished (minutes for a large round on a busy machine) and round 2 was kept
    "during round 2's fit": ("_fit", lambda history, rules, s, seed, rnd, meta: rnd == 2, 1),
    # a second Ctrl-C stops at once; before: it was heard as the first, and round 2's measure went on
    "twice during round 2's measure": ("_measure", lambda rules, path, prev, n, seed, rnd, *a: rnd == 2, 1, 2),
}


@pytest.mark.parametrize("point", POINTS)
def test_a_stop_keeps_the_rounds_finished_and_the_command_again_ends_the_run(point, whole, tmp_path, monkeypatch):  # noqa: ANN001
    name, when, kept, *times = POINTS[point]
    folder = tmp_path / "run"
    with monkeypatch.context() as patched:
        _ctrl_c_in(patched, name, when, *times)
        res = _run(folder)
    assert res.exit_code == 130, res.output
    line = res.output.strip().splitlines()[-1]
    if kept == 0:
        assert "before round 1 finished: nothing was kept" in line
        assert not folder.exists()  # this run made it, and nothing of the run is in it
    else:
        assert "kept round 1 of 2" in line and "the same command continues after round 1" in line
        manifest = json.loads((folder / "manifest.json").read_text())
        assert manifest["partial"] is True and manifest["rounds_finished"] == kept
        assert manifest["kept_command"] == _kept_of(manifest["command"], folder).replace("--rounds 2", "--rounds 1")
        report = (folder / "report.md").read_text()
        assert "PARTIAL" in report and manifest["kept_command"] in report
        assert pd.read_csv(folder / "learning_curve.csv")["round"].tolist() == [1]
        assert not (folder / "models" / "round-2.npz").exists()
        assert (folder / "learning_curve.png").is_file()
    # the same command again; once with --no-charts, which draws no chart and removes the stopped run's (it shows
    # fewer rounds than the folder then holds)
    charts = point != "between the rounds"
    res = _run(folder, *([] if charts else ["--no-charts"]))
    assert res.exit_code == 0, res.output
    _same_as_whole(folder, whole)
    assert (folder / "learning_curve.png").is_file() == charts


def _ctrl_c_as_round_2_blocks_return(monkeypatch, which: str) -> None:  # noqa: ANN001
    """Raise SIGINT in this process, the workers' parent, as round 2's self-play blocks come back from the
    workers: ``"first"`` once the first block's rows are taken (the other may still play), ``"all"`` once every
    block is back, before their rows are merged (the case of a Ctrl-C after the workers ended)."""
    from nines_sim.runs import backends

    real_job, real_units = backends.Job, training._run_units

    def round_2(units) -> bool:  # noqa: ANN001
        args = units[0][1]  # (collect_unit, rules, model, settings, seed, start, n) under _timed
        return args[0] is training.collect_unit and args[5] > 0

    def job(fn, units, take, **kwargs):  # noqa: ANN001, ANN003, ANN202
        fired = []

        def taken(tag, got):  # noqa: ANN001, ANN202
            kept = take(tag, got)
            if not fired:
                fired.append(1)
                signal.raise_signal(signal.SIGINT)
            return kept

        return real_job(fn, units, taken if which == "first" and round_2(units) else take, **kwargs)

    def run_units(fn, rules, units, backend, finish=False, **kwargs):  # noqa: ANN001, ANN003, ANN202
        got = real_units(fn, rules, units, backend, finish, **kwargs)
        if which == "all" and fn is training.collect_unit and units[0][1][4] > 0:
            signal.raise_signal(signal.SIGINT)
        return got

    monkeypatch.setattr(backends, "Job", job)
    monkeypatch.setattr(training, "_run_units", run_units)


@pytest.mark.parametrize("which", ["first", "all"], ids=["as the first block returns", "once all blocks returned"])
def test_a_stop_in_round_2s_self_play_on_2_workers_fits_nothing_more(which, whole, tmp_path, monkeypatch):  # noqa: ANN001
    """Issue 40: a Ctrl-C in a round's self-play on workers stopped the workers, and the parent then merged and
    fitted the round's rows (minutes at 3 rounds of 15,000 matches) before it wrote anything, deaf to a second
    Ctrl-C.  Now the round is dropped at once: round 1 is kept, round 2 never fitted."""
    fits = []
    fit = training._fit
    folder = tmp_path / "run"
    args = [*ARGS[:-1], "2", "--out", str(folder)]
    with monkeypatch.context() as patched:
        _ctrl_c_as_round_2_blocks_return(patched, which)
        patched.setattr(training, "_fit", lambda *a: fits.append(a[4]) or fit(*a))
        res = CliRunner().invoke(app, args)
    assert res.exit_code == 130, res.output
    assert "kept round 1 of 2" in res.output.strip().splitlines()[-1]
    assert fits == [1]
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["partial"] is True and manifest["rounds_finished"] == 1
    assert manifest["kept_command"] == _kept_of(manifest["command"], folder).replace("--rounds 2", "--rounds 1")
    assert "PARTIAL" in (folder / "report.md").read_text()
    assert not (folder / "models" / "round-2.npz").exists()
    # the same command again: on the same workers after the first stop, on one after the second (a run on two
    # workers trains the models of one, tests/test_train_dask.py): two pools of workers less
    again = args if which == "first" else [*ARGS, "--out", str(folder)]
    res = CliRunner().invoke(app, again)
    assert res.exit_code == 0, res.output
    _same_as_whole(folder, whole)


@pytest.mark.parametrize(
    "name, when",
    [("checkpoint", lambda out, data, rows, *a: len(rows) == 2), ("_chart", lambda *a: True)],
    ids=["just after the last round", "while the folder is written"],
)
def test_a_stop_after_the_last_round_leaves_the_run_whole(name, when, whole, tmp_path, monkeypatch):  # noqa: ANN001
    folder = tmp_path / "run"
    with monkeypatch.context() as patched:
        _ctrl_c_in(patched, name, when)
        res = _run(folder)
    assert res.exit_code == 130, res.output
    assert "after the last round: the run is whole" in res.output.strip().splitlines()[-1]
    _same_as_whole(folder, whole)


def test_in_python_a_keyboard_interrupt_while_a_round_is_recorded_stops_after_it(tmp_path, monkeypatch):
    """Called from Python (Ctrl-C raises KeyboardInterrupt): a Ctrl-C while round 1 is recorded is held until it
    is saved, then stops the run with round 1 kept."""
    _ctrl_c_in(monkeypatch, "checkpoint", lambda out, data, rows, *a: len(rows) == 1)
    settings = training.TrainSettings(rounds=2, matches=4, samples=2, eval_matches=10)
    folder = tmp_path / "run"
    kept = lambda k: f"nines train --rounds {k} (test)"  # noqa: E731
    assert not training.train(make_rules("classic", players=2), folder, 3, settings, "nines train (test)",
                              report=lambda line: None, kept_command=kept)  # fmt: skip
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["partial"] is True and manifest["kept_command"] == kept(1)
    assert json.loads((folder / training.PROGRESS).read_text())["rows"][0]["round"] == 1


def test_nines_report_redraws_a_training_folder_as_it_was_written(whole, tmp_path):
    """Before: 'not a run folder (it needs summary.csv, comparison.csv, trials.csv or review.csv)'."""
    import shutil

    folder = tmp_path / "copy"
    shutil.copytree(whole, folder)
    (folder / "report.md").unlink()
    (folder / "learning_curve.png").unlink()
    res = CliRunner().invoke(app, ["report", str(folder)])
    assert res.exit_code == 0, res.output
    assert (folder / "report.md").read_bytes() == (whole / "report.md").read_bytes()
    assert (folder / "learning_curve.png").is_file()
