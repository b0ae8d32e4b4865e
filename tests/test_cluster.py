"""Runs on a Dask cluster give the numbers of a local run (only with the dask extra installed)."""

from __future__ import annotations

import os
import re
import signal
import socket
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

distributed = pytest.importorskip("distributed")

from nines_sim.cli import app  # noqa: E402
from nines_sim.experiments.tournament.tables import write_tables  # noqa: E402
from nines_sim.experiments.tournament.work import plan_tournament, run_plan  # noqa: E402
from nines_sim.game.rules import make_rules  # noqa: E402
from nines_sim.runs import cluster  # noqa: E402

runner = CliRunner()
CSVS = ("summary.csv", "hands.csv", "score_distribution.csv", "seat_go_out.csv", "pairwise.csv")


def test_a_cluster_run_writes_byte_identical_csvs(tmp_path, scheduler):
    """On the running cluster the files on Dask share (``scheduler``, tests/conftest.py): ``--scheduler local``
    starts one of its own the same way (two worker processes, whose start is most of such a test's cost), and is
    run by the Ctrl-C test below."""
    args = ["tournament", "-n", "3000", "--quiet", "--no-charts"]
    r = runner.invoke(app, [*args, "--workers", "1", "--out", str(tmp_path / "local")])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, [*args, "--scheduler", scheduler, "--out", str(tmp_path / "dask")])
    assert r.exit_code == 0, r.output
    for name in CSVS:
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "dask" / name).read_bytes(), name


def test_a_luck_run_on_a_cluster_writes_byte_identical_luck_csvs(tmp_path, scheduler):
    """``--luck`` on Dask: the plain matches on the cluster, the luck's fit and walk beside it, and every number
    (luck.csv, summary.csv with its adjusted columns) the very bytes of a one-worker run.  On the shared running
    cluster (``--scheduler local`` starts one the same way: the Ctrl-C test below): a cluster of its own cost its
    two worker processes' start."""
    args = ["tournament", "expert", "dump-faces", "-n", "1200", "--luck", "--luck-fit", "600", "--quiet", "--no-charts"]
    r = runner.invoke(app, [*args, "--workers", "1", "--out", str(tmp_path / "local")])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, [*args, "--scheduler", scheduler, "--out", str(tmp_path / "dask")])
    assert r.exit_code == 0, r.output
    for name in ("luck.csv", "summary.csv"):
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "dask" / name).read_bytes(), name
    assert "variance_ratio" in (tmp_path / "dask" / "summary.csv").read_text().splitlines()[0]


def test_compare_rules_on_a_cluster_matches_the_local_run(tmp_path, scheduler):
    args = ["compare-rules", "--rules", "classic", "--rules", "hard-nines", "-n", "1500", "--quiet", "--no-charts"]
    assert runner.invoke(app, [*args, "--workers", "1", "--out", str(tmp_path / "a")]).exit_code == 0
    r = runner.invoke(app, [*args, "--scheduler", scheduler, "--out", str(tmp_path / "b")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "a" / "comparison.csv").read_bytes() == (tmp_path / "b" / "comparison.csv").read_bytes()


def test_a_league_on_a_cluster_matches_the_local_run(tmp_path, scheduler):
    args = ["tournament", "random", "hold-nines", "dump-faces", "suit-majority", "--format", "league", "-p", "3",
            "--tables", "4", "-n", "300", "--quiet", "--no-charts"]  # fmt: skip
    assert runner.invoke(app, [*args, "--workers", "1", "--out", str(tmp_path / "a")]).exit_code == 0
    r = runner.invoke(app, [*args, "--scheduler", scheduler, "--chunk-size", "70", "--out", str(tmp_path / "b")])
    assert r.exit_code == 0, r.output
    for name in (*CSVS, "ratings.csv", "rating_differences.csv", "calibration.csv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


@pytest.fixture
def short_connect_timeout(monkeypatch):
    """A 1 s wait for a scheduler instead of 10 s, and 1 s more for a silent peer instead of 5: the error path is
    the same, the test waits less."""
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 1)
    monkeypatch.setattr(cluster, "SILENT_PEER_GRACE_S", 1)


def test_unreachable_scheduler_errors_within_the_stated_timeout(tmp_path, short_connect_timeout):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # free once closed: nobody listens there
    r = runner.invoke(app, ["tournament", "-n", "100", "--scheduler", f"tcp://127.0.0.1:{port}", "--out",
                            str(tmp_path / "u"), "--quiet"])  # fmt: skip
    assert r.exit_code == 2, r.output
    assert "cannot reach a Dask scheduler" in r.output and "within 1 s" in r.output and "Traceback" not in r.output
    assert "'dask scheduler --host PRIVATE_ADDRESS'" in r.output  # as docs/how-to/dask.md: never every interface


def test_a_silent_peer_is_not_a_scheduler_and_errors_in_time(tmp_path, short_connect_timeout):
    with socket.socket() as listener:  # accepts connections, never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(5)
        port = listener.getsockname()[1]
        # Returning at all is the point (the CLI bounds the wait itself); no assertion reads the clock,
        # which a loaded machine would make flaky.
        r = runner.invoke(app, ["tournament", "-n", "100", "--scheduler", f"tcp://127.0.0.1:{port}", "--out",
                                str(tmp_path / "s"), "--quiet"])  # fmt: skip
    assert r.exit_code == 2 and "cannot reach a Dask scheduler" in r.output, r.output


@pytest.mark.parametrize("address", ["", "garbage"])
def test_a_malformed_scheduler_address_is_a_usage_error(tmp_path, address):
    r = runner.invoke(app, ["tournament", "-n", "100", "--scheduler", address, "--out", str(tmp_path / "g"), "-q"])
    assert r.exit_code == 2 and "tcp://HOST" in r.output and "Traceback" not in r.output
    assert "within" not in r.output and "dask worker" not in r.output  # it was never tried as an address
    if address:
        assert r.output.startswith(f"Error: --scheduler {address} is not a scheduler address;"), r.output


def test_a_strategy_error_on_the_cluster_is_one_line_and_not_retried(tmp_path, scheduler):
    f = tmp_path / "bad.py"
    f.write_text(
        "import numpy as np\nfrom nines_sim.strategy.base import Strategy\n"
        "from nines_sim.strategy.choice import pick_card\n"
        "class BadSuit(Strategy):\n    name = 'bad-suit'\n"
        "    def play(self, obs):\n        return pick_card([w & obs.legal for w in obs.hand], obs.random())\n"
        "    def declare(self, obs):\n        return np.full(obs.n, 9)\n"
    )
    r = runner.invoke(app, ["tournament", f"{f}:BadSuit", "random", "-n", "600", "--scheduler", scheduler,
                            "--out", str(tmp_path / "b"), "-q"])  # fmt: skip
    assert r.exit_code == 1 and "returned a suit outside 0..3" in r.output and "nines replay" in r.output, r.output


def test_ctrl_c_on_a_local_cluster_keeps_whole_blocks(tmp_path):
    import gzip
    import json

    import numpy as np
    import pandas as pd

    from tests.interrupt import ctrl_c_once_kept

    d = tmp_path / "cc"
    # Ctrl-C once the bar shows the first chunk back, with nearly all of the 400,000 matches still queued
    args = ["tournament", "-n", "400000", "--workers", "2", "--scheduler", "local", "--chunk-size", "2000",
            "--out", str(d), "--no-charts", "--save-matches"]  # fmt: skip
    rc, out, err = ctrl_c_once_kept(args)
    assert rc == 130, (out + err)[-2000:]
    assert "Stopping (Ctrl-C)" in err and "Traceback" not in out + err
    m = json.loads((d / "manifest.json").read_text())
    assert m["partial"] and 0 < m["matches_played"] < 400_000
    ranges = m["kept_ranges"]
    assert all(a % 2000 == 0 for a, _ in ranges)  # each kept block starts a chunk
    with gzip.open(d / "matches.csv.gz", "rt") as fh:
        kept = pd.read_csv(fh)["match"].to_numpy()
    assert (kept == np.concatenate([np.arange(a, b) for a, b in ranges])).all()


def test_a_compiled_file_plugin_cached_by_one_run_plays_on_the_cluster_also_after_a_module_run(
    tmp_path, scheduler, monkeypatch
):
    # The documented compiled example (docs/tutorials/first-strategy.md) saved to a file of a new folder (its cache
    # starts empty there).
    page = Path(__file__).resolve().parents[1] / "docs" / "tutorials" / "first-strategy.md"
    section = page.read_text().split("## Compiled, one game", 1)[1]
    (tmp_path / "cluster_plugin.py").write_text(re.search(r"```python\n(.*?)```", section, re.S).group(1))
    by_file = f"{tmp_path / 'cluster_plugin.py'}:LowestFirstCompiled"
    args = ["random", "dump-faces", "-n", "600", "--quiet", "--no-charts"]
    r = runner.invoke(app, ["tournament", by_file, *args, "--workers", "1", "--out", str(tmp_path / "local")])
    assert r.exit_code == 0, r.output  # compiled here, cached under the file's module name
    monkeypatch.syspath_prepend(str(tmp_path))
    try:  # the same class as module:Class, cached beside it in the same index
        r = runner.invoke(app, ["tournament", "cluster_plugin:LowestFirstCompiled", *args, "--workers", "1",
                                "--out", str(tmp_path / "module")])  # fmt: skip
        assert r.exit_code == 0, r.output
    finally:
        sys.modules.pop("cluster_plugin", None)
    # the workers are other processes: they import the file and load the code this process cached
    r = runner.invoke(app, ["tournament", by_file, *args, "--scheduler", scheduler, "--out", str(tmp_path / "dask")])
    assert r.exit_code == 0, r.output
    for name in CSVS:
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "dask" / name).read_bytes(), name


def test_a_tuning_trial_on_a_cluster_plays_the_matches_of_a_local_one(scheduler):
    """tune.Runner with a client runs its units on the Dask backend: the same matches, the same shares."""
    from nines_sim.experiments.tune import work as T

    setup = T.make_setup("expert", ["hold-nines"], make_rules("classic", players=2), "shed_nine_at", 12, 2)
    local = T.play(setup, "expert:shed_nine_at=3", 0, 6, T.Runner(workers=2), keep=True)
    with distributed.Client(scheduler) as client:
        remote = T.play(setup, "expert:shed_nine_at=3", 0, 6, T.Runner(workers=2, client=client), keep=True)
    assert remote.stats.matches == local.stats.matches == 12 and remote.stats.wins60 == local.stats.wins60
    assert remote.shares().equals(local.shares()) and len(local.shares()) == 12


def test_a_worker_killed_mid_run_still_gives_identical_numbers(tmp_path, scheduler):
    """On the shared running cluster, the last test to use it (tests/conftest.py's ``ON_DASK`` runs this file
    last): the worker killed here is started again by its nanny, which no later test needs (a cluster of its own
    cost two more worker processes' start)."""
    plan = plan_tournament("table", [], make_rules("classic"))
    local = run_plan(plan, 6000, seed=9, workers=1)
    with distributed.Client(scheduler) as client:
        pids = client.run(os.getpid)
        victim = pids[sorted(pids)[0]]
        done = []

        def progress(played: int, kept: int) -> None:
            done.append(kept)
            if len(done) == 1:  # the first chunk is in: kill a worker while the rest run
                os.kill(victim, signal.SIGKILL)

        remote = run_plan(plan, 6000, seed=9, chunk=250, on_progress=progress, client=client)
        after = set(client.run(os.getpid).values())
    assert victim not in after and len(done) == 24, "the worker was not killed during the run"
    assert not remote.partial and remote.total_matches == 6000
    write_tables(tmp_path, plan, local)
    first = {n: (tmp_path / n).read_bytes() for n in CSVS}
    write_tables(tmp_path, plan, remote)
    for n in CSVS:
        assert first[n] == (tmp_path / n).read_bytes(), n
