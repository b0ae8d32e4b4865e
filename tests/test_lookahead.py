"""``lookahead`` and ``clairvoyant`` in hand-built positions, their settings, and their reproducibility."""

from __future__ import annotations

import numpy as np
import pytest

from nines_sim.cards import SUIT_NAMES, parse_card
from nines_sim.position import Position, PositionBatch, PositionEngine
from nines_sim.registry import load_class, make_lineup
from nines_sim.rules import make_rules
from nines_sim.simulate import simulate
from nines_sim.strategies.lookahead import Clairvoyant, Lookahead, SettingError
from nines_sim.strategy import DecisionKind

R2 = make_rules("classic", players=2)


def _cards(text: str) -> tuple[int, ...]:
    return tuple(parse_card(c) for c in text.split())


def position(mine: str, theirs: str, top: str, drew_on: int = 0, seed: int = 0) -> Position:
    """Seat 0 to move holding ``mine``; seat 1 holds ``theirs``; the other cards in the stock, shuffled."""
    a, b, t = _cards(mine), _cards(theirs), parse_card(top)
    rest = [f for f in range(52) if f not in {*a, *b, t}]
    stock = tuple(np.random.default_rng(seed).permutation(rest).tolist())
    return Position(R2, (a, b), stock, (), t, int(t // 13), seat=0, dealer=1, drew_on=(0, drew_on), turn=6)


def decide(strategy, pos: Position, copies: int = 4) -> np.ndarray:
    """The strategy's play in ``copies`` games of one position, each with its own decision stream."""
    batch = PositionBatch.from_positions([pos] * copies)
    batch.arrays["dkey"] = np.arange(1, copies + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    eng = PositionEngine(batch, make_lineup([strategy, "expert"]))
    idx = np.arange(copies)
    legal = eng.hands[0][idx, 0] & eng.legal_tab[eng.top * 4 + eng.active]
    return eng._decide(DecisionKind.PLAY, idx, eng.seat.copy(), legal=legal)


def test_lookahead_keeps_the_nine_to_go_out_with():
    # KH now, then the 9 goes out on anything next turn; the 9 now leaves KH, which may never be legal
    plays = decide(Lookahead(samples=96), position("KH 9S", "2C 3C 4D 5D 6S 8S JC", "7H"))
    assert (plays == parse_card("KH")).all()


def test_clairvoyant_plays_the_nine_that_wins_rather_than_the_natural_that_loses():
    # 3H keeps hearts: seat 1 goes out with 2H and seat 0 keeps 9S + 4D (19 points).  9S switches
    # the suit (to diamonds): seat 1 cannot follow, seat 0 then goes out with 4D.
    pos = position("9S 3H 4D", "2H", "7H")
    plays = decide(Clairvoyant(samples=32), pos)
    assert (plays == parse_card("9S")).all()


def test_clairvoyant_keeps_the_suit_a_one_card_opponent_cannot_follow():
    # QD would let diamonds on: seat 1's last card is a diamond; 7C keeps it out of play
    pos = position("QD 7C 2S 3S", "KD", "7D", drew_on=1 << SUIT_NAMES.index("C"))
    plays = decide(Clairvoyant(samples=32), pos)
    assert (plays == parse_card("7C")).all()


@pytest.mark.parametrize(
    "values, words",
    [
        (dict(samples=0), r"samples must lie in 1\.\.4096"),
        (dict(samples=2.5), "samples takes an integer"),
        (dict(policy="lookahead"), "policy must be one of"),
        (dict(outcome="win"), r"outcome must be one of hand\|match"),
        (dict(depth=3), "has no parameter 'depth'"),
    ],
)
def test_bad_settings_are_refused_in_one_line(values, words):
    with pytest.raises(SettingError, match=words) as e:
        Lookahead(**values)
    assert "\n" not in str(e.value)


def test_clairvoyant_says_it_sees_hidden_cards_and_lookahead_does_not():
    assert load_class("clairvoyant").classifier["sees_hidden_cards"] is True
    assert load_class("lookahead").classifier["sees_hidden_cards"] is False


def test_settings_come_in_a_strategy_spec():
    assert make_lineup(["lookahead:samples=16,rounds=2"])[0].samples == 16
    with pytest.raises(Exception, match="samples must lie in"):
        make_lineup(["lookahead:samples=0"])


def test_same_seed_same_decisions_for_every_worker_count():
    rules = make_rules("classic", players=2)
    la = Lookahead(samples=8)
    one = simulate(rules, [la, "expert"], 6, seed=4, workers=1, batch_size=3)
    two = simulate(rules, [la, "expert"], 6, seed=4, workers=2, batch_size=2, chunk_size=3)
    assert np.array_equal(one.totals, two.totals)
    assert np.array_equal(one.hand_records.penalty, two.hand_records.penalty)


def test_a_tournament_with_clairvoyant_says_so_in_the_terminal_and_the_report(tmp_path):
    from typer.testing import CliRunner

    from nines_sim.cli import app

    res = CliRunner().invoke(
        app, ["tournament", "clairvoyant", "expert", "--matches", "2", "--players", "2", "--seed", "3",
              "--workers", "1", "--no-charts", "--out", str(tmp_path)],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "Not a fair comparison: clairvoyant sees every hand" in res.output
    assert "Not a fair comparison" in (tmp_path / "report.md").read_text()
    listing = CliRunner().invoke(app, ["strategies"]).output
    assert "NOT A FAIR PLAYER" in listing.split("clairvoyant", 1)[1].split("\n")[2]


@pytest.mark.parametrize("preset", ["classic", "hard-nines", "double-nines+skip-reverse", "draw-until-playable"])
@pytest.mark.parametrize("cls", [Lookahead, Clairvoyant])
def test_search_players_make_only_legal_moves_and_keep_every_card_in_one_place(preset, cls):
    from tests.test_properties import run_checked

    rules = make_rules(preset)
    strat = cls(samples=4)
    if cls is Clairvoyant:  # the checker's wrapper would hide the true cards from it: play it unwrapped
        res = simulate(rules, [strat, "random", "hold-nines", "dump-faces"], 3, seed=2, batch_size=3)
    else:
        _, res = run_checked(rules, 3, seed=2, names=[strat, "random", "hold-nines", "dump-faces"])
    assert len(res.match) == 3 and np.allclose(res.win_share.sum(axis=1), 1.0)


def test_successive_halving_still_finds_the_obvious_move_and_is_reproducible():
    la = Lookahead(samples=32, rounds=3)
    pos = position("KH 9S", "2C 3C 4D 5D 6S 8S JC", "7H")
    first = decide(la, pos)
    assert (first == parse_card("KH")).all()
    assert np.array_equal(first, decide(la, pos))
