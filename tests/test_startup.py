"""What a command loads before it answers (issue 22, "time to a result"): structure, not timing.

A usage error is found before the engine, the tables or the charts are imported, and a run with
``--no-charts`` never loads matplotlib.  Each check runs the CLI in a fresh interpreter (a test process
has imported everything already) and reads ``sys.modules`` there; how long anything takes is measured by
``nines bench startup``, never asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

#: Libraries a usage error must not load: the compiled engine, the statistics, the tables and the charts.
HEAVY = ("numba", "scipy", "statsmodels", "matplotlib", "pandas", "optuna", "nines_sim.engine.turn_loop")

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
    ["review", "no-such-strategy"],
    ["review", "expert", "--policy", "no-such-strategy"],
    ["tournament", "--rules", "classic:"],
    ["tournament", "-n", "99999999999999999999999"],
    # play, replay and analyze answered these only after loading the engine (numba, scipy): issue 42
    ["play", "no-such-strategy"],
    ["play", "--players", "9"],
    ["play", "--seat", "7"],
    ["play", "--resume", "{bad}"],
    ["replay", "{bad}"],
    ["review", "{bad}"],
    ["analyze", "no-such-strategy", "random", "--match", "0", "--hand", "1", "--turn", "1"],
    ["report", "{missing}"],  # last: it may load pandas, and the modules loaded add up case after case
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
    bad = tmp_path / "bad.json"
    bad.write_text("not a saved match")
    cases = [[w.format(file=a_file, missing=tmp_path / "missing", bad=bad) for w in args] for args in USAGE_ERRORS]
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


#: Commands that only print: each must answer having loaded none of :data:`HEAVY`.
HELP = [["--help"], ["--version"], ["rules"], ["tournament", "--help"]]


def test_help_loads_nothing_heavy(tmp_path) -> None:
    """Each command of :data:`HELP` in turn, in one fresh interpreter (one start-up, not one per command): what each
    adds to ``sys.modules`` is read after it, so the first to load a heavy library is the one named (a library
    loaded by none stays out of ``sys.modules`` throughout, so the set after each command is exactly what one fresh
    interpreter per command read)."""
    got = _in_fresh_python(
        f"""
        import json, sys
        from typer.testing import CliRunner
        from nines_sim.cli import app
        out = []
        for command in {HELP!r}:
            r = CliRunner().invoke(app, command)
            out.append({{"command": command, "code": r.exit_code,
                         "loaded": [m for m in {HEAVY!r} if m in sys.modules]}})
        print(json.dumps(out))
        """,
        tmp_path,
    )
    assert got == [{"command": command, "code": 0, "loaded": []} for command in HELP]


def test_a_run_without_charts_loads_no_matplotlib_a_design_run_no_scipy_stats_and_a_study_no_sklearn(tmp_path) -> None:
    """``--no-charts`` writes the CSVs and report.md without importing matplotlib; the engine loads because the
    run reaches it, the statistics without ``scipy.stats`` or statsmodels (half a second of start-up).  Then, in the
    same fresh interpreter (one start-up, not two: the first run is checked to have loaded none of the three, so
    any found after the second is the second's), a design run: the rules lab's t intervals and chi-square test come
    from ``scipy.special`` (issue 42).  Last a study's parameter importances, as ``nines tune`` writes them: Optuna's
    PED-ANOVA evaluator computes them without scikit-learn, which ``optuna.importance`` would import (2 s) for its
    fANOVA one."""
    got = _in_fresh_python(
        """
        import json, sys
        from typer.testing import CliRunner
        from nines_sim.cli import app
        r = CliRunner().invoke(app, ["tournament", "-n", "40", "--workers", "1", "--no-charts", "--quiet",
                                     "--out", "run"])
        out = {"code": r.exit_code, "output": r.output,
               "loaded": sorted(m for m in ("matplotlib", "numba", "scipy.stats", "statsmodels",
                                            "nines_sim.results.ratings", "nines_sim.experiments.tournament.league")
                                if m in sys.modules)}
        r = CliRunner().invoke(app, ["tournament", "random", "random", "-n", "30", "--design", "40", "--workers",
                                     "1", "--no-charts", "--quiet", "--out", "design"])
        out["design"] = {"code": r.exit_code, "output": r.output,
                         "loaded": [m for m in ("scipy.stats", "statsmodels", "matplotlib") if m in sys.modules]}
        before = "sklearn" in sys.modules
        import types, optuna
        from nines_sim.experiments.tune.work import importances
        study = optuna.create_study(direction="maximize", sampler=optuna.samplers.RandomSampler(seed=0))
        study.optimize(lambda t: t.suggest_int("a", 0, 9) + t.suggest_float("b", 0, 1), n_trials=4)
        imp = importances(study, types.SimpleNamespace(tuned=("a", "b")))
        out["tune"] = {"importances": sorted(imp["parameter"]), "sklearn": [before, "sklearn" in sys.modules]}
        print(json.dumps(out))
        """,
        tmp_path,
    )
    assert got["code"] == 0, got["output"]
    # a table is not rated: no league or ratings code; the exact tests take scipy.special, not scipy.stats
    assert got["loaded"] == ["numba"]
    assert (tmp_path / "run" / "report.md").is_file()
    assert not list((tmp_path / "run").glob("*.png"))
    design = got["design"]
    assert design["code"] == 0, design["output"]
    assert design["loaded"] == []
    assert (tmp_path / "design" / "design.csv").is_file()
    assert got["tune"] == {"importances": ["a", "b"], "sklearn": [False, False]}  # computed, without sklearn


@pytest.mark.skipif(sys.platform != "linux", reason="the lone unit plays in a worker only where workers fork")
def test_a_lone_unit_plays_in_a_forked_worker_while_this_process_loads_the_writers(tmp_path) -> None:
    """With two workers and one unit, a process that has not loaded the compiled code hands the unit to one
    forked worker and meanwhile imports the tables' writers (pandas) itself, without ever importing numba.  It
    does so once: its next run plays here (loading numba), so a session of short runs pays one load, not one
    per run.  The folders' CSVs are byte for byte those of a one-worker run."""
    got = _in_fresh_python(
        """
        import json, sys
        from nines_sim.experiments.tournament import setup as tournament
        seen = []
        load = tournament._load_writers
        def spy():
            seen.append(("numba" in sys.modules, "pandas" in sys.modules))
            load()
        tournament._load_writers = spy
        from typer.testing import CliRunner
        from nines_sim.cli import app
        out = {}
        for run, w in (("first", "2"), ("again", "2"), ("one", "1")):
            r = CliRunner().invoke(app, ["tournament", "expert", "random", "dump-faces", "-n", "60", "--workers",
                                         w, "--no-charts", "--quiet", "--out", run])
            out[run] = [r.exit_code, "numba" in sys.modules, list(seen)]
        print(json.dumps(out))
        """,
        tmp_path,
    )
    # the first run: meanwhile ran once, before this process had numba or pandas, and numba never came here
    assert got["first"] == [0, False, [[False, False]]]
    # the next runs play here (numba loaded); meanwhile is not called again
    assert got["again"] == [0, True, [[False, False]]]
    assert got["one"] == [0, True, [[False, False]]]
    for name in ("summary.csv", "hands.csv", "pairwise.csv", "seat_go_out.csv", "score_distribution.csv"):
        one = (tmp_path / "one" / name).read_bytes()
        assert (tmp_path / "first" / name).read_bytes() == one and (tmp_path / "again" / name).read_bytes() == one


# ------------------------------------------------------------------ the first run's compile, said and timed apart


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_bar_says_it_is_compiling_and_counts_play_only():
    """While a form compiles the bar names it and the seconds so far; afterwards elapsed time, rate and ETA
    leave the compile out (the issue: an 18-minute ETA and 2,777 matches/s after 40 s of compiling)."""
    from nines_sim.runs.progress import RunProgress

    clock = Clock()
    with RunProgress(1000, clock=clock) as bar:
        bar.compiling("play_slots_classic", True)
        clock.now += 40.0
        bar._show()
        line = str(bar.bar)
        assert "compiling play_slots_classic: 40 s" in line, line
        assert "match/s" not in line
        assert bar.compiling_now == ["play_slots_classic"]
        bar.compiling("play_slots_classic", False)
        assert bar.compiling_now == []
        assert bar.compile_seconds == pytest.approx(40.0)
        clock.now += 2.0
        bar(500, 500)
        assert bar.bar.format_dict["elapsed"] == pytest.approx(2.0)  # play only, not 42 s
        line = str(bar.bar)
        assert "250match/s" in line and "kept 500" in line, line


def test_overlapping_compiles_in_two_workers_count_once():
    """Two workers compiling the same form at once: the compile time is the span during which any compiled."""
    from nines_sim.runs.progress import RunProgress

    clock = Clock()
    with RunProgress(100, disable=True, clock=clock) as bar:
        bar.compiling("play_slots_expert", True)
        clock.now += 1.0
        bar.compiling("play_slots_expert", True)
        clock.now += 9.0
        bar.compiling("play_slots_expert", False)
        assert bar.compiling_now == ["play_slots_expert"]
        clock.now += 2.0
        bar.compiling("play_slots_expert", False)
        assert bar.compile_seconds == pytest.approx(12.0)
        bar.compiling("deal", True)  # a later form: announced and counted the same way
        clock.now += 3.0
        bar.compiling("deal", False)
        assert bar.compile_seconds == pytest.approx(15.0)


class Heard:
    """An ``on_progress`` that records what it hears, compiles included."""

    def __init__(self) -> None:
        self.played = 0
        self.compiles: list[tuple[str, bool]] = []

    def __call__(self, played: int, kept: int) -> None:
        self.played += played

    def compiling(self, form: str, started: bool) -> None:
        self.compiles.append((form, started))


def play_slots_pretend(*args):  # noqa: ANN002, ANN201 - the name a compiled form would have
    return None


def _unit_that_compiles(n: int, on_matches, should_stop) -> int:  # noqa: ANN001
    """A unit of work during which numba says it compiles a form (the event numba sends on a cache miss)."""
    from types import SimpleNamespace

    from numba.core import event

    with event.trigger_event("numba:compile", data={"dispatcher": SimpleNamespace(py_func=play_slots_pretend)}):
        with event.trigger_event("numba:compile", data={"dispatcher": SimpleNamespace(py_func=_unit_that_compiles)}):
            pass  # a function the form calls compiles inside it: not announced apart
    on_matches(n, n)
    return n


@pytest.mark.parametrize("workers", [1, 2])
def test_run_units_passes_on_each_compile_in_this_process_or_a_worker(workers):
    from nines_sim.runs.pool import run_units

    heard, taken = Heard(), []
    run_units(_unit_that_compiles, [(0, (3,)), (1, (4,))], workers, lambda tag, r: taken.append(r), heard)
    assert sorted(taken) == [3, 4] and heard.played == 7
    assert sorted(heard.compiles) == [("play_slots_pretend", False)] * 2 + [("play_slots_pretend", True)] * 2
    assert heard.compiles[0] == ("play_slots_pretend", True)  # each worker's messages keep their order
    if workers == 1:
        assert heard.compiles == [("play_slots_pretend", True), ("play_slots_pretend", False)] * 2


# ------------------------------------------------------------------ nines bench startup


def test_bench_startup_reports_medians_and_ratios_to_the_pandas_import(monkeypatch):
    """The commands run as fresh processes (here a stand-in that returns set durations, in turn): each is run
    once untimed, then the median of the repeats is compared with the pandas import of the same sitting."""
    from typer.testing import CliRunner

    import nines_sim.experiments.bench.work as bench
    from nines_sim.cli import app

    seconds = {"pandas": [9.0, 0.6, 0.7, 0.5], "help": [9.0, 0.3, 0.4, 0.2], "usage error": [9.0, 0.4, 0.3, 0.35],
               "tournament": [9.0, 2.0, 2.4, 2.2]}  # fmt: skip
    calls: list[tuple[list[str], int]] = []

    def fake(args: list[str], expect: int) -> float:
        name = next(n for n, (_, a) in bench.STARTUP.items() if a[:4] == args[:4])
        calls.append((args, expect))
        return seconds[name].pop(0)

    monkeypatch.setattr(bench, "_timed", fake)
    r = CliRunner().invoke(app, ["bench", "startup", "--repeat", "3", "--json"])
    assert r.exit_code == 0, r.output
    rows = {row["name"]: row for row in json.loads(r.output)}
    assert rows["pandas"]["seconds"] == 0.6 and rows["pandas"]["runs"] == [0.6, 0.7, 0.5]
    assert rows["tournament"]["seconds"] == 2.2
    assert rows["tournament"]["ratio_to_pandas"] == pytest.approx(2.2 / 0.6)
    assert rows["usage error"]["ratio_to_pandas"] == pytest.approx(0.35 / 0.6)
    assert len(calls) == 4 * 4 and all(e == (2 if "no-such-strategy" in a else 0) for a, e in calls)
    assert all(not any("{out}" in x for x in a) for a, _ in calls)  # the run folder is filled in


def test_bench_startup_is_named_on_its_own():
    from typer.testing import CliRunner

    from nines_sim.cli import app

    r = CliRunner().invoke(app, ["bench", "startup", "W1"])
    assert r.exit_code == 2 and r.output.startswith("Error: name startup on its own"), r.output


# ------------------------------------------------------------------ only the compiled forms a run plays

WARM_UP_FORMS = textwrap.dedent(
    """
    from nines_sim.engine import turn_loop as K
    from nines_sim.engine.batch import warm_up
    from nines_sim.game.rules import make_rules
    forms = (K.play_slots_classic, K.play_slots, K.play_slots_classic_expert, K.play_slots_expert)
    loaded = lambda: [len(f.overloads) for f in forms]
    warm_up("fork", [(make_rules("classic"), ("expert", "random", "random", "random"))])
    print(*loaded())
    warm_up("fork", [(make_rules("classic"), ["random"] * 4), (make_rules("hard-nines"), ["expert", "expert"])])
    print(*loaded())
    """
)


def test_warm_up_loads_the_expert_forms_only_for_tables_that_seat_expert(tmp_path):
    """Before forking, a run loads the forms its tables play: an ``expert`` table its expert form only (it
    used to load the plain classic form, unused, and leave each worker to load or compile the expert one)."""
    out = subprocess.run([sys.executable, "-c", WARM_UP_FORMS], capture_output=True, text=True, cwd=tmp_path)
    assert out.stdout.split("\n")[:2] == ["0 0 1 0", "1 0 1 0"], out.stdout + out.stderr


def test_commands_without_a_progress_bar_say_when_code_compiles_and_how_long(capsys):
    """``replay``, ``analyze``, ``review FILE``, ``tune`` and ``tune-rules`` wrap their play in
    ``compile_notices``: a compile in this process (a cache miss) is said on stderr as it starts and ends."""
    from numba import njit

    from nines_sim.cli.common import compile_notices

    def seven_and(x):  # a new function: compiling it is a cache miss
        return x + 7

    def eight_and(x):
        return x + 8

    with compile_notices():  # stderr is not a terminal here: nothing said, as into a file or a pipe
        assert njit(eight_and)(1) == 9
    assert capsys.readouterr().err == ""
    with compile_notices(quiet=False):
        assert njit(seven_and)(1) == 8
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "compiling seven_and (first run only, then cached) ..."
    assert err[1].startswith("compiled seven_and in ") and err[1].endswith(" s") and len(err) == 2
    with compile_notices(quiet=True):
        assert njit(seven_and)(2) == 9
    assert capsys.readouterr().err == ""


#: Two new functions compiled (cached on disk) in ``compile_notices``: what stdout and stderr get.
INTO_A_FILE = """
from numba import njit
from nines_sim.cli.common import compile_notices

@njit(cache=True)
def nine_and(x):
    return x + 9

@njit(cache=True)
def ten_and(x):
    return x + 10

with compile_notices():
    print(nine_and(1), ten_and(1))
"""


def test_into_a_file_or_a_pipe_a_first_compile_is_said_in_one_plain_line_on_stderr(tmp_path):
    """A new user's ``nines analyze ... > out.txt 2> err.txt`` sat silent through its first compile: with stderr
    a file or a pipe (not a terminal), the first compile is said there in one plain line (no timings, no bar),
    stdout as it was; once the code is cached, nothing."""
    script = tmp_path / "two.py"
    script.write_text(INTO_A_FILE)
    err = tmp_path / "err.txt"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    said = []
    for _ in range(2):
        with open(err, "w") as into:
            out = subprocess.run([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=into, text=True,
                                 env=env, check=True)  # fmt: skip
        assert out.stdout == "10 11\n"
        said.append(err.read_text())
    first = "Compiling nine_and and the code this command needs with it (first run only, then cached) ...\n"
    assert said == [first, ""]  # one line for both functions; loaded from the cache the second time
