"""The rules as data: a frozen, validated options record and named presets.

Every option is a RULES.md clause or a gap reading that RULES.md makes an
option.  ``Rules`` is validated on construction; ``make_rules`` builds one from
preset names joined by ``+`` and ``key=value`` overrides, with errors that say
what is allowed.
"""

from __future__ import annotations

import dataclasses
import shlex
from dataclasses import dataclass, field
from typing import Any

from nines_sim.game.cards import N_FACES
from nines_sim.spelling import did_you_mean


class RulesError(ValueError):
    """An impossible or unknown rules option; the message says what is allowed."""


DRAW_RULES = ("one", "until-playable")
# Upper bounds keep every run finite and its score histograms small; far beyond any real table.
MAX_NINE_PENALTY = 1_000
MAX_TARGET = 10_000
MAX_FIXED_HANDS = 1_000
MAX_TURN_CAP = 1_000_000
BLOCK_RULES = ("pass-circle", "no-play-circle")
TIE_RULES = ("playoff", "share")

#: RULES.md clause behind each option (shown by ``nines rules``).
OPTION_CLAUSES: dict[str, str] = {
    "players": "D1",
    "nine_penalty": "C2, V1, V7",
    "hand_sizes": "D4, V7",
    "draw_rule": "T4, V2",
    "skip_reverse": "V3",
    "decks": "C1, V4",
    "pair_of_nines": "V4",
    "no_nine_out": "V5",
    "nine_on_nine": "T1, V6",
    "block_rule": "T7",
    "tie_rule": "S4",
    "target": "S2, V7",
    "fixed_hands": "S3, V7",
    "turn_cap": "T8",
}

OPTION_HELP: dict[str, str] = {
    "players": "number of players, 2 to 6",
    "nine_penalty": "points for a 9 left in hand (15; 25 under Hard Nines)",
    "hand_sizes": "cards dealt each, for 2,3,4,5,6 players (7,7,7,5,5)",
    "draw_rule": "'one': draw one card; 'until-playable': draw until a legal card comes and play it",
    "skip_reverse": "J skips, Q reverses, A makes the next player draw 2 and lose the turn",
    "decks": "1 deck (52 cards) or 2 decks (104 cards)",
    "pair_of_nines": "two 9s may be played together: declare a suit and skip the next player",
    "no_nine_out": "a 9 may not be a player's last card",
    "nine_on_nine": "a 9 may be played on a 9 (False forbids it)",
    "block_rule": "'pass-circle': P passes in a row block; 'no-play-circle': P turns with no card played",
    "tie_rule": "'playoff': tie-break hands; 'share': tied players share the win",
    "target": "a match ends after a hand that brings any total to this many points",
    "fixed_hands": "play this many hands instead of to a target (0: off)",
    "turn_cap": "a hand still running after this many turns is stopped, scored as blocked, counted",
}


@dataclass(frozen=True)
class Rules:
    """One complete rule set of Nines (RULES.md; options listed in ``OPTION_CLAUSES``).

    Parameters
    ----------
    players : int
        Seats at the table, 2 to 6 (D1).
    nine_penalty : int
        Points for a 9 left in hand, >= 0 (C2; 25 under V1).
    hand_sizes : tuple of int
        Cards dealt to each player for 2, 3, 4, 5 and 6 players (D4, V7). Each
        must fit the deck for the table seated and, under ``tie_rule="playoff"``,
        for every smaller table a tie-break hand may deal (S4).
    draw_rule : str
        ``"one"`` (T4) or ``"until-playable"`` (V2).
    skip_reverse : bool
        The powers of J, Q and A (V3).
    decks : int
        1 or 2 (V4).
    pair_of_nines : bool
        Two 9s together as one move (V4).
    no_nine_out : bool
        A 9 may not be the last card (V5).
    nine_on_nine : bool
        A 9 may answer a 9 (T1; ``False`` is V6's experiment).
    block_rule : str
        ``"pass-circle"`` or ``"no-play-circle"`` (T7).
    tie_rule : str
        ``"playoff"`` or ``"share"`` (S4).
    target : int
        Match ends once a total reaches it, > 0 (S2).
    fixed_hands : int
        If > 0, the match is this many hands instead (S3); 0 plays to ``target``.
    turn_cap : int
        Turns after which a hand is stopped and scored as blocked, > 0 (T8).

    Raises
    ------
    RulesError
        On any value outside what the rules allow.
    """

    players: int = 4
    nine_penalty: int = 15
    hand_sizes: tuple[int, int, int, int, int] = (7, 7, 7, 5, 5)
    draw_rule: str = "one"
    skip_reverse: bool = False
    decks: int = 1
    pair_of_nines: bool = False
    no_nine_out: bool = False
    nine_on_nine: bool = True
    block_rule: str = "pass-circle"
    tie_rule: str = "playoff"
    target: int = 100
    fixed_hands: int = 0
    turn_cap: int = 10_000
    preset: str = field(default="classic", compare=False)

    def __post_init__(self) -> None:
        def bad(msg: str) -> None:
            raise RulesError(msg)

        for name in ("players", "nine_penalty", "decks", "target", "fixed_hands", "turn_cap"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int):
                bad(f"{name} must be a whole number, not {v!r}")
        for name in ("skip_reverse", "pair_of_nines", "no_nine_out", "nine_on_nine"):
            if not isinstance(getattr(self, name), bool):
                bad(f"{name} must be true or false, not {getattr(self, name)!r}")
        if not 2 <= self.players <= 6:
            bad(f"players must be 2 to 6 (RULES.md D1), not {self.players}")
        if not 0 <= self.nine_penalty <= MAX_NINE_PENALTY:
            bad(f"nine_penalty must be 0 to {MAX_NINE_PENALTY} points, not {self.nine_penalty}")
        if self.decks not in (1, 2):
            bad(f"decks must be 1 or 2, not {self.decks}")
        if self.draw_rule not in DRAW_RULES:
            bad(f"draw_rule must be one of {', '.join(DRAW_RULES)}, not {self.draw_rule!r}")
        if self.block_rule not in BLOCK_RULES:
            bad(f"block_rule must be one of {', '.join(BLOCK_RULES)}, not {self.block_rule!r}")
        if self.tie_rule not in TIE_RULES:
            bad(f"tie_rule must be one of {', '.join(TIE_RULES)}, not {self.tie_rule!r}")
        if not 0 < self.target <= MAX_TARGET:
            bad(f"target must be > 0 and at most {MAX_TARGET} points, not {self.target}")
        if not 0 <= self.fixed_hands <= MAX_FIXED_HANDS:
            bad(f"fixed_hands must be 0 to {MAX_FIXED_HANDS} (0 plays to the target), not {self.fixed_hands}")
        if not 0 < self.turn_cap <= MAX_TURN_CAP:
            bad(f"turn_cap must be > 0 and at most {MAX_TURN_CAP} turns, not {self.turn_cap}")
        hs = tuple(self.hand_sizes)
        if len(hs) != 5 or any(isinstance(h, bool) or not isinstance(h, int) for h in hs):
            bad(f"hand_sizes must be 5 whole numbers (for 2,3,4,5,6 players), not {self.hand_sizes!r}")
        object.__setattr__(self, "hand_sizes", hs)
        if any(h < 1 for h in hs):
            bad(f"hand_sizes must all be >= 1 card, not {hs}")
        # Under tie_rule=playoff a tie-break hand among 2..P-1 tied players is dealt with
        # that table's hand size (S4), so those counts must fit too; under share none is dealt.
        cards = N_FACES * self.decks
        smallest = 2 if self.tie_rule == "playoff" else self.players
        for p in range(self.players, smallest - 1, -1):
            need = p * hs[p - 2] + 1
            if need > cards:
                fix = "lower hand_sizes or use decks=2"
                if p == self.players:
                    bad(f"dealing {hs[p - 2]} cards to {p} players needs {need} cards with the starter, "
                        f"but {self.decks} deck(s) hold {cards} (RULES.md D4); {fix}")  # fmt: skip
                bad(
                    f"hand_sizes gives {hs[p - 2]} cards to a {p}-player table, which a tie-break hand among {p} "
                    f"tied players is dealt (RULES.md S4): that needs {need} cards with the starter, but "
                    f"{self.decks} deck(s) hold {cards}; {fix}, or set tie_rule=share (no tie-break hand)"
                )

    def hand_size(self, players: int | None = None) -> int:
        """Cards dealt to each player at a table of ``players`` (default: ``self.players``) (D4)."""
        return self.hand_sizes[(players or self.players) - 2]

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated; unknown names raise ``RulesError``)."""
        check_option_names(changes)
        return dataclasses.replace(self, **changes)

    def overrides(self) -> dict[str, Any]:
        """The options that differ from this rule set's preset (what ``--rule`` would have to say)."""
        base = make_rules(self.preset).options()
        return {k: v for k, v in self.options().items() if base[k] != v}

    def options(self) -> dict[str, Any]:
        """Every option and its value, in declaration order (no preset label)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "preset"}


OPTION_NAMES = tuple(f.name for f in dataclasses.fields(Rules) if f.name != "preset")

#: Preset name -> (RULES.md clause, overrides on top of classic).
PRESETS: dict[str, tuple[str, dict[str, Any]]] = {
    "classic": ("P1", {}),
    "free-nines": ("P2", {"tie_rule": "share", "block_rule": "no-play-circle"}),
    "hard-nines": ("V1", {"nine_penalty": 25}),
    "draw-until-playable": ("V2", {"draw_rule": "until-playable"}),
    "skip-reverse": ("V3", {"skip_reverse": True}),
    "double-nines": ("V4", {"decks": 2, "pair_of_nines": True}),
    "no-nine-out": ("V5", {"no_nine_out": True}),
    "no-stacking": ("V6", {"nine_on_nine": False}),
    "fixed-hands-5": ("S3", {"fixed_hands": 5}),
    "fixed-hands-7": ("S3", {"fixed_hands": 7}),
    "fixed-hands-10": ("S3", {"fixed_hands": 10}),
}


def check_option_names(options: dict[str, Any]) -> None:
    """Raise ``RulesError`` naming the first unknown option and listing the known ones."""
    for name in options:
        if name not in OPTION_NAMES:
            known = ", ".join(OPTION_NAMES)
            raise RulesError(f"unknown rules option {name!r}{did_you_mean(name, OPTION_NAMES)}; options are: {known}")


def make_rules(preset: str = "classic", **overrides: Any) -> Rules:
    """Rules from preset names joined with ``+`` and option overrides.

    Parameters
    ----------
    preset : str
        e.g. ``"classic"``, ``"hard-nines+no-nine-out"`` (P1, P2, V1-V7).
    **overrides
        Option values applied last, e.g. ``tie_rule="share"``.

    Returns
    -------
    Rules

    Raises
    ------
    RulesError
        For an unknown preset (the message lists the known ones), an unknown
        option, two presets that set one option differently, or an impossible
        combination.
    """
    names = [p.strip() for p in preset.split("+")]
    if any(not n for n in names):
        raise RulesError(f"a preset name is missing in {preset!r}; write e.g. hard-nines+no-nine-out")
    if len(set(names)) != len(names):
        raise RulesError(f"a preset is named twice in {preset!r}")
    merged: dict[str, Any] = {}
    setter: dict[str, str] = {}
    for name in names:
        if name not in PRESETS:
            raise RulesError(f"unknown preset {name!r}{did_you_mean(name, PRESETS)}; presets are: {', '.join(PRESETS)}")
        for k, v in PRESETS[name][1].items():
            if k in merged and merged[k] != v:
                raise RulesError(f"presets {setter[k]!r} and {name!r} disagree on {k}; pick one")
            merged[k] = v
            setter[k] = name
    check_option_names(overrides)
    merged.update(overrides)
    return Rules(**merged, preset="+".join(names))


def parse_value(name: str, text: str) -> Any:
    """Convert the text of ``name=text`` to the option's type.

    Raises
    ------
    RulesError
        For an unknown option or a value that is not of the option's type.
    """
    check_option_names({name: None})
    default = getattr(Rules(), name)
    t = text.strip()
    if isinstance(default, bool):
        low = t.lower()
        if low in ("true", "yes", "1", "on"):
            return True
        if low in ("false", "no", "0", "off"):
            return False
        raise RulesError(f"{name} takes true or false, not {text!r}")
    if isinstance(default, int):
        try:
            return int(t)
        except ValueError:
            raise RulesError(f"{name} takes a whole number, not {text!r}") from None
    if isinstance(default, tuple):
        try:
            return tuple(int(x) for x in t.replace(";", ",").split(","))
        except ValueError:
            raise RulesError(f"{name} takes 5 whole numbers such as 7,7,7,5,5, not {text!r}") from None
    return t


def option_key(item: str, form: str) -> str:
    """The option an item such as ``key=value`` names: the text before its ``=``, stripped.

    Parameters
    ----------
    item : str
        The item as typed (``nine_penalty=20``, a sweep's ``nine_penalty=15,25``).
    form : str
        How such an item is written, for the error (``key=value, e.g. nine_penalty=20``).

    Raises
    ------
    RulesError
        Where nothing but spaces comes before the ``=`` (``=5``): the option's name is missing, said with the item
        as typed (not as an unknown option ``''``).
    """
    key = item.partition("=")[0].strip()
    if not key:
        raise RulesError(f"an option name is missing before '=' in {item!r}; write {form}")
    return key


def parse_overrides(items: list[str]) -> dict[str, Any]:
    """Parse ``["key=value", ...]`` into typed option overrides (``RulesError`` on bad input)."""
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise RulesError(f"a rule override is written key=value, not {item!r}")
        k, v = option_key(item, "key=value, e.g. nine_penalty=20"), item.split("=", 1)[1]
        if k in out:
            raise RulesError(f"{k} is set twice; give each option once")
        out[k] = parse_value(k, v)
    return out


def parse_rule_set(spec: str, overrides: dict[str, Any] | None = None, players: int | None = None) -> Rules:
    """Rules from a rule set written ``preset[+preset...][:key=value,key=value]``, the syntax of every command.

    Parameters
    ----------
    spec : str
        e.g. ``"classic"``, ``"hard-nines+no-nine-out"``, ``"classic:nine_penalty=20,no_nine_out=true"``
        (P1, P2, V1-V7; the options of ``OPTION_NAMES``), or ``"@FILE"``: the rule set a JSON file names
        (:func:`rule_set_file`; ``nines tune-rules`` writes ``best-rules.json``).
    overrides : dict, optional
        Options applied on top (the CLI's ``--rule key=value``, parsed by :func:`parse_overrides`); an
        option may not be set both here and in ``spec``.
    players : int, optional
        The table the lineup seats; ``spec`` may name it too, but only the same number.

    Returns
    -------
    Rules

    Raises
    ------
    RulesError
        As :func:`make_rules` and :func:`parse_overrides`, for an option set both in ``spec`` and in
        ``overrides``, and for ``players=N`` in ``spec`` other than ``players``; as :func:`rule_set_file` for
        ``@FILE``, and the others then begin ``in FILE:``; for a ``@FILE`` whose ``"players"`` is not the
        table the rules seat (the message says the ways on).
    """
    if spec.startswith("@"):
        inner, made_for = _read_rule_set_file(spec[1:])
        try:
            rules = parse_rule_set(inner, overrides, players)
        except RulesError as exc:  # name the file whose rule set is wrong
            raise RulesError(f"in {spec[1:]}: {exc}") from None
        # A search's best values were measured at one table size only, so another table is refused as a
        # players=N in the rule set would be; the rule set written out plays at any table on purpose.
        if made_for is not None and rules.players != made_for:
            raise RulesError(
                f'the rule set file {spec[1:]} is for {made_for} players (its "players") but this table seats '
                f"{rules.players}: seat {made_for} (--players {made_for} or a lineup of {made_for}), tune again with "
                f"--players {rules.players}, or play its rule set at {rules.players} as --rules {shlex.quote(inner)}"
            )
        return rules
    preset, joined = rule_set_items(spec)
    if joined and any(not n.strip() for n in preset.split("+")):  # said of what was typed, not of its presets
        example = "classic" if not preset.strip() else "hard-nines+no-nine-out"
        raise RulesError(f"a preset name is missing in {spec!r}; write e.g. {example}{spec[len(preset) :]}")
    options = parse_overrides(joined)
    for k in overrides or {}:
        if k in options:
            raise RulesError(f"{k} is set both in the rule set {spec!r} and by --rule; give it once")
    options.update(overrides or {})
    if players is not None:
        if options.get("players", players) != players:
            make_rules(preset, **options)  # an impossible table (players=9) says so first
            raise RulesError(
                f"rule set {spec!r} seats {options['players']} players but the lineup has {players} "
                f"{'strategy' if players == 1 else 'strategies'}; the lineup decides the table size"
            )
        options["players"] = players
    return make_rules(preset, **options)


def rule_set_items(spec: str) -> tuple[str, list[str]]:
    """A rule set ``preset[+preset...][:key=value,...]`` split into its presets and its ``key=value`` items, as
    written (``hand_sizes=7,7,7,5,5`` is one item); a ``:`` with no item after it is a :class:`RulesError`."""
    preset, colon, rest = spec.partition(":")
    if colon and not rest.strip(" ,"):
        name = preset or "PRESET"
        raise RulesError(f"rule set {spec!r} has no option after ':'; write {name}:key=value,... or just {name}")
    from nines_sim.game.text_lists import EmptyItem, items_of

    try:
        items_of(rest, f"rule set {spec!r}") if rest else None  # an empty item refused, not dropped
    except EmptyItem as exc:
        raise RulesError(str(exc)) from None
    items = rest.split(",") if rest else []  # as written (spaces kept)
    # hand_sizes holds commas itself; re-join pieces without '=' onto the previous item.
    joined: list[str] = []
    for x in items:
        if "=" not in x and joined:
            joined[-1] += "," + x
        else:
            joined.append(x)
    return preset, joined


def rule_set_without(spec: str, options: Any) -> str:
    """``spec`` without its own ``key=value`` items for ``options`` (the presets and other items kept, in order):
    the base a search writes its values onto, so that each option is set once."""
    preset, items = rule_set_items(spec)
    kept = [x for x in items if x.split("=", 1)[0].strip() not in set(options)]
    return f"{preset}:{','.join(kept)}" if kept else preset


def resolve_rule_set(spec: str) -> str:
    """The rule set a ``--rules`` value plays, as text: a ``@FILE``'s ``"rule_set"`` (:func:`rule_set_file`),
    else ``spec`` itself.  A run's manifest records this, so that its command replays what was played even
    after the file changes or moves.

    Raises
    ------
    RulesError
        As :func:`rule_set_file`.
    """
    return rule_set_file(spec[1:]) if spec.startswith("@") else spec


def rule_set_file(path: str) -> str:
    """The rule set written in a JSON file (``--rules @FILE``): its ``"rule_set"`` field, e.g.
    ``{"rule_set": "classic:nine_penalty=40"}``.  Its ``"players"``, if any, is the one table it plays at
    (:func:`parse_rule_set`); other fields, such as a tuning run's measures, are notes.

    Raises
    ------
    RulesError
        For no file name (``--rules @``), a file that cannot be read, is not JSON, or has no ``"rule_set"``
        text (or names another file), or has a ``"players"`` that is not 2 to 6.
    """
    return _read_rule_set_file(path)[0]


def _read_rule_set_file(path: str) -> tuple[str, int | None]:
    """:func:`rule_set_file`, and the table size the file is for: its ``"players"`` (``nines tune-rules`` writes
    the table it searched at), None when the file names none.

    Raises
    ------
    RulesError
        As :func:`rule_set_file`.
    """
    import json

    from nines_sim.game.path_lookup import shown

    if not path.strip():
        raise RulesError("`--rules @` needs a file name: --rules @best-rules.json")
    try:
        data = json.loads(open(path, encoding="utf-8").read())
    except OSError as exc:
        raise RulesError(f"cannot read the rule set file {shown(path)} ({exc.strerror or exc})") from None
    except ValueError:
        raise RulesError(f"the rule set file {path} is not JSON") from None
    spec = data.get("rule_set") if isinstance(data, dict) else None
    if not isinstance(spec, str) or not spec.strip() or spec.startswith("@"):
        raise RulesError(f'the rule set file {path} needs a "rule_set" such as "classic:nine_penalty=40"')
    players = data.get("players")
    if players is not None and (isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 6):
        raise RulesError(f'the rule set file {path} has "players": {json.dumps(players)}; give 2 to 6, or remove it')
    return spec, players
