"""What a first ``--luck`` run compiles, and where (issue 42): the luck walk once for the fit and the run, the
trace form and the walk side by side in processes of their own while the run sets up.  Counted from numba's
signatures and cache index, never timed."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest

from nines_sim.engine.loop_constants import EV_WIDTH
from nines_sim.engine.seats import seat_ids
from nines_sim.game.rules import make_rules
from nines_sim.luck import compiled
from nines_sim.luck.features import N_FEATURES, NJ
from nines_sim.luck.measure import FIT_START
from nines_sim.luck.value import LinearValue
from nines_sim.strategy.registry import make_lineup


def test_the_fit_the_run_and_the_warm_up_walk_with_one_signature(monkeypatch):
    """The fit's walker (no value: the constant one, of shape (P, N_FEATURES)), a run's walker (a fitted value, (3, P,
    N_FEATURES) with its points) and :func:`~nines_sim.engine.build_forms.build_walk`, which compiles the walk ahead of
    them, pass the walk arrays of the same kinds: numba compiles it once.  numpy kept the
    constant value's broadcast strides in its copy, and the fit compiled the whole walk a second time for that layout
    (about 10 s of processor time)."""
    from nines_sim.engine.build_forms import build_walk

    kinds = []
    monkeypatch.setattr(compiled, "walk", lambda *args: kinds.append(tuple(numba.typeof(a) for a in args)))
    rules = make_rules("classic", players=2)
    sids = seat_ids(make_lineup(["expert", "dump-faces"]))
    rows = np.zeros((0, EV_WIDTH), dtype=np.int64)
    compiled.RowWalker(rules, sids, FIT_START, 0, reuse=True, keep_parts=False).feed(0, rows)  # a fit's chunk
    fitted = LinearValue(np.ones((3, 2, N_FEATURES)), "fitted", np.ones((3, 2, NJ)))
    value = compiled.value_factors(fitted)
    compiled.RowWalker(rules, sids, 0, 0, keep_hands=False, value=value, keep_parts=False).feed(0, rows)  # a run's
    build_walk(rules, make_lineup(["random", "dump-faces"]))
    assert len(kinds) == 3 and len(set(kinds)) == 1, set(kinds)


CACHED = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {folder!r})
    from nines_sim.engine.build_forms import cached
    import seven
    before = cached(seven.seven_and)
    seven.seven_and(1)
    print(int(before), int(cached(seven.seven_and)))
    """
)


def test_a_form_in_numba_s_cache_is_found_there_without_compiling_it(tmp_path):
    """``cached`` reads numba's cache index: a function never compiled is not there, one compiled in another process
    is (loaded, not compiled again), and an edit of its file makes it stale again, as numba finds it."""
    folder = tmp_path / "code"
    folder.mkdir()
    source = folder / "seven.py"
    source.write_text("from numba import njit\n\n\n@njit(cache=True)\ndef seven_and(x):\n    return x + 7\n")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))

    def run() -> str:
        done = subprocess.run([sys.executable, "-c", CACHED.format(folder=str(folder))], env=env,
                              capture_output=True, text=True, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert run() == ["0", "1"]  # not in the cache; compiled here
    assert run() == ["1", "1"]  # in the cache
    source.write_text(source.read_text().replace("x + 7", "7 + x"))
    os.utime(source, (source.stat().st_atime + 10, source.stat().st_mtime + 10))
    assert run() == ["0", "1"]  # stale after an edit


class _Building:
    """A stand-in of :class:`~nines_sim.engine.build_forms.BuildForms` that starts nothing: it says each form is
    built as it is waited for."""

    started: list[dict] = []

    def __init__(self, workers=None, on_built=None, forms=None, apart=False, lanes=None, fork=False):  # noqa: ANN001
        from nines_sim.engine.build_forms import AHEAD

        self.forms = [f for lane in lanes for f in lane if f not in AHEAD] if lanes is not None else list(forms)
        self.on_built, self.stopped = on_built, False
        _Building.started.append(
            {"lanes": lanes, "fork": fork} if lanes is not None else {"forms": list(forms), "apart": apart}
        )

    def wait(self):  # noqa: ANN202
        from nines_sim.engine.build_forms import Built

        done = [Built(f, True, 1.0) for f in self.forms]
        for b in done:
            self.on_built(b)
        return done

    def stop(self) -> None:
        self.stopped = True


@pytest.mark.parametrize(
    ("missing", "lanes"),
    [({"trace", "luck"}, [["walk-helpers", "trace"], ["scalar-helpers", "luck"]]),
     ({"luck"}, [["walk-helpers"], ["scalar-helpers", "luck"]]),
     ({"trace"}, [["trace"]]), (set(), None)],
)  # fmt: skip
def test_a_luck_run_builds_the_forms_the_cache_lacks_each_in_a_process_of_its_own(monkeypatch, missing, lanes):
    """The trace form and the walk share no compiled code: those the cache lacks build side by side, each in a
    process of its own, the walk's helpers compiled first in the other one (or in one of their own), while the
    walk's process inlines its steps; the run waits for them before its fit, its bar saying each form compiling
    until it is built; nothing starts when the cache holds both."""
    from nines_sim.engine import build_forms
    from nines_sim.luck import forms

    monkeypatch.setattr(build_forms, "in_cache", lambda form: form not in missing)
    monkeypatch.setattr(build_forms, "BuildForms", _Building)
    _Building.started = []
    heard = []
    luck = forms.LuckForms()
    luck.ready(lambda name, started: heard.append((name, started)))
    if lanes is None:
        assert _Building.started == [] and heard == []
        return
    assert _Building.started == [{"lanes": lanes, "fork": True}]
    expected = [f for f in ("trace", "luck") if f in missing]
    names = {"trace": "play_slots_expert_trace", "luck": "walk"}
    assert heard == [(names[f], True) for f in expected] + [(names[f], False) for f in expected]


def test_a_luck_tournament_waits_for_its_forms_before_its_fit(monkeypatch, tmp_path):
    """``run_tournament`` with ``luck`` starts :class:`~nines_sim.luck.forms.LuckForms` before its run folder, with
    its writers' imports to do while the last form builds, and waits for it, with the bar's compile hook, before the
    fit; it ends them when the run ends."""
    from nines_sim.experiments.tournament import setup as tournament
    from nines_sim.luck import forms
    from nines_sim.luck import tournament as luck_tables

    calls = []

    class Recording:
        def __init__(self, meanwhile=None) -> None:  # noqa: ANN001
            calls.append(("start", getattr(meanwhile, "__name__", None)))

        def ready(self, compiling=None) -> None:  # noqa: ANN001
            calls.append(("ready", getattr(compiling, "__name__", None)))

        def close(self) -> None:
            calls.append("close")

    def fit(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        calls.append("fit")
        raise KeyboardInterrupt  # enough: the order is what is tested

    monkeypatch.setattr(forms, "LuckForms", Recording)
    monkeypatch.setattr(luck_tables, "fit_table", fit)
    setup = tournament.tournament_setup(["expert", "dump-faces"], seed=0)
    with pytest.raises(BaseException):  # noqa: B017, PT011 - Ctrl-C before any match: nothing kept
        tournament.play_tournament(setup, matches=100, out=tmp_path / "run", workers=1, luck=True, charts=False)
    assert calls == [("start", "_load_writers"), ("ready", "compiling"), "fit", "close"]


def test_work_ahead_is_done_in_a_building_process_and_said_as_no_form(monkeypatch, capsys):
    """A building process does the work of ``AHEAD`` (the walk's helpers) in its turn among its forms and says no
    line for it (a run's bar hears only forms); a lane naming neither a form nor such work is refused."""
    from nines_sim.engine import build_forms
    from nines_sim.luck import kernel

    calls = []
    monkeypatch.setattr(kernel, "compile_helpers", lambda: calls.append("helpers"))
    build_forms._build_here(["walk-helpers"])
    assert calls == ["helpers"] and capsys.readouterr().out == ""
    with pytest.raises(ValueError, match="no form named 'walk'"):
        build_forms.BuildForms(lanes=[["walk"]])


FORKED = textwrap.dedent(
    """
    from nines_sim.engine import build_forms

    def build(form):  # a stand-in: the child runs this module's code as it was when it forked
        if form == "luck":
            raise RuntimeError("no walk here")
        return ["nines_sim.stand_in"]

    build_forms.build = build
    building = build_forms.BuildForms(lanes=[["trace"], ["luck"]], fork=True)
    print(*[type(p).__name__ for p in building._procs])
    try:
        building.wait()
    except RuntimeError as e:
        print(e)
    print(*[(b.form, b.compiled) for b in building.done], *[p.poll() for p in building._procs])
    """
)


def test_a_luck_run_s_building_processes_are_forked_from_it_and_say_what_they_built_and_why_they_failed():
    """``BuildForms(fork=True)`` forks its processes from this one (run here in a fresh interpreter, one thread: what
    they build is this process's code, a stand-in's here), each saying its forms as a started one does, a failure by
    its last line of error output; none is left running."""
    done = subprocess.run([sys.executable, "-c", FORKED], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    kinds, error, built = done.stdout.splitlines()
    assert kinds == "_Forked _Forked"
    assert error == "building the compiled forms failed: RuntimeError: no walk here"
    assert built == "('trace', True) 0 1"


def test_a_first_luck_run_compiles_each_walk_helper_once_the_fixed_value_s_in_the_walk_s_own_process(monkeypatch):
    """The lanes' work ahead of the forms (:data:`~nines_sim.engine.build_forms.AHEAD`, done as
    :func:`~nines_sim.luck.forms.lanes` orders it) compiles every helper the walk calls once, for its one signature:
    a fixed value's (:data:`~nines_sim.luck.value_kernel.HELPERS`) in the walk's own process before the walk, the
    kernel's (among them ``choice_columns``, no longer inlined) in the other process before the trace form (each
    compile recorded, not run)."""
    from nines_sim.engine.build_forms import AHEAD, _named
    from nines_sim.luck import forms, kernel, value_kernel

    compiled: dict[str, list] = {}
    where = []
    for fn, _ in kernel.HELPERS + value_kernel.HELPERS:
        name = fn.py_func.__name__
        monkeypatch.setattr(
            fn, "compile", lambda sig, name=name: compiled.setdefault(name, []).append((where[-1], sig))
        )
    lanes = forms.lanes(["trace", "luck"])
    for i, lane in enumerate(lanes):
        for work in lane:
            where.append((i, work))
            if work in AHEAD:
                _named(AHEAD[work])()
    helpers = dict(kernel.HELPERS + value_kernel.HELPERS)
    assert {name for name in compiled} == {fn.py_func.__name__ for fn in helpers}
    walk_lane = next(i for i, lane in enumerate(lanes) if "luck" in lane)
    for fn, sig in helpers.items():
        assert len(compiled[fn.py_func.__name__]) == 1
        (lane, work), asked = compiled[fn.py_func.__name__][0]
        assert asked == sig
        assert (lane == walk_lane) == (fn in dict(value_kernel.HELPERS))
        assert lanes[lane].index(work) < len(lanes[lane]) - 1  # before the lane's form


def test_while_the_walk_builds_the_run_loads_the_trace_form_and_does_its_meanwhile(monkeypatch):
    """Once the first of two building forms is built, the run's process (else waiting) loads it if it is the trace
    form and does its ``meanwhile``, once; with one form building, nothing (the other core is not free)."""
    from nines_sim.engine import build_forms
    from nines_sim.luck import forms

    for missing, expected in (({"trace", "luck"}, ["build trace", "meanwhile"]), ({"luck"}, [])):
        done = []
        monkeypatch.setattr(build_forms, "in_cache", lambda form, missing=missing: form not in missing)
        monkeypatch.setattr(build_forms, "BuildForms", _Building)
        monkeypatch.setattr(build_forms, "build", lambda form, done=done: done.append(f"build {form}"))
        luck = forms.LuckForms(meanwhile=lambda done=done: done.append("meanwhile"))
        luck.ready()
        assert done == expected


ESCAPE = textwrap.dedent(
    """
    import os
    from nines_sim.engine import build_forms

    gate_r, gate_w = os.pipe()
    build_forms.build = lambda form: os.read(gate_r, 1) and ["nines_sim.stand_in"]  # waits for the parent's word
    me = os.getpid()
    try:
        forked = build_forms._Forked(["trace"])
    except BaseException:
        if os.getpid() != me:  # the child came back out into this code
            os._exit(77)
        raise
    if os.getpid() != me:
        os._exit(77)
    forked.stdout.close()  # as a parent killed meanwhile: the child's lines have nowhere to go
    forked.stderr.close()
    os.write(gate_w, b"x")
    print(forked.wait())
    """
)


def test_a_forked_building_process_whose_parent_closed_its_pipes_leaves_by_its_own_exit():
    """A forked building process that cannot write its line (its parent gone, the pipes closed) ends with a failure
    code of its own; the broken pipe does not carry it back into the code that forked it."""
    done = subprocess.run([sys.executable, "-c", ESCAPE], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"


def test_a_first_luck_run_reports_its_compile_as_compiling_and_its_fit_in_its_time(monkeypatch, tmp_path):
    """A first ``--luck`` run that waits 90 s (a clock moved by the stand-in forms, not slept) for its forms to
    compile: the closing line, ``manifest.json`` and ``report.md`` say those 90 s compiled (before: 0, and the speed
    of the traced matches alone), the run's time holds the fit and says so, and the luck's own seconds leave the
    compile out (before: in them).  The tables are not touched."""
    import json
    import time
    import types

    from nines_sim.experiments.tournament import setup as tournament
    from nines_sim.luck import forms
    from nines_sim.runs import progress

    moved = [0.0]  # seconds the stand-in compile moved the clocks on

    class Compiling:
        def __init__(self, meanwhile=None) -> None:  # noqa: ANN001
            pass

        def ready(self, compiling=None) -> None:  # noqa: ANN001
            compiling("walk", True)
            moved[0] += 90.0
            compiling("walk", False)

        def close(self) -> None:
            pass

    monkeypatch.setattr(forms, "LuckForms", Compiling)
    monkeypatch.setattr(progress, "time", types.SimpleNamespace(time=lambda: time.time() + moved[0]))
    clock = types.SimpleNamespace(perf_counter=lambda: time.perf_counter() + moved[0])
    monkeypatch.setattr(tournament, "time", clock, raising=False)
    setup = tournament.tournament_setup(["expert", "dump-faces"], seed=0)
    out = tmp_path / "run"
    run = tournament.play_tournament(setup, matches=300, out=out, workers=1, luck=True, luck_fit=20, charts=False)
    assert run.compile_seconds >= 90.0 and run.outcome.wall_seconds > run.compile_seconds
    assert run.luck.seconds < 90.0
    closing = run.summary(table=False)[-1]
    assert closing.startswith("300 matches and the luck's fit on 20 reserved matches in ")
    assert "s compiling, first run only)" in closing and "(+90." in closing
    m = json.loads((out / "manifest.json").read_text())
    assert m["compile_seconds"] >= 90.0 and m["wall_seconds"] > m["compile_seconds"]
    assert m["matches_per_s"] == pytest.approx(300 / (m["wall_seconds"] - m["compile_seconds"]), rel=0.01)
    wall = next(line for line in (out / "report.md").read_text().splitlines() if "**Wall time:**" in line)
    assert "the luck's fit on 20 reserved matches in the time" in wall and "compiled the engine's code" in wall
