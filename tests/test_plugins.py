"""Plugging strategies in: module:Class, file.py:Class, entry points; the errors; the README example."""

from __future__ import annotations

import ast
import re
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.registry import ENTRY_POINT_GROUP, StrategyNotFound, available, load_class, make_lineup
from nines_sim.rules import make_rules
from nines_sim.simulate import simulate
from nines_sim.strategy import Strategy

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]

GOOD = textwrap.dedent(
    '''
    import numpy as np
    from nines_sim.choice import pick_card
    from nines_sim.strategy import Strategy

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
    assert names["cheapest"] == "plugin nines_plugin_pkg:Cheapest"
    r = runner.invoke(app, ["strategies"])
    assert r.exit_code == 0 and "cheapest" in r.output and "plugin nines_plugin_pkg:Cheapest" in r.output
    r = tournament("cheapest", "random", out=tmp_path / "o")
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize(
    "spec,message",
    [
        ("{dir}/missing.py:Cheapest", "no such file"),
        ("{dir}/broken.py:Cheapest", "does not import: SyntaxError"),
        ("{dir}/mine.py:Nope", "has no class 'Nope'"),
        ("{dir}/mine.py:NotAStrategy", "is not a Strategy subclass"),
        ("no_such_module_xyz:Thing", "module 'no_such_module_xyz' does not import"),
        ("nosuch", "unknown strategy 'nosuch'; available: "),
        ("{dir}/clash.py:Impostor", "two strategies are named 'random'"),
    ],
)
def test_plugin_errors_are_one_line_usage_errors(tmp_path, spec, message):
    (tmp_path / "mine.py").write_text(GOOD)
    (tmp_path / "broken.py").write_text("def oops(:\n")
    (tmp_path / "clash.py").write_text(
        GOOD.replace('name = "cheapest"', 'name = "random"').replace("Cheapest", "Impostor")
    )
    r = tournament(spec.format(dir=tmp_path), "random", out=tmp_path / "o")
    assert r.exit_code == 2, r.output
    assert message in r.output
    assert "Traceback" not in r.output and len(r.output.strip().splitlines()) == 1


def test_one_registry_lists_every_strategy_class_in_strategies():
    found = set()
    for path in (ROOT / "strategies").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            # a subclass of a strategy defined before it in the file counts too (clairvoyant of lookahead)
            bases = {"Strategy", *found}
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
    text = (ROOT / "README.md").read_text()
    section = text.split("### In plain Python, one game at a time", 1)[1]
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


def test_the_replay_command_in_a_strategy_error_reproduces_it(tmp_path):
    import shlex

    f = tmp_path / "late.py"
    late = GOOD.replace(
        "    def play(self, obs):\n",
        "    def play(self, obs):\n        if (obs.totals.sum(axis=1) > 120).any():  # only in some games, late\n"
        "            raise RuntimeError('too far behind')\n",
    )
    assert late != GOOD
    f.write_text(late)
    args = [f"{f}:Cheapest", "random", "random", "-n", "300", "--rules", "hard-nines", "--rule", "target=150"]
    r = runner.invoke(app, ["tournament", *args, "--out", str(tmp_path / "o"), "--quiet", "--workers", "1"])
    assert r.exit_code == 1, r.output
    assert "raised RuntimeError: too far behind" in r.output and "Traceback" not in r.output
    hint = r.output.split("replay it with: ", 1)[1].strip()
    args = shlex.split(hint)
    assert args[:2] == ["nines", "replay"] and "--rule" in args and "target=150" in args
    again = runner.invoke(app, args[1:])
    assert again.exit_code == 1 and "too far behind" in again.output
    assert f"in match {args[args.index('--match') + 1]} " in again.output


def test_a_per_game_strategy_answer_outside_the_legal_cards_is_named(tmp_path):
    f = tmp_path / "pg.py"
    f.write_text(
        "from nines_sim.pergame import PerGameStrategy\n"
        "class Stubborn(PerGameStrategy):\n    name = 'stubborn'\n"
        "    def choose_card(self, view):\n        return 'XX' if 'KS' not in view.legal else 'KS'\n"
        "    def choose_suit(self, view):\n        return 'C'\n"
    )
    r = runner.invoke(app, ["tournament", f"{f}:Stubborn", "random", "-n", "20", "--out", str(tmp_path / "o"),
                            "--quiet", "--workers", "1"])  # fmt: skip
    assert r.exit_code == 1
    assert "choose_card returned 'XX', not one of the legal cards" in r.output and "nines replay" in r.output
