"""``nines play`` driven as a person would: Textual's pilot, and one run through a pseudo-terminal (issue 26)."""

from __future__ import annotations

import asyncio
import re
import sys

import pytest

from nines_sim.game.cards import card_name
from nines_sim.game.rules import make_rules
from nines_sim.play import SavedMatch, load, save
from nines_sim.play.driver import run_match
from nines_sim.play.screen_text import shown
from nines_sim.play.seat import Request
from nines_sim.play.tui import PlayApp
from nines_sim.strategy.base import DecisionKind

SIZE = (110, 40)


def new_match(seed: int = 11, hands: int = 2) -> SavedMatch:
    return SavedMatch(make_rules("classic", players=3, fixed_hands=hands), seed, 1, ["expert", "you", "dump-faces"])


def choose(req: Request) -> int:
    """The scripted person: the first legal card in hand order, hearts after a 9, a drawn card kept."""
    if req.kind == DecisionKind.PLAY:
        return next(f for f in req.cards if f in req.legal)
    if req.kind == DecisionKind.PLAY_DRAWN:
        return 0
    return 2


def keys_for(req: Request) -> list[str]:
    """The keys that make :func:`choose`'s move on the screen."""
    if req.kind == DecisionKind.PLAY:
        n = req.cards.index(choose(req)) + 1
        digits = list(str(n))
        return digits if n * 10 > len(req.cards) else [*digits, "enter"]
    if req.kind == DecisionKind.PLAY_DRAWN:
        return ["k"]
    return ["h"]


async def next_request(app: PlayApp, pilot, previous: Request | None, ends: list[str] | None = None) -> Request | None:
    """Wait (on the app's events) for a new decision of the person; None once the match thread is over.

    The end of a hand that comes first is dismissed with a key (its log's text appended to ``ends``)."""
    while True:
        waiters = [asyncio.ensure_future(e.wait()) for e in (app.waiting, app.done, app.showing_end)]
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        for w in waiters:
            w.cancel()
        if app.done.is_set():
            return None
        if app.showing_end.is_set():
            assert not app.waiting.is_set()  # the decision waits until the end of the hand was seen
            if ends is not None:
                ends.append(screen(app))
            await pilot.press("space")
            continue
        if app.request is not previous and app.waiting.is_set():
            return app.request
        await pilot.pause()


def screen(app: PlayApp) -> str:
    """What the header, the log and the prompt show."""
    return "\n".join(str(app.query_one(f"#{w}").render()) for w in ("seats", "board", "log", "prompt"))


async def drive(
    app: PlayApp, stop_after: int | None = None, quit_key: str = "q", boards: list[str] | None = None
) -> list[Request]:
    """Play by keys until the match ends (or quit after ``stop_after`` decisions); the requests seen (and in
    ``boards``, if given, the board's text as each was asked)."""
    seen: list[Request] = []
    async with app.run_test(size=SIZE) as pilot:
        req = None
        while (req := await next_request(app, pilot, req)) is not None:
            if stop_after is not None and len(seen) == stop_after:
                await pilot.press(quit_key)
                return seen
            seen.append(req)
            if boards is not None:
                boards.append(str(app.query_one("#board").render()))
            await pilot.press(*keys_for(req))
        await pilot.press("q")
    return seen


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """A whole match played by keys, and the same match played by the script without a screen; the board's text
    at each decision."""
    path = tmp_path_factory.mktemp("tui") / "live.json"
    m = new_match()
    app = PlayApp(m, path, hint_samples=16)
    boards: list[str] = []
    seen = asyncio.run(drive(app, boards=boards))
    direct = new_match()
    out = run_match(direct, choose)
    return app, seen, path, out, direct, boards


def test_scripted_match_by_keys_reaches_its_end_as_the_script_does(live):
    app, seen, path, out, direct, _ = live
    assert app.outcome is not None and app.outcome.finished
    saved = load(path)
    assert saved.finished and saved.totals == out.totals and len(seen) == len(direct.decisions)
    assert saved.decisions == direct.decisions
    assert app.outcome.events == out.events


def test_replay_of_the_saved_match_equals_the_live_one(live):
    app, _, path, _, _, _ = live
    again = run_match(load(path))
    assert again.finished and again.events == app.outcome.events and again.totals == app.outcome.totals


def test_illegal_keys_are_refused_with_their_clause(tmp_path):
    path = tmp_path / "i.json"

    async def go() -> dict:
        app = PlayApp(new_match(seed=4), path, hint_samples=16)
        got: dict = {}
        async with app.run_test(size=SIZE) as pilot:
            req = None
            while (req := await next_request(app, pilot, req)) is not None and len(got) < 3:
                bad = [i for i, f in enumerate(req.cards) if f not in req.legal]
                if req.kind == DecisionKind.PLAY and bad and "T1" not in got and len(req.cards) < 10:
                    before = dict(app.saved.decisions)
                    await pilot.press(str(bad[0] + 1))
                    got["T1"] = (app.message, app.saved.decisions == before, app.request is req)
                    await pilot.press("x")
                    got["x"] = (app.message, app.saved.decisions == before, app.request is req)
                if req.kind == DecisionKind.DECLARE and "T3" not in got:
                    await pilot.press("1")
                    got["T3"] = app.message
                await pilot.press(*keys_for(req))
            await pilot.press("q")
        return got

    got = asyncio.run(go())
    message, unchanged, same = got["T1"]
    assert message.startswith("Refused. T1:") and unchanged and same
    message, unchanged, same = got["x"]  # x is no draw (a draw comes only with no legal card): it says which keys work
    assert message.startswith("The key 'x' does nothing here. Keys: 1-") and "play a card" in message, message
    assert unchanged and same
    assert got.get("T3", "Refused. T3:").startswith("Refused. T3:")  # a digit while declaring, if the person did


def test_quit_saves_and_resume_goes_on_to_the_same_end(live, tmp_path):
    """q and Ctrl-C after the same four decisions save the same file byte for byte, so one resume of it (to the
    match's end, by keys) is the resume of either."""
    _, _, _, out, direct, _ = live
    files = {}
    for quit_key in ("q", "ctrl+c"):
        path = tmp_path / f"r-{quit_key}.json"
        m = new_match()
        stopped = PlayApp(m, path, hint_samples=16)
        first = asyncio.run(drive(stopped, stop_after=4, quit_key=quit_key))
        saved = load(path)
        assert len(first) == 4 and len(saved.decisions) == 4 and not saved.finished
        assert stopped.return_code == {"q": 0, "ctrl+c": 130}[quit_key]  # the exit code of nines play
        files[quit_key] = path.read_bytes()
    assert files["ctrl+c"] == files["q"]
    path = tmp_path / "r-ctrl+c.json"
    app = PlayApp(load(path), path, hint_samples=16)
    rest = asyncio.run(drive(app))
    assert rest[0].key not in {r.key for r in first}  # it goes on where it stopped
    assert len(first) + len(rest) == len(direct.decisions)
    assert app.outcome.finished and app.outcome.events == out.events and load(path).decisions == direct.decisions


def test_question_mark_shows_the_ranking(tmp_path):
    async def go():
        app = PlayApp(new_match(seed=5), tmp_path / "h.json", hint_samples=16)
        async with app.run_test(size=SIZE) as pilot:
            req = None
            while (req := await next_request(app, pilot, req)) is not None:
                if req.kind == DecisionKind.PLAY and len(req.legal) > 1:
                    await pilot.press("question_mark")
                    hinted = await next_request(app, pilot, req)
                    text = str(app.query_one("#hint").render())
                    await pilot.press("q")
                    return hinted, text
                await pilot.press(*keys_for(req))
        raise AssertionError("no choice of plays in the match")

    hinted, text = asyncio.run(go())
    assert hinted.hint is not None and sorted(m for m, *_ in hinted.hint) == sorted(hinted.legal)
    assert "best" in text and "ranking" in text


def test_too_small_a_terminal_says_so(tmp_path):
    async def go():
        app = PlayApp(new_match(), tmp_path / "s.json", hint_samples=16)
        async with app.run_test(size=(60, 20)) as pilot:
            await next_request(app, pilot, None)
            small = app.query_one("#small")
            shown = small.display, str(small.render()), app.query_one("#game").display
            await pilot.press(*keys_for(app.request))  # ignored: the person cannot see the table
            assert app.saved.decisions == {} and app.waiting.is_set()
            await pilot.press("q")
        return shown

    displayed, text, game = asyncio.run(go())
    assert displayed and not game and "too small" in text and "80x24" in text


async def _screen_state(app: PlayApp) -> tuple[bool, bool, str]:
    """(warning shown, board shown, warning text)."""
    small = app.query_one("#small")
    return small.display, app.query_one("#game").display, str(small.render())


@pytest.mark.parametrize("start_small", [False, True])
def test_each_resize_is_heard_at_once(tmp_path, start_small):
    """Every resize decides at once what is shown and whether keys count (the size now, never the one before)."""
    path = tmp_path / "z.json"
    big, small = (80, 24), (50, 12)

    async def expect_small(app: PlayApp, pilot) -> None:
        shown, game, text = await _screen_state(app)
        assert shown and not game and "too small: 50x12" in text
        before = dict(app.saved.decisions)
        await pilot.press(*keys_for(app.request))  # ignored: the person cannot see the table
        assert app.saved.decisions == before and load(path).decisions == before and app.waiting.is_set()

    async def expect_big_and_play(app: PlayApp, pilot) -> Request | None:
        shown, game, _ = await _screen_state(app)
        assert game and not shown
        req = app.request
        await pilot.press(*keys_for(req))  # a legal move at exactly 80x24: played and saved
        assert app.saved.decisions[req.key] == choose(req) and load(path).decisions[req.key] == choose(req)
        return await next_request(app, pilot, req)

    async def go() -> None:
        app = PlayApp(new_match(), path, hint_samples=16)
        async with app.run_test(size=small if start_small else big) as pilot:
            await next_request(app, pilot, None)
            if start_small:
                await expect_small(app, pilot)
                await pilot.resize_terminal(*big)
                assert await expect_big_and_play(app, pilot) is not None
                await pilot.resize_terminal(*small)
                await expect_small(app, pilot)
            else:
                await pilot.resize_terminal(*small)
                await expect_small(app, pilot)
                await pilot.resize_terminal(*big)
                assert await expect_big_and_play(app, pilot) is not None
            await pilot.press("q")

    asyncio.run(go())


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
@pytest.mark.parametrize(("quit_key", "exit_code"), [("q", 0), ("\x03", 130)], ids=["q", "ctrl-c"])
def test_end_to_end_in_a_pseudo_terminal(tmp_path, quit_key, exit_code):
    """Keys in through a pseudo-terminal, screen text out: a refusal, a play, q or Ctrl-C, the file, the exit code."""
    pexpect = pytest.importorskip("pexpect")
    path = tmp_path / "pty.json"
    for seed in range(100):  # the first seed where the person plays first and holds a card that does not follow
        m = SavedMatch(make_rules("classic", players=2, fixed_hands=1), seed, 0, ["you", "expert"])
        first = run_match(m).pending  # what the person sees first (no decision made)
        if first.kind == DecisionKind.PLAY and set(first.cards) - set(first.legal) and len(first.cards) < 10:
            break
    legal = next(i for i, f in enumerate(first.cards) if f in first.legal)
    illegal = next(i for i, f in enumerate(first.cards) if f not in first.legal)
    cmd = [sys.executable, "-m", "nines_sim", "play", "expert", "--players", "2", "--seed", str(seed), "--hands", "1",
           "--save", str(path)]  # fmt: skip
    child = pexpect.spawn(cmd[0], cmd[1:], dimensions=(40, 110), env={"TERM": "xterm-256color", "PATH": ""},
                          encoding="utf-8", timeout=120)  # fmt: skip
    try:
        child.expect("Play a card")
        child.send(str(illegal + 1))
        child.expect(r"Refused\. T1")
        child.send(str(legal + 1))
        child.expect(f"You: {shown(first.cards[legal])}")
        child.send(quit_key)
        child.expect("Match saved in")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == exit_code and child.signalstatus is None
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", child.before or "")
    assert "go on with: nines play --resume" in text
    saved = load(path)
    assert list(saved.decisions.values()) == [first.cards[legal]]
    assert list(saved.decisions) == [first.key]


def test_saved_file_is_written_before_the_first_move(tmp_path):
    path = tmp_path / "first.json"
    m = new_match()
    save(m, path)
    assert load(path).decisions == {} and not load(path).finished


def test_the_board_numbers_hands_and_turns_as_replay_does(live):
    """The board's ``hand H, turn T`` is where ``nines replay FILE`` prints the person's move (both from 1): every
    play of the match played by keys (both hands), its board as it was asked."""
    _, seen, path, _, _, shown_boards = live
    boards = list(zip(seen, shown_boards, strict=True))
    from typer.testing import CliRunner

    from nines_sim.cli import app as cli

    replay = CliRunner().invoke(cli, ["replay", str(path)])
    assert replay.exit_code == 0, replay.output
    plays = [(req, board) for req, board in boards if req.kind == DecisionKind.PLAY]
    assert plays and all("turn 0" not in board for _, board in boards)
    assert {req.hand for req, _ in plays} == {0, 1}
    for req, board in plays:
        numbers = re.search(r"hand (\d+), turn (\d+)", board)
        assert numbers is not None and numbers.groups() == (str(req.hand + 1), str(req.turn + 1)), board
        hand = replay.output.split(f"== hand {numbers[1]}: ")[1].split("== ")[0]
        assert f"turn {numbers[2]}: seat 1 (you) plays {card_name(choose(req))}" in hand, (board, hand)


def test_the_screen_says_while_the_engine_compiles_then_what_it_said_before(tmp_path, monkeypatch):
    """A first game after installing waits for the engine's trace form to compile (issue 42: ten seconds of an empty
    board): while numba compiles in the match's thread the screen says so, and afterwards what it said before.  The
    compile is numba's own event, held open until the screen was read (no timing)."""
    import threading

    from numba import njit
    from numba.core import event

    from nines_sim.play import tui
    from nines_sim.play.driver import Outcome

    def play_slots_trace(x):  # a dispatcher named as the form a first game compiles
        return x

    begun, release = threading.Event(), threading.Event()

    def compiling_match(saved, ask, on_decision, samples, tutor=None):  # noqa: ANN001, ANN202 - run_match's place
        data = {"dispatcher": njit(play_slots_trace), "args": None, "return_type": None}
        with event.trigger_event("numba:compile", data=data):
            begun.set()  # the app has heard the start by now: its thread waits for the app to take the notice
            release.wait()
        return Outcome([], False)

    monkeypatch.setattr(tui, "run_match", compiling_match)

    async def go() -> tuple[str, str]:
        app = PlayApp(new_match(), tmp_path / "c.json", hint_samples=16)
        async with app.run_test(size=SIZE) as pilot:
            try:
                while not begun.is_set():
                    await pilot.pause()
                during = str(app.query_one("#message").render())
            finally:
                release.set()
            await app.done.wait()
            after = str(app.query_one("#message").render())
            await pilot.press("q")
        return during, after

    during, after = asyncio.run(go())
    assert "Compiling the engine (play_slots_trace)" in during and "first game only" in during, during
    assert after == ""
