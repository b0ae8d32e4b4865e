"""A user's strategy failing in play is said the same way by every command (issue 38): one ``Error:`` line naming
the strategy, the seed and the match to replay (or the position analysed), exit code 1, no traceback."""

from __future__ import annotations

import shlex
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nines_sim.cli import app

runner = CliRunner()

PLUGINS = textwrap.dedent(
    """
    import numpy as np
    from nines_sim.strategy.base import Strategy

    class Illegal(Strategy):
        '''Plays a card it does not hold (face 60 is no card): an illegal move (T1, T2).'''
        name = "illegal"
        classifier = {"stochastic": False, "uses_public_history": False, "plays_pair_of_nines": False}

        def play(self, obs):
            return np.full(obs.n, 60, dtype=np.int64)

        def declare(self, obs):
            return np.zeros(obs.n, dtype=np.int64)

    class Raises(Strategy):
        '''Raises at every decision.'''
        name = "raises"
        classifier = {"stochastic": False, "uses_public_history": False, "plays_pair_of_nines": False}

        def play(self, obs):
            raise RuntimeError("boom")

        def declare(self, obs):
            raise RuntimeError("boom")

    class Exits(Raises):
        '''Calls sys.exit at every decision, as a script might (it ended every command silently, exit code 3).'''
        name = "exits"

        def play(self, obs):
            import sys
            sys.exit(3)

        declare = play
    """
)

#: What each strategy's failure says, whatever the command.
SAYS = {
    "Illegal": "strategy 'illegal' returned a card that is not a legal play",
    "Raises": "strategy 'raises' raised RuntimeError: boom",
    "Exits": "strategy 'exits' raised SystemExit: 3",
}


#: Every command that plays a user's strategy, with SPEC in its lineup, sized to fail at once (OUT: a run folder).
COMMANDS = {
    "tournament": "tournament SPEC random -n 20 -w 1 --quiet --no-charts --out OUT",
    "league": "tournament SPEC random expert --format league -p 2 -n 20 -w 1 --quiet --no-charts --out OUT",
    "compare-rules": "compare-rules SPEC random --rules classic --rules hard-nines -n 20 -w 1 --quiet --out OUT",
    "review": "review SPEC --matches 2 --samples 2 -w 1 --no-charts --out OUT",
    "analyze-match": "analyze SPEC random --seed 0 --match 0 --hand 1 --turn 1 --samples 2",
    "analyze-cards": "analyze SPEC --cards '5D 6D KS' --top 7D --sizes 5 --samples 2",
    "tune": "tune expert --opponents SPEC --params w_penalty --trials 1 -n 20 --validate 0 -w 1 --quiet --out OUT",
    "tune-rules": "tune-rules --skilled SPEC --space nine_penalty=0..60 --maximize skill --trials 1 -n 20 "
    "--validate 0 -w 1 --quiet --out OUT",
}


@pytest.fixture(scope="module")
def plugin_file(tmp_path_factory) -> Path:
    f = tmp_path_factory.mktemp("plugins") / "bad.py"
    f.write_text(PLUGINS)
    return f


@pytest.mark.parametrize("cls", list(SAYS))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_says_a_failing_strategy_in_one_line_with_the_match_to_replay(
    plugin_file, tmp_path, command, cls
):
    spec = f"{plugin_file}:{cls}"
    args = [{"SPEC": spec, "OUT": str(tmp_path / "run")}.get(a, a) for a in shlex.split(COMMANDS[command])]
    r = runner.invoke(app, args)
    assert r.exit_code == 1, r.output
    assert "Traceback" not in r.output and isinstance(r.exception, SystemExit), r.output  # an exit, not a crash
    errors = [line for line in r.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, r.output
    line = errors[0]
    assert line.startswith(f"Error: {SAYS[cls]}"), line
    if command == "analyze-cards":  # a described position is in no run: the line says where it failed instead
        assert line.endswith("at the position analysed"), line
        return
    assert " in match " in line and " of seed " in line
    replay = shlex.split(line.split("see the position and the traceback with: ", 1)[1])
    assert replay[:2] == ["nines", "replay"] and spec in replay and "--match" in replay and "--seed" in replay
    again = runner.invoke(app, replay[1:])  # the replay shows the same failure, at its position
    assert again.exit_code == 1 and "this decision fails" in again.output, again.output


def test_a_plug_in_that_exits_as_it_is_imported_is_one_line(tmp_path):
    """Before: a sys.exit() at the top of a plug-in's file ended the command silently with its code."""
    f = tmp_path / "script.py"
    f.write_text("import sys\nsys.exit('run me as a script')\n")
    r = runner.invoke(app, ["tournament", f"{f}:Mine", "random", "-n", "2"])
    assert r.exit_code == 2 and r.output.strip().splitlines() == [
        f"Error: {f} does not import: SystemExit: run me as a script"
    ], r.output


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_nines_play_says_a_failing_strategy_in_one_line_once_the_person_quits(plugin_file, tmp_path):
    """The match stops on screen; q then ends the command with the same line and exit code 1 (it was 0)."""
    pexpect = pytest.importorskip("pexpect")
    from nines_sim.game.rules import make_rules
    from nines_sim.play import SavedMatch
    from nines_sim.play.driver import run_match

    spec = f"{plugin_file}:Raises"
    for seed in range(100):  # a seed where the strategy decides before the person: it fails at once
        m = SavedMatch(make_rules("classic", players=2, fixed_hands=1), seed, 1, [spec, "you"])
        try:
            run_match(m)
        except Exception:  # noqa: BLE001 - the strategy's failure, before any question to the person
            break
    cmd = [sys.executable, "-m", "nines_sim", "play", spec, "--players", "2", "--seat", "1", "--seed", str(seed),
           "--hands", "1", "--save", str(tmp_path / "m.json")]  # fmt: skip
    child = pexpect.spawn(cmd[0], cmd[1:], dimensions=(40, 110), env={"TERM": "xterm-256color", "PATH": ""},
                          encoding="utf-8", timeout=120)  # fmt: skip
    try:
        child.expect("The match stopped")
        child.send("q")
        child.expect("Error: strategy 'raises' raised RuntimeError: boom")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 1 and child.signalstatus is None


COMPILED = textwrap.dedent(
    """
    from nines_sim.strategy.per_game_compiled import PLAY, CompiledStrategy


    def decide(kind, g, hand, hand_sizes, totals, drew_on):
        if kind == PLAY:
            return "a card"
        return 0


    class Stringy(CompiledStrategy):
        name = "stringy"
        classifier = {"stochastic": False, "uses_public_history": False, "plays_pair_of_nines": False}
        decide = decide
    """
)


@pytest.mark.parametrize("command", ["tournament", "review", "analyze-match"])
def test_a_compiled_strategy_that_does_not_type_is_one_line_with_its_file_line_and_numbas_words(tmp_path, command):
    """numba's TypingError was a 377-line traceback; now the strategy, where numba points, and what it says."""
    f = tmp_path / "stringy.py"
    f.write_text(COMPILED)
    line = COMPILED.splitlines().index('        return "a card"') + 1  # numbered from 1
    args = [{"SPEC": f"{f}:Stringy", "OUT": str(tmp_path / "run")}.get(a, a) for a in shlex.split(COMMANDS[command])]
    r = runner.invoke(app, args)
    assert r.exit_code == 1, r.output
    assert isinstance(r.exception, SystemExit) and "Traceback" not in r.output, r.output
    errors = [x for x in r.output.splitlines() if x.startswith("Error:")]
    assert "TypingError" not in r.output and "Failed in nopython" not in r.output, r.output
    said = f"Error: strategy 'stringy': numba cannot compile its decide (at {f}, line {line}, in decide): "
    assert len(errors) == 1 and errors[0].startswith(said), r.output
    assert "Literal[str](a card) to int64" in errors[0]  # numba's own words: the string where an int64 goes
