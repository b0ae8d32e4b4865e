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
    assert "## Luck taken out" in (one / "report.md").read_text() and not (plain / "luck.csv").exists()


def test_compare_rules_luck_refuses_ranges_in_one_line():
    result = CliRunner().invoke(app, ["compare-rules", "expert", "dump-faces", "--rules", "classic", "--rules",
                                      "hard-nines", "-n", "100", "--luck", "--ranges", "0-49"])  # fmt: skip
    assert result.exit_code == 2 and "--luck adjusts a whole run" in result.output


def test_compare_rules_luck_report_has_the_luck_section_and_quiet_prints_no_table(tmp_path):
    """report.md gets a ``Luck taken out`` section (issue 41): each seat's adjusted shift, its interval, the variance
    ratio with its interval and the corrections' z, as luck.csv holds them; ``-q`` prints no luck table."""
    out, said = _compare(tmp_path, "run", "--workers", "1", "--luck", "--luck-fit", "300")
    assert "Luck taken out" not in said  # _compare passes --quiet
    report = (out / "report.md").read_text()
    section = report[report.index("## Luck taken out") :]
    rows = [line for line in section.splitlines() if line.startswith("| hard-nines |")]
    luck = pd.read_csv(out / "luck.csv")
    assert len(rows) == len(luck) == 2
    for row, (_, r) in zip(rows, luck.iterrows(), strict=True):
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert (
            cells[4] == f"{r.adjusted_shift:+.4f}"
            and cells[5] == f"{r.adjusted_ci_low:+.4f} to {r.adjusted_ci_high:+.4f}"
        )
        assert cells[6] == f"{r.variance_ratio:.3f} [{r.variance_ratio_low:.3f}, {r.variance_ratio_high:.3f}]"
        assert cells[7] == f"{r.luck_z:+.2f}"
    assert "Unbiasedness check" in section


def test_compare_rules_luck_stopped_says_why_there_is_no_luck_table(tmp_path, monkeypatch):
    """Ctrl-C before every match was played: no luck.csv, and the screen, report.md and the manifest say why
    (before: dropped without a word); the kept_command, which plays a part of the matches, runs (no --luck)."""
    from tests.interrupt import ctrl_c_in_process

    out = tmp_path / "run"
    args = ["compare-rules", "expert", "dump-faces", "--rules", "classic", "--rules", "hard-nines", "-n", "3000",
            "--chunk-size", "500", "--workers", "1", "--no-charts", "--luck", "--out", str(out)]  # fmt: skip
    with monkeypatch.context() as patched:
        ctrl_c_in_process(patched, lambda played, kept: kept > 0)
        result = CliRunner().invoke(app, args)
    assert result.exit_code == 130, result.output
    assert "Luck not taken out: the run was stopped (Ctrl-C) before every match was played" in result.output
    assert not (out / "luck.csv").exists()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["luck"]["computed"] is False and "--luck" in manifest["command"]
    assert "--luck" not in manifest["kept_command"]
    assert "Not measured: the run was stopped (Ctrl-C)" in (out / "report.md").read_text()
    kept = manifest["kept_command"].split()[1:] + ["--out", str(tmp_path / "kept"), "--no-charts", "-q"]
    again = CliRunner().invoke(app, kept)
    assert again.exit_code == 0, again.output


def test_compare_rules_luck_stopped_while_measured_says_so_and_exits_130(tmp_path, monkeypatch):
    import signal

    from nines_sim.luck import compare

    def stopped(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - Ctrl-C as the luck's traced runs start
        signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(compare, "rules_luck", stopped)
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["compare-rules", "expert", "dump-faces", "--rules", "classic", "--rules",
                                      "hard-nines", "-n", "20", "--workers", "1", "--no-charts", "--luck", "-q",
                                      "--out", str(out)])  # fmt: skip
    assert result.exit_code == 130, result.output
    assert "Luck not taken out: stopped (Ctrl-C) while measuring the luck; no luck.csv" in result.output
    assert json.loads((out / "manifest.json").read_text())["luck"] == {
        "computed": False,
        "why": "stopped (Ctrl-C) while measuring the luck",
    }
    assert "Not measured: stopped (Ctrl-C) while measuring the luck" in (out / "report.md").read_text()


def test_a_variance_ratio_without_spread_is_said_not_printed_as_nan():
    """A paired shift that is 0 in every match (no spread) has no variance ratio (0/0): said, never 'nan'."""
    from nines_sim.luck.compare import RulesLuck

    same = np.stack([np.ones(50), np.zeros(50)], axis=1)
    gen = np.random.default_rng(3)
    corr = [gen.normal(0, 0.1, size=(50, 2)) for _ in range(2)]
    luck = RulesLuck(paired_shifts([same, same], corr), ["a", "b"], 10, 20, 0.1)
    text = "\n".join(luck.lines(["x", "y"], ["classic", "hard-nines"]))
    assert "nan" not in text and "variance ratio n/a (no spread across the matches)" in text
