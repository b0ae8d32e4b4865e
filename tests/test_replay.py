"""``nines replay``: the header names the rules as played, hands and turns are numbered as ``nines analyze``
counts them, and Ctrl-C in ``replay``, ``analyze`` and ``bench`` says what stopped (exit code 130).

Every interruption here is driven by an event (an engine step or a progress report raising SIGINT in this
process), never by a sleep.
"""

from __future__ import annotations

import re
import signal

import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.engine.batch import CompiledEngine
from nines_sim.experiments.bench import work as bench
from nines_sim.game.rules import make_rules
from nines_sim.play.replay import describe, replay
from nines_sim.search.analyze import position_from_replay

runner = CliRunner()
LINEUP = ["expert", "dump-faces", "hold-nines"]
TURN = re.compile(r"^   turn (\d+): seat (\d) ")
HAND = re.compile(r"^== (?:tie-break )?hand (\d+):")


def numbered_turns(lines: list[str]) -> list[tuple[int, int, int]]:
    """(hand, turn, seat to move) of every numbered line of a replay, as printed."""
    out, hand = [], 0
    for line in lines:
        if m := HAND.match(line.lstrip("\n")):
            hand = int(m.group(1))
        elif m := TURN.match(line):
            out.append((hand, int(m.group(1)), int(m.group(2))))
    return out


def test_the_header_names_the_rule_overrides_that_are_played():
    plain = runner.invoke(app, ["replay", *LINEUP, "--match", "4"])
    assert plain.exit_code == 0, plain.output
    assert plain.output.splitlines()[0].endswith("; rules classic")
    r = runner.invoke(app, ["replay", *LINEUP, "--match", "4", "--rule", "target=50", "--rule", "nine_penalty=20"])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0].endswith("; rules classic with nine_penalty=20, target=50")
    totals = [int(x) for x in re.search(r"final totals \[([\d, ]+)\]", r.output).group(1).split(",")]
    assert 50 <= max(totals) < 100  # the override is played: the match ends at 50, not at 100 (S3)
    hard = runner.invoke(app, ["replay", *LINEUP, "--match", "4", "--rules", "hard-nines", "--rule", "target=50"])
    assert hard.output.splitlines()[0].endswith("; rules hard-nines with target=50")  # the preset's own values: none


def test_replay_numbers_every_turn_as_the_engine_counts_them():
    rules = make_rules("classic", players=3)
    events, res = replay(rules, LINEUP, 7, 11)
    turns = numbered_turns(describe(events, LINEUP))
    per_hand: dict[int, list[int]] = {}
    for hand, turn, _ in turns:
        per_hand.setdefault(hand, []).append(turn)
    assert len(per_hand) == int(res.hands[0] + res.tiebreak_hands[0])  # every hand dealt has numbered turns
    for numbers in per_hand.values():
        assert numbers == list(range(1, len(numbers) + 1))  # from 1, one each, none skipped
    # the engine's own turn count of each regular hand (hand records, T8's counter) is the last number printed
    hr = res.hand_records
    assert sorted(hr.turns.tolist()) == sorted(len(per_hand[int(h) + 1]) for h in hr.hand.tolist())


def test_analyze_reaches_the_turn_replay_prints_with_the_same_numbers():
    rules = make_rules("classic", players=3)
    events, _ = replay(rules, LINEUP, 7, 11)
    turns = numbered_turns(describe(events, LINEUP))
    picked = [t for t in turns if t[0] == 1][:12] + [t for t in turns if t[0] == 2][-5:]
    assert len(picked) == 17
    for hand, turn, seat in picked:  # the library counts from 0; --hand and --turn as replay prints them
        pos = position_from_replay(rules, LINEUP, 7, 11, hand - 1, turn - 1)
        assert (pos.hand_seq, pos.turn, pos.seat) == (hand, turn - 1, seat)
    play = next(t for t in turns[5:] if t[0] == 2)
    lines = describe(events, LINEUP)
    args = ["analyze", *LINEUP, "--seed", "7", "--match", "11", "--hand", str(play[0]), "--turn", str(play[1])]
    r = runner.invoke(app, [*args, "--samples", "4"])
    if r.exit_code == 2:  # the seat to move draws: nothing to analyse, and the replay shows a draw there
        assert "holds no legal card" in r.output
        assert any(f"turn {play[1]}: seat {play[2]} " in x and "draws" in x for x in lines), r.output
    else:
        assert r.exit_code == 0, r.output
        assert r.output.startswith(f"Seat {play[2]} to move")


@pytest.mark.parametrize(
    "args, words",
    [
        (["--hand", "0"], "--hand counts from 1, as 'nines replay' numbers hands: the first is --hand 1"),
        (["--turn", "0"], "--turn counts from 1, as 'nines replay' numbers turns: the first is --turn 1"),
        (["--hand", "500"], "match 11 of seed 7 ends before hand 500: it has "),
        (["--hand", "1", "--turn", "5000"], "hand 1 of match 11 ends before turn 5000: it has "),
    ],
)
def test_analyze_hand_and_turn_out_of_the_match_get_one_line_counted_from_1(args, words):
    r = runner.invoke(app, ["analyze", *LINEUP, "--seed", "7", "--match", "11", *args])
    assert r.exit_code == 2, r.output
    assert words in r.output and len(r.output.strip().splitlines()) == 1


def test_the_counts_in_the_error_are_those_replay_prints():
    rules = make_rules("classic", players=3)
    events, _ = replay(rules, LINEUP, 7, 11)
    turns = numbered_turns(describe(events, LINEUP))
    hands = max(h for h, _, _ in turns)
    first = sum(1 for h, _, _ in turns if h == 1)
    r = runner.invoke(app, ["analyze", *LINEUP, "--seed", "7", "--match", "11", "--hand", str(hands + 1)])
    assert f"ends before hand {hands + 1}: it has {hands} hands" in r.output
    r = runner.invoke(app, ["analyze", *LINEUP, "--seed", "7", "--match", "11", "--turn", str(first + 1)])
    assert f"hand 1 of match 11 ends before turn {first + 1}: it has {first} turns" in r.output


# ------------------------------------------------------------------ Ctrl-C, by events


@pytest.fixture
def default_sigint():
    """Python's own Ctrl-C handler for the test: a handler another test in this process left behind (a run's
    stop flag) must not swallow the SIGINT raised here."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def ctrl_c_at_step(monkeypatch, cls: type, step: int) -> None:  # noqa: ANN001
    """Raise SIGINT in this process from ``cls.advance`` at its ``step``-th call (1-based)."""
    calls = [0]
    advance = cls.advance

    def hooked(self):  # noqa: ANN001, ANN202
        calls[0] += 1
        if calls[0] == step:
            signal.raise_signal(signal.SIGINT)
        return advance(self)

    monkeypatch.setattr(cls, "advance", hooked)


def test_ctrl_c_in_replay_says_so_in_one_line_and_exits_130(monkeypatch, default_sigint):
    # a table of built-ins plays the whole match in one call of the compiled loop: Ctrl-C is heard after it
    ctrl_c_at_step(monkeypatch, CompiledEngine, 1)
    r = runner.invoke(app, ["replay", *LINEUP, "--match", "3"])
    assert r.exit_code == 130, r.output
    lines = r.output.strip().splitlines()
    assert lines[0].startswith("Match 3 of seed 0:") and len(lines) == 2  # the header, then one line
    assert lines[1] == "Interrupted (Ctrl-C): the replay of match 3 stopped before its end."


def test_ctrl_c_in_analyze_says_so_in_one_line_and_exits_130(monkeypatch, default_sigint):
    ctrl_c_at_step(monkeypatch, CompiledEngine, 1)  # while the match is replayed to the position
    r = runner.invoke(app, ["analyze", *LINEUP, "--seed", "7", "--match", "11", "--turn", "6", "--samples", "4"])
    assert r.exit_code == 130, r.output
    assert r.output.strip().splitlines() == [
        "Interrupted (Ctrl-C): the analysis stopped before its estimates were complete; nothing was printed."
    ]


def ctrl_c_in_bench_run(monkeypatch, run: int) -> None:  # noqa: ANN001
    """Raise SIGINT from the progress of bench's ``run``-th played run (1-based; each workload: 1 untimed + repeats)."""
    calls = [0]
    run_plan = bench.run_plan

    def hooked(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        calls[0] += 1
        fired = [False]

        def progress(played: int, kept: int) -> None:
            if calls[0] == run and played and not fired[0]:
                fired[0] = True
                signal.raise_signal(signal.SIGINT)  # run_units' own handler hears it at once

        return run_plan(*args, on_progress=progress, **kwargs)

    monkeypatch.setattr(bench, "run_plan", hooked)


def test_ctrl_c_in_bench_says_what_was_measured_and_exits_130(monkeypatch):
    ctrl_c_in_bench_run(monkeypatch, 4)  # W2: untimed + 2 timed runs; then W1's untimed run is stopped
    r = runner.invoke(app, ["bench", "W2", "W1", "-n", "400", "-r", "2", "--workers", "1"])
    assert r.exit_code == 130, r.output
    assert "every finished chunk is kept" not in r.output
    assert bench.STOP_NOTICE in r.output
    lines = r.output.strip().splitlines()
    assert lines[0].startswith("W2  classic, 2 x random") and not any(x.startswith("W1  ") for x in lines)
    assert lines[-1] == (
        "Interrupted (Ctrl-C): stopped during W1: W2 measured in full (the lines above); W1 and what follows not "
        "measured."
    )


def test_ctrl_c_in_bench_before_anything_is_measured_says_nothing_was(monkeypatch):
    ctrl_c_in_bench_run(monkeypatch, 2)  # W2's first timed run
    r = runner.invoke(app, ["bench", "W2", "-n", "400", "-r", "2", "--workers", "1", "--json"])
    assert r.exit_code == 130, r.output
    assert r.output.strip().splitlines()[-1] == "Interrupted (Ctrl-C): stopped during W2: nothing was measured."
    assert "[" not in r.output  # no JSON of a run that was not measured


def test_a_match_of_one_hand_is_counted_as_one_hand():
    """Before: 'it has 1 hands' (analyze of a match, and of a saved match, by the same words)."""
    r = runner.invoke(app, ["analyze", "random", "random", "--rules", "classic:fixed_hands=1", "--match", "0"]
                      + ["--hand", "2", "--turn", "1"])  # fmt: skip
    assert r.exit_code == 2 and r.output.strip().endswith("ends before hand 2: it has 1 hand"), r.output


def test_a_run_folder_given_to_replay_or_analyze_says_to_give_its_lineup_and_seed_with_its_command(tmp_path):
    """A run folder where replay and analyze take the run's lineup and --seed was read as a strategy file ("a
    folder, not a .py file", which did not say what to give): one line, exit 2, with the run's own command read
    from its manifest, which replays its matches."""
    run = tmp_path / "run"
    made = runner.invoke(app, ["tournament", "random", "dump-faces", "-n", "4", "--seed", "5", "--rule", "target=50",
                               "--out", str(run), "--no-charts", "--workers", "1", "--quiet"])  # fmt: skip
    assert made.exit_code == 0, made.output
    said = {}
    for command, after in (("replay", ""), ("analyze", " --hand H --turn T")):
        r = runner.invoke(app, [command, str(run)])
        assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1, r.output
        said[command] = r.output.strip()
        assert (
            f"{run} is a run folder: 'nines {command}' takes the lineup and --seed of a run, not its folder" in r.output
        )
        wanted = f"nines {command} random dump-faces --seed 5 --match K --rules classic --rule target=50{after}"
        assert said[command].endswith(f"from its manifest.json: {wanted}"), said[command]
    given = said["replay"].rpartition("manifest.json: nines ")[2].replace(" K ", " 1 ").split()
    replayed = runner.invoke(app, given)  # the command it gives replays the run's match
    assert replayed.exit_code == 0, replayed.output
    assert replayed.output.startswith(
        "Match 1 of seed 5: seat 0 random, seat 1 dump-faces; rules classic with target=50"
    )
    for args in (["replay", "random", str(tmp_path)], ["analyze", str(tmp_path), "--match", "0"]):
        r = runner.invoke(app, args)
        assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1, r.output
        assert f"{tmp_path} is a folder: 'nines {args[0]}' takes the lineup and --seed of a run" in r.output
    r = runner.invoke(app, ["review", str(run)])
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1, r.output
    assert r.output.strip().endswith(f"not a run folder; a review's folder is redrawn with: nines report {run}")


#: In a fresh process: a replayed position of built-ins, then the signatures each form of the loop was asked for.
FORMS_ASKED = """
from nines_sim.engine import turn_loop as K
from nines_sim.game.rules import make_rules
from nines_sim.search.analyze import position_from_replay

position_from_replay(make_rules("classic", players=5), {lineup!r}, 0, 3, 0, 6)
print(len(K.play_slots_trace.overloads), len(K.play_slots_classic_expert.overloads))
"""


def test_a_position_of_built_ins_is_reached_on_the_default_tournament_s_form_as_the_trace_form_reaches_it(
    monkeypatch,
):
    """``nines analyze --match`` reached its position on the trace form, which a first analysis after the
    default tournament compiled for it alone (8-11 s of processor time of 21-29 s): under rules of the classic
    shape a lineup of built-ins now plays as Python seats on the classic ``expert`` form that tournament
    compiled, stopped as the seat to move is asked for its play.  The same positions (every field), where
    the trace form is still played for a turn with no play to ask (a draw) or past the match's end; counted
    from the forms asked for, not by time."""
    import subprocess
    import sys

    from nines_sim.search import analyze as analysis

    default = ["random", "hold-nines", "dump-faces", "suit-majority", "expert"]
    out = subprocess.run([sys.executable, "-c", FORMS_ASKED.format(lineup=default)], capture_output=True, text=True,
                         check=True)  # fmt: skip
    assert out.stdout.split() == ["0", "1"], out.stdout + out.stderr  # the README's analysis: no trace form
    rules = make_rules("classic", players=3)
    reached = {(h, t): position_from_replay(rules, LINEUP, 7, 11, h, t) for h in range(2) for t in range(12)}
    monkeypatch.setattr(analysis, "_position_at_a_play", lambda *args: None)  # the trace form's, every one
    assert all(position_from_replay(rules, LINEUP, 7, 11, h, t) == pos for (h, t), pos in reached.items())
