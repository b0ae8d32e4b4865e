"""What a command loads before it answers (issue 22, "time to a result"): structure, not timing.

A usage error is found before the engine, the tables or the charts are imported, and a run with
``--no-charts`` never loads matplotlib.  Each check runs the CLI in a fresh interpreter (a test process
has imported everything already) and reads ``sys.modules`` there; how long anything takes is measured by
``nines bench startup``, never asserted.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

#: Libraries a usage error must not load: the compiled engine, the statistics, the tables and the charts.
HEAVY = ("numba", "scipy", "statsmodels", "matplotlib", "pandas", "optuna", "nines_sim.kernel")

USAGE_ERRORS = [
    ["tournament", "no-such-strategy"],
    ["tournament", "--players", "9"],
    ["tournament", "random", "random", "--players", "3"],
    ["tournament", "--rules", "no-such-preset"],
    ["tournament", "--rule", "nine_penalty=-4"],
    ["tournament", "--format", "round-robin", "random"],
    ["tournament", "--baseline", "random"],
    ["tournament", "--ranges", "5:2", "-n", "10"],
    ["tournament", "--scheduler", " "],
    ["tournament", "--out", "{file}", "-n", "10"],
    ["tournament", "-n", "0"],
    ["compare-rules", "--rules", "classic", "--rules", "no-such-preset"],
    ["compare-rules", "no-such-strategy"],
    ["compare-rules", "--sweep", "no_such_option=1,2"],
    ["tune", "expert"],
    ["tune", "expert", "--opponents", "no-such-strategy"],
    ["tune", "expert", "--opponents", "random", "--params", "no_such_param"],
    ["tune", "expert", "--opponents", "random", "--trials", "0"],
    ["replay", "no-such-strategy"],
    ["replay", "--rules", "no-such-preset"],
    ["analyze", "--policy", "no-such-strategy", "--match", "0"],
    ["analyze"],
    ["bench", "W99"],
    ["report", "{missing}"],
]
#: What a command may load before its usage error: ``report`` checks a folder's tables with pandas.
ALLOWED = {"report": ["pandas"]}


def _in_fresh_python(code: str, cwd) -> dict:  # noqa: ANN001
    """Run ``code`` in a new interpreter and return the JSON it prints last."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_usage_errors_load_no_engine_statistics_or_charts(tmp_path) -> None:
    """Every usage error exits 2 with one line, having imported none of :data:`HEAVY`."""
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    cases = [[w.format(file=a_file, missing=tmp_path / "missing") for w in args] for args in USAGE_ERRORS]
    got = _in_fresh_python(
        f"""
        import json, sys
        from typer.testing import CliRunner
        from nines_sim.cli import app
        heavy = {HEAVY!r}
        out = []
        for args in {cases!r}:
            r = CliRunner().invoke(app, args)
            out.append({{"args": args, "code": r.exit_code, "output": r.output,
                         "loaded": [m for m in heavy if m in sys.modules]}})
        print(json.dumps(out))
        """,
        tmp_path,
    )
    for case in got:
        lines = case["output"].strip().splitlines()
        assert case["code"] == 2, case
        assert len(lines) == 1 and lines[0].startswith("Error: "), case
        loaded = [m for m in case["loaded"] if m not in ALLOWED.get(case["args"][0], [])]
        assert loaded == [], f"{' '.join(case['args'])} loaded {loaded} before its usage error"


@pytest.mark.parametrize("command", [["--help"], ["--version"], ["rules"], ["tournament", "--help"]])
def test_help_loads_nothing_heavy(command: list[str], tmp_path) -> None:
    got = _in_fresh_python(
        f"""
        import json, sys
        from typer.testing import CliRunner
        from nines_sim.cli import app
        r = CliRunner().invoke(app, {command!r})
        print(json.dumps({{"code": r.exit_code, "loaded": [m for m in {HEAVY!r} if m in sys.modules]}}))
        """,
        tmp_path,
    )
    assert got == {"code": 0, "loaded": []}


def test_a_run_without_charts_loads_no_matplotlib(tmp_path) -> None:
    """``--no-charts`` writes the CSVs and report.md without importing matplotlib; the engine and the
    statistics load because the run reaches them."""
    got = _in_fresh_python(
        """
        import json, sys
        from typer.testing import CliRunner
        from nines_sim.cli import app
        r = CliRunner().invoke(app, ["tournament", "-n", "40", "--workers", "1", "--no-charts", "--quiet",
                                     "--out", "run"])
        print(json.dumps({"code": r.exit_code, "output": r.output,
                          "loaded": sorted(m for m in ("matplotlib", "numba", "scipy.stats") if m in sys.modules)}))
        """,
        tmp_path,
    )
    assert got["code"] == 0, got["output"]
    assert got["loaded"] == ["numba", "scipy.stats"]
    assert (tmp_path / "run" / "report.md").is_file()
    assert not list((tmp_path / "run").glob("*.png"))
