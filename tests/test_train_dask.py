"""``nines train`` on worker processes and on a Dask cluster (issue 40: "optional Dask, as every experiment"):
each round's self-play (with its labelling rollouts) and its measurement play as units of work there, and the
models and the learning curve are those of a one-worker run; a Ctrl-C keeps the rounds that finished, as a local
run does; a scheduler that cannot be reached is a one-line usage error.  Tiny runs: 4 matches a round."""

from __future__ import annotations

import json
import signal
import socket
from functools import partial
from importlib import import_module

import pandas as pd
import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.learn import train as training
from nines_sim.learn.model import load

pytest.importorskip("distributed")  # the cluster: tests/conftest.py's ``scheduler``, shared with the files on Dask

from nines_sim.runs import backends, cluster  # noqa: E402

runner = CliRunner()
#: tests/shared_training.py's run (seed 3, keep 2): its models' compiled decisions are then in numba's disk cache.
#: No charts: these tests compare models, curves and manifests (the learning curve's chart: tests/test_train_ctrl_c.py).
ARGS = ["train", "--rounds", "3", "-n", "4", "--samples", "2", "--eval-matches", "10", "--keep", "2", "--seed", "3",
        "--no-charts"]  # fmt: skip


#: The returns run's: one round (a model's compile, about 5 s of processor time, is most of a round's cost; the
#: rollouts runs show a round's model reaching the workers), of more matches than the rollouts runs (its labels
#: cost no rollouts), for each unit's share of explored moves.
RETURNS = [ARGS[0], "--rounds", "1", "-n", "12", *ARGS[5:], "--targets", "returns"]


class Bar:
    """A round's bar as ``nines train`` opens it (``bar_of``'s), recording what the run tells it: the matches of the
    round's self-play as they finish, here or from the workers, and its close after the round."""

    def __init__(self, bars: list, rnd: int) -> None:
        self.rnd, self.played, self.kept, self.closed = rnd, 0, 0, False
        bars.append(self)

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.closed = True

    def __call__(self, played: int, kept: int) -> None:
        assert not self.closed
        self.played += played
        self.kept += kept


def _trained(tmp_path_factory, args: list[str], how: list[str]):  # noqa: ANN001, ANN202
    """The run of ``args`` on ``how``'s workers (its folder), and the bars its rounds opened."""
    folder = tmp_path_factory.mktemp("run") / "run"
    bars: list[Bar] = []
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(import_module("nines_sim.cli.train"), "bar_of", lambda settings: partial(Bar, bars))
        res = runner.invoke(app, [*args, *how, "--out", str(folder)])
    assert res.exit_code == 0, res.output
    return folder, bars


@pytest.fixture(scope="module")
def one_worker_run(tmp_path_factory):  # noqa: ANN001, ANN201
    return _trained(tmp_path_factory, ARGS, ["--workers", "1"])


@pytest.fixture(scope="module")
def one_worker(one_worker_run):  # noqa: ANN001, ANN201
    return one_worker_run[0]


@pytest.fixture(scope="module")
def two_workers_run(tmp_path_factory):  # noqa: ANN001, ANN201
    return _trained(tmp_path_factory, ARGS, ["--workers", "2"])


@pytest.fixture(scope="module")
def one_worker_returns(tmp_path_factory):  # noqa: ANN001, ANN201
    return _trained(tmp_path_factory, RETURNS, ["--workers", "1"])[0]


def _same_run(folder, whole) -> None:  # noqa: ANN001
    """The same models round by round (their weights and all but their CPU seconds) and the same curve, to the
    last bit of every number but the CPU seconds."""
    rounds = json.loads((whole / "manifest.json").read_text())["rounds_finished"]
    for name in ["model.npz", *(f"models/round-{k}.npz" for k in range(1, rounds + 1))]:
        mine, theirs = load(folder / name), load(whole / name)
        assert mine.digest == theirs.digest, name
        assert _but_where(mine.meta) == _but_where(theirs.meta), name
    curves = [pd.read_csv(f / "learning_curve.csv").drop(columns="cpu_seconds") for f in (folder, whole)]
    pd.testing.assert_frame_equal(*curves, check_exact=True)
    manifests = [json.loads((f / "manifest.json").read_text()) for f in (folder, whole)]
    assert manifests[0]["partial"] is False and manifests[0]["kept_command"] is None
    for key in ("command", "settings", "rules", "chosen_round", "rounds_finished"):
        assert _but_where(manifests[0])[key] == _but_where(manifests[1])[key], key


def _but_where(meta: dict) -> dict:
    """A model's or manifest's fields but the CPU seconds and the run folder (the command's --out, last)."""
    return {**meta, "cpu_seconds": 0, "command": meta["command"].rsplit(" --out ", 1)[0]}


@pytest.mark.parametrize(
    ("where", "targets"),
    [("two worker processes", "rollouts"), ("a Dask cluster", "rollouts"), ("two worker processes", "returns")],
)
def test_a_run_on_workers_or_a_cluster_trains_the_models_of_one_worker(where, targets, tmp_path, request):  # noqa: ANN001
    """With returns as targets each unit labels its explored moves from its own engine's hands, and the merged
    rows (renumbered decisions) are those of one engine: the same model bytes.  (The cluster's units play without a
    bar, the one worker's with one: a bar that changed the play would show here.)"""
    returns = targets == "returns"
    if where.startswith("two") and not returns:  # the run whose bars the test below reads
        folder = request.getfixturevalue("two_workers_run")[0]
    else:
        how = ["--workers", "2"] if where.startswith("two") else ["--scheduler", request.getfixturevalue("scheduler")]
        folder = tmp_path / "run"
        res = runner.invoke(app, [*(RETURNS if returns else ARGS), *how, "--out", str(folder)])
        assert res.exit_code == 0, res.output
    whole = request.getfixturevalue("one_worker_returns" if returns else "one_worker")
    _same_run(folder, whole)
    if returns:  # fitted on returns (no rollout labels): a model of zeros would be the same on any workers
        assert load(whole / "models/round-1.npz").card_weights.any()


def test_a_ctrl_c_on_the_cluster_keeps_the_rounds_that_finished(one_worker, scheduler, tmp_path, monkeypatch):  # noqa: ANN001
    """The SIGINT comes as round 2's first unit of self-play is taken from the cluster (an event, no clock): the
    cluster's other units of the round stop, or have finished; the rounds whole by then are kept (round 1, or
    rounds 1-2 where the round's last units had finished), and the same command, here on one local worker, ends
    the run as one never stopped."""
    fired = []

    class Hooked(backends.Job):
        """A job whose first result taken raises SIGINT, where the job is round 2's self-play (from match 4)."""

        def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
            super().__init__(*args, **kwargs)
            fn, *args = self.units[0][1]  # a list: the round's units, each (training._timed, (unit, *args))
            take = self.take

            def take_and_stop(tag, got):  # noqa: ANN001, ANN202
                if not fired and fn is training.collect_unit and args[4] == 4:
                    fired.append(1)
                    signal.raise_signal(signal.SIGINT)
                return take(tag, got)

            self.take = take_and_stop

    monkeypatch.setattr(backends, "Job", Hooked)
    folder = tmp_path / "run"
    res = runner.invoke(app, [*ARGS, "--scheduler", scheduler, "--out", str(folder)])
    assert fired, "the Ctrl-C was not raised"
    assert res.exit_code == 130, res.output
    manifest = json.loads((folder / "manifest.json").read_text())
    kept = manifest["rounds_finished"]
    assert kept in (1, 2) and manifest["partial"] is True
    assert manifest["kept_command"] == manifest["command"].replace("--rounds 3", f"--rounds {kept}").replace(
        f" --out {folder}", ""
    )
    assert pd.read_csv(folder / "learning_curve.csv")["round"].tolist() == list(range(1, kept + 1))
    assert not (folder / "models" / f"round-{kept + 1}.npz").exists()
    monkeypatch.undo()
    res = runner.invoke(app, [*ARGS, "--workers", "1", "--out", str(folder)])  # the same command again
    assert res.exit_code == 0, res.output
    assert f"continuing after round {kept}" in res.output
    _same_run(folder, one_worker)


def test_a_scheduler_that_cannot_be_reached_is_one_line_and_writes_nothing(tmp_path, monkeypatch):  # noqa: ANN001
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 1)  # the error path is the same, the test waits less
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # free once closed: nobody listens there
    folder = tmp_path / "run"
    res = runner.invoke(app, [*ARGS, "--scheduler", f"tcp://127.0.0.1:{port}", "--out", str(folder)])
    assert res.exit_code == 2, res.output
    line = res.output.strip()
    assert "\n" not in line and "Traceback" not in line
    assert "cannot reach a Dask scheduler" in line and "'dask scheduler --host PRIVATE_ADDRESS'" in line
    assert not folder.exists()


@pytest.mark.parametrize("address", [" ", "garbage"])
def test_a_blank_or_malformed_scheduler_address_is_one_line_and_writes_nothing(address, tmp_path):  # noqa: ANN001
    folder = tmp_path / "run"
    res = runner.invoke(app, [*ARGS, "--scheduler", address, "--out", str(folder)])
    assert res.exit_code == 2 and "\n" not in res.output.strip() and "tcp://HOST" in res.output, res.output
    assert not folder.exists()


@pytest.mark.parametrize("run", ["one_worker_run", "two_workers_run"], ids=["in this process", "two worker processes"])
def test_each_round_s_self_play_moves_its_bar_by_every_match(run, request):  # noqa: ANN001
    """A round printed nothing until it ended (a new user saw 25 s of a blank screen): ``train``'s ``round_bar``
    is told of each match of the round's self-play as it finishes, here or from the workers, and is closed after
    the round.  (The runs above, whose models are those of a run without a bar: the cluster's.)"""
    _, bars = request.getfixturevalue(run)
    assert [(b.rnd, b.played, b.kept, b.closed) for b in bars] == [(1, 4, 0, True), (2, 4, 0, True), (3, 4, 0, True)]
