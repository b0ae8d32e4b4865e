"""The saved match and the match driver of ``nines play`` (issue 26): replay, resume, bad files, refusals."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from nines_sim.cli import app
from nines_sim.game.cards import card_name, parse_card
from nines_sim.game.rules import make_rules
from nines_sim.play import HINT, SavedMatch, SavedMatchError, Stop, load, refusal, save
from nines_sim.play.driver import run_match
from nines_sim.play.seat import Request
from nines_sim.strategy.base import PAIR_OF_NINES, DecisionKind

runner = CliRunner()


def script(req: Request) -> int:
    """A person who plays their highest legal card, keeps drawn cards and always declares hearts."""
    if req.kind == DecisionKind.PLAY:
        return req.legal[-1]
    if req.kind == DecisionKind.PLAY_DRAWN:
        return 0
    return 2


def new_match(players: int = 3, seed: int = 7, seat: int = 1) -> SavedMatch:
    lineup = ["expert", "dump-faces", "hold-nines", "suit-majority", "random"][: players - 1]
    lineup.insert(seat, "you")
    return SavedMatch(make_rules("classic", players=players), seed, seat, lineup)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """One scripted match to its end, saved after every decision."""
    path = tmp_path_factory.mktemp("play") / "m.json"
    m = new_match()
    out = run_match(m, script, lambda s: save(s, path))
    return m, out, path


def test_scripted_match_ends_and_its_file_replays_equal(played):
    m, out, path = played
    assert out.finished and m.finished and out.totals == m.totals
    assert max(out.totals) >= 100  # S2: the match ran to the target
    assert sum(out.win_share) == pytest.approx(1.0)
    again = run_match(load(path))  # no person: the file's decisions only
    assert again.finished and again.events == out.events and again.totals == out.totals
    # the person's moves in the trace are the file's
    plays = [ev for ev in out.events if ev[0] == "play" and ev[1] == m.seat]
    saved_plays = [v for (h, t, k), v in m.decisions.items() if k == DecisionKind.PLAY]
    assert [ev[2] for ev in plays if ev[2] in saved_plays] and len(plays) <= len(m.decisions)


def test_stopped_match_resumes_to_the_same_end(played, tmp_path):
    m, out, _ = played
    path = tmp_path / "r.json"
    asked = []

    def stop_after_five(req: Request) -> int:
        if len(asked) == 5:
            raise Stop
        asked.append(req.key)
        return script(req)

    fresh = new_match()
    part = run_match(fresh, stop_after_five, lambda s: save(s, path))
    assert not part.finished and len(load(path).decisions) == 5
    # replaying the unfinished file stops at the sixth decision, which it shows
    stopped = run_match(load(path))
    assert not stopped.finished and stopped.pending is not None and stopped.pending.key not in asked
    resumed = load(path)
    end = run_match(resumed, script, lambda s: save(s, path))
    assert end.finished and end.events == out.events and load(path).decisions == m.decisions


def test_person_sees_only_their_own_cards(played):
    m, out, _ = played
    seen: list[Request] = []

    def watch(req: Request) -> int:
        seen.append(req)
        return script(req)

    run_match(new_match(), watch)
    deal = next(ev for ev in out.events if ev[0] == "deal")
    first = seen[0]
    public_deal = next(ev for ev in first.events if ev[0] == "deal")
    assert public_deal[5] == deal[3][m.seat]  # own hand shown
    assert all(isinstance(x, int) for x in public_deal[3])  # the others' hands as sizes only
    for req in seen:
        for ev in req.events:
            if ev[0] in ("draw", "penalty_draw") and ev[1] != m.seat:
                assert ev[2] == -1


def test_hint_ranks_every_legal_play(played):
    hints = []

    def ask(req: Request) -> int:
        if req.kind == DecisionKind.PLAY and len(req.legal) > 1 and req.hint is None and not hints:
            return HINT
        if req.hint is not None:
            hints.append(req)
        return script(req)

    run_match(new_match(), ask, hint_samples=32)
    req = hints[0]
    assert sorted(m for m, *_ in req.hint) == sorted(req.legal)
    means = [x[1] for x in req.hint]
    assert means == sorted(means, reverse=True)
    assert all(lo <= mean <= hi for _, mean, lo, hi in req.hint)


def _edit(path, tmp_path, fn) -> str:
    data = json.loads(path.read_text())
    fn(data)
    out = tmp_path / f"{fn.__name__}.json"
    out.write_text(json.dumps(data))
    return str(out)


def test_bad_files_get_one_line_and_exit_2(played, tmp_path):
    _, _, path = played
    truncated = tmp_path / "t.json"
    truncated.write_text(path.read_text()[:200])

    def illegal(d):  # the first play swapped for a card the person does not hold there
        first = next(x for x in d["decisions"] if x["kind"] == "play")
        first["move"] = "KS" if first["move"] != "KS" else "KD"

    def extra(d):
        d["decisions"].append({"hand": 0, "turn": 999, "kind": "play", "move": "2C"})

    def version(d):
        d["version"] = 99

    def seat(d):
        d["seat"] = 7

    cases = {
        "missing": str(tmp_path / "none.json"),
        "truncated": str(truncated),
        "illegal": _edit(path, tmp_path, illegal),
        "extra": _edit(path, tmp_path, extra),
        "version": _edit(path, tmp_path, version),
        "seat": _edit(path, tmp_path, seat),
    }
    for name, p in cases.items():
        r = runner.invoke(app, ["replay", p])
        assert r.exit_code == 2, (name, r.output)
        lines = [x for x in r.output.splitlines() if x.strip()]
        assert len(lines) == 1 and lines[0].startswith("Error: "), (name, r.output)
        assert "Traceback" not in r.output
    assert "version 99" in runner.invoke(app, ["replay", cases["version"]]).output
    extra_out = runner.invoke(app, ["replay", cases["extra"]]).output
    assert "impossible" in extra_out and 'hand 1, turn 1000 (saved as "hand": 0, "turn": 999)' in extra_out
    illegal_out = runner.invoke(app, ["replay", cases["illegal"]]).output
    assert "impossible" in illegal_out and ("T1" in illegal_out or "not in your hand" in illegal_out)
    first = next(x for x in json.loads(path.read_text())["decisions"] if x["kind"] == "play")
    assert f"hand {first['hand'] + 1}, turn {first['turn'] + 1} (saved as" in illegal_out  # counted as replay prints
    with pytest.raises(SavedMatchError):
        load(cases["truncated"])


#: Malformed structures of a saved file: (top-level field, value, what the message must say, naming the field).
MALFORMED = [
    ("decisions", None, "decisions must be a list, not null"),
    ("decisions", {"hand": 0}, "decisions must be a list"),
    ("decisions", [None], "decisions[0] must be an object"),
    ("decisions", [{"hand": 0, "turn": "1", "kind": "play", "move": "7H"}], "decisions[0].turn must be a whole number"),
    ("decisions", [{"hand": 0, "turn": 1, "kind": "fly", "move": "7H"}], "decisions[0].kind must be one of"),
    ("rules", None, "rules must be an object"),
    ("rules", {"preset": "classic", "options": []}, "rules.options must be an object"),
    ("seed", None, "seed must be a whole number >= 0, not null"),
    ("seat", "1", 'seat must be a whole number >= 0, not "1"'),
    ("match", 1.5, "match must be a whole number >= 0, not 1.5"),
    ("lineup", None, "lineup must be a list"),
    ("lineup", [1, 2, 3], "lineup must be a list of strategy names"),
    ("finished", None, "finished must be true or false, not null"),
    ("totals", "12", "totals must be null or a list of whole numbers"),
    ("program", 1, "program must be a string"),
]


@pytest.mark.parametrize(("field", "value", "expected"), MALFORMED, ids=[f"{k}={v!r}" for k, v, _ in MALFORMED])
def test_malformed_structure_names_the_field_in_one_line_for_every_command(played, tmp_path, field, value, expected):
    """A field of the wrong type (null, a string for a number, ...) is named in one line, exit 2, in all 3 commands."""
    m, _, path = played
    stopped = tmp_path / "stopped.json"  # an unfinished match, so that --resume would otherwise go on with it
    save(SavedMatch(m.rules, m.seed, m.seat, m.lineup, dict(list(m.decisions.items())[:3])), stopped)
    bad = _edit(stopped, tmp_path, lambda d: d.__setitem__(field, value))
    for args in (["replay", bad], ["review", bad, "--out", str(tmp_path / "rev")], ["play", "--resume", bad]):
        r = runner.invoke(app, args)
        lines = [x for x in r.output.splitlines() if x.strip()]
        assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("Error: "), (args, r.output)
        assert expected in lines[0] and "NoneType" not in lines[0] and "Traceback" not in r.output, (args, r.output)
    assert not (tmp_path / "rev").exists()
    with pytest.raises(SavedMatchError, match=re.escape(expected)):
        load(bad)


def test_replay_command_shows_a_saved_match(played):
    m, out, path = played
    r = runner.invoke(app, ["replay", str(path)])
    assert r.exit_code == 0, r.output
    assert f"seed {m.seed}" in r.output and "seat 1 you" in r.output
    assert f"final totals {out.totals}" in r.output
    assert r.output.count(" plays ") == sum(1 for ev in out.events if ev[0] in ("play", "pair"))
    # turns numbered from 1 in each hand, as 'nines replay --seed' prints them; the file's keys count from 0
    assert len(re.findall(r"^ +turn \d+: ", r.output, flags=re.MULTILINE)) == sum(ev[0] == "turn" for ev in out.events)
    (h, t, _), move = next((k, v) for k, v in m.decisions.items() if k[2] == DecisionKind.PLAY and v != PAIR_OF_NINES)
    that_hand = r.output.split(f"hand {h + 1}: ")[1].split("== ")[0]
    assert f"turn {t + 1}: seat 1 (you) plays {card_name(move)}" in that_hand, that_hand
    assert "turn 0:" not in r.output and "turn 1: " in r.output


def _req(cards, top, active=None, kind=DecisionKind.PLAY, legal=None, pair=False) -> Request:
    faces = tuple(parse_card(c) for c in cards.split())
    t = parse_card(top)
    return Request(kind, 0, 0, 0, faces, tuple(legal or ()), pair, -1, t, t // 13 if active is None else active,
                   (len(faces), 5), (0, 0), 30, 1, 2)  # fmt: skip


def test_refusals_name_the_clause():
    classic = make_rules("classic", players=2)
    req = _req("KC 5H 9S", "7H", legal=[parse_card("5H"), parse_card("9S")])
    assert refusal(req, parse_card("5H"), classic) is None
    why = refusal(req, parse_card("KC"), classic)
    assert why.startswith("T1") and "♥" in why
    assert "not in your hand" in refusal(req, parse_card("2D"), classic)
    on_nine = _req("KC 5H", "9S", active=0, legal=[parse_card("KC")])
    assert "declared suit ♣" in refusal(on_nine, parse_card("5H"), classic)
    last_nine = _req("9S", "7H", legal=[])
    assert refusal(last_nine, parse_card("9S"), make_rules("classic+no-nine-out", players=2)).startswith("V5")
    no_answer = _req("9S 9D KC", "9H", active=1, legal=[])
    assert refusal(no_answer, parse_card("9S"), make_rules("classic", players=2, nine_on_nine=False)).startswith("V6")
    assert refusal(req, PAIR_OF_NINES, classic).startswith("V4")
    drawn = _req("KC 5H", "7H", kind=DecisionKind.PLAY_DRAWN, legal=[parse_card("5H")])
    assert refusal(drawn, parse_card("KC"), classic).startswith("T4")
    assert refusal(drawn, 0, classic) is None
    declare = _req("KC", "9H", kind=DecisionKind.DECLARE)
    assert refusal(declare, 5, classic).startswith("T3") and refusal(declare, 3, classic) is None


def test_play_usage_errors_are_one_line_exit_2(played, tmp_path):
    _, _, path = played
    cases = {
        "unknown opponent": ["play", "no-such-strategy"],
        "unknown preset": ["play", "--rules", "no-such-preset"],
        "seat out of range": ["play", "expert", "--seat", "2"],
        "too many opponents": ["play", "expert", "expert", "expert", "--players", "3"],
        "missing file": ["play", "--resume", str(tmp_path / "none.json")],
        "finished match": ["play", "--resume", str(path)],
        "resume with a lineup": ["play", "expert", "--resume", str(path)],
        "no terminal": ["play", "expert", "--save", str(tmp_path / "x.json")],
    }
    for name, args in cases.items():
        r = runner.invoke(app, args)
        assert r.exit_code == 2, (name, r.output)
        lines = [x for x in r.output.splitlines() if x.strip()]
        assert len(lines) == 1 and lines[0].startswith("Error: "), (name, r.output)
    assert "0 to 1" in runner.invoke(app, cases["seat out of range"]).output
    assert "is over" in runner.invoke(app, cases["finished match"]).output
    assert "terminal" in runner.invoke(app, cases["no terminal"]).output
