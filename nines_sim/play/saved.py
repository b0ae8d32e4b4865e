"""The saved match: one small JSON file per match a person plays (``nines play``).

It holds what makes the match reproducible and nothing else: the rules, the
seed, the lineup (the person's seat named :data:`PERSON`) and the person's
decisions, each keyed by (hand, turn, kind).  Everything else (the deals, the
opponents' moves) follows from the seed, so replaying the file on the engine
gives the match back move for move (``nines replay FILE``), and a match
stopped with ``q`` or Ctrl-C resumes where it stopped (``nines play --resume
FILE``).  The file is rewritten after every decision the person makes.

Format (``version`` 1)::

    {"format": "nines-sim saved match", "version": 1, "program": "0.2.0",
     "rules": {"preset": "classic", "options": {"players": 2}},
     "seed": 123, "match": 0, "seat": 0, "lineup": ["you", "expert"],
     "counting": "hand and turn count from 0 here: ...",
     "decisions": [{"hand": 0, "turn": 1, "kind": "play", "move": "7H"},
                   {"hand": 0, "turn": 1, "kind": "declare", "move": "S"}, ...],
     "finished": false, "totals": null}

``kind`` is ``play`` (``move``: a card, or ``two 9s`` under V4),
``declare`` (a suit C/D/H/S, T3), ``play_drawn`` (``play`` or ``keep``, T4)
or ``dealer_declare`` (a suit, D6).  ``hand`` counts every hand dealt in the
match from 0 (tie-break hands too, S4) and ``turn`` the turns of that hand
from 0: the engine's counters, one less than ``nines replay`` prints them and
``nines analyze --hand --turn`` takes them, and the file says so in its
``counting`` field (counting from 1 would change the format of files already
saved for nothing the match needs).  Messages name a decision as a person
counts it, with the file's numbers beside it (:func:`decision_where`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from nines_sim import __version__
from nines_sim.game.cards import SUIT_NAMES, card_name, parse_card
from nines_sim.game.path_lookup import look_up, shown
from nines_sim.game.rules import Rules, RulesError, make_rules
from nines_sim.strategy.base import PAIR_OF_NINES, DecisionKind

FORMAT = "nines-sim saved match"
#: The file format's version; a file of another version is refused.
VERSION = 1
#: What the file says of its numbers (its ``counting`` field, read by people, ignored on loading).
COUNTING = (
    "hand and turn count from 0 here: the engine's counters, which key the seed's random streams; the screen, "
    "nines replay, review and analyze count from 1 (hand 0, turn 4 here is hand 1, turn 5 there)"
)
#: How the lineup names the person's seat.
PERSON = "you"
#: Where ``nines play`` saves matches unless told otherwise.
DEFAULT_DIR = Path("matches")

KIND_NAMES = {
    DecisionKind.PLAY: "play",
    DecisionKind.DECLARE: "declare",
    DecisionKind.PLAY_DRAWN: "play_drawn",
    DecisionKind.DEALER_DECLARE: "dealer_declare",
}
_KINDS = {v: k for k, v in KIND_NAMES.items()}


def decision_where(key: tuple[int, int, int]) -> str:
    """Where a saved decision stands, for a message: ``hand 1, turn 3 (saved as "hand": 0, "turn": 2)``.

    Parameters
    ----------
    key : tuple of int
        (hand, turn, kind) as the file keys it: hand and turn counted from 0.

    Returns
    -------
    str
        The hand and turn counted from 1, as ``nines replay`` prints them, then the file's own numbers.
    """
    h, t = key[0], key[1]
    return f'hand {h + 1}, turn {t + 1} (saved as "hand": {h}, "turn": {t})'


#: A decision's key: (hand, turn, kind).
Key = tuple[int, int, DecisionKind]


class SavedMatchError(ValueError):
    """A saved match that cannot be read or replayed; the message says why in one line."""


def move_text(
    kind: DecisionKind, move: int, card: Callable[[int], str] = card_name, suits: Sequence[str] = SUIT_NAMES
) -> str:
    """How the file writes a move: ``7H``, ``two 9s``, ``S``, ``play``/``keep``; ``card`` and ``suits`` write
    cards and suits otherwise (the screen of ``nines play``: ``7♥``, ``♠``)."""
    if kind == DecisionKind.PLAY:
        return "two 9s" if move == PAIR_OF_NINES else card(move)
    if kind == DecisionKind.PLAY_DRAWN:
        return "play" if move == 1 else "keep"
    return suits[move]


def parse_move(kind: DecisionKind, text: str) -> int:
    """The move code of :func:`move_text`'s text (a face, :data:`PAIR_OF_NINES`, a suit 0..3, or 1/0).

    Raises
    ------
    ValueError
        If the text is not a move of that kind.
    """
    t = str(text).strip()
    if kind == DecisionKind.PLAY:
        return PAIR_OF_NINES if t.lower() == "two 9s" else parse_card(t)
    if kind == DecisionKind.PLAY_DRAWN:
        if t.lower() not in ("play", "keep"):
            raise ValueError(f"not 'play' or 'keep': {text!r}")
        return int(t.lower() == "play")
    if t.upper() not in SUIT_NAMES:
        raise ValueError(f"not a suit C, D, H or S: {text!r}")
    return SUIT_NAMES.index(t.upper())


@dataclass
class SavedMatch:
    """A match with a person at one seat: what the file holds.

    Attributes
    ----------
    rules : Rules
    seed : int
        The match's seed, 0 <= seed < 2**64 (the deals and the opponents' random streams).
    seat : int
        The person's seat, 0..P-1.
    lineup : list of str
        One strategy spec per seat, :data:`PERSON` at ``seat``.
    decisions : dict
        (hand, turn, kind) -> move code, in the order they were made.
    match : int
        The match index under the seed (0 for matches ``nines play`` starts).
    finished : bool
        Whether the match was played to its end.
    totals : list of int, optional
        The final totals of a finished match (checked on replay).
    """

    rules: Rules
    seed: int
    seat: int
    lineup: list[str]
    decisions: dict[Key, int] = field(default_factory=dict)
    match: int = 0
    finished: bool = False
    totals: list[int] | None = None

    @property
    def opponents(self) -> list[str]:
        """The specs of the other seats, in seat order."""
        return [s for i, s in enumerate(self.lineup) if i != self.seat]

    def to_json(self) -> dict[str, Any]:
        """The file's content as a JSON-ready dict."""
        opts = {k: list(v) if isinstance(v, tuple) else v for k, v in self.rules.overrides().items()}
        return {
            "format": FORMAT,
            "version": VERSION,
            "program": __version__,
            "rules": {"preset": self.rules.preset, "options": opts},
            "seed": self.seed,
            "match": self.match,
            "seat": self.seat,
            "lineup": list(self.lineup),
            "counting": COUNTING,
            "decisions": [
                {"hand": h, "turn": t, "kind": KIND_NAMES[k], "move": move_text(k, m)}
                for (h, t, k), m in self.decisions.items()
            ],
            "finished": self.finished,
            "totals": self.totals,
        }

    @classmethod
    def from_json(cls, data: Any) -> SavedMatch:
        """Read a file's content (as :func:`json.load` gives it).

        Raises
        ------
        SavedMatchError
            For another format or version, a missing or mistyped field, rules the
            program refuses, a seat out of range, or a decision that is not a move.
        """
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise SavedMatchError("not a saved match of nines-sim (no 'format' field saying so)")
        if data.get("version") != VERSION:
            raise SavedMatchError(
                f"the file is a saved match of version {data.get('version')!r}; this program reads version {VERSION}"
            )
        if not isinstance(data.get("program", ""), str):
            raise SavedMatchError(
                f"program must be a string (the version that saved it), not {_shown(data['program'])}"
            )
        r = _typed(data, "rules", dict, "an object with 'preset' and 'options'")
        preset = _typed(r, "preset", str, "a string", "rules.preset")
        options = _typed(r, "options", dict, "an object (option: value)", "rules.options")
        try:
            rules = make_rules(preset, **{k: tuple(v) if isinstance(v, list) else v for k, v in options.items()})
        except (RulesError, TypeError, ValueError) as exc:
            raise SavedMatchError(f"the saved rules are refused: {exc}") from None
        seed, match, seat = (_whole(data, k) for k in ("seed", "match", "seat"))
        lineup = _typed(data, "lineup", list, "a list of strategy names, one per seat")
        if not all(isinstance(x, str) for x in lineup):
            raise SavedMatchError(f"lineup must be a list of strategy names (strings), not {_shown(lineup)}")
        decisions: dict[Key, int] = {}
        for i, d in enumerate(_typed(data, "decisions", list, "a list")):
            where = f"decisions[{i}]"
            if not isinstance(d, dict):
                raise SavedMatchError(f"{where} must be an object with hand, turn, kind and move, not {_shown(d)}")
            kind_name = _typed(d, "kind", str, f"one of {', '.join(_KINDS)}", f"{where}.kind")
            if kind_name not in _KINDS:
                raise SavedMatchError(f"{where}.kind must be one of {', '.join(_KINDS)}, not {kind_name!r}")
            kind = _KINDS[kind_name]
            key = (_whole(d, "hand", f"{where}.hand"), _whole(d, "turn", f"{where}.turn"), kind)
            if key in decisions:
                raise SavedMatchError(f"two decisions for {decision_where(key)} ({kind_name})")
            text = _typed(d, "move", str, "a string (a card, 'two 9s', a suit, 'play' or 'keep')", f"{where}.move")
            try:
                decisions[key] = parse_move(kind, text)
            except ValueError as exc:
                raise SavedMatchError(f"{where}.move is not a {kind_name} move: {exc}") from None
        finished = _typed(data, "finished", bool, "true or false")
        totals = data.get("totals")
        if totals is not None and (
            not isinstance(totals, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in totals)
        ):
            raise SavedMatchError(f"totals must be null or a list of whole numbers, not {_shown(totals)}")
        if not 0 <= seed < 1 << 64:
            raise SavedMatchError(f"seed {seed} is not 0 to 2**64-1")
        if len(lineup) != rules.players:
            raise SavedMatchError(f"the lineup has {len(lineup)} seats but the rules seat {rules.players}")
        if not 0 <= seat < rules.players or lineup[seat] != PERSON:
            raise SavedMatchError(f"seat {seat} is not the person's seat ({PERSON!r}) of the lineup {lineup}")
        if PERSON in (s for i, s in enumerate(lineup) if i != seat):
            raise SavedMatchError(f"only one seat may be the person's ({PERSON!r})")
        return cls(rules, seed, seat, lineup, decisions, match, finished, totals)


def _shown(v: Any) -> str:
    """A JSON value as a message shows it: ``null``, ``true``, ``"x"``, ``[1, 2]`` (cut short if long)."""
    text = json.dumps(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _typed(d: dict, key: str, kind: type, what: str, name: str | None = None) -> Any:
    """``d[key]`` if present and of type ``kind``; else a one-line :class:`SavedMatchError` naming the field."""
    name = name or key
    if key not in d:
        raise SavedMatchError(f"the saved match lacks the field {name!r} ({what})")
    v = d[key]
    if not isinstance(v, kind) or (kind is not bool and isinstance(v, bool)):
        raise SavedMatchError(f"{name} must be {what}, not {_shown(v)}")
    return v


def _whole(d: dict, key: str, name: str | None = None) -> int:
    v = _typed(d, key, int, "a whole number >= 0", name)
    if v < 0:
        raise SavedMatchError(f"{name or key} must be a whole number >= 0, not {v}")
    return v


def load(path: str | Path) -> SavedMatch:
    """Read a saved match.

    Raises
    ------
    SavedMatchError
        If the file is missing or unreadable, not JSON (e.g. truncated), or not a
        valid saved match (see :meth:`SavedMatch.from_json`).
    """
    p = Path(path)
    kind, why = look_up(p)
    if kind == "folder":
        raise SavedMatchError(f"{shown(str(p))} is a folder; name a match's .json file, as 'nines play' saved it")
    if kind != "file":
        raise SavedMatchError(f"no saved match at {shown(str(p))}{why and ' '}{why}")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SavedMatchError(f"cannot read {shown(str(p))} ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        msg = f"{p} is not a complete saved match (JSON error at line {exc.lineno}: {exc.msg})"
        raise SavedMatchError(msg) from None
    return SavedMatch.from_json(data)


def save(m: SavedMatch, path: str | Path) -> Path:
    """Write a saved match atomically (a crash mid-write leaves the previous file whole).

    Returns
    -------
    pathlib.Path
        The path written.
    """
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(json.dumps(m.to_json(), indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, p)
    return p


def new_path(root: Path = DEFAULT_DIR) -> Path:
    """A new file name under ``root``: ``match-<UTC date-time>.json``."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    path = root / f"match-{stamp}.json"
    n = 1
    while path.exists():
        n += 1
        path = root / f"match-{stamp}-{n}.json"
    return path
