"""``nines play`` shows how each hand and the match ended, in one card notation (issue 38), through Textual's Pilot."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from nines_sim.game.codes import BLOCKED
from nines_sim.game.rules import make_rules
from nines_sim.play import load
from nines_sim.play.driver import public_events, run_match
from nines_sim.play.ends import hand_ends, rule_notes
from nines_sim.play.screen_text import event_line, per_seat, shown
from nines_sim.play.tui import PlayApp
from nines_sim.strategy.base import DecisionKind
from tests.test_play_tui import SIZE, choose, keys_for, new_match, next_request, screen

#: A card written as the saved file writes it (``5D``, ``10H``): never on the screen of ``nines play``.
LETTER_CARD = re.compile(r"\b(?:10|[2-9AJQK])[CDHS]\b")


def whole_match(path, seed: int = 11, hands: int = 2):
    """Play a match by keys; return the end-of-hand screens, the match's last screen and the app."""

    async def go():
        app = PlayApp(new_match(seed, hands), path, hint_samples=16)
        ends: list[str] = []
        async with app.run_test(size=SIZE) as pilot:
            req = None
            while (req := await next_request(app, pilot, req, ends)) is not None:
                await pilot.press(*keys_for(req))
            await app.showing_end.wait()
            while app._pending() is not None:  # the last hand's end, shown once the match is over
                assert app.showing_end.is_set() and app.done.is_set()
                ends.append(screen(app))
                await pilot.press("space")
            final = screen(app)
            await pilot.press("x")  # no key but r and q means anything here: it says so
            said = app.message
            await pilot.press("r")
        return ends, final, said, app

    return asyncio.run(go())


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A whole match played by keys (seed 11, two hands): its folder, and :func:`whole_match`'s answer."""
    folder = tmp_path_factory.mktemp("ends")
    return folder, whole_match(folder / "m.json")


def test_each_hand_ends_on_a_screen_and_the_match_on_a_last_one(played):
    tmp_path, (ends, final, said, app) = played
    direct = new_match()
    out = run_match(direct, choose)
    rules, names, seat = direct.rules, direct.lineup, direct.seat
    truth = hand_ends(public_events([e for e in out.events if e[0] != "turn"], seat), rules)
    assert len(truth) == 2 and len(ends) == len(truth)  # every hand's end, the last one's too
    for text, end in zip(ends, truth):
        assert f"Hand {end.number} is over" in text
        assert event_line(end.out_move, names, seat) in text  # the card that went out
        assert f"hand penalties: {per_seat(end.penalties, names, seat)}" in text
        assert f"Totals now: {per_seat(end.totals, names, seat)}" in text
        assert "your turn" not in text and "[" not in text  # no stale board, no Python list
        assert not LETTER_CARD.search(text), text
    assert truth[0].totals == truth[0].penalties
    assert list(truth[-1].totals) == out.totals
    # the last screen: the winner, the final totals, every hand; nothing left of the last turn's board
    winner = [("you" if s == seat else f"seat {s} ({names[s]})") for s, x in enumerate(out.win_share) if x > 0]
    assert "The match is over after 2 hands" in final and f"Winner: {', '.join(winner)}" in final
    assert f"Totals: {per_seat(out.totals, names, seat)}" in final
    assert "your turn" not in final and "cards" not in final and "hand 1:" in final and "hand 2:" in final
    for s, t in enumerate(out.totals):
        assert re.search(rf"seat {s} \S+\s+total\s+{t}\b", final), final
    assert "r: review your decisions (nines review" in final and str(tmp_path / "m.json") in final
    assert said.startswith("The key 'x' does nothing here. Keys: r reviews this match, q quits")
    assert app.review_asked and app.return_code == 0  # r: nines play then reviews the saved match
    assert load(tmp_path / "m.json").finished


def test_one_card_notation_on_the_screen_the_ranking_and_the_refusals(tmp_path):
    async def go():
        app = PlayApp(new_match(seed=4), tmp_path / "n.json", hint_samples=16)
        seen = {}
        async with app.run_test(size=SIZE) as pilot:
            req = None
            while (req := await next_request(app, pilot, req)) is not None and len(seen) < 2:
                bad = [i for i, f in enumerate(req.cards) if f not in req.legal]
                if req.kind == DecisionKind.PLAY and bad and len(req.cards) < 10 and "refused" not in seen:
                    await pilot.press(str(bad[0] + 1))
                    seen["refused"] = (app.message, req.cards[bad[0]], req.top)
                if req.kind == DecisionKind.PLAY and len(req.legal) > 1 and "ranking" not in seen:
                    await pilot.press("question_mark")
                    hinted = await next_request(app, pilot, req)
                    seen["ranking"] = (str(app.query_one("#hint").render()), hinted)
                    req = hinted
                await pilot.press(*keys_for(req))
            await pilot.press("q")
        return seen

    seen = asyncio.run(go())
    message, card, top = seen["refused"]
    assert message.startswith(f"Refused. T1: {shown(card)} does not follow {shown(top)}"), message
    text, hinted = seen["ranking"]
    assert all(shown(m) in text for m, *_ in hinted.hint)
    for t in (message, text):
        assert not LETTER_CARD.search(t), t


def test_the_saved_file_says_how_it_counts_hands_and_turns(played):
    """The file of the match played by keys (the one above: one whole match played on the screen serves both)."""
    tmp_path, _ = played
    data = json.loads((tmp_path / "m.json").read_text())
    assert "count from 0 here" in data["counting"] and "count from 1" in data["counting"]
    assert load(tmp_path / "m.json").finished  # a field the loader does not need


def _deal(seq, sizes):
    return ("deal", seq, 0, sizes, 5, ())


def test_what_the_rules_did_a_nine_out_a_block_and_a_tie_break():
    rules = make_rules("classic", players=2, fixed_hands=2)
    who = ["you", "seat 1 (expert)"]
    events = [
        _deal(0, (7, 7)),
        ("play", 1, 8, 2),
        ("end", 1, (10, 0)),  # seat 1 goes out on the 9 of clubs
        _deal(1, (7, 7)),
        ("pass", 0),
        ("pass", 1),
        ("end", BLOCKED, (0, 10)),  # a block: both add
        _deal(2, (7, 7)),
        ("play", 0, 3, -1),
        ("end", 0, (0, 6)),  # the tie-break hand, every seat tied
        ("match_end", (10, 10), (1.0, 0.0)),
    ]
    first, block, tie = hand_ends(events, rules)
    assert [e.tiebreak for e in (first, block, tie)] == [False, False, True]
    assert first.totals == (10, 0) and block.totals == (10, 10) and tie.totals == (10, 10)
    assert any("went out on a 9" in n and "O1" in n for n in rule_notes(first, rules, who))
    notes = rule_notes(block, rules, who)
    assert any("Blocked (T7" in n for n in notes) and any(
        "tie-break hand among you, seat 1 (expert)" in n for n in notes
    )
    assert block.next_tiebreak == (0, 1) and block.match_end is None
    notes = rule_notes(tie, rules, who)
    assert any("adds nothing to the totals; you went out and so won the tie" in n for n in notes), notes
    assert tie.match_end is not None and not any("went out on a 9" in n for n in notes)


def test_r_on_the_last_screen_reviews_the_saved_match(tmp_path, monkeypatch):
    """What ``nines play`` does once the app quits on ``r``: the closing line, then ``nines review FILE``."""
    from types import SimpleNamespace

    from typer.testing import CliRunner

    import nines_sim.cli.play as play_cli
    import nines_sim.play.tui as tui
    from nines_sim.cli import app as cli

    class PersonPressedR:  # the app, played by the script to the end, then r on its last screen
        def __init__(self, saved, path, samples, tutor=None):  # noqa: ANN001
            self.saved, self.path, self.return_code, self.review_asked = saved, path, 0, True
            self.failure = None  # as PlayApp: a strategy's failure, which the command says (none here)

        def run(self) -> None:
            from nines_sim.play import save

            run_match(self.saved, choose, lambda s: save(s, self.path))

    terminal = SimpleNamespace(isatty=lambda: True)
    monkeypatch.setattr(play_cli, "sys", SimpleNamespace(stdin=terminal, stdout=terminal))
    monkeypatch.setattr(tui, "PlayApp", PersonPressedR)
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["play", "expert", "--players", "2", "--seed", "3", "--hands", "1", "--save", "m.json",
                                 "--samples", "8"])  # fmt: skip
    assert r.exit_code == 0, r.output
    saved = load(tmp_path / "m.json")
    assert saved.finished and f"Match over: totals: {per_seat(saved.totals, saved.lineup, 0)}." in r.output
    assert "nines review m.json --samples 8" in r.output and "decisions with a choice" in r.output
    folders = list((tmp_path / "reports").iterdir())
    assert len(folders) == 1 and (folders[0] / "manifest.json").is_file() and "results in" in r.output


def test_a_match_a_strategy_stopped_is_saved_with_a_resume_hint_that_says_to_fix_it_first(tmp_path, monkeypatch):
    """A seat's strategy failed during ``nines play``: the closing line says the strategy must be fixed before the
    match goes on (a new user followed the plain resume hint and the match stopped again at once), then the
    failure's one line."""
    from types import SimpleNamespace

    from typer.testing import CliRunner

    import nines_sim.cli.play as play_cli
    import nines_sim.play.tui as tui
    from nines_sim.cli import app as cli
    from nines_sim.engine.failures import StrategyError

    class StrategyFailed:  # the app, once the opponent's strategy raised at its first decision
        def __init__(self, saved, path, samples, tutor=None):  # noqa: ANN001
            self.saved, self.path, self.return_code, self.review_asked = saved, path, 1, False
            self.failure = StrategyError("strategy 'raiser' raised RuntimeError: too far behind")

        def run(self) -> None:
            pass

    terminal = SimpleNamespace(isatty=lambda: True)
    monkeypatch.setattr(play_cli, "sys", SimpleNamespace(stdin=terminal, stdout=terminal))
    monkeypatch.setattr(tui, "PlayApp", StrategyFailed)
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["play", "expert", "--players", "2", "--seed", "3", "--save", "m.json"])
    assert r.exit_code == 1, r.output
    said = (
        "Match saved in m.json, up to the failure; once the strategy is fixed, go on with: nines play --resume m.json"
    )
    assert said in r.output
    assert r.output.strip().splitlines()[-1] == "Error: strategy 'raiser' raised RuntimeError: too far behind"


def test_a_resumed_match_shows_only_the_ends_not_yet_seen(tmp_path):
    """Resumed after a decision of hand 2, hand 1's end is not shown again; resumed at hand 2's first decision
    (stopped on hand 1's end screen, say), it is."""
    direct = new_match()
    run_match(direct, choose)
    first_of_hand_2 = sum(k[0] == 0 for k in direct.decisions)

    async def play(app: PlayApp, stop_after: int | None) -> list[str]:
        ends: list[str] = []
        async with app.run_test(size=SIZE) as pilot:
            req, made = None, 0
            while (req := await next_request(app, pilot, req, ends)) is not None:
                if made == stop_after:
                    break
                await pilot.press(*keys_for(req))
                made += 1
            await pilot.press("q")
        return ends

    for stop, shown_again in ((first_of_hand_2 + 1, False), (first_of_hand_2, True)):
        path = tmp_path / f"r{stop}.json"
        asyncio.run(play(PlayApp(new_match(), path, hint_samples=16), stop))
        ends = asyncio.run(play(PlayApp(load(path), path, hint_samples=16), 1))
        assert any("Hand 1 is over" in e for e in ends) == shown_again, (stop, ends)


def test_a_match_of_one_fixed_hand_says_its_only_hand_is_played():
    """Before: 'The match's 1 hands are played (S3)'."""
    who = ["you", "seat 1 (expert)"]
    events = [_deal(0, (7, 7)), ("play", 1, 8, 2), ("end", 1, (10, 0)), ("match_end", (10, 0), (0.0, 1.0))]
    for hands, said in ((1, "The match's only hand is played (S3)"), (2, "The match's 2 hands are played (S3)")):
        rules = make_rules("classic", players=2, fixed_hands=hands)
        (end,) = hand_ends(events, rules)
        notes = rule_notes(end, rules, who)
        assert any(n.startswith(said) for n in notes), notes
