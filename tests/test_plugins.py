"""Plugging strategies in: module:Class, file.py:Class, entry points; the errors; the README example."""

from __future__ import annotations

import ast
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.game.rules import make_rules
from nines_sim.runs.simulate import simulate
from nines_sim.strategy.base import Strategy
from nines_sim.strategy.registry import ENTRY_POINT_GROUP, StrategyNotFound, available, load_class, make_lineup

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]

GOOD = textwrap.dedent(
    '''
    import numpy as np
    from nines_sim.strategy.choice import pick_card
    from nines_sim.strategy.base import Strategy

    class Cheapest(Strategy):
        """Plays a random legal card."""
        name = "cheapest"
        classifier = {"stochastic": True, "uses_public_history": False, "plays_pair_of_nines": False}

        def play(self, obs):
            return pick_card([w & obs.legal for w in obs.hand], obs.random())

        def declare(self, obs):
            return np.zeros(obs.n, dtype=np.int64)

    class NotAStrategy:
        pass
    '''
)


def tournament(*args: str, out: Path):
    return runner.invoke(app, ["tournament", *args, "-n", "60", "--out", str(out), "--quiet", "--no-charts",
                               "--workers", "1"])  # fmt: skip


def test_file_spec_plugs_in(tmp_path):
    f = tmp_path / "mine.py"
    f.write_text(GOOD)
    r = tournament(f"{f}:Cheapest", "random", out=tmp_path / "o")
    assert r.exit_code == 0, r.output
    assert pd.read_csv(tmp_path / "o" / "summary.csv")["strategy"].tolist() == ["cheapest", "random"]


# A per-game plug-in that refuses to decide in a position no live game can reach: another seat
# of the hand already holds no card, so the hand is over (O1).  (Two players: both are in every hand.)
STRICT = textwrap.dedent(
    """
    from nines_sim.strategy.per_game import PerGameStrategy

    class Strict(PerGameStrategy):
        name = "strict"
        classifier = {"stochastic": False, "uses_public_history": False, "plays_pair_of_nines": False}

        def _check(self, view):
            if any(n == 0 for s, n in enumerate(view.hand_sizes) if s != view.seat):
                raise RuntimeError(f"impossible position: hand sizes {view.hand_sizes}")

        def choose_card(self, view):
            self._check(view)
            return view.legal[0]

        def choose_suit(self, view):
            self._check(view)
            return "S"
    """
)


def test_no_decision_in_a_finished_match_issue_case(tmp_path):
    """Issue 10: once the match range runs out, finished slots are not played; the run does not depend on the batch."""
    f = tmp_path / "strict.py"
    f.write_text(STRICT)
    args = ["tournament", f"{f}:Strict", "random", "-p", "2", "-n", "200", "--seed", "3", "--batch-size", "200"]
    r = runner.invoke(app, [*args, "--out", str(tmp_path / "o"), "--quiet", "--no-charts", "--workers", "1"])
    assert r.exit_code == 0, r.output
    rules = make_rules("classic", players=2)
    strict = load_class(f"{f}:Strict")
    whole = simulate(rules, [strict(), "random"], 200, seed=3, batch_size=200)
    alone = simulate(rules, [strict(), "random"], 12, seed=3, batch_size=1)
    assert np.array_equal(whole.totals[:12], alone.totals)
    assert np.array_equal(whole.win_share[:12], alone.win_share)


def test_module_spec_plugs_in(tmp_path, monkeypatch):
    (tmp_path / "my_nines_mod.py").write_text(GOOD)
    monkeypatch.syspath_prepend(str(tmp_path))
    r = tournament("my_nines_mod:Cheapest", "random", out=tmp_path / "o")
    assert r.exit_code == 0, r.output
    assert load_class("my_nines_mod:Cheapest").name == "cheapest"


def test_entry_point_plugin_is_found_by_name_and_listed(tmp_path, monkeypatch):
    (tmp_path / "nines_plugin_pkg.py").write_text(GOOD)
    dist = tmp_path / "nines_plugin_pkg-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: nines-plugin-pkg\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\ncheapest = nines_plugin_pkg:Cheapest\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    names = {n: src for n, _, src in available()}
    assert names["cheapest"] == "plugin nines_plugin_pkg:Cheapest from nines-plugin-pkg"
    r = runner.invoke(app, ["strategies"])
    assert r.exit_code == 0 and "cheapest" in r.output and "plugin nines_plugin_pkg:Cheapest" in r.output
    r = tournament("cheapest", "random", out=tmp_path / "o")
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize(
    "spec,message",
    [
        ("{dir}/missing.py:Cheapest", "no such file"),
        ("{dir}/notes.txt:Cheapest", "is not a Python file: name a .py file"),
        ("{dir}/pkg.py:Cheapest", "pkg.py is a folder, not a .py file"),
        ("{dir}/broken.py:Cheapest", "does not import: SyntaxError"),
        ("{dir}/mine.py:Nope", "has no class 'Nope'"),
        ("{dir}/mine.py:NotAStrategy", "is not a Strategy subclass"),
        ("no_such_module_xyz:Thing", "module 'no_such_module_xyz' does not import"),
        ("nosuch", "unknown strategy 'nosuch'; available: "),
        ("{dir}/clash.py:Impostor", "two strategies are named 'random'"),
        # an __init__ that raises is told what it raised, where; one that wants arguments, to give defaults
        ("{dir}/init.py:Cheapest", "raised ValueError in its __init__: no config here (at {dir}/init.py, line 12, "),
        ("{dir}/needs.py:Cheapest", "without arguments (missing a required argument: 'depth'); give its __init__"),
        ("expert@{dir}/pkg.py", "{dir}/pkg.py is a folder, not a parameter file (in expert@{dir}/pkg.py)"),
        (
            "expert@{dir}/tuned",
            "is a folder, not a parameter file (in expert@{dir}/tuned); name the file in it: "
            "expert@{dir}/tuned/best.json",
        ),  # a tuning's run folder: its best.json is the file meant
    ],
)
def test_plugin_errors_are_one_line_usage_errors(tmp_path, spec, message):
    (tmp_path / "mine.py").write_text(GOOD)
    init = '    def __init__(self):\n        raise ValueError("no config here")\n\n    def play(self, obs):\n'
    (tmp_path / "init.py").write_text(GOOD.replace("    def play(self, obs):\n", init, 1))
    needs = "    def __init__(self, depth):\n        self.depth = depth\n\n    def play(self, obs):\n"
    (tmp_path / "needs.py").write_text(GOOD.replace("    def play(self, obs):\n", needs, 1))
    (tmp_path / "tuned").mkdir()
    (tmp_path / "tuned" / "best.json").write_text('{"strategy": "expert", "params": {}}')
    (tmp_path / "broken.py").write_text("def oops(:\n")
    (tmp_path / "notes.txt").write_text(GOOD)  # Python inside, but not a file Python imports
    (tmp_path / "pkg.py").mkdir()
    (tmp_path / "clash.py").write_text(
        GOOD.replace('name = "cheapest"', 'name = "random"').replace("Cheapest", "Impostor")
    )
    r = tournament(spec.format(dir=tmp_path), "random", out=tmp_path / "o")
    assert r.exit_code == 2, r.output
    assert message.format(dir=tmp_path) in r.output, r.output
    assert "Traceback" not in r.output and len(r.output.strip().splitlines()) == 1


def test_one_registry_lists_every_strategy_class_in_strategies():
    from nines_sim.search.player import SampledSearch
    from nines_sim.strategy.per_game_compiled import CompiledStrategy

    found = set()
    for path in (ROOT / "strategies").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            # a subclass of a strategy defined before it in the file counts too (clairvoyant of lookahead), and
            # of the library's base classes for strategies (the search players' SampledSearch, learned's
            # CompiledStrategy)
            bases = {"Strategy", SampledSearch.__name__, CompiledStrategy.__name__, *found}
            if isinstance(node, ast.ClassDef) and any(getattr(b, "id", "") in bases for b in node.bases):
                found.add(node.name)
    listed = {c.__name__ for _, c, src in available() if src == "built-in"}
    assert found and found == listed
    assert {"random", "hold-nines", "dump-faces", "suit-majority", "expert"} <= {n for n, _, _ in available()}


def test_readme_strategy_example_runs_as_written(tmp_path):
    text = (ROOT / "README.md").read_text()
    section = text.split("## Writing a strategy", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    namespace: dict = {}
    exec(compile(code, "README example", "exec"), namespace)  # the user's path: paste and run
    cls = next(v for v in namespace.values() if isinstance(v, type) and issubclass(v, Strategy) and v is not Strategy)
    res = simulate(make_rules("classic"), [cls(), *make_lineup(["random"] * 3)], 200, seed=1)
    assert res.n_matches == 200 and np.allclose(res.win_share.sum(axis=1), 1)


def test_readme_per_game_example_runs_as_written():
    text = (ROOT / "docs" / "tutorials" / "first-strategy.md").read_text()  # the README's tutorial, moved
    section = text.split("## In plain Python, one game at a time", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    namespace: dict = {}
    exec(compile(code, "README per-game example", "exec"), namespace)
    cls = next(v for k, v in namespace.items() if isinstance(v, type) and k not in ("PerGameStrategy", "GameView")
               and issubclass(v, Strategy))  # fmt: skip
    res = simulate(make_rules("classic"), [cls(), *make_lineup(["random"] * 3)], 40, seed=2)
    assert res.n_matches == 40


def test_a_loaded_file_strategy_is_importable_in_worker_processes(tmp_path):
    f = tmp_path / "mine.py"
    f.write_text(GOOD)
    r = runner.invoke(app, ["tournament", f"{f}:Cheapest", "random", "-n", "400", "--out", str(tmp_path / "o"),
                            "--quiet", "--no-charts", "--workers", "2"])  # fmt: skip
    assert r.exit_code == 0, r.output


def test_unknown_name_lists_what_is_available():
    with pytest.raises(StrategyNotFound, match="hold-nines"):
        load_class("holdnines")


assert sys.version_info >= (3, 11)


def test_a_strategy_that_raises_is_named_with_its_file_and_line_and_replay_shows_the_position(tmp_path):
    import shlex

    f = tmp_path / "late.py"
    late = GOOD.replace(
        "    def play(self, obs):\n",
        "    def play(self, obs):\n        if (obs.totals.sum(axis=1) > 120).any():  # only in some games, late\n"
        "            raise RuntimeError('too far behind')\n",
    )
    assert late != GOOD
    f.write_text(late)
    raise_line = late.splitlines().index("            raise RuntimeError('too far behind')") + 1
    args = [f"{f}:Cheapest", "random", "random", "-n", "300", "--rules", "hard-nines", "--rule", "target=150"]
    r = runner.invoke(app, ["tournament", *args, "--out", str(tmp_path / "o"), "--quiet", "--workers", "1"])
    assert r.exit_code == 1, r.output
    assert "raised RuntimeError: too far behind" in r.output and "Traceback" not in r.output
    assert f"(at {f}, line {raise_line}, in play)" in r.output
    hint = r.output.split("see the position and the traceback with: ", 1)[1].strip()
    args = shlex.split(hint)
    assert args[:2] == ["nines", "replay"] and "--rule" in args and "target=150" in args
    match = args[args.index("--match") + 1]
    again = runner.invoke(app, args[1:])
    assert again.exit_code == 1, again.output
    out = again.output
    # the play up to the failing decision, then the position and the user's traceback, then the error
    assert "== hand 1:" in out and "-- hand over:" in out
    position = out.split(f"seat 0 ({f}:Cheapest) to play: this decision fails", 1)[1]
    hand = re.search(r"hand: (.+)", position).group(1).split()
    legal = re.search(r"legal cards: (.+)", position).group(1).split()
    assert legal and set(legal) <= set(hand)
    assert re.search(r"top card \w+, active suit [CDHS]", position)
    assert f'File "{f}", line {raise_line}, in play' in position and "RuntimeError: too far behind" in position
    assert "engine.py" not in position  # only the user's frames
    assert f"in match {match} " in out.strip().splitlines()[-1] and "nines replay" not in out


def test_a_strategy_returning_an_illegal_card_replays_to_the_position(tmp_path):
    f = tmp_path / "bad.py"
    f.write_text(GOOD.replace("return pick_card(", "return 0 * pick_card("))  # always the ace of clubs
    r = tournament(f"{f}:Cheapest", "random", out=tmp_path / "o")
    assert r.exit_code == 1 and "not a legal play" in r.output, r.output
    hint = r.output.split("with: ", 1)[1].strip()
    again = runner.invoke(app, shlex.split(hint)[1:])
    assert again.exit_code == 1
    legal = re.search(r"legal cards: (.+)", again.output).group(1).split()
    assert "AC" not in legal and "Traceback" not in again.output


def test_python_api_hint_names_the_strategy_as_the_cli_finds_it(tmp_path):
    from nines_sim.engine.broker import StrategyError

    f = tmp_path / "late.py"
    f.write_text(
        GOOD.replace("        return pick_card(", "        raise ValueError('oops')\n        return pick_card(", 1)
    )
    cls = load_class(f"{f}:Cheapest")
    with pytest.raises(StrategyError) as info:
        simulate(make_rules("classic", players=2), [cls(), "random"], 5, seed=3)
    cmd = shlex.split(str(info.value).split("with: ", 1)[1])
    assert cmd[2:4] == [f"{f}:Cheapest", "random"], cmd  # the file spec, not the class's name 'cheapest'


def test_a_strategy_returning_none_is_reported_as_returning_nothing(tmp_path):
    f = tmp_path / "none.py"
    f.write_text(GOOD.replace("return pick_card([w & obs.legal for w in obs.hand], obs.random())", "pass"))
    r = tournament(f"{f}:Cheapest", "random", out=tmp_path / "o")
    assert r.exit_code == 1, r.output
    assert "strategy 'cheapest' returned nothing (None" in r.output and "shape ()" not in r.output


def test_a_per_game_strategy_answer_outside_the_legal_cards_is_named(tmp_path):
    f = tmp_path / "pg.py"
    f.write_text(
        "from nines_sim.strategy.per_game import PerGameStrategy\n"
        "class Stubborn(PerGameStrategy):\n    name = 'stubborn'\n"
        "    def choose_card(self, view):\n        return 'XX' if 'KS' not in view.legal else 'KS'\n"
        "    def choose_suit(self, view):\n        return 'C'\n"
    )
    r = runner.invoke(app, ["tournament", f"{f}:Stubborn", "random", "-n", "20", "--out", str(tmp_path / "o"),
                            "--quiet", "--workers", "1"])  # fmt: skip
    assert r.exit_code == 1
    assert "choose_card returned 'XX', not one of the legal cards" in r.output and "nines replay" in r.output


def install_distribution(root: Path, dist: str, entries: dict[str, str], modules: dict[str, str]) -> None:
    """A real installed distribution under ``root`` (add ``root`` to sys.path): modules, METADATA, entry points."""
    for name, code in modules.items():
        (root / f"{name}.py").write_text(code)
    info = root / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    lines = "".join(f"{k} = {v}\n" for k, v in entries.items())
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{lines}")


@pytest.fixture
def broken_plugin(tmp_path, monkeypatch):
    """One working plug-in ('cheapest') and, in another distribution, one whose module does not import."""
    install_distribution(tmp_path, "nines-good-pkg", {"cheapest": "good_nines_mod:Cheapest"}, {"good_nines_mod": GOOD})
    install_distribution(tmp_path, "nines-broken-pkg", {"shaky": "broken_nines_mod:Shaky"},
                         {"broken_nines_mod": "import no_such_dependency_xyz\n"})  # fmt: skip
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr("nines_sim.strategy.registry._warned", set())  # the warning comes once per process
    return tmp_path


def test_a_broken_plugin_not_asked_for_is_skipped_with_one_warning_naming_its_distribution(broken_plugin):
    r = tournament("cheapest", "random", out=broken_plugin / "o")
    assert r.exit_code == 0, r.output
    warnings = [line for line in r.output.splitlines() if line.startswith("Warning:")]
    assert len(warnings) == 1, r.output
    assert (
        "'shaky' (broken_nines_mod:Shaky)" in warnings[0] and "No module named 'no_such_dependency_xyz'" in warnings[0]
    )
    assert warnings[0].endswith("pip uninstall nines-broken-pkg")
    assert pd.read_csv(broken_plugin / "o" / "summary.csv")["strategy"].tolist() == ["cheapest", "random"]


def test_built_in_lineups_run_whatever_plugins_are_broken(broken_plugin):
    r = tournament("random", "dump-faces", out=broken_plugin / "o")
    assert r.exit_code == 0, r.output


def test_strategies_lists_a_broken_plugin_with_the_reason(broken_plugin):
    r = runner.invoke(app, ["strategies"])
    assert r.exit_code == 0, r.output
    line = next(x for x in r.output.splitlines() if x.startswith("shaky"))
    assert "BROKEN plugin broken_nines_mod:Shaky from nines-broken-pkg" in line
    assert "ModuleNotFoundError: No module named 'no_such_dependency_xyz'" in r.output
    assert "pip uninstall nines-broken-pkg" in r.output
    assert re.search(r"^cheapest\s+\[plugin good_nines_mod:Cheapest from nines-good-pkg\]", r.output, re.M)


def test_asking_for_a_broken_plugin_by_name_is_a_usage_error(broken_plugin):
    r = tournament("shaky", "random", out=broken_plugin / "o")
    assert r.exit_code == 2, r.output
    errors = [line for line in r.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "the plug-in 'shaky' (broken_nines_mod:Shaky) cannot be used" in errors[0]
    assert "pip uninstall nines-broken-pkg" in errors[0] and "Traceback" not in r.output


def test_a_plugin_named_like_a_built_in_is_skipped_and_the_built_in_kept(tmp_path, monkeypatch):
    install_distribution(tmp_path, "nines-clash-pkg", {"random": "clash_nines_mod:Cheapest"},
                         {"clash_nines_mod": GOOD})  # fmt: skip
    monkeypatch.syspath_prepend(str(tmp_path))
    r = runner.invoke(app, ["strategies"])
    assert r.exit_code == 0, r.output
    assert "its name clashes with the built-in 'random'" in r.output and "pip uninstall nines-clash-pkg" in r.output
    assert load_class("random").__module__.startswith("nines_sim.strategies.")


def test_the_entry_point_name_is_the_strategy_name(tmp_path, monkeypatch):
    install_distribution(
        tmp_path,
        "alias-pkg",
        {"alias-ep": "alias_nines_mod:Alias"},
        {"alias_nines_mod": GOOD.replace("Cheapest", "Alias").replace('"cheapest"', '"alias-real"')},
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    r = tournament("alias-ep", "random", out=tmp_path / "o")
    assert r.exit_code == 0, r.output
    assert pd.read_csv(tmp_path / "o" / "summary.csv")["strategy"].tolist() == ["alias-ep", "random"]
    assert "alias-ep random" in __import__("json").loads((tmp_path / "o" / "manifest.json").read_text())["command"]
    listed = runner.invoke(app, ["strategies"]).output
    assert re.search(r"^alias-ep\s+\[plugin alias_nines_mod:Alias from alias-pkg; its class calls itself 'alias-real'",
                     listed, re.M), listed  # fmt: skip
    r = tournament("alias-real", "random", out=tmp_path / "o2")
    assert r.exit_code == 2 and "unknown strategy 'alias-real'" in r.output and "alias-ep" in r.output


def test_a_module_spec_is_found_in_the_current_folder_as_python_m_does(tmp_path):
    (tmp_path / "my_cwd_strategy.py").write_text(GOOD)
    nines = Path(sys.executable).with_name("nines")
    args = ["tournament", "my_cwd_strategy:Cheapest", "random", "-n", "40", "--out", "o", "--quiet", "--no-charts"]
    r = subprocess.run([str(nines), *args, "--workers", "1"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert pd.read_csv(tmp_path / "o" / "summary.csv")["strategy"].tolist() == ["cheapest", "random"]


def test_a_file_without_a_class_name_lists_the_strategy_classes_in_it(tmp_path):
    f = tmp_path / "shape.py"
    f.write_text(GOOD + GOOD.replace("Cheapest", "Priciest").replace('"cheapest"', '"priciest"'))
    r = tournament(str(f), "random", out=tmp_path / "o")
    assert r.exit_code == 2, r.output
    assert r.output.strip() == (
        f"Error: a strategy file needs a class name, as in {f}:ClassName; it defines Cheapest, Priciest"
    )


def test_a_file_without_a_class_name_is_refused_before_anything_in_it_runs(tmp_path):
    """The file is read for its classes, not imported: a script's top level (it played a tournament of its own
    and wrote a run folder) ran before the error was said."""
    marker = tmp_path / "ran"
    f = tmp_path / "script.py"
    f.write_text(f"from pathlib import Path\nPath({str(marker)!r}).write_text('ran')\n" + GOOD)
    r = tournament(str(f), "random", out=tmp_path / "o")
    assert r.exit_code == 2, r.output
    assert r.output.strip() == f"Error: a strategy file needs a class name, as in {f}:ClassName; it defines Cheapest"
    assert not marker.exists() and not (tmp_path / "o").exists()


@pytest.mark.parametrize("spec", ["notes.txt", "notes.txt:Cheapest", "mine.py"])
def test_a_file_named_without_a_slash_is_a_file_as_with_one(spec, tmp_path, monkeypatch):
    """``README.md`` said 'unknown strategy' where ``./README.md`` said 'is not a Python file'."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("notes")
    (tmp_path / "mine.py").write_text(GOOD)
    plain, slashed = (tournament(s, "random", out=tmp_path / "o").output for s in (spec, f"./{spec}"))
    assert plain == slashed.replace("./", ""), plain
    assert "unknown strategy" not in plain and plain.count("\n") == 1, plain


def test_a_file_strategy_clashing_with_a_built_in_is_named_by_its_path(tmp_path):
    (tmp_path / "clash.py").write_text(
        GOOD.replace('name = "cheapest"', 'name = "random"').replace("Cheapest", "Impostor")
    )
    r = tournament(f"{tmp_path}/clash.py:Impostor", "random", out=tmp_path / "o")
    assert r.exit_code == 2, r.output
    assert f"two strategies are named 'random' ({tmp_path}/clash.py:Impostor and the built-in 'random')" in r.output
    assert "nines_user_" not in r.output
