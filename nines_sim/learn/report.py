"""A training run folder's ``report.md`` and learning-curve chart, drawn from its ``learning_curve.csv`` and
``manifest.json`` alone (``nines train`` writes them; ``nines report`` redraws them)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd


def rounds_kept(k: int) -> str:
    """``round 1`` or ``rounds 1-K``: the rounds a stopped run kept."""
    return "round 1" if k == 1 else f"rounds 1-{k}"


def even_share(players: int) -> str:
    """What a seat of equals wins at a table of ``players`` (every ``vs_expert`` rate is one seat's against
    ``players - 1`` expert seats), as printed: ``"an even share against expert: 0.333"`` at 3 seats. Below 0.5
    at 3 or more seats, a rate can still beat ``expert``."""
    return f"an even share against expert: {1 / players:.3f}"


def write_report(out: Path, charts: bool = True) -> None:
    """Write ``report.md`` of a training run folder and, unless not ``charts``, ``learning_curve.png``, from its
    ``learning_curve.csv`` and ``manifest.json`` alone (``nines report`` redraws them).

    Raises
    ------
    FileNotFoundError, KeyError, ValueError
        If the folder lacks one of them, or a field or column.
    """
    m = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    text = (out / "learning_curve.csv").read_text(encoding="utf-8")
    curve = pd.read_csv(out / "learning_curve.csv") if text.strip() else pd.DataFrame()
    finished, command, kept_command = not m["partial"], m["command"], m.get("kept_command")
    if charts and len(curve):
        _chart(curve, out / "learning_curve.png", m["preset"], int(m["players"]))
    status = "" if finished else " (PARTIAL: stopped by Ctrl-C; the rounds shown finished)"
    lines = [f"# Training{status}", "", f"`{command}`", "",
             f"Rules {m['preset']}, {m['players']} players; seed {m['seed']}; {even_share(int(m['players']))}.",
             ""]  # fmt: skip
    if not finished:
        k = len(curve)
        lines += [f"{rounds_kept(k).capitalize()} of {m['settings']['rounds']} finished. The command above, run "
                  f"again, continues after round {k} in this folder and ends as a run never stopped.", ""]  # fmt: skip
        if kept_command is not None:
            lines += ["This one trains exactly the rounds kept, to the same numbers:", "", "```bash", kept_command,
                      "```", ""]  # fmt: skip
    if len(curve):
        lines += [f"`model.npz` is round {m['chosen_round']}'s model, the strongest against `expert`.", "",
                  _markdown(curve), ""]  # fmt: skip
    (out / "report.md").write_text("\n".join(lines))


def _chart(curve: pd.DataFrame, path: Path, preset: str, players: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    x = curve["cpu_seconds"] / 60
    ax.errorbar(x, curve["vs_expert"], yerr=[curve["vs_expert"] - curve["vs_expert_low"],
                curve["vs_expert_high"] - curve["vs_expert"]], marker="o", label="against expert")  # fmt: skip
    if curve["vs_previous"].notna().any():
        ax.plot(x, curve["vs_previous"], marker="s", linestyle="--", label="against the previous round")
    ax.axhline(1 / players, color="grey", linewidth=0.8)
    ax.set_xlabel("training CPU minutes")
    ax.set_ylabel("win rate (95% interval)")
    ax.set_title(f"learned, {preset}, {players} players")
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _markdown(df: pd.DataFrame) -> str:
    """A data frame as a Markdown table (numbers to 4 decimals; a number there is none of, such as round 1's
    strength against the round before it, an empty cell, not 'nan')."""
    cells = [["" if isinstance(v, float) and v != v else f"{v:.4f}" if isinstance(v, float) else str(v) for v in row]
             for row in df.itertuples(index=False)]  # fmt: skip
    head = "| " + " | ".join(df.columns) + " |\n|" + "---|" * len(df.columns)
    return head + "".join("\n| " + " | ".join(r) + " |" for r in cells)
