"""``nines analyze``: every legal play of one position estimated, and what each strategy would play."""

from __future__ import annotations

from typing import Annotated

import typer

from nines_sim.cli.app import usage_error
from nines_sim.cli.common import (
    build_rules,
    check_learned_digests,
    check_policy,
    check_seats,
    compile_notices,
    interrupted,
    players_wanted,
    refuse_options,
    refuse_run_folder,
    saved_match_path,
)
from nines_sim.cli.options import (
    LearnedDigestsOpt,
    PlayersOpt,
    RuleOpt,
    RulesOpt,
    StrategiesArg,
    at_most_max_match_index,
)
from nines_sim.game.rules import Rules
from nines_sim.runs.runfolder import without_players

#: ``lookahead``'s default ``infer`` (strategies/lookahead.py), so that the analysis estimates as it plays.
INFER_DEFAULT = 1.0


def analyze(
    strategies: StrategiesArg = None,
    seed: Annotated[
        int,
        typer.Option(
            "--seed",
            min=0,
            max=2**64 - 1,
            help="Seed of the run to replay, and of the analysis: its samples and rollouts draw on a stream of the "
            "seed and the position (each position its own; another seed, independent estimates).",
        ),
    ] = 0,
    match: Annotated[
        int | None,
        typer.Option(
            "--match", "-m", min=0, callback=at_most_max_match_index, help="Match to replay (with --hand, --turn)."
        ),
    ] = None,
    hand: Annotated[
        int,
        typer.Option(
            "--hand", help="Hand of that match, from 1 as 'nines replay' numbers them (tie-break hands count)."
        ),
    ] = 1,
    turn: Annotated[int, typer.Option("--turn", help="Turn of that hand, from 1 as 'nines replay' numbers them.")] = 1,
    cards: Annotated[str | None, typer.Option("--cards", help='Or a position: your cards, e.g. "KC 9H 3D".')] = None,
    top: Annotated[str | None, typer.Option("--top", help="Top card of the discard pile (with --cards).")] = None,
    active: Annotated[
        str | None, typer.Option("--active", help="Active suit C/D/H/S; required when a 9 is on top (T1).")
    ] = None,
    sizes: Annotated[
        str | None, typer.Option("--sizes", help="The other seats' hand sizes, next seat first: 7,3,5.")
    ] = None,
    pile: Annotated[str, typer.Option("--pile", help="Cards in the discard pile below the top card.")] = "",
    samples: Annotated[int, typer.Option("--samples", min=1, max=65536, help="Samples of the hidden cards.")] = 256,
    policy: Annotated[str, typer.Option("--policy", help="Rollout strategy.")] = "expert",
    outcome: Annotated[str, typer.Option("--outcome", help="hand (penalties) or match (win share).")] = "hand",
    infer: Annotated[
        float,
        typer.Option("--infer", min=0.0, max=1.0, help="Weigh the sampled hands by the draws each seat made (T1)."),
    ] = INFER_DEFAULT,
    match_stream: Annotated[
        bool,
        typer.Option(
            "--match-stream",
            help="With --match or a saved match: sample on the match's own decision stream, as 'nines review' "
            "judges the play (its printed commands reproduce its values), instead of a stream of --seed and the "
            "position.",
        ),
    ] = False,
    players: PlayersOpt = None,
    rules: RulesOpt = "classic",
    rule: RuleOpt = None,
    learned_digests: LearnedDigestsOpt = None,
    ctx: typer.Context = None,  # None: called from Python, no command line
) -> None:
    """Estimate every legal play of one position, and show what each built-in strategy would play.

    Either replay a match to a turn (--match, --hand, --turn; the lineup as seated), or a match saved by
    'nines play' (FILE.json --hand --turn; with --match-stream, as 'nines review FILE' judged it), or describe a
    position (--cards, --top, --sizes; --active when a 9 is on top): you are seat 0 and it is your turn.  The lineup's
    own strategies (plug-ins, tuned parameters) are asked too.  --seed picks the analysis's random stream:
    each position gets its own, so estimates of many positions have independent errors.
    """
    from nines_sim.engine.position import PositionError
    from nines_sim.search.analyze import analyze as run_analysis
    from nines_sim.search.analyze import names_to_ask, position_from_cards, position_from_replay, render
    from nines_sim.strategy.registry import StrategyNotFound, make_lineup

    check_policy(policy)
    if outcome not in ("hand", "match"):
        raise usage_error(f"--outcome must be hand or match, not {outcome!r}")
    refuse_run_folder(strategies, "analyze", "--hand H --turn T")
    names = list(strategies or [])
    saved_file = names[0] if len(names) == 1 and saved_match_path(names[0]) else None
    if saved_file is not None:
        applies = {"strategies", "seed", "hand", "turn", "samples", "policy", "outcome", "infer", "match_stream"}
        refuse_options(
            ctx, applies, "a saved match is analysed as it was played, at --hand and --turn", saved=saved_file
        )
    elif (match is None) == (cards is None):
        raise usage_error("give either --match (with --hand, --turn) or --cards (with --top, --sizes)")
    if match_stream and match is None and saved_file is None:
        raise usage_error("--match-stream needs --match or a saved match: a described position has no match stream")
    if active is not None and match is not None:
        raise usage_error("--active applies to a described position (--cards, --top, --sizes), not to --match")
    for flag, value, noun in (("--hand", hand, "hands"), ("--turn", turn, "turns")):
        # (no min=1 on the option: click's range error would not say why; the help says "from 1")
        if value < 1:  # 0 counted the first one until hands and turns were numbered as replay prints them
            raise usage_error(f"{flag} counts from 1, as 'nines replay' numbers {noun}: the first is {flag} 1")
    place = None  # a described position is in no run: a strategy failing there is said to fail at it
    try:
        if saved_file is not None:
            from nines_sim.play import SavedMatchError, load
            from nines_sim.play.driver import position_from_saved

            try:
                saved = load(saved_file)
                with compile_notices():
                    pos = position_from_saved(saved, hand - 1, turn - 1)  # the file counts from 0
            except SavedMatchError as exc:
                raise usage_error(str(exc)) from None
            names = saved.opponents
            place = _in_saved(saved_file)
        elif match is not None:
            if not names:
                from nines_sim.experiments.tournament.plan import DEFAULT_LINEUP

                names = list(DEFAULT_LINEUP)
            from nines_sim.strategy.registry import canonical_spec, make_lineup

            make_lineup([canonical_spec(s) for s in names])  # an unknown strategy named first, as replay does
            check_seats(*players_wanted(players, rule), names, given=bool(strategies))
            r = build_rules(rules, without_players(rule), len(names))
            check_learned_digests(learned_digests, names, r)
            try:
                with compile_notices():
                    pos = position_from_replay(r, names, seed, match, hand - 1, turn - 1)  # counts from 0
            except PositionError as exc:
                if "ends before" not in str(exc):
                    raise
                raise usage_error(_no_such_turn(r, names, seed, match, hand, turn)) from None
            place = _in_match(r, names, seed, match)
        else:
            if top is None or sizes is None:
                raise usage_error("--cards needs --top and --sizes")
            try:
                size_list = [int(x) for x in sizes.split(",")]
            except ValueError:
                raise usage_error(f"--sizes must be whole numbers separated by commas, not {sizes!r}") from None
            n = players_wanted(players, rule)[0] or len(size_list) + 1
            r = build_rules(rules, without_players(rule), n)
            pos = position_from_cards(r, cards, top, size_list, active, pile)  # type: ignore[arg-type]
        replayed = match is not None or saved_file is not None
        asked = names_to_ask(names, sees_hidden=replayed)
        with compile_notices():
            res = run_analysis(pos, samples, policy, outcome, asked, infer, None if match_stream else seed, place)
    except (PositionError, StrategyNotFound) as exc:
        raise usage_error(str(exc)) from None
    except KeyboardInterrupt:
        raise interrupted("the analysis stopped before its estimates were complete; nothing was printed.") from None
    from dataclasses import replace

    from nines_sim.reporting.labels import short_labels

    # the strategies by the short labels of a tournament's table (a tuned file by its name), not as typed
    res = replace(res, choices=dict(zip(short_labels(list(res.choices)), res.choices.values(), strict=True)))
    for line in render(res):
        typer.echo(line)


def _in_saved(path: str):  # noqa: ANN202 - a Hint
    """Where a position of a saved match is, for a strategy that fails when asked there."""
    import shlex

    return lambda m: f"in the match saved in {path}; see it with: nines replay {shlex.quote(path)}"


def _in_match(r: Rules, names: list[str], seed: int, match: int):  # noqa: ANN202 - a Hint
    """Where a replayed position is, for a strategy that fails when asked there: the match, the seed and the
    replay that shows it, as a run says it."""
    from nines_sim.engine.broker import replay_hint
    from nines_sim.strategy.registry import make_lineup

    hint = replay_hint(r, make_lineup(names), seed, names)
    return lambda m: f"in match {match} of seed {seed}{hint(match)}"


def _no_such_turn(r: Rules, names: list[str], seed: int, match: int, hand: int, turn: int) -> str:
    """Why ``--hand hand --turn turn`` (from 1) is not in the match: how many hands, or turns of that hand, it has."""
    from nines_sim.game.text_lists import counted
    from nines_sim.play.replay import replay as play_one

    events = play_one(r, names, seed, match)[0]
    deals = [i for i, ev in enumerate(events) if ev[0] == "deal"] + [len(events)]
    if hand > len(deals) - 1:
        return f"match {match} of seed {seed} ends before hand {hand}: it has {counted(len(deals) - 1, 'hand')}"
    turns = sum(ev[0] == "turn" for ev in events[deals[hand - 1] : deals[hand]])
    return f"hand {hand} of match {match} ends before turn {turn}: it has {counted(turns, 'turn')}"
