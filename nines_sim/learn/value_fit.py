"""Fitting a leaf value (:mod:`nines_sim.learn.value`) on the engine's own play.

Fresh deals (the first hand of matches of a seed) are played by the rollout policy at every seat to a random
turn of the hand (:func:`nines_sim.engine.positions.play_out_leaves`), each seat's features are taken there from
its own observation, and the same positions are played on to the hand's end: the target is what the seat then
scores, the others' mean hand penalty minus its own (C2, S1), the figure a search's rollout scores.  A ridge
regression (scikit-learn) fits the weights; half of the deals are held out to report how much of the outcome's
variance the value explains.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from nines_sim.engine.position import PositionBatch
from nines_sim.game.rules import Rules
from nines_sim.learn.value import RIDGE, LeafValue, value_features
from nines_sim.strategy.base import Strategy

#: The turns of a hand at which positions are taken: uniform over 1 .. this.
MAX_STOP = 40
#: Positions taken from each deal (each at its own turn).
STOPS_PER_DEAL = 4


def dealt_positions(rules: Rules, lineup: list[Strategy], seed: int, n: int) -> PositionBatch:
    """The first hand of matches ``0 .. n-1`` of ``seed`` as dealt (turn 0), as positions.

    Each match runs on a traced compiled engine paused before its first turn
    (:meth:`~nines_sim.engine.batch.CompiledEngine.stop_at`).
    """
    from nines_sim.engine.batch import CompiledEngine
    from nines_sim.engine.position import positions_from_engine

    out = []
    for m in range(n):
        eng = CompiledEngine(rules, lineup, seed, m, 1, trace=True)
        eng.stop_at(0, 0)
        while eng.B and not eng.paused:
            eng.advance()
        out.append(positions_from_engine(eng).position(0))
    return PositionBatch.from_positions(out)


def value_data(rules: Rules, policy: Strategy, seed: int, deals: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, targets and deal numbers of positions met by ``policy`` at every seat.

    Returns
    -------
    tuple
        ``(x, y, deal)``: float64 (m, NFV), float64 (m,), int64 (m,); one row per seat of each position whose
        hand was still running at its turn.
    """
    from nines_sim.engine.positions import play_out

    P = rules.players
    lineup = [policy] * P
    leaf, dealt = value_positions(rules, lineup, seed, deals)
    state = leaf.state
    pen, _ = play_out(leaf, lineup, to="hand")
    xs, ys = [], []
    for s in range(P):
        seat = np.full(leaf.n, s, dtype=np.int64)
        xs.append(value_features(state.hands, state.ncards, state.drew_on, state.played, state.st, seat,
                                 rules.nine_penalty))  # fmt: skip
        ys.append((pen.sum(axis=1) - pen[:, s]) / (P - 1) - pen[:, s])
    return np.concatenate(xs), np.concatenate(ys).astype(np.float64), np.tile(dealt, P)


def value_positions(
    rules: Rules, lineup: list[Strategy], seed: int, deals: int, play: Callable | None = None
) -> tuple[PositionBatch, np.ndarray]:
    """The positions a value is fitted on: each of ``deals`` fresh deals played by ``lineup`` to
    :data:`STOPS_PER_DEAL` random turns (1 .. :data:`MAX_STOP`), those whose hand still runs there.

    ``play``: how the deals are played to their turns (default
    :func:`~nines_sim.engine.positions.play_out_leaves`; a study may keep the draw log, which it does not).

    Returns
    -------
    tuple
        ``(positions, deal)``: a PositionBatch of ``m`` positions and int64 (m,), the deal each came from.
    """
    from nines_sim.engine.positions import play_out_leaves

    start = dealt_positions(rules, lineup, seed, deals)
    rows = np.repeat(np.arange(deals), STOPS_PER_DEAL)
    stop = np.random.default_rng([seed, 0x7A1E]).integers(1, MAX_STOP + 1, size=rows.size)
    _, stopped, leaves = (play or play_out_leaves)(start.take(rows), lineup, stop)
    keep = np.flatnonzero(stopped)
    return PositionBatch(rules, state=leaves).take(keep), rows[keep]


def fit_value(rules: Rules, policy_name: str, seed: int, deals: int, command: str = "") -> LeafValue:
    """Fit a leaf value for ``policy_name``'s rollouts under ``rules`` (:func:`value_data`, ridge regression).

    The deals of even number are fitted, the odd ones held out: ``meta`` reports the held-out share of
    variance explained (``r2_held_out``) and the rows used.
    """
    from sklearn.linear_model import Ridge

    from nines_sim.search.pimc import rollout_policy

    x, y, deal = value_data(rules, rollout_policy(policy_name), seed, deals)
    fit = deal % 2 == 0
    model = Ridge(alpha=RIDGE, fit_intercept=False).fit(x[fit], y[fit])
    held = ~fit
    resid = y[held] - model.predict(x[held])
    r2 = 1.0 - float(resid.var() / y[held].var())
    w = np.ascontiguousarray(Ridge(alpha=RIDGE, fit_intercept=False).fit(x, y).coef_, dtype=np.float64)
    meta = {"policy": policy_name, "command": command, "seed": seed, "deals": deals, "rows": int(y.size),
            "r2_held_out": round(r2, 4)}  # fmt: skip
    if policy_name == "learned":  # the value predicts this model's play: a new shipped model makes it stale
        from nines_sim.learn.model import shipped

        meta["model_digest"] = shipped(rules)[0].digest
    return LeafValue(w, rules, meta)


#: Deals each shipped value was fitted on.
SHIPPED_DEALS = 4000


def main(
    preset: str = typer.Argument(..., help="the rules' preset (classic, hard-nines, ...)"),
    players: int = typer.Argument(..., help="seats at the table"),
    policy: str = typer.Argument(..., help="the rollout policy the value predicts (expert, learned)"),
    deals: int = typer.Option(SHIPPED_DEALS, help="fresh deals to take positions from"),
    seed: int = typer.Option(1, help="the seed of the deals and of the turns the positions are taken at"),
    out: Annotated[Path | None, typer.Option(help="the file to write (default: the shipped value's place)")] = None,
) -> None:
    """Fit a leaf value and write it: ``python -m nines_sim.learn.value_fit classic 2 learned``."""
    from nines_sim.game.rules import make_rules
    from nines_sim.learn.value import SHIPPED

    rules = make_rules(preset, players=players)
    command = f"python -m nines_sim.learn.value_fit {preset} {players} {policy} --deals {deals} --seed {seed}"
    value = fit_value(rules, policy, seed, deals, command)
    path = out or SHIPPED / f"{preset}-{players}-{policy}.npz"
    value.save(path)
    typer.echo(f"{path}: held-out R^2 {value.meta['r2_held_out']}, {value.meta['rows']} rows")


if __name__ == "__main__":
    typer.run(main)
