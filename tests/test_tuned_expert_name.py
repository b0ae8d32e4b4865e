"""``tuned-expert``, listed among the search's ``policy`` choices, is playable by name as a seat too: it is
``expert`` at the tuned classic values, the same strategy the search's rollouts play (a new user's
``nines tournament tuned-expert random`` was an unknown strategy)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.search.pimc import rollout_policy, rollout_policy_names
from nines_sim.strategy.registry import ALIASES, canonical_spec, make_lineup


def test_tuned_expert_is_a_seat_as_it_is_a_rollout_policy():
    assert "tuned-expert" in rollout_policy_names()
    seat, spelt = make_lineup(["tuned-expert", ALIASES["tuned-expert"]])
    assert type(seat) is type(spelt) and seat.name == "expert" and seat.values == spelt.values
    assert seat.values == rollout_policy("tuned-expert").values
    assert canonical_spec("tuned-expert") == canonical_spec(ALIASES["tuned-expert"])


def _summary(tmp_path: Path, seat: str) -> pd.DataFrame:
    out = tmp_path / seat[:12]
    res = CliRunner().invoke(app, ["tournament", seat, "random", "-p", "2", "-n", "40", "--seed", "3", "--quiet",
                                   "--no-charts", "--out", str(out)])  # fmt: skip
    assert res.exit_code == 0, res.output
    return pd.read_csv(out / "summary.csv").drop(columns="strategy")


def test_a_tournament_plays_tuned_expert_by_name_as_its_values_spelt_out(tmp_path):
    pd.testing.assert_frame_equal(_summary(tmp_path, "tuned-expert"), _summary(tmp_path, ALIASES["tuned-expert"]))
