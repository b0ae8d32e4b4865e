"""The compiled built-ins, as the turn loop is given them: which classes decide inside the loop, and with what.

The engine knows no built-in strategy.  The built-ins' package registers its compiled decision functions in one
object (:class:`CompiledBuiltins`, the ``COMPILED`` of :data:`PROVIDER`), and the turn loop compiles in what
:func:`given` returns, as it calls the function a user's compiled plug-in gives it.  Two ways in, by what a
decision costs the loop:

- *light*: a strategy that needs only its hand, the legal set and a random word, and always plays a drawn card
  (the heuristics).  Its play and declaration are inlined into the loop's turn, one function each for all the
  light classes, which branches on the kernel id; their ids are one run of consecutive numbers.
- *heavy*: a strategy that reads the public state and its own parameters (``expert``).  Its decision is
  called out of the loop's line, or inlined into the forms of the loop for tables with such a seat; its
  parameters are the float64 row ``seat_xp[seat]``, in the order of the class's ``params``.

Each class keeps its ``kernel_id`` (other readers, such as :mod:`nines_sim.luck.walk`, name the heuristics by
it); the registration checks that the ids are distinct, clear of the engine's own (``SID_PYTHON``,
``SID_USER``) and that the light ones are consecutive.  A new compiled built-in is a class, its compiled
function and a line in the provider: nothing in :mod:`nines_sim.engine` changes.

This module loads no numba: :func:`given` imports the provider (which does) only when called.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from nines_sim.game.codes import SID_PYTHON, SID_USER

#: The module that registers the built-ins' compiled decisions (its attribute ``COMPILED``).
PROVIDER = "nines_sim.strategies.builtins_compiled"


class RegistrationError(ValueError):
    """The compiled built-ins' registration breaks a rule the turn loop relies on."""


@dataclass(frozen=True)
class CompiledBuiltins:
    """The compiled decisions of the built-in strategies, handed to the turn loop.

    Parameters
    ----------
    light : tuple of type
        The classes decided in line; their ``kernel_id`` are consecutive.
    light_play : numba dispatcher
        ``light_play(sid, h0, h1, legal, pair_ok, x) -> int``: the face (or ``PAIR_OF_NINES``) a light seat of
        kernel id ``sid`` plays, from its hand words ``h0``, ``h1`` (int64), the legal faces (int64), whether two
        9s are legal (V4, V5) and a random word ``x`` (T1, T2).
    light_declare : numba dispatcher
        ``light_declare(sid, h0, h1, x) -> int``: the suit 0-3 it declares (T3, D6).
    heavy : tuple of type
        The classes decided out of line; one id each (today one class: the loop's parameter rows are its
        ``params``).
    heavy_decide, heavy_decide_inline : numba dispatcher
        The heavy decision, compiled to be called and to be inlined: ``(kind, seat, legal, card, dkey, turn,
        dirbit, h0, h1, played, sizes, drew_on, players, fw, xp) -> int`` (a face, ``PAIR_OF_NINES``, 0/1 for a
        drawn card, or a suit); ``fw`` float64 scratch of ``FW_WIDTH`` (:mod:`~nines_sim.engine.loop_constants`),
        ``xp`` float64 the seat's parameter row.

    Raises
    ------
    RegistrationError
        If a class has no ``kernel_id`` of its own, two share one, one is the engine's ``SID_PYTHON`` or
        ``SID_USER``, the light ids are not consecutive, or there is not exactly one heavy class.
    """

    light: tuple[type, ...]
    light_play: Callable
    light_declare: Callable
    heavy: tuple[type, ...]
    heavy_decide: Callable
    heavy_decide_inline: Callable

    def __post_init__(self) -> None:
        ids = [_own_id(c) for c in self.light + self.heavy]
        if len(set(ids)) != len(ids) or {SID_PYTHON, SID_USER} & set(ids):
            raise RegistrationError(f"kernel ids must be distinct and not {SID_PYTHON} or {SID_USER}: {ids}")
        light = ids[: len(self.light)]
        if not light or light != list(range(light[0], light[0] + len(light))):
            raise RegistrationError(f"the light built-ins' kernel ids must be consecutive: {light}")
        if len(self.heavy) != 1:
            raise RegistrationError("the turn loop takes one heavy built-in (its parameters are the rows seat_xp)")

    @property
    def ids(self) -> dict[type, int]:
        """Each registered class and its kernel id."""
        return {c: _own_id(c) for c in self.light + self.heavy}

    @property
    def light_ids(self) -> tuple[int, int]:
        """The first and last kernel id of the light classes."""
        return _own_id(self.light[0]), _own_id(self.light[-1])

    @property
    def heavy_id(self) -> int:
        """The kernel id of the heavy class."""
        return _own_id(self.heavy[0])

    @property
    def heavy_params(self) -> tuple:
        """The heavy class's parameters, in the order of the columns of its rows ``seat_xp``."""
        return tuple(self.heavy[0].params)


def _own_id(cls: type) -> int:
    kid = cls.__dict__.get("kernel_id")
    if not isinstance(kid, int):
        raise RegistrationError(f"{cls.__name__} is registered as compiled but declares no kernel_id of its own")
    return kid


@cache
def given() -> CompiledBuiltins:
    """The compiled built-ins the turn loop plays: the provider's ``COMPILED`` (imported here, with numba).

    Returns
    -------
    CompiledBuiltins
    """
    return importlib.import_module(PROVIDER).COMPILED
