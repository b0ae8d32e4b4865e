"""Runs on a Dask cluster give the numbers of a local run (only with the dask extra installed)."""

from __future__ import annotations

import os
import signal
import socket
import time

import pytest
from typer.testing import CliRunner

distributed = pytest.importorskip("distributed")

from nines_sim.cli import app  # noqa: E402
from nines_sim.cluster import CONNECT_TIMEOUT_S, run_plan_dask  # noqa: E402
from nines_sim.output import write_tables  # noqa: E402
from nines_sim.rules import make_rules  # noqa: E402
from nines_sim.tournament import plan_tournament, run_plan  # noqa: E402

runner = CliRunner()
CSVS = ("summary.csv", "hands.csv", "score_distribution.csv", "seat_go_out.csv", "pairwise.csv")


def test_local_cluster_run_writes_byte_identical_csvs(tmp_path):
    args = ["tournament", "-n", "3000", "--quiet", "--no-charts"]
    r = runner.invoke(app, [*args, "--workers", "1", "--out", str(tmp_path / "local")])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, [*args, "--workers", "2", "--scheduler", "local", "--out", str(tmp_path / "dask")])
    assert r.exit_code == 0, r.output
    for name in CSVS:
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "dask" / name).read_bytes(), name


def test_compare_rules_on_a_local_cluster_matches_the_local_run(tmp_path):
    args = ["compare-rules", "--rules", "classic", "--rules", "hard-nines", "-n", "1500", "--quiet", "--no-charts"]
    assert runner.invoke(app, [*args, "--workers", "1", "--out", str(tmp_path / "a")]).exit_code == 0
    r = runner.invoke(app, [*args, "--scheduler", "local", "--out", str(tmp_path / "b")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "a" / "comparison.csv").read_bytes() == (tmp_path / "b" / "comparison.csv").read_bytes()


def test_a_worker_killed_mid_run_still_gives_identical_numbers(tmp_path):
    plan = plan_tournament("table", [], make_rules("classic"))
    local = run_plan(plan, 6000, seed=9, workers=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as lc:
        with distributed.Client(lc) as client:
            pids = client.run(os.getpid)
            victim = pids[sorted(pids)[0]]
            done = []

            def progress(n: int) -> None:
                done.append(n)
                if len(done) == 1:  # the first chunk is in: kill a worker while the rest run
                    os.kill(victim, signal.SIGKILL)

            remote = run_plan_dask(client, plan, 6000, seed=9, chunk_size=250, on_progress=progress)
            after = set(client.run(os.getpid).values())
    assert victim not in after and len(done) == 24, "the worker was not killed during the run"
    assert not remote.partial and remote.total_matches == 6000
    write_tables(tmp_path, plan, local)
    first = {n: (tmp_path / n).read_bytes() for n in CSVS}
    write_tables(tmp_path, plan, remote)
    for n in CSVS:
        assert first[n] == (tmp_path / n).read_bytes(), n


def test_unreachable_scheduler_errors_within_the_stated_timeout(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # free once closed: nobody listens there
    t0 = time.monotonic()
    r = runner.invoke(app, ["tournament", "-n", "100", "--scheduler", f"tcp://127.0.0.1:{port}", "--out",
                            str(tmp_path / "u"), "--quiet"])  # fmt: skip
    elapsed = time.monotonic() - t0
    assert r.exit_code == 2, r.output
    assert "cannot reach a Dask scheduler" in r.output and "Traceback" not in r.output
    assert elapsed < CONNECT_TIMEOUT_S + 10


def test_a_silent_peer_is_not_a_scheduler_and_errors_in_time(tmp_path):
    with socket.socket() as listener:  # accepts connections, never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(5)
        port = listener.getsockname()[1]
        t0 = time.monotonic()
        r = runner.invoke(app, ["tournament", "-n", "100", "--scheduler", f"tcp://127.0.0.1:{port}", "--out",
                                str(tmp_path / "s"), "--quiet"])  # fmt: skip
        elapsed = time.monotonic() - t0
    assert r.exit_code == 2 and "cannot reach a Dask scheduler" in r.output, r.output
    assert elapsed < CONNECT_TIMEOUT_S + 10


@pytest.mark.parametrize("address", ["", "garbage"])
def test_a_malformed_scheduler_address_is_a_usage_error(tmp_path, address):
    r = runner.invoke(app, ["tournament", "-n", "100", "--scheduler", address, "--out", str(tmp_path / "g"), "-q"])
    assert r.exit_code == 2 and "tcp://HOST" in r.output and "Traceback" not in r.output
    assert "within" not in r.output and "dask worker" not in r.output  # it was never tried as an address
    if address:
        assert r.output.startswith(f"Error: --scheduler {address} is not a scheduler address;"), r.output


def test_a_strategy_error_on_the_cluster_is_one_line_and_not_retried(tmp_path):
    f = tmp_path / "bad.py"
    f.write_text(
        "import numpy as np\nfrom nines_sim.strategy import Strategy\nfrom nines_sim.choice import pick_card\n"
        "class BadSuit(Strategy):\n    name = 'bad-suit'\n"
        "    def play(self, obs):\n        return pick_card([w & obs.legal for w in obs.hand], obs.random())\n"
        "    def declare(self, obs):\n        return np.full(obs.n, 9)\n"
    )
    r = runner.invoke(app, ["tournament", f"{f}:BadSuit", "random", "-n", "600", "--scheduler", "local",
                            "--out", str(tmp_path / "b"), "-q"])  # fmt: skip
    assert r.exit_code == 1 and "returned a suit outside 0..3" in r.output and "nines replay" in r.output


def test_ctrl_c_on_a_local_cluster_keeps_whole_blocks(tmp_path):
    import gzip
    import subprocess
    import sys

    import numpy as np
    import pandas as pd

    d = tmp_path / "cc"
    cmd = [sys.executable, "-m", "nines_sim", "tournament", "-n", "400000", "--workers", "2", "--scheduler",
           "local", "--out", str(d), "--no-charts", "--save-matches"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    time.sleep(12)
    os.killpg(proc.pid, signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, out.decode()[-2000:]
    import json

    m = json.loads((d / "manifest.json").read_text())
    assert m["partial"] and 0 < m["matches_played"] < 400_000
    with gzip.open(d / "matches.csv.gz", "rt") as fh:
        kept = pd.read_csv(fh)["match"].to_numpy()
    for lo in (0, 100_000, 200_000, 300_000):  # the cluster's chunks of 100,000 matches
        block = kept[(kept >= lo) & (kept < lo + 100_000)]
        assert (block == np.arange(lo, lo + len(block))).all()
