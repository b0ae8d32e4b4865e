"""``nines play --tutor POINTS``: a move that loses more than POINTS (the review's points lost) is warned about
before it is played; choosing it again plays it, another move is judged in turn (issue 41)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import numpy as np

from nines_sim.play import load
from nines_sim.play.driver import run_match
from nines_sim.play.seat import Request
from nines_sim.play.tui import PlayApp
from nines_sim.play.tutor import tutor_warning
from nines_sim.search.verdict import Verdict
from nines_sim.strategy.base import DecisionKind
from tests.test_play_tui import SIZE, choose, keys_for, new_match, next_request

SAMPLES = 16


def test_the_driver_warns_before_a_costly_move_and_plays_it_when_confirmed_or_the_change():
    """With a limit of 0 points every move the search ranks below the best is warned about before it is played:
    the first warning is confirmed (the warned move is played), the next is answered with the search's best
    move (played with no further warning: it loses nothing); every warning's loss is above the limit."""
    m = new_match(seed=5)
    warnings, asked = [], []

    def ask(req: Request) -> int:
        asked.append(req.key)
        if req.warning is None:
            return choose(req)
        warnings.append((req.key, req.warning))
        assert req.warning.move == choose(req)  # the move chosen comes back, not another
        return req.warning.move if len(warnings) % 2 else req.warning.best

    out = run_match(m, ask, hint_samples=SAMPLES, tutor=0.0)
    assert out.finished
    assert len(warnings) >= 2, "no two costly moves in the match"
    for i, (key, w) in enumerate(warnings):
        assert w.lost > w.threshold == 0.0 and w.best != w.move
        assert m.decisions[key] == (w.move if i % 2 == 0 else w.best)
        assert asked.count(key) == 2  # asked, warned once, decided: the best move is not warned about
    plain = new_match(seed=5)
    run_match(plain, choose)
    first = warnings[0][0]  # before the first warning, the match is the one played with no tutor

    def before(d: dict) -> dict:
        return {k: v for k, v in d.items() if k < first}

    assert before(plain.decisions) == before(m.decisions)


def test_a_high_limit_warns_about_nothing():
    m, plain = new_match(seed=5), new_match(seed=5)

    def ask(req: Request) -> int:
        assert req.warning is None
        return choose(req)

    assert run_match(m, ask, hint_samples=SAMPLES, tutor=1000.0).finished
    run_match(plain, choose)
    assert m.decisions == plain.decisions


def test_the_warning_is_the_review_measure_of_points_lost():
    """The loss warned about is the verdict's best mean minus the move's, the difference's standard error taken
    sample by sample (``nines review``'s points_lost and lost_se); a warning only above the limit."""
    obs = SimpleNamespace(n=1, kind=DecisionKind.PLAY_DRAWN)  # a drawn card: play it (1) or keep it (0), T4
    values = np.array([[[3.0, 1.0, 2.0], [0.0, 1.0, 2.0]]])  # play: mean 2; keep: mean 1
    v = Verdict(np.array([[1, 0]]), values)
    w = tutor_warning(v, obs, np.array([7]), 0, 0.5)
    assert w is not None and (w.move, w.best, w.lost, w.threshold) == (0, 1, 1.0, 0.5)
    assert np.isclose(w.se, np.std([3.0, 0.0, 0.0], ddof=1) / np.sqrt(3))
    assert tutor_warning(v, obs, np.array([7]), 0, 1.0) is None  # not more than the limit
    assert tutor_warning(v, obs, np.array([7]), 1, 0.0) is None  # the best move loses nothing


def test_tutor_mode_on_the_screen_warns_and_the_same_keys_confirm(tmp_path):
    """By keys (Textual's Pilot): a warned move comes back with the warning on the screen and is not saved; the
    same keys again play it, and the file then holds it."""
    path = tmp_path / "t.json"

    async def go() -> tuple[Request, str, bool, Request | None]:
        app = PlayApp(new_match(seed=5), path, hint_samples=SAMPLES, tutor=0.0)
        async with app.run_test(size=SIZE) as pilot:
            req = None
            while (req := await next_request(app, pilot, req)) is not None:
                if req.warning is not None:
                    message = str(app.query_one("#message").render())
                    saved_before = req.key in load(path).decisions
                    await pilot.press(*keys_for(req))  # the same move again
                    after = await next_request(app, pilot, req)
                    await pilot.press("q")
                    return req, message, saved_before, after
                await pilot.press(*keys_for(req))
        raise AssertionError("no move warned about in the match")

    warned, message, saved_before, after = asyncio.run(go())
    assert "Tutor:" in message and f"loses {warned.warning.lost:.1f} points" in message
    assert not saved_before
    assert load(path).decisions[warned.key] == warned.warning.move
    assert after is None or after.key != warned.key
