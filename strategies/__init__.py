"""The built-in strategies of nines-sim, one small class per module.

Every :class:`nines_sim.strategy.base.Strategy` subclass defined here with a
``name`` is found by :mod:`nines_sim.strategy.registry`; nothing needs registering by hand.
"""
