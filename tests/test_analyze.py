"""``nines analyze``: estimates per legal play, each built-in's choice, one-line errors with exit code 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.game.rules import make_rules


def run(*args: str):
    return CliRunner().invoke(app, ["analyze", *args])


def test_a_described_position_lists_every_legal_play_and_each_strategys_choice():
    res = run("--cards", "KC 9H 3D", "--top", "5D", "--sizes", "7,3,5", "--samples", "16")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    plays = [ln.split()[0] for ln in lines if ln.startswith("  ")]
    assert sorted(plays) == ["3D", "9H"]  # KC is not legal on 5D (T1)
    assert "expert 3D" in res.output  # expert keeps its 9 while a natural is legal
    assert "clairvoyant" not in res.output  # nothing true to see in a described position


def test_a_replayed_position_is_analysed():
    res = run("expert", "dump-faces", "--players", "2", "--seed", "3", "--match", "2", "--turn", "5", "--samples", "8")
    assert res.exit_code == 0, res.output
    assert "Seat " in res.output and "What each strategy plays" in res.output


@pytest.mark.parametrize(
    "args, words",
    [
        (["--cards", "KC KC", "--top", "5D", "--sizes", "3"], "appears 2 times"),
        (["--cards", "ZZ", "--top", "5D", "--sizes", "3"], "not a card"),
        (["--cards", "KC", "--top", "9D", "--sizes", "3", "--active", "X"], "is not one of C, D, H, S"),
        (["--cards", "KC", "--top", "5D"], "needs --top and --sizes"),
        (["--cards", "KC", "--top", "5D", "--sizes", "3", "--policy", "lookahead"], "--policy must be one of"),
        (["--cards", "KC 2C", "--top", "5D", "--sizes", "3"], "no legal card"),
        ([], "give either --match"),
        (["--match", "0", "--hand", "500"], "ends before hand 500"),
        (["--cards", "KC", "--top", "5D", "--sizes", "3", "--match-stream"], "--match-stream needs --match"),
        (["--match", "0", "--turn", "3", "--active", "H"], "--active applies to a described position"),
    ],
)
def test_bad_positions_and_options_get_one_line_and_exit_code_2(args, words):
    res = run(*args)
    assert res.exit_code == 2
    assert words in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_a_nine_on_top_needs_the_declared_suit():
    # T1: with a 9 on top the declared suit rules, not the 9's printed one; there is no default to guess.
    res = run("--cards", "KC 3H", "--top", "9C", "--sizes", "3")
    assert res.exit_code == 2
    assert "is a 9" in res.output and "--active" in res.output
    assert len(res.output.strip().splitlines()) == 1
    res = run("--cards", "KC 3H", "--top", "9C", "--sizes", "3", "--active", "h", "--samples", "8")
    assert res.exit_code == 0, res.output
    assert "active suit H" in res.output
    plays = [ln.split()[0] for ln in res.output.splitlines() if ln.startswith("  ")]
    assert plays == ["3H"]  # KC follows neither hearts nor the 9


def test_errors_name_suits_by_letter():
    res = run("--cards", "KC 3H", "--top", "5D", "--sizes", "3", "--active", "H")
    assert res.exit_code == 2
    assert "active suit H differs from the suit of the top card 5D" in res.output
    assert "active suit 2" not in res.output


def test_the_lineup_s_own_strategies_are_asked_too():
    plug = "nines_sim.lowest_first:LowestFirst"
    res = run("expert", plug, "--players", "2", "--seed", "3", "--match", "2", "--turn", "4", "--samples", "8")
    assert res.exit_code == 0, res.output
    asked = next(ln for ln in res.output.splitlines() if ln.startswith("What each strategy plays"))
    assert f"{plug} " in asked and "expert " in asked and "clairvoyant " in asked
    res = run(plug, "--cards", "KC 9H 3D", "--top", "5D", "--sizes", "7,3,5", "--samples", "8")
    assert res.exit_code == 0, res.output
    assert f"{plug} 3D" in res.output  # the lowest legal card; a described position asks it too
    # a tuned file by its name, as in a tournament's table, not by the path as typed
    tuned = str(Path(__file__).resolve().parents[1] / "docs" / "tuned" / "expert-classic.json")
    res = run(f"expert@{tuned}", "--cards", "KC 9H 3D", "--top", "5D", "--sizes", "7,3,5", "--samples", "8")
    assert res.exit_code == 0, res.output
    assert "expert@expert-classic.json " in res.output and tuned not in res.output
    res = run("no-such-strategy", "--cards", "KC 9H 3D", "--top", "5D", "--sizes", "7,3,5")
    assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1


def _estimates(output: str) -> list[str]:
    return [ln for ln in output.splitlines() if ln.startswith("  ")]


def test_seed_picks_the_analysis_stream_and_each_position_has_its_own():
    args = ("--cards", "KC 9H 3D 5C", "--top", "5D", "--sizes", "7,3,5", "--samples", "16")
    first, again, other = run(*args), run(*args, "--seed", "0"), run(*args, "--seed", "1")
    assert first.exit_code == again.exit_code == other.exit_code == 0
    assert _estimates(first.output) == _estimates(again.output)  # --seed 0 is the default
    assert _estimates(first.output) != _estimates(other.output)
    assert "--seed" in CliRunner().invoke(app, ["analyze", "--help"]).output


def test_the_analysis_key_follows_what_the_seat_to_move_sees_and_the_seed():
    from nines_sim.game.rules import make_rules
    from nines_sim.search.analyze import analysis_key, position_from_cards

    rules = make_rules("classic", players=3)
    a = position_from_cards(rules, "KC 9H 3D", "5D", [7, 5])
    b = position_from_cards(rules, "KC 9H 4D", "5D", [7, 5])
    hidden = a.hands[1] + a.hands[2]
    swapped = a.with_(hands=(a.hands[0], hidden[7:] + hidden[:2], hidden[2:7]))  # other hidden cards, same view
    assert swapped.hands != a.hands
    assert analysis_key(a, 0) == analysis_key(swapped, 0)
    assert len({analysis_key(a, 0), analysis_key(b, 0), analysis_key(a, 1)}) == 3


def test_learned_s_play_is_asked_without_compiling_its_model_s_decision(monkeypatch):
    """What ``learned`` plays at an analysed position comes from its scores over the batch (the training path's
    features, whose floats are the compiled decision's: ``tests/test_learned.py`` plays both to the same
    matches): a first ``nines analyze`` compiled the model's whole decision from Python for that one play
    (declares and the drawn card too, 5-7 s of processor time), now only the batch features ``nines train``
    compiles too.  Counted from the decisions asked for calls from Python during this analysis (an empty table of
    them, so that another test in this process that compiled the decision does not count), not by time."""
    from nines_sim.learn.decide import decide_for
    from nines_sim.search.analyze import analyze, position_from_cards
    from nines_sim.strategy import per_game_compiled
    from strategies.learned import Learned

    monkeypatch.setattr(per_game_compiled, "_JITTED", {})
    pos = position_from_cards(make_rules("classic", players=4), "KC 9H 3D", "5D", [7, 3, 5])
    res = analyze(pos, samples=4, strategies=["learned"])
    assert [res.choices[label] in ("3D", "9H") for label in res.choices if label.startswith("learned")] == [True]
    assert decide_for(Learned().model_for(pos.rules)) not in per_game_compiled._JITTED
