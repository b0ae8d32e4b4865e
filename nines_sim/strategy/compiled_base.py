"""The base class of a strategy given as one compiled function, light enough to import without numba.

:class:`CompiledStrategy` is defined here, not in :mod:`nines_sim.strategy.per_game_compiled` (which re-exports it
with the names a user's ``decide`` needs), so that finding the built-ins (``learned`` is one) loads no compiler: a
usage error answers before the engine loads.  The compiling is in :mod:`~nines_sim.strategy.per_game_compiled`,
imported when a seat first asks.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from nines_sim.game.codes import K_PLAY as PLAY
from nines_sim.game.codes import K_PLAY_DRAWN as PLAY_DRAWN
from nines_sim.strategy.base import Observation, Strategy


class CompiledStrategy(Strategy):
    """Base class of a strategy given as one compiled function, ``decide`` (see the module docs).

    Set ``name``, ``classifier`` and ``decide`` (a plain function; it is compiled on first use
    and cached on disk beside its source file).
    """

    decide: ClassVar[Any] = None

    def decide_function(self, rules: Any = None) -> Any:
        """The plain function to compile for this seat under ``rules``: the class's ``decide``, or (a subclass
        whose seats differ, such as ``learned`` with its model) one of the instance's own, made for the rules."""
        return decide_source(type(self))

    # --- the numpy engine's path: the same function, compiled, one game at a time
    def _ask(self, obs: Observation, kind: int, card: np.ndarray | None = None) -> np.ndarray:
        from nines_sim.strategy.per_game_compiled import NG, jitted_decide  # numba: loaded when first asked

        fn = jitted_decide(self.decide_function(obs.rules), self.name)
        g = np.zeros(NG, dtype=np.int64)
        hand = np.zeros(2, dtype=np.uint64)
        legal = obs.legal.astype(np.int64)
        pair = obs.pair_legal if kind == PLAY else np.zeros(obs.n, dtype=bool)
        # the decision stream's key and counter, as Observation.random reads them
        dkey = obs.public("dkey").view(np.int64)
        turn = obs.public("turn")
        in_hand = (obs.in_hand * (1 << np.arange(obs.players))).sum(axis=1)
        out = np.empty(obs.n, dtype=np.int64)
        for j in range(obs.n):
            g[:] = (
                obs.seat[j], legal[j], pair[j], obs.top[j], obs.active_suit[j], obs.stock_size[j], obs.dealer[j],
                obs.direction[j], np.int64(obs.played[j]), -1 if card is None else card[j], obs.players,
                obs.nine_penalty, turn[j], dkey[j], in_hand[j], len(obs.hand),
            )  # fmt: skip
            hand[0] = obs.hand[0][j]
            hand[1] = obs.hand[1][j] if len(obs.hand) == 2 else 0
            out[j] = fn(
                kind,
                g,
                hand,
                np.ascontiguousarray(obs.hand_sizes[j]),
                np.ascontiguousarray(obs.totals[j]),
                np.ascontiguousarray(obs.drew_on[j]),
            )
        return out

    def play(self, obs: Observation) -> np.ndarray:
        return self._ask(obs, PLAY)

    def declare(self, obs: Observation) -> np.ndarray:
        return self._ask(obs, int(obs.kind))

    def play_drawn(self, obs: Observation, card: np.ndarray) -> np.ndarray:
        return self._ask(obs, PLAY_DRAWN, card) != 0


def decide_source(cls: type) -> Any:
    """The plain Python ``decide`` of a :class:`CompiledStrategy` class (an ``@njit`` one's source function).

    Raises
    ------
    TypeError
        If the class sets no callable ``decide``.
    """
    fn = cls.__dict__.get("decide") or next((c.__dict__["decide"] for c in cls.__mro__ if "decide" in c.__dict__), None)
    if isinstance(fn, staticmethod):
        fn = fn.__func__
    fn = getattr(fn, "py_func", fn)  # an @njit function: compile its Python source our way
    if fn is None or not callable(fn):
        raise TypeError(
            f"{cls.__name__} must set decide to a function decide(kind, g, hand, hand_sizes, totals, drew_on)"
        )
    return fn
