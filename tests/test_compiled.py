"""The compiled engine (numba): the built-ins' compiled twins play as their Python classes, byte for byte.

(The rules are checked move for move against the plain-Python reference in ``test_reference_agreement.py``.)
Here the same matches are played with every seat's Python class asked as a Python seat and with the
built-ins' compiled twins: every preset at every table size, rule combinations that reach the rare paths
(reshuffles, passes, blocks, the turn cap, tie-break hands, shared wins, powers,
two 9s together), every compiled built-in, Python plug-ins (batched, per-game and
mixed with compiled seats) and errors raised by a plug-in.  The on-disk cache of compiled code is
``test_code_cache.py``'s.
"""

from __future__ import annotations

import copy
import subprocess
import sys
import textwrap
from dataclasses import fields

import numpy as np
import pytest

from nines_sim.engine.batch import CompiledEngine, make_engine
from nines_sim.engine.broker import IllegalMoveError
from nines_sim.engine.seats import seat_ids
from nines_sim.game.rules import PRESETS, RulesError, make_rules
from nines_sim.results.records import HandRecords, MatchResults
from nines_sim.strategies.expert import Expert
from nines_sim.strategies.random_play import RandomPlay
from nines_sim.strategy.per_game import GameView, PerGameStrategy
from nines_sim.strategy.registry import make_lineup
from tests.det_strategies import HighestPair, Lowest

BUILTINS = ["random", "hold-nines", "dump-faces", "suit-majority", "expert"]


def assert_identical(a: MatchResults, b: MatchResults) -> None:
    """Same values, dtypes and shapes in every column of the matches and their hands."""
    assert a.seed == b.seed
    for name in ("match", "totals", "win_share", "hands", "tiebreak_hands", "first_dealer"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        assert x.tobytes() == y.tobytes(), name
    for f in fields(HandRecords):
        x, y = getattr(a.hand_records, f.name), getattr(b.hand_records, f.name)
        assert x.dtype == y.dtype and x.shape == y.shape, f.name
        assert x.tobytes() == y.tobytes(), f.name


def asked_in_python(players: list) -> list:
    """The same strategies (same values, a seat shared as before), each asked in Python: an instance of a
    subclass of a built-in is a Python seat, so its class decides, not the built-in's compiled twin."""
    made: dict[int, object] = {}
    out = []
    for s in players:
        if id(s) not in made:
            twin = copy.copy(s)
            twin.__class__ = type(f"InPython{type(s).__name__}", (type(s),), {})
            made[id(s)] = twin
        out.append(made[id(s)])
    return out


def both(rules, lineup, seed: int, n: int, start: int = 0, batch: int = 16) -> tuple[MatchResults, MatchResults]:
    """The matches with every seat's Python class deciding, and with the compiled twins of the built-ins.

    (The rules themselves are checked move for move against the plain-Python reference in
    ``test_reference_agreement.py``; here the twins are checked against their classes.)
    """
    players = make_lineup(list(lineup))
    a = CompiledEngine(rules, asked_in_python(players), seed, start, n, batch_size=batch).run()
    b = CompiledEngine(rules, players, seed, start, n, batch_size=batch).run()
    return a, b


#: The fixed-hands presets are classic with one option (S3's number of hands) at three values: no built-in reads it
#: (their compiled twins and classes decide on classic's paths), and the loop ends a match on it alike whatever
#: the count, so one of them, the longest, stands for the three here (tests/test_reference_agreement.py compares
#: all three with the reference, move by move).
SAME_PATHS_AS_FIXED_HANDS_10 = ("fixed-hands-5", "fixed-hands-7")


def _preset_cases() -> list:
    cases = []
    for preset in (p for p in PRESETS if p not in SAME_PATHS_AS_FIXED_HANDS_10):
        for players in range(2, 7):
            try:
                make_rules(preset, players=players)
            except RulesError:
                continue
            cases.append(pytest.param(preset, players, id=f"{preset}-{players}p"))
    return cases


@pytest.mark.parametrize("preset,players", _preset_cases())
def test_every_preset_and_table_size_plays_the_builtins_twins_as_their_classes(preset, players):
    rules = make_rules(preset, players=players)
    lineup = [BUILTINS[(s + players) % len(BUILTINS)] for s in range(players)]
    a, b = both(rules, lineup, seed=1000 + players, n=8, start=5)
    assert a.n_matches == 8
    assert_identical(a, b)


# Options no preset sets, and combinations that reach rare paths (as tests/test_reference_agreement.py does).
COMBOS = [
    ("skip-reverse", {"players": 2}),
    ("skip-reverse+double-nines", {"players": 5}),
    ("double-nines+no-nine-out", {"players": 3}),
    ("no-stacking+hard-nines", {"players": 4, "tie_rule": "share"}),
    ("draw-until-playable+skip-reverse", {"players": 6}),
    ("draw-until-playable+no-stacking", {"players": 3, "hand_sizes": (25, 16, 12, 5, 5)}),  # crowded: passes
    ("free-nines", {"players": 2, "turn_cap": 2, "fixed_hands": 3, "hand_sizes": (3, 3, 3, 3, 3)}),  # blocks at the cap
    ("free-nines", {"players": 4, "target": 30}),  # shared wins
    ("classic", {"players": 4, "fixed_hands": 1, "turn_cap": 2, "nine_penalty": 10, "hand_sizes": (2, 2, 2, 2, 2)}),
    ("double-nines", {"players": 2, "hand_sizes": (40, 7, 7, 5, 5), "turn_cap": 60}),  # two decks, reshuffles, caps
]


@pytest.mark.parametrize("preset,over", COMBOS, ids=[f"{p}-{'-'.join(map(str, o.values()))}" for p, o in COMBOS])
def test_rule_combinations_play_the_builtins_twins_as_their_classes(preset, over):
    rules = make_rules(preset, **over)
    players = rules.players
    lineup = [BUILTINS[s % len(BUILTINS)] for s in range(players)]
    a, b = both(rules, lineup, seed=77, n=15)
    assert_identical(a, b)


def test_the_combinations_reach_the_rare_paths():
    """Blocked and capped hands, tie-break hands, shared wins, reshuffles and 9 starters all occur above."""
    seen = {"blocked": 0, "capped": 0, "tiebreak": 0, "shared": 0, "reshuffle": 0, "nine_starter": 0}
    for preset, over in COMBOS:
        rules = make_rules(preset, **over)
        lineup = make_lineup([BUILTINS[s % len(BUILTINS)] for s in range(rules.players)])
        r = CompiledEngine(rules, lineup, 77, 0, 15).run()
        hr = r.hand_records
        seen["blocked"] += int((hr.outcome == -1).sum())
        seen["capped"] += int((hr.outcome == -2).sum())
        seen["tiebreak"] += int(r.tiebreak_hands.sum())
        seen["shared"] += int(((r.win_share > 0) & (r.win_share < 1)).any(axis=1).sum())
        seen["reshuffle"] += int(hr.reshuffles.sum())
        seen["nine_starter"] += int(hr.nine_starter.sum())
    assert all(v > 0 for v in seen.values()), seen


class WrappedRandom(RandomPlay):
    """The built-in random player, as a Python plug-in (a subclass is asked in Python)."""

    name = "wrapped-random"


class WrappedExpert(Expert):
    name = "wrapped-expert"


class PerGameLowest(PerGameStrategy):
    """The lowest legal card by face number; the first suit named in the hand."""

    name = "pergame-lowest"

    def choose_card(self, view: GameView) -> str:
        return sorted(view.legal, key=lambda c: view.legal.index(c))[0]

    def choose_suit(self, view: GameView) -> str:
        return view.hand[0][-1] if view.hand else "S"


@pytest.mark.parametrize("decks", [1, 2])
def test_the_deal_order_is_numpys_stable_argsort_of_the_keys_even_when_keys_tie(decks):
    """D4, T5: cards go in the order of their stream keys; the packed sort must agree on every tie."""
    from nines_sim.engine import turn_loop as K

    rng = np.random.default_rng(7)
    n = 52 * decks
    ids = np.array([int(K.card_id(c // 52, c % 52)) for c in range(n)], dtype=np.uint64)
    full, buf, cw = np.empty(128, np.uint64), np.empty(n, np.uint64), np.empty(32, np.uint64)
    for trial in range(40):
        keys = rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)
        if trial % 2:  # runs equal in the packed bits, low bits in reverse order of the cards
            keys[10:20] = (keys[10] & K.KEY_MASK) | np.arange(9, -1, -1, dtype=np.uint64)
        if trial % 3 == 0:  # whole keys equal: the earlier card first
            keys[30:36] = keys[30]
        if trial % 5 == 0:  # a bucket fuller than the counting pass expects
            keys[:40] = (keys[:40] >> np.uint64(20)) | (np.uint64(5) << np.uint64(57))
        full[ids] = keys
        vals = (keys & K.KEY_MASK) | ids
        K.sort_packed(vals, n, full, buf, cw)
        order = np.argsort(keys, kind="stable")
        assert np.array_equal(vals & K.ID_MASK, ids[order]), trial


def test_a_builtin_wrapped_as_a_python_plugin_gives_the_compiled_results():
    rules = make_rules("double-nines", players=4)
    compiled = make_lineup(["random", "expert", "random", "expert"])
    wrapped = [WrappedRandom(), WrappedExpert(), compiled[0], WrappedExpert()]
    assert seat_ids(compiled).tolist() != [0, 0, 0, 0] and seat_ids(wrapped).tolist()[:2] == [0, 0]
    # 16 games at a time: the wrapped seats' slots still take new matches as theirs end (a game's decisions do not
    # depend on the batch: test_results_do_not_depend_on_batch_size_or_chunks), in fewer rounds than 7 at a time
    a = CompiledEngine(rules, compiled, 3, 0, 40, batch_size=16).run()
    b = CompiledEngine(rules, wrapped, 3, 0, 40, batch_size=16).run()
    assert_identical(a, b)


@pytest.mark.parametrize("preset", ["classic", "double-nines+skip-reverse", "draw-until-playable+no-nine-out"])
def test_mixed_tables_of_plugins_and_builtins_play_as_when_every_seat_is_asked_in_python(preset):
    rules = make_rules(preset, players=5)
    lineup = [Lowest(), "random", HighestPair(), PerGameLowest(), "expert"]
    a, b = both(rules, lineup, seed=12, n=25, batch=6)
    assert_identical(a, b)


@pytest.mark.parametrize(
    "preset,spec",
    [
        ("classic", "expert:shed_nine_at=3,danger_cards=2,w_rank=1.75,w_short=6,w_scarce=1.5,declare_short=2.5"),
        (
            "classic",
            "expert:w_penalty=0.5,w_follow=7.25,w_block=0,next_player_factor=3.5,switch_against=3,"
            "end_cards=2,w_penalty_end=3.5,nine_at_end=1",
        ),
        ("hard-nines", "expert:declare_points=40,spare_nines=1,shed_nine_at=0,danger_cards=4"),
        (
            "double-nines",
            "expert:spare_nines=2,w_block=11.5,declare_points=0,w_rank=2.5,w_scarce=0.75,declare_short=0.5",
        ),
    ],
)
def test_expert_at_other_parameter_values_plays_compiled_and_as_its_python_class(preset, spec):
    """``expert``'s compiled twin reads each seat's parameter values, so a tuned expert runs at compiled
    speed (issue 13) and moves exactly as the Python class asked as a Python seat does."""
    from nines_sim.strategies.dump_faces import DumpFaces
    from nines_sim.strategies.expert import Expert
    from nines_sim.strategies.random_play import RandomPlay

    players = 5 if preset == "double-nines" else 4
    rules = make_rules(preset, players=players)
    names = [spec, "expert", "dump-faces", "random", "hold-nines"][:players]
    lineup = make_lineup(names)
    expert = Expert.kernel_id
    assert seat_ids(lineup).tolist()[:4] == [expert, expert, DumpFaces.kernel_id, RandomPlay.kernel_id]
    a, b = both(rules, names, seed=21, n=25, batch=13)  # slots still take new matches as theirs end
    assert_identical(a, b)
    at_defaults = CompiledEngine(rules, make_lineup(["expert"] + names[1:]), 21, 0, 25).run()
    assert not np.array_equal(b.totals, at_defaults.totals)


def test_results_do_not_depend_on_batch_size_or_chunks():
    rules = make_rules("classic", players=3)
    lineup = make_lineup([Lowest(), "random", "hold-nines"])
    whole = CompiledEngine(rules, lineup, 5, 0, 30, batch_size=30).run()
    parts = [CompiledEngine(rules, lineup, 5, s, 10, batch_size=b).run() for s, b in ((0, 1), (10, 4), (20, 10))]
    assert_identical(whole, MatchResults.concat(parts))


def test_harvest_keeps_memory_flat_and_loses_nothing(monkeypatch):
    """Small record buffers and a small block per advance: results come out in pieces, all of them."""
    import nines_sim.engine.batch as compiled

    monkeypatch.setattr(compiled, "RECORD_BUFFER", 8)
    monkeypatch.setattr(compiled, "MATCHES_PER_ADVANCE", 3)
    monkeypatch.setattr(compiled, "HANDS_PER_MATCH", 1)
    monkeypatch.setattr(compiled, "HAND_BLOCK", 16)  # blocks of result columns fill up and close mid-run
    rules = make_rules("classic")
    lineup = make_lineup(["random"] * 4)
    e = CompiledEngine(rules, lineup, 9, 0, 20)
    e.start_run()
    got = []
    while e.B:
        e.advance()
        got.append(e.harvest())
        assert e.lowest_unfinished() <= 20
    assert_identical(MatchResults.concat(got), CompiledEngine(rules, asked_in_python(lineup), 9, 0, 20).run())


@pytest.mark.parametrize("harvested", [False, True])
@pytest.mark.parametrize("lineup", [["random", "expert", "hold-nines"], [Lowest(), "random", "dump-faces"]])
def test_match_keys_computed_a_window_at_a_time_give_the_same_matches(monkeypatch, lineup, harvested):
    """The kernel reads the match keys a few at a time (memory flat in the range); windows far smaller than
    the range, a compiled table and a Python seat's, harvested as a tournament does or run whole: the same bytes."""
    import nines_sim.engine.batch as compiled

    monkeypatch.setattr(compiled, "KEY_WINDOW", 2)
    monkeypatch.setattr(compiled, "MATCHES_PER_ADVANCE", 3)
    rules = make_rules("classic", players=3)
    players = make_lineup(lineup)
    e = CompiledEngine(rules, players, 4, 7, 30, batch_size=4, harvested=harvested)
    if harvested:
        e.start_run()
        got = []
        while e.B:
            e.advance()
            got.append(e.harvest())
        res = MatchResults.concat(got)
    else:
        res = e.run()
    assert e._win.shape[0] < 30  # the keys did come in windows
    monkeypatch.setattr(compiled, "KEY_WINDOW", 1 << 16)
    # the matches with every key at once (the batch of this run is immaterial: all 30 in one, the fewest rounds)
    assert_identical(res, CompiledEngine(rules, asked_in_python(players), 4, 7, 30, batch_size=30).run())


def test_hand_records_fill_several_blocks_and_come_back_whole(monkeypatch):
    import nines_sim.engine.batch as compiled

    monkeypatch.setattr(compiled, "RECORD_BUFFER", 8)
    monkeypatch.setattr(compiled, "HANDS_PER_MATCH", 1)
    monkeypatch.setattr(compiled, "HAND_BLOCK", 20)
    rules = make_rules("classic")
    lineup = make_lineup(["random"] * 4)
    e = CompiledEngine(rules, lineup, 3, 0, 25)
    got = e.run()
    assert len(e._hand_parts) > 1  # the records did span several blocks
    assert_identical(got, CompiledEngine(rules, asked_in_python(lineup), 3, 0, 25, batch_size=5).run())


WARM_UP_PROBE = textwrap.dedent(
    """
    from nines_sim.engine import turn_loop as K
    from nines_sim.engine.batch import warm_up
    from nines_sim.game.rules import make_rules
    loaded = lambda: (len(K.play_slots_classic.overloads), len(K.play_slots.overloads))
    assert warm_up("spawn") is False and loaded() == (0, 0)  # a spawned worker shares nothing with its parent
    assert warm_up("fork") is True
    print(*loaded())
    assert warm_up("fork", [make_rules("skip-reverse"), make_rules("hard-nines")]) is True
    print(*loaded())
    """
)


def test_forked_workers_inherit_the_kernel_forms_loaded_by_warm_up():
    # a fresh process: warm_up loads the classic form by default, and the general one only for rules that need it
    out = subprocess.run([sys.executable, "-c", WARM_UP_PROBE], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["1 0", "1 1"], out.stdout + out.stderr


CLASSIC_SHAPED = [
    "classic",
    "free-nines",
    "hard-nines",
    "no-stacking",
    "fixed-hands-5",
    "fixed-hands-7",
    "fixed-hands-10",
]


@pytest.mark.parametrize("preset", PRESETS)
def test_classic_shaped_rules_play_on_the_classic_form_of_the_kernel(preset):
    from nines_sim.engine import turn_loop as K

    form = K.slots_kernel(K.rules_params(make_rules(preset)))
    assert form is (K.play_slots_classic if preset in CLASSIC_SHAPED else K.play_slots)


def test_each_form_of_the_kernel_has_a_cache_index_of_its_own():
    # numba names a function's cache index after its qualified name: forms sharing one could, compiled by two
    # processes at once, both write the same data file, and one form would then load the other's machine code
    from nines_sim.engine import turn_loop as K

    names = {f.py_func.__qualname__ for f in (K.play_slots, K.play_slots_classic, K.deal, K.deal_one_deck)}
    assert names == {"play_slots", "play_slots_classic", "deal", "deal_one_deck"}


@pytest.mark.parametrize("preset", ["classic", "free-nines", "fixed-hands-5"])
def test_the_classic_form_plays_the_same_matches_as_the_general_one(preset, monkeypatch):
    from nines_sim.engine import turn_loop as K

    rules = make_rules(preset, players=4)
    lineup = make_lineup(["random", "expert", "dump-faces", "suit-majority"])
    classic = CompiledEngine(rules, lineup, 5, 0, 300, batch_size=32).run()
    # the general form, with expert called rather than inlined: a table with expert plays all four forms alike
    monkeypatch.setattr(K, "slots_kernel", lambda rp, expert=False: K.play_slots)
    general = CompiledEngine(rules, lineup, 5, 0, 300, batch_size=32).run()
    assert_identical(classic, general)


def test_an_illegal_move_from_a_plugin_names_the_match_to_replay():
    class Cheat(Lowest):
        name = "cheat"

        def play(self, obs):
            out = super().play(obs)
            out[obs.hand_sizes[np.arange(obs.n), obs.seat] == 3] = 51  # the king of spades, held or not
            return out

    rules = make_rules("classic")
    with pytest.raises(IllegalMoveError, match="strategy 'cheat' returned a card that is not a legal play"):
        CompiledEngine(rules, [Cheat()] + make_lineup(["random"] * 3), 1, 0, 30, batch_size=8).run()


def test_bulk_runs_use_the_compiled_engine_and_nines_engine_is_gone(monkeypatch):
    rules = make_rules("classic")
    lineup = make_lineup(["random"] * 4)
    monkeypatch.setenv("NINES_ENGINE", "numpy")  # no longer read: the compiled engine is the only engine
    assert isinstance(make_engine(rules, lineup, 0, 0, 1), CompiledEngine)


def test_the_compiled_engine_refuses_an_on_step_callback():
    with pytest.raises(ValueError, match="calls no on_step"):
        CompiledEngine(make_rules("classic"), make_lineup(["random"] * 4), 0, 0, 1, on_step=print)


# ------------------------------------------------------------------ compiled user strategies
def test_a_compiled_user_strategy_decides_as_its_batched_twin():
    from nines_sim.lowest_first import LowestFirst, LowestFirstCompiled

    rules = make_rules("double-nines", players=4)
    batched = [LowestFirst(), "random", LowestFirst(), "expert"]
    compiled = [LowestFirstCompiled(), "random", LowestFirstCompiled(), "expert"]
    want = CompiledEngine(rules, make_lineup(batched), 21, 0, 30, batch_size=8).run()
    assert seat_ids(make_lineup(compiled)).tolist()[0] == 6
    assert_identical(want, CompiledEngine(rules, make_lineup(compiled), 21, 0, 30).run())


def test_an_illegal_answer_from_a_compiled_user_strategy_names_the_match():
    from nines_sim.strategy.per_game_compiled import CompiledStrategy

    class Stubborn(CompiledStrategy):
        name = "stubborn"
        decide = staticmethod(lambda kind, g, hand, hand_sizes, totals, drew_on: 51 if kind == 0 else 0)

    rules = make_rules("classic")
    # the card is named as the numpy engine names it
    said = r"'stubborn' returned a card that is not a legal play .*: 51 \(KS\) in match .*replay"
    with pytest.raises(IllegalMoveError, match=said):
        CompiledEngine(rules, [Stubborn()] + make_lineup(["random"] * 3), 1, 0, 5).run()
