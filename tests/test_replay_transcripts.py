"""``nines replay`` prints, for every preset, table size, rule option and kind of seat, the text it printed
before the compiled engine became the only engine (stored in ``tests/data/replays``, see
:mod:`tests.replay_cases`): the same deals, moves, draws, declarations, scores and, for a failing plug-in,
the same position, traceback and error."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from tests.replay_cases import CASES, transcript

STORED = Path(__file__).parent / "data" / "replays"


def test_every_stored_transcript_has_a_case_and_every_preset_is_replayed():
    from nines_sim.game.rules import PRESETS

    assert sorted(p.stem for p in STORED.glob("*.txt")) == sorted(CASES)
    played = {a[a.index("--rules") + 1] if "--rules" in a else "classic" for a in CASES.values()}
    assert set(PRESETS) <= played
    seats = {
        sum(1 for x in a[: next((i for i, x in enumerate(a) if x.startswith("-")), len(a))]) for a in CASES.values()
    }
    assert set(range(2, 7)) <= seats


@pytest.mark.parametrize("name", sorted(CASES))
def test_replay_prints_the_stored_transcript(name):
    code, text = transcript(CliRunner(), app, CASES[name])
    assert code == (1 if name.startswith("fails-") else 0), text
    assert text == (STORED / f"{name}.txt").read_text()
