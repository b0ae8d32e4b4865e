"""Every option a run was given is in its manifest's ``command`` (and, stopped, its ``kept_command``): the command
that reproduces the run reproduces all of it.  ``nines review --luck`` and ``nines tournament --save-matches``
were left out (a user's probe).  Generic over each command's options: an option is either given below, with a
value other than its default, and looked for in the command, or named in :data:`HOW_IT_RUNS` (it changes how
the run goes, not what it plays or writes); an option added to a command and in neither fails the coverage test.
"""

from __future__ import annotations

import json
import shlex

import click
import pytest
from typer.main import get_command
from typer.testing import CliRunner

from nines_sim.cli import app

#: Options that change how a run goes (processes, batches, screen, folder, charts), never its results.
#: (``learned_digests`` checks: the command names the digests of the learned files played, given or not.)
HOW_IT_RUNS = {"workers", "batch_size", "chunk_size", "scheduler", "quiet", "force", "out", "no_charts",
               "learned_digests"}  # fmt: skip

#: Each command's runs: the arguments (tiny runs), and, per option given, what the command must then hold
#: (words in a row; by default the option's flag and the value given).
RUNS = {
    "tournament": [
        ("expert random -p 2 -n 40 --seed 2 --rules hard-nines --rule target=50 --format table --save-matches "
         "--design 10 --skilled dump-faces --weak hold-nines --luck --luck-fit 50",
         {"strategies": ["expert", "random"]}),
        ("expert random hold-nines -p 2 --format league --tables 3 -n 10 --ranges 2:8",
         {"strategies": ["expert", "random", "hold-nines"]}),
        ("expert random --format field --baseline dump-faces -p 3 -n 10", {"strategies": ["expert", "random"]}),
    ],
    "compare-rules": [
        ("expert random -p 2 --sweep nine_penalty=10,20 --rule target=50 -n 40 --seed 2 --design 10 "
         "--skilled dump-faces --weak hold-nines --luck --luck-fit 50", {"strategies": ["expert", "random"]}),
        ("expert random --rules classic --rules hard-nines -n 10 --ranges 2:8",
         {"strategies": ["expert", "random"], "rules": ["--rules", "classic", "--rules", "hard-nines"]}),
    ],
    "train": [
        ("--rules hard-nines -p 3 --rule target=50 --seed 2 --rounds 1 -n 2 --samples 2 --epsilon 0.2 --keep 1 "
         "--hidden 4 --pairs 3 --eval-matches 4", {}),
        ("--seed 2 --rounds 1 -n 6 --samples 2 --pairs 2 --targets mixed --eval-matches 4", {}),
        ("--seed 2 --rounds 1 -n 6 --samples 2 --pairs 2 --trees 2 --depth 2 --draws log --eval-matches 4", {}),
    ],
    "review": [
        ("dump-faces --against random -p 3 -n 2 --seed 1 --samples 2 --policy random --rules hard-nines "
         "--rule target=50 --ranges 1:2 --luck",
         {"target": ["dump-faces"], "players": ["--against", "random", "--against", "random"]}),
    ],
}  # fmt: skip
#: Parameters of a command that are no option (review's context, None when called from Python).
NOT_GIVEN = {"review": {"ctx"}}


def _flag(param: click.Parameter) -> str:
    return next((o for o in param.opts if o.startswith("--")), param.opts[0])


def _given(command: click.Command, args: list[str]) -> set[str]:
    """The parameters ``args`` give (by name), as click reads them."""
    ctx = command.make_context(command.name, list(args), resilient_parsing=True)
    return {p.name for p in command.params if ctx.get_parameter_source(p.name).name == "COMMANDLINE"}


def _command(name: str) -> click.Command:
    return get_command(app).commands[name]  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", RUNS)
def test_every_option_is_either_given_below_or_one_of_how_a_run_goes(name):
    command = _command(name)
    covered = set().union(*(_given(command, args.split()) for args, _ in RUNS[name]))
    left = {p.name for p in command.params} - covered - HOW_IT_RUNS - NOT_GIVEN.get(name, set())
    assert not left, f"{name}: give {sorted(left)} in RUNS (with what the command holds) or list it in HOW_IT_RUNS"


def _has(command: click.Command, name: str) -> bool:
    return any(p.name == name for p in command.params)


def _holds(words: list[str], part: list[str]) -> bool:
    return any(words[i : i + len(part)] == part for i in range(len(words) - len(part) + 1))


@pytest.mark.parametrize("name, case", [(n, i) for n in RUNS for i in range(len(RUNS[n]))])
def test_the_manifest_command_holds_every_option_given(name, case, tmp_path):
    args, expected = RUNS[name][case][0].split(), RUNS[name][case][1]
    command = _command(name)
    # one worker: the commands' own default (one process per core) started worker processes for these tiny runs
    # (two forked workers per training run), which the manifest's command does not depend on
    how_words = (("quiet", ["-q"]), ("no_charts", ["--no-charts"]), ("workers", ["--workers", "1"]))
    how = [word for param, words in how_words if _has(command, param) for word in words]
    folder = tmp_path / "a run"  # a space: the command's words are shell words
    res = CliRunner().invoke(app, [name, *args, "--out", str(folder), *how])
    assert res.exit_code == 0, res.output
    words = shlex.split(json.loads((folder / "manifest.json").read_text())["command"])
    assert "--out" not in words or words[words.index("--out") + 1] == str(folder)
    ctx = command.make_context(name, list(args), resilient_parsing=True)
    for param in command.params:
        if param.name not in _given(command, args):
            continue
        value = ctx.params[param.name]
        if param.name in expected:
            parts = [expected[param.name]]
        elif getattr(param, "is_flag", False):
            parts = [[_flag(param)]]
        else:
            values = value if isinstance(value, (list, tuple)) else [value]
            parts = [[_flag(param), str(getattr(v, "value", v))] for v in values]
        for part in parts:
            assert _holds(words, part), (
                f"{name}: {shlex.join(part)} is not in the manifest's command {shlex.join(words)}"
            )
