"""A training run's progress in its folder: what a rerun of a stopped ``nines train`` continues from, and the check
that it is the same run (seed, rules and settings).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nines_sim.game.rules import Rules
from nines_sim.learn.model import rules_dict

if TYPE_CHECKING:
    from nines_sim.learn.collect import Samples
    from nines_sim.learn.train import TrainSettings

#: The file of a run folder that records the rounds finished, for a rerun to continue after them.
PROGRESS = "progress.json"


class ResumeError(ValueError):
    """The run folder holds a training run with other settings, seed or rules (no round of it is continued)."""


def _identity(seed: int, rules: Rules, s: TrainSettings) -> dict:
    """What a resumed run must share with the stopped one for the same numbers (``rounds`` may grow)."""
    # a run without trees is the same run as one stopped before they were learned
    # settings added later are left out at their defaults: a folder of before them is still continued
    left_out = {"rounds"} | (set() if s.trees else {"trees", "depth"}) | (set() if s.draws != "suits" else {"draws"})
    settings = {k: v for k, v in s.__dict__.items() if k not in left_out}
    return json.loads(json.dumps({"seed": seed, "rules": rules_dict(rules), "settings": settings}))


#: The values at which :func:`_identity` leaves a setting out, as a refusal names them.
LEFT_OUT_AT = {"draws": "suits", "trees": 0}


def _shown(flat: dict, key: str) -> Any:
    return flat[key] if key in flat else LEFT_OUT_AT.get(key, "(not set)")


def data_path(out: Path, rnd: int) -> Path:
    return out / "data" / f"round-{rnd}.npz"


def resume_state(out: Path, seed: int, rules: Rules, s: TrainSettings) -> dict[str, Any]:
    """The state of a stopped run in ``out`` (``rows``: the finished rounds' curve rows; ``best``: the best
    round's strength against ``expert`` and its number; ``cpu_seconds`` so far), or that of a fresh start.

    Raises
    ------
    ResumeError
        If the folder's run was trained with other settings, seed or rules.
    """
    path = out / PROGRESS
    if not path.is_file():
        return {"rows": [], "best": [-1.0, 0], "cpu_seconds": 0.0}
    try:
        state = json.loads(path.read_text())
        theirs, ours = _flat(state["identity"]), _flat(_identity(seed, rules, s))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ResumeError(f"{path} cannot be read ({exc}); use another --out or add --force") from None
    differ = [f"{k} {_shown(theirs, k)}, not {_shown(ours, k)}" for k in sorted(theirs.keys() | ours.keys())
              if theirs.get(k) != ours.get(k)]  # fmt: skip
    if differ:
        raise ResumeError(
            f"{out} holds a training run with other settings, seed or rules ({'; '.join(differ)}); rerun its "
            "command, use another --out or add --force to start over"
        )
    return state


def _flat(identity: dict) -> dict[str, Any]:
    """``seed``, each rule and each setting by its own name (the names a mismatch is told by)."""
    return {"seed": identity["seed"], **identity["rules"], **identity["settings"]}


def checkpoint(out: Path, data: Samples, rows: list[dict], best: tuple[float, int], seed: int, rules: Rules,
                s: TrainSettings) -> None:  # fmt: skip
    """After a round: its labelled data and the run's progress, so that a rerun continues after it."""
    rnd = len(rows)
    data.save(data_path(out, rnd))
    data_path(out, rnd - s.keep).unlink(missing_ok=True)  # out of every later fit's window
    state = {"identity": _identity(seed, rules, s), "rows": rows, "best": list(best),
             "cpu_seconds": rows[-1]["cpu_seconds"]}  # fmt: skip
    tmp = out / (PROGRESS + ".part")
    tmp.write_text(json.dumps(state, default=float))
    tmp.replace(out / PROGRESS)
