"""The decision broker: the hint callback names where to see a failing decision, a strategy that declares the
``reveal`` hook sees the hidden cards before it decides, and the broker imports no command-line code."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from nines_sim.engine.batch import CompiledEngine
from nines_sim.engine.broker import StrategyError, replay_command
from nines_sim.game.rules import make_rules
from nines_sim.strategy.registry import make_lineup
from tests.det_strategies import Lowest


class Raises(Lowest):
    name = "raises"

    def play(self, obs):  # noqa: ANN001, ANN201
        if (obs.hand_sizes[np.arange(obs.n), obs.seat] == 2).any():
            raise KeyError("two cards left")
        return super().play(obs)


def test_the_hint_callback_follows_the_message_and_names_the_culprit_match():
    rules = make_rules("classic", players=3)
    asked: list[int] = []

    def hint(match: int) -> str:
        asked.append(match)
        return f"; look at match {match}"

    eng = CompiledEngine(rules, [Raises(), *make_lineup(["random", "expert"])], 4, 10, 12, batch_size=5, hint=hint)
    with pytest.raises(StrategyError) as info:
        eng.run()
    assert len(asked) == 1 and 10 <= asked[0] < 22
    assert str(info.value).endswith(f"in match {asked[0]} of seed 4; look at match {asked[0]}")
    assert isinstance(info.value.__cause__, KeyError)
    # the default hint is the replay command of that match
    with pytest.raises(StrategyError) as again:
        CompiledEngine(rules, [Raises(), *make_lineup(["random", "expert"])], 4, 10, 12, batch_size=5).run()
    cmd = replay_command(rules, [f"{__name__}:Raises", "random", "expert"], 4, asked[0])  # as the CLI finds it
    assert str(again.value).endswith(f"; see the position and the traceback with: {cmd}")


class Peeks(Lowest):
    """Records what the ``reveal`` hook shows, and checks it against its own hand."""

    name = "peeks"

    def __init__(self) -> None:
        self.seen: list[tuple] = []

    def reveal(self, hands, stock, pos, end) -> None:  # noqa: ANN001
        self.seen.append((hands, stock, pos, end))

    def play(self, obs):  # noqa: ANN001, ANN201
        hands = self.seen[-1][0]
        for d, w in enumerate(obs.hand):  # the hidden hands include the decider's own, as dealt to it
            assert np.array_equal(hands[d][np.arange(obs.n), obs.seat], w)
        return super().play(obs)


def test_a_strategy_declaring_the_reveal_hook_sees_the_hidden_cards_and_others_do_not():
    rules = make_rules("classic", players=3)
    peeks, plain = Peeks(), Lowest()
    CompiledEngine(rules, [peeks, plain, *make_lineup(["random"])], 2, 0, 3, batch_size=2).run()
    assert peeks.seen and not hasattr(plain, "seen")
    hands, stock, pos, end = peeks.seen[0]
    assert len(hands) == rules.decks and hands[0].shape[1] == 3 and stock.shape[1] == 52
    assert (pos <= end).all() and (end <= 52).all()


def test_the_broker_and_the_engine_import_no_command_line_code():
    code = (
        "import sys, nines_sim.engine.batch, nines_sim.engine.broker; "
        "print(sorted(m for m in sys.modules"
        " if m.startswith('nines_sim.cli') or m in ('typer', 'nines_sim.play.replay')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out


class Keeps(Lowest):
    """Keeps each observation with the decision keys it read then, and reassigns its public state's top card;
    at its next decision it checks the kept observation against what it read."""

    name = "keeps"

    def __init__(self) -> None:
        self.kept: tuple | None = None
        self.checked = 0

    def play(self, obs):  # noqa: ANN001, ANN201
        if self.kept is not None:
            old, keys = self.kept
            assert np.array_equal(old.public("dkey"), keys), "a kept observation's keys changed"
            self.checked += 1
        # read now through a copy of the observation (each memoises its fields): the kept one is first read later
        self.kept = (obs, obs.subset(np.arange(obs.n)).public("dkey"))
        obs._pub.top = np.full_like(obs._pub.top, 99)  # another seat's observation must not see it
        return super().play(obs)


class Looks(Lowest):
    """Fails if it sees a top card that no deck has."""

    name = "looks"

    def play(self, obs):  # noqa: ANN001, ANN201
        assert (obs.top < 52).all(), "another seat's reassigned top card reached this observation"
        return super().play(obs)


def test_each_decision_has_a_public_state_of_its_own_and_the_legal_moves_are_read_only():
    """The views of the engine's public arrays are built once for many decisions (their cost), yet each decision's
    observation keeps its own decision keys (``dkey``) past its call, and a strategy that reassigns its state's
    attributes changes no other seat's observation; the legal moves, which the broker checks answers against,
    cannot be written through the observation."""
    rules = make_rules("classic", players=3)
    keeps = Keeps()
    CompiledEngine(rules, [keeps, Looks(), *make_lineup(["random"])], 3, 0, 30, batch_size=4).run()
    assert keeps.checked > 30

    class Widens(Lowest):
        name = "widens"

        def play(self, obs):  # noqa: ANN001, ANN201
            obs.legal[:] = obs.hand[0]  # would let any held card pass the check
            return super().play(obs)

    with pytest.raises(StrategyError) as info:
        CompiledEngine(rules, [Widens(), *make_lineup(["random", "random"])], 3, 0, 4, batch_size=4).run()
    assert "raised ValueError: assignment destination is read-only" in str(info.value)
