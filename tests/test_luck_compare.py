"""``nines compare-rules --luck``: the paired shift of each seat's win rate with the luck taken out."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.luck.compare import paired_shifts


def test_zero_corrections_give_exactly_the_plain_shift():
    """With corrections of 0 (a constant value) the adjusted shift is the plain one and the variance ratio 1."""
    gen = np.random.default_rng(4)
    shares = [gen.integers(0, 2, size=(200, 1)).astype(float) for _ in range(2)]
    shares = [np.hstack([s, 1 - s]) for s in shares]
    zero = [np.zeros((200, 3, 2)), np.zeros((200, 3, 2))]
    for s in paired_shifts(shares, zero):
        e = s.estimate
        assert e.adjusted == e.win_rate and e.variance_ratio == 1.0 and e.luck_z == 0.0


def test_corrections_that_equal_the_shares_remove_all_the_variance_of_the_shift():
    """A correction that is each rule set's share minus its mean leaves an adjusted difference of constant value."""
    gen = np.random.default_rng(5)
    shares = [np.stack([gen.random(300), gen.random(300)], axis=1) for _ in range(2)]
    corr = [s - s.mean(axis=0) for s in shares]
    for s in paired_shifts(shares, corr):
        e = s.estimate
        assert abs(e.adjusted - e.win_rate) < 1e-12 and e.adjusted_ci[1] - e.adjusted_ci[0] < 1e-9


def _compare(tmp_path, name, *extra):
    out = tmp_path / name
    args = ["compare-rules", "expert", "dump-faces", "--rules", "classic", "--rules", "hard-nines", "-n", "600",
            "--seed", "2", "--out", str(out), "--no-charts", "--quiet", *extra]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return out, result.output


def test_compare_rules_luck_keeps_the_plain_tables_and_is_identical_for_any_workers(tmp_path):
    """``--luck`` writes luck.csv (the same for 1 and 2 workers and any batch size), whose plain shift is
    comparison.csv's paired change, leaves comparison.csv byte for byte, and records the reserved matches."""
    plain, _ = _compare(tmp_path, "plain", "--workers", "1")
    one, said = _compare(tmp_path, "one", "--workers", "1", "--luck", "--luck-fit", "300")
    two, _ = _compare(tmp_path, "two", "--workers", "2", "--batch-size", "77", "--luck", "--luck-fit", "300")
    assert (one / "luck.csv").read_bytes() == (two / "luck.csv").read_bytes()
    assert (one / "comparison.csv").read_bytes() == (plain / "comparison.csv").read_bytes()
    luck = pd.read_csv(one / "luck.csv")
    table = pd.read_csv(one / "comparison.csv")
    changed = table[table.rule_set == "hard-nines"].delta_win_rate.to_numpy()
    np.testing.assert_allclose(luck["shift"].to_numpy(), changed, atol=1e-9)
    assert (luck.adjusted_ci_low < luck.adjusted_shift).all() and (luck.adjusted_shift < luck.adjusted_ci_high).all()
    manifest = json.loads((one / "manifest.json").read_text())
    assert manifest["luck"]["fit_matches"]["start"] >= 10**10 and "--luck" in manifest["command"]
    assert "Luck taken out" in said and not (plain / "luck.csv").exists()


def test_compare_rules_luck_refuses_ranges_in_one_line():
    result = CliRunner().invoke(app, ["compare-rules", "expert", "dump-faces", "--rules", "classic", "--rules",
                                      "hard-nines", "-n", "100", "--luck", "--ranges", "0-49"])  # fmt: skip
    assert result.exit_code == 2 and "--luck adjusts a whole run" in result.output
