"""Two 9s together: an observation's ``pair_legal`` is the engine's answer and the reference's (V4, V5, V6)."""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from nines_sim.game.cards import FACE_SUIT, NINE_RANK, words_of
from nines_sim.game.reference.hand import Hand
from nines_sim.game.rules import RulesError, make_rules
from nines_sim.game.tables import legal_table
from nines_sim.strategy.base import pair_legal

NINES = [f for f in range(52) if f % 13 == NINE_RANK]


@settings(max_examples=300, deadline=None)
@given(
    no_nine_out=st.booleans(),
    nine_on_nine=st.booleans(),
    players=st.integers(2, 6),
    nines=st.lists(st.sampled_from(NINES), max_size=4),
    others=st.lists(st.integers(0, 51).filter(lambda f: f % 13 != NINE_RANK), max_size=4),
    top=st.integers(0, 51),
    declared=st.integers(0, 3),
)
def test_pair_legal_is_the_references(no_nine_out, nine_on_nine, players, nines, others, top, declared):
    try:
        rules = make_rules("double-nines", players=players, no_nine_out=no_nine_out, nine_on_nine=nine_on_nine)
    except RulesError:
        assume(False)
    hand = nines + others
    faces = [*hand, top]
    assume(hand and all(faces.count(f) <= rules.decks for f in faces))
    active = declared if top % 13 == NINE_RANK else int(FACE_SUIT[top])
    ref = object.__new__(Hand)  # only the state pair_legal reads
    ref.rules, ref.hands, ref.pile, ref.active = rules, [hand], [top], active
    words = words_of(hand, rules.decks)
    got = pair_legal([words[d : d + 1] for d in range(rules.decks)], np.array([top]), np.array([active]),
                     np.array([len(hand)]), rules, legal_table(rules))  # fmt: skip
    assert bool(got[0]) == ref.pair_legal(0)


def test_no_pair_under_rules_without_it():
    rules = make_rules("classic", players=4)
    nine = [np.array([np.uint64((1 << 8) | (1 << 21))])]  # 9C and 9D
    got = pair_legal(nine, np.array([3]), np.array([0]), np.array([2]), rules, legal_table(rules))
    assert not got.any()
