"""``nines play``'s cursor starts each decision on the first card that may be played (T1), not on card 1 whatever
it is: Enter at once plays a legal card (a new user's Enter on an illegal card 1 was refused)."""

from __future__ import annotations

import asyncio

from nines_sim.play.screen_text import move_shown
from nines_sim.play.tui import PlayApp
from nines_sim.strategy.base import DecisionKind
from tests.test_play_tui import SIZE, keys_for, new_match, next_request


def test_enter_at_once_plays_the_first_legal_card_where_card_one_is_not_legal(tmp_path):
    async def go() -> tuple:
        app = PlayApp(new_match(seed=4), tmp_path / "c.json", hint_samples=16)
        async with app.run_test(size=SIZE) as pilot:
            req = None
            while (req := await next_request(app, pilot, req)) is not None:
                if req.kind == DecisionKind.PLAY and req.cards[0] not in req.legal:
                    await pilot.press("enter")
                    got = (req, app.message)
                    break
                await pilot.press(*keys_for(req))
            await pilot.press("q")
        return got

    req, message = asyncio.run(go())
    first_legal = next(f for f in req.cards if f in req.legal)  # in hand order
    assert message == f"You: {move_shown(req.kind, first_legal)}"  # played, not refused (T1)
