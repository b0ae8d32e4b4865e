"""``expert`` in hand-built positions: each tip of the rule documents, decided as intended."""

from __future__ import annotations

import numpy as np

from nines_sim.game.cards import SUIT_NAMES, parse_card
from nines_sim.game.rules import make_rules
from nines_sim.strategies.expert import DANGER_CARDS
from nines_sim.strategy.registry import make_lineup
from tests.position_seats import first_decisions, stacked
from tests.test_strategies import Recorder

R3 = make_rules("classic", players=3)


def decide(hand: str, top: str, active: str | None = None, opponents=None, drew_on=None, copies: int = 200):
    """Expert's first play (and declaration) at seat 0; seat 1 moves next."""
    rec = Recorder(make_lineup(["expert"])[0])
    if opponents is None:  # four clubs and four diamonds, none of them seat 0's (hidden from it)
        mine = hand.split() + [top]
        opponents = {
            p: " ".join([f"{r}{s}" for r in "2345678" if f"{r}{s}" not in mine][:4]) for p, s in ((1, "C"), (2, "D"))
        }
    seats = stacked(R3, [rec, *make_lineup(["random", "random"])], {0: hand, **opponents}, top=top, active=active,
                    copies=copies, drew_on=drew_on)  # fmt: skip
    first_decisions(seats)
    return rec.plays[0], (rec.declares[0] if rec.declares else None)


def test_expert_dumps_a_king_rather_than_a_three():
    plays, _ = decide("KH 3H 5C 6S", "7H")
    assert (plays == parse_card("KH")).all()


def test_expert_keeps_its_nine_while_a_natural_is_legal():
    plays, _ = decide("9S 3H 5C 6S", "7H")
    assert (plays == parse_card("3H")).all()


def test_expert_spends_the_nine_when_the_next_player_is_about_to_go_out():
    # seat 1 holds one card and had to draw on clubs: switch to clubs with the 9
    plays, declares = decide(
        "9S 3H 5D 6D", "7H", opponents={1: "KH", 2: "2D 3D 4D 7D"}, drew_on={1: "C"}
    )  # seat 2: not 5D, seat 0 holds it
    assert DANGER_CARDS >= 1
    assert (plays == parse_card("9S")).all()
    assert (declares == SUIT_NAMES.index("C")).all()


def test_expert_switches_suit_against_a_one_card_player_who_drew_on_it():
    # legal: QD (10 points) and 7C; alone, QD is the dearer shed ...
    plays, _ = decide("QD 7C 2S", "7D")
    assert (plays == parse_card("QD")).all()
    # ... but the next player holds one card and drew on clubs: leave clubs active
    plays, _ = decide("QD 7C 2S", "7D", opponents={1: "KH", 2: "2D 3D 4D 5D"}, drew_on={1: "C"})
    assert (plays == parse_card("7C")).all()


def test_expert_declares_the_suit_it_holds_most_of():
    plays, declares = decide("9S 2H 3H 4H 5C", "KD")
    assert (plays == parse_card("9S")).all()
    assert (declares == SUIT_NAMES.index("H")).all()


def test_expert_does_not_carry_a_nine_to_the_end():
    # two cards left, one a 9: shed the 9 (15 points if caught) rather than the 2
    plays, _ = decide("9S 2H", "7H")
    assert (plays == parse_card("9S")).all()
    assert np.all(plays >= 0)
