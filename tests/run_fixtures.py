"""A hand-made tournament run folder, written as the tournament runner writes one (every CSV and the manifest),
for the tests that draw charts and reports from a folder alone (``test_charts_report.py``,
``test_chart_labels.py``): no simulation; and :func:`draw_once`, a folder's charts drawn once for a module's tests."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from nines_sim.results.stats import Z95, wilson_array


def _wilson(k: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return wilson_array(k, n)


def _pairwise_row(comparison: str, a: str, b: str, matches: int, estimate: float, se: float, p_holm: float) -> dict:
    return {
        "comparison": comparison,
        "a": a,
        "b": b,
        "matches": matches,
        "estimate": estimate,
        "se": se,
        "ci_low": estimate - Z95 * se,
        "ci_high": estimate + Z95 * se,
        "test": "exact McNemar" if comparison == "paired-difference" else "exact binomial",
        "p_value": p_holm / 2,  # any value below p_holm: only p_holm is reported
        "p_holm": p_holm,
        "significant": p_holm < 0.05,
    }


def make_run(folder: Path, fmt: str = "table", partial: bool = False) -> Path:
    """Write a small run folder as the tournament runner would: every CSV and the manifest.

    ``fmt="table"``: 4 seats, random in seats 0-2 and hold-nines in seat 3.
    ``fmt="round-robin"``: 3 strategies heads-up, with ``head_to_head.csv``.
    """
    rng = np.random.default_rng(7)
    folder.mkdir(parents=True, exist_ok=True)
    # matches is per game; a round robin of 3 strategies plays 3 games (pairs) of 400 heads-up matches.
    requested = 1000 if fmt == "table" else 400
    games = [{"key": "0"}] if fmt == "table" else [{"key": k} for k in ("0-1", "0-2", "1-2")]
    played = (600 if partial else requested) if fmt == "table" else 1200
    if fmt == "table":
        strategies = ["random", "random", "random", "hold-nines"]
        players = 4
        wins = np.array([130.0, 140.5, 149.5, 180.0]) * played / 600
        matches = np.full(4, played)
    else:
        strategies = ["random", "hold-nines", "dump-faces"]
        players = 2
        # 3 pairs x 400 heads-up matches: each strategy plays 800, and the 1200 wins add up.
        wins = np.array([300.0, 520.0, 380.0])
        matches = np.full(3, 800)
    _write_summary(folder, strategies, wins, matches, rng)
    _write_hands(folder, played)
    _write_scores(folder, strategies, rng)
    _write_seats(folder, players, played)
    _write_pairwise(folder, fmt, strategies, wins, played)
    _write_manifest(folder, fmt, strategies, players, requested, played, games, partial)
    return folder


def _write_summary(
    folder: Path, strategies: list[str], wins: np.ndarray, matches: np.ndarray, rng: np.random.Generator
) -> None:
    """``summary.csv``: each seat's wins with their interval and the other figures (drawn from ``rng``)."""
    n = len(strategies)
    low, high = _wilson(wins, matches)
    pd.DataFrame(
        {
            "position": np.arange(n),
            "strategy": strategies,
            "matches": matches,
            "wins": wins,
            "win_rate": wins / matches,
            "win_rate_low": low,
            "win_rate_high": high,
            "mean_total": 100 + rng.uniform(0, 20, n),
            "sd_total": rng.uniform(20, 30, n),
            "go_out_rate": rng.uniform(0.15, 0.35, n),
            "mean_hand_penalty": rng.uniform(10, 20, n),
        }
    ).to_csv(folder / "summary.csv", index=False)


def _write_hands(folder: Path, played: int) -> None:
    """``hands.csv``: the hands' figures of the whole run."""
    pd.DataFrame(
        [
            {
                "hands": 6 * played,
                "mean_turns_per_hand": 23.4,
                "mean_hands_per_match": 6.0,
                "blocked_rate": 0.012,
                "capped_hands": 0,
                "reshuffles_per_hand": 0.31,
                "nine_starter_rate": 0.077,
                "first_player_go_out_rate": 0.27,
            }
        ]
    ).to_csv(folder / "hands.csv", index=False)


def _write_scores(folder: Path, strategies: list[str], rng: np.random.Generator) -> None:
    """``score_distribution.csv``: final totals and hand penalties of each strategy."""
    rows = []
    for name in dict.fromkeys(strategies):
        for points in range(100, 160, 3):
            rows.append({"strategy": name, "kind": "final_total", "points": points, "count": int(rng.integers(1, 40))})
        for points in range(0, 90):
            count = int(rng.integers(0, 50)) if points else 900
            if count:
                rows.append({"strategy": name, "kind": "hand_penalty", "points": points, "count": count})
    pd.DataFrame(rows).to_csv(folder / "score_distribution.csv", index=False)


def _write_seats(folder: Path, players: int, played: int) -> None:
    """``seat_go_out.csv``: how often each seat from the dealer went out."""
    hands = np.full(players, 6 * played)
    go_outs = (hands * np.linspace(0.28, 0.22, players)).astype(np.int64)
    pd.DataFrame(
        {
            "seat_from_dealer": np.arange(1, players + 1),
            "hands": hands,
            "go_outs": go_outs,
            "go_out_rate": go_outs / hands,
        }
    ).to_csv(folder / "seat_go_out.csv", index=False)


def _write_pairwise(folder: Path, fmt: str, strategies: list[str], wins: np.ndarray, played: int) -> None:
    """``pairwise.csv``, and a round robin's ``head_to_head.csv``."""
    if fmt == "table":
        pairwise = [
            _pairwise_row("paired-difference", "3:hold-nines", "0:random", played, 0.05, 0.01, 0.0004),
            _pairwise_row("paired-difference", "3:hold-nines", "1:random", played, 0.0663, 0.02, 0.012),
            _pairwise_row("paired-difference", "2:random", "1:random", played, 0.015, 0.02, 0.9),
            _pairwise_row("vs-fair-share", "3:hold-nines", "fair share", played, 0.05, 0.015, 0.003),
            _pairwise_row("vs-fair-share", "0:random", "fair share", played, -0.033, 0.02, 0.3),
        ]
    else:
        pairwise = [
            _pairwise_row("head-to-head", "hold-nines", "random", 400, 0.2, 0.025, 0.00001),
            _pairwise_row("head-to-head", "dump-faces", "random", 400, 0.01, 0.025, 0.7),
            _pairwise_row("head-to-head", "dump-faces", "hold-nines", 400, -0.09, 0.025, 0.001),
            _pairwise_row("vs-fair-share", "random", "fair share", 800, -0.1, 0.018, 0.00002),
        ]
        h2h = []
        for i, s in enumerate(strategies):
            for j, o in enumerate(strategies):
                if i != j:
                    rate = float(np.clip(0.5 + 0.1 * (wins[i] - wins[j]) / wins.mean(), 0, 1))
                    lo, hi = _wilson(np.array([rate * 400]), np.array([400]))
                    h2h.append(
                        {
                            "strategy": s,
                            "opponent": o,
                            "matches": 400,
                            "win_rate": rate,
                            "win_rate_low": lo[0],
                            "win_rate_high": hi[0],
                        }
                    )
        pd.DataFrame(h2h).to_csv(folder / "head_to_head.csv", index=False)
    pd.DataFrame(pairwise).to_csv(folder / "pairwise.csv", index=False)


def _write_manifest(
    folder: Path, fmt: str, strategies: list[str], players: int, requested: int, played: int, games: list, partial: bool
) -> None:
    """``manifest.json``, as the runner writes it."""
    rules = {
        "players": players,
        "nine_penalty": 25,
        "hand_sizes": [7, 7, 7, 5, 5],
        "draw_rule": "one",
        "skip_reverse": False,
        "decks": 1,
        "pair_of_nines": False,
        "no_nine_out": False,
        "nine_on_nine": True,
        "block_rule": "pass-circle",
        "tie_rule": "playoff",
        "target": 100,
        "fixed_hands": 0,
        "turn_cap": 10000,
    }
    # As the runner writes it: only a table has a lineup; a round robin lists its strategies.
    lineup = strategies if fmt == "table" else None
    manifest = {
        "command": f"nines tournament {' '.join(strategies)} --format {fmt} --preset hard-nines "
        f"-n {requested} --seed 42",
        "version": "0.1.0",
        "seed": 42,
        "format": fmt,
        "rules": rules,
        "preset": "hard-nines",
        "lineup": lineup,
        "strategies": list(dict.fromkeys(strategies)),
        "players": players,
        "matches": requested,
        "games": games,
        "matches_played": played,
        "workers": 2,
        "batch_size": 4096,
        "wall_seconds": 75.5,
        "matches_per_s": played / 75.5,
        "python": "3.11.2",
        "numpy": np.__version__,
        "partial": partial,
        "started": "2025-01-01T12:00:00",
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")


def comparison_figures(c: object) -> dict[str, object]:
    """Every chart of a loaded rule comparison (``folders.load_comparison``) as a figure, by name, drawn by the
    functions that ``save_all_comparison`` uses."""
    from nines_sim.reporting import charts

    figs = {
        "by rule set": charts.plot_win_rates_by_rule_set(
            charts.win_rates_by_rule_set_data(c.comparison, c.rule_sets, c.players)
        ),
        "shifts": charts.plot_shifts(charts.shift_data(c.comparison, c.rule_sets)),
        "totals": charts.plot_final_totals_by_rule_set(
            charts.final_totals_by_rule_set_data(c.score_distribution, c.rule_sets)
        ),
    }
    if c.sweep is not None:
        figs["sweep"] = charts.plot_sweep(charts.sweep_data(c.comparison, c.rule_sets, c.sweep, c.players))
    return figs


@dataclass(frozen=True)
class Drawn:
    """A folder whose charts were drawn once for a test module: the paths the drawing function returned and the
    pyplot figures open before and after it (equal when it closes its figures)."""

    folder: Path
    paths: list[Path]
    open_before: set[int]
    open_after: set[int]

    def copy(self, tmp_path: Path) -> Path:
        """A copy of the folder, run files and charts, for a test that writes into it."""
        return Path(shutil.copytree(self.folder, tmp_path / self.folder.name))


def draw_once(save_all: Callable[[Path], list[Path]], folder: Path) -> Drawn:
    """``save_all(folder)`` (``charts.save_all`` or ``charts.save_all_comparison``), noting the open figures around
    it: one drawing shared by the tests that read a folder's charts, each of which drew them again before."""
    import matplotlib.pyplot as plt

    open_before = set(plt.get_fignums())  # other tests in this process may leave figures open
    paths = save_all(folder)
    return Drawn(folder, paths, open_before, set(plt.get_fignums()))
