"""The game's codes are defined once (nines_sim/game/codes.py); the kernel's ids and columns come from the classes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nines_sim.game import codes

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "nines_sim").rglob("*.py")) + sorted((ROOT / "strategies").glob("*.py"))
CODES = ("NINE_RANK", "RANK_ACE", "RANK_JACK", "RANK_QUEEN", "PAIR_OF_NINES", "BLOCKED", "CAPPED", "RUNNING",
         "K_PLAY", "K_DECLARE", "K_PLAY_DRAWN", "K_DEALER_DECLARE", "SID_PYTHON", "SID_USER")  # fmt: skip


@pytest.mark.parametrize("name", CODES)
def test_each_code_is_assigned_in_codes_py_only(name):
    """No module assigns a code a value of its own (an assignment, alone or in a tuple), only imports it."""
    pattern = re.compile(rf"^(?:\(?[\w, ]*\b){name}\b[\w, )]*=(?!=)", re.MULTILINE)
    where = [p.relative_to(ROOT).as_posix() for p in SOURCES if pattern.search(p.read_text(encoding="utf-8"))]
    assert where in ([], ["nines_sim/game/codes.py"]), where


def test_the_kernels_decision_kinds_are_the_strategy_interfaces():
    from nines_sim.strategy.base import DecisionKind

    assert DecisionKind is codes.DecisionKind
    assert [codes.K_PLAY, codes.K_DECLARE, codes.K_PLAY_DRAWN, codes.K_DEALER_DECLARE] == [
        DecisionKind.PLAY, DecisionKind.DECLARE, DecisionKind.PLAY_DRAWN, DecisionKind.DEALER_DECLARE
    ]  # fmt: skip


def test_kernel_ids_come_from_the_classes_and_are_distinct():
    from nines_sim.engine.seats import builtin_ids
    from nines_sim.strategy.registry import builtin_classes

    ids = builtin_ids()
    declared = {c for c in builtin_classes().values() if c.__dict__.get("kernel_id") is not None}
    assert set(ids) == declared and {c.name for c in declared} >= {"random", "expert", "suit-majority"}
    values = sorted(ids.values())
    assert len(set(values)) == len(values)
    assert codes.SID_PYTHON not in values and codes.SID_USER not in values


def test_a_subclass_of_a_built_in_is_a_python_seat():
    from nines_sim.engine.seats import seat_ids
    from nines_sim.strategies.hold_nines import HoldNines

    class Tweaked(HoldNines):
        name = "tweaked"

    assert seat_ids([HoldNines(), Tweaked()]).tolist() == [HoldNines.kernel_id, codes.SID_PYTHON]


#: Which parameter each of the kernel's column names stands for (expert_compiled reads them by name).
X_NAMES = {
    "X_PENALTY": "w_penalty", "X_FOLLOW": "w_follow", "X_BLOCK": "w_block", "X_DANGER": "danger_cards",
    "X_NEXT_FACTOR": "next_player_factor", "X_SHED_NINE_AT": "shed_nine_at", "X_SWITCH_AGAINST": "switch_against",
    "X_SPARE_NINES": "spare_nines", "X_DECLARE_POINTS": "declare_points", "X_RANK": "w_rank", "X_SHORT": "w_short",
    "X_END_CARDS": "end_cards", "X_PENALTY_END": "w_penalty_end", "X_NINE_AT_END": "nine_at_end",
    "X_SCARCE": "w_scarce", "X_DECLARE_SHORT": "declare_short",
}  # fmt: skip


def test_expert_parameter_columns_hold_their_parameters_values():
    """Give every parameter a value off its default; each X_* column of the seat's row holds its parameter's."""
    from nines_sim.engine.batch import seat_params
    from nines_sim.strategies import expert_compiled as ec
    from nines_sim.strategies.expert import Expert

    n = len(Expert.params)
    assert ec.NXP == n and sorted(getattr(ec, x) for x in X_NAMES) == list(range(n))
    values = {}
    for i, p in enumerate(Expert.params):
        if p.kind == "int":
            values[p.name] = int(p.low) + (i % int(p.high - p.low + 1))
        else:
            values[p.name] = p.low + (p.high - p.low) * (i + 1) / (n + 2)
    xp = seat_params([Expert(), Expert(**values)])
    assert xp.shape[1] == n
    for x, name in X_NAMES.items():
        default = next(p.default for p in Expert.params if p.name == name)
        assert xp[1, getattr(ec, x)] == pytest.approx(float(values[name])), x
        assert xp[0, getattr(ec, x)] == pytest.approx(float(default)), x
