"""``nines review``: every decision of a player with a choice, scored against the search.

A :class:`Reviewed` seat wraps the player under review: the engine asks it as
it asks any seat, it passes the question to the player unchanged (so the match
is the one the player would play), and before answering it has the search
(:func:`nines_sim.search.verdict.judge`) value every candidate move on the same
samples.  Per decision: the value of the chosen move and of the best one, the
points lost (best minus chosen, in penalty points: the opponents' mean hand
penalty minus the own, as ``nines analyze`` scores a move), the standard error
of that difference (taken sample by sample), whether the choice is *accurate*
(its loss within the 95% interval of zero, i.e. not measurably worse than the
best), and a class by points lost (:data:`THRESHOLDS`).

A saved human match (``nines play``) is reviewed the same way, the person's
seat answering from the file.  The search does not see hidden cards; a player
that does (``clairvoyant``) is judged by a weaker judge, and the review says so.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd

from nines_sim.engine.batch import CompiledEngine
from nines_sim.game.cards import NINES
from nines_sim.game.rules import Rules
from nines_sim.play.replay import replay_command
from nines_sim.play.saved import KIND_NAMES, PERSON, SavedMatch, move_text
from nines_sim.runs.ranges import Range
from nines_sim.search.pimc import MAX_ROWS, candidates
from nines_sim.search.verdict import Z95, Verdict, has_choice, judge
from nines_sim.strategy.base import PAIR_OF_NINES, DecisionKind, Observation, Strategy
from nines_sim.strategy.hidden_cards import hidden_card_note
from nines_sim.strategy.registry import make_lineup, spec_of

#: Classes of a choice measurably worse than the best (its loss outside the 95% interval of zero), by points
#: lost: from 0 an inaccuracy, from 4 a mistake, from 10 a blunder.  Chosen from the measured distribution
#: (README, "nines review"): of the 2,442 measurably worse choices of the five built-in heuristics over 40
#: heads-up matches each against ``expert`` (seed 1, 256 samples), the median lost 4.5 points and the
#: costliest tenth 10.7 or more; so a mistake costs more than the typical bad choice, a blunder is among the
#: costliest tenth.
THRESHOLDS = (("inaccuracy", 0.0), ("mistake", 4.0), ("blunder", 10.0))
#: Turns of a hand, in rounds of the table, that count as early (before: "early"; from then on: "late").
EARLY_ROUNDS = 2

#: ``command(obs, j, match, hand, turn, kind)``: the command that shows decision ``j`` of a decision's games
#: (``hand`` and ``turn`` counted from 1, as ``nines replay`` numbers them and ``nines analyze`` takes them).
CommandOf = Callable[[Observation, int, int, int, int, DecisionKind], str]

COLUMNS = ("match", "hand", "turn", "seat", "kind", "move", "best", "candidates", "chosen_value", "best_value",
           "points_lost", "lost_se", "accurate", "verdict", "opponent_about_to_go_out", "holding_nines", "phase",
           "own_cards", "stock", "command")  # fmt: skip


def classify(lost: np.ndarray, se: np.ndarray) -> np.ndarray:
    """The class of each decision: ``ok`` when its loss is within the 95% interval of zero, else by :data:`THRESHOLDS`.

    Parameters
    ----------
    lost, se : numpy.ndarray
        float64, (n,): points lost and the standard error of that loss.

    Returns
    -------
    numpy.ndarray
        object, (n,): ``ok``, ``inaccuracy``, ``mistake`` or ``blunder``.
    """
    out = np.full(lost.shape, "ok", dtype=object)
    significant = lost > Z95 * se
    for name, pts in THRESHOLDS:
        out[significant & (lost >= pts)] = name
    return out


@dataclass
class ReviewSetup:
    """How decisions are judged: the search's samples, rollout policy, outcome and draw inference; and whether
    each hand's luck and skill are measured too (``luck``, a strategy review's ``luck_skill.csv``)."""

    samples: int = 256
    policy: str = "expert"
    outcome: str = "hand"
    infer: float = 1.0
    luck: bool = False


class Reviewed(Strategy):
    """A seat under review: answers as ``inner`` does, and records the search's verdict on each choice.

    Parameters
    ----------
    inner : Strategy
        The player under review.
    setup : ReviewSetup
    command : callable, optional
        ``command(obs, j, match, hand, turn, kind) -> str``: the command that shows decision ``j``.
    """

    def __init__(self, inner: Strategy, setup: ReviewSetup, command: CommandOf | None = None):
        self.inner, self.setup, self.command = inner, setup, command
        self.name = inner.name  # type: ignore[misc] - shown under the reviewed player's name
        self.classifier = inner.classifier  # type: ignore[misc]
        self.values = getattr(inner, "values", {})
        self.rows: list[dict] = []
        self.engine: CompiledEngine | None = None
        self.seconds = 0.0
        self._pairs: set[tuple[int, int]] = set()
        if hasattr(inner, "reveal"):  # the hook through which the engine shows the hidden cards, passed on
            self.reveal = inner.reveal

    def play(self, obs: Observation) -> np.ndarray:
        mv = np.asarray(self.inner.play(obs))
        if mv.shape == (obs.n,) and np.issubdtype(mv.dtype, np.integer) and (mv == PAIR_OF_NINES).any():
            self._pairs.update(_turn_keys(obs, np.flatnonzero(mv == PAIR_OF_NINES)))
        self._judge(obs, mv)
        return mv

    def declare(self, obs: Observation) -> np.ndarray:
        mv = np.asarray(self.inner.declare(obs))
        pair = None
        if self._pairs:
            keys = _turn_keys(obs, np.arange(obs.n))
            pair = np.array([k in self._pairs for k in keys], dtype=bool)
            self._pairs.difference_update(keys)
        self._judge(obs, mv, pair=pair)
        return mv

    def play_drawn(self, obs: Observation, card: np.ndarray) -> np.ndarray:
        yes = np.asarray(self.inner.play_drawn(obs, card))
        if yes.shape == (obs.n,) and yes.dtype == np.bool_:
            self._judge(obs, yes.astype(np.int64), card)
        return yes

    def _judge(self, obs: Observation, moves: np.ndarray, card: np.ndarray | None = None,
               pair: np.ndarray | None = None) -> None:  # fmt: skip
        if moves.shape != (obs.n,) or not np.issubdtype(moves.dtype, np.integer):
            return  # the engine refuses the answer with its own message
        t0 = time.perf_counter()
        cand = candidates(obs, card)
        ok = has_choice(obs, cand) & (cand == moves[:, None]).any(axis=1)
        todo = np.flatnonzero(ok)
        per = max(1, MAX_ROWS // (self.setup.samples * cand.shape[1]))
        s = self.setup
        for lo in range(0, todo.size, per):
            sel = todo[lo : lo + per]
            sub = _subset(obs, sel)
            v = judge(sub, None if card is None else card[sel], None if pair is None else pair[sel], s.samples,
                      s.policy, s.outcome, s.infer)  # fmt: skip
            self._record(sub, v, moves[sel])
        self.seconds += time.perf_counter() - t0

    def _record(self, obs: Observation, v: Verdict, moves: np.ndarray) -> None:
        n = obs.n
        lost, se = v.loss(moves)
        mean = v.mean
        best_col = v.best()
        chosen_col = v.column(moves)
        verdicts = classify(lost, se)
        seat = obs.seat
        sizes = obs.hand_sizes
        in_hand = obs.in_hand
        others = np.where(in_hand & (np.arange(obs.players)[None, :] != seat[:, None]), sizes, 99)
        threat = others.min(axis=1) == 1
        held = obs.held
        nines = (held & np.uint64(NINES)) != 0
        turn = obs.public("turn")
        n_in = in_hand.sum(axis=1)
        hand = obs.public("hands_played") + obs.public("tb_hands")
        match = self.engine.match[obs._idx] if self.engine is not None else np.full(n, -1)
        kind = DecisionKind(obs.kind)
        stock = obs.stock_size
        for j in range(n):
            # a person reads these: hands and turns counted from 1, as ``nines replay`` prints them
            m, h, t = int(match[j]), int(hand[j]) + 1, int(turn[j]) + 1
            self.rows.append({
                "match": m, "hand": h, "turn": t, "seat": int(seat[j]), "kind": KIND_NAMES[kind],
                "move": move_text(kind, int(moves[j])), "best": move_text(kind, int(v.moves[j, best_col[j]])),
                "candidates": int((v.moves[j] >= 0).sum()), "chosen_value": float(mean[j, chosen_col[j]]),
                "best_value": float(mean[j, best_col[j]]), "points_lost": float(lost[j]), "lost_se": float(se[j]),
                "accurate": bool(lost[j] <= Z95 * se[j]), "verdict": verdicts[j],
                "opponent_about_to_go_out": bool(threat[j]), "holding_nines": bool(nines[j]),
                "phase": "early" if t <= EARLY_ROUNDS * int(n_in[j]) else "late",
                "own_cards": int(sizes[j, seat[j]]), "stock": int(stock[j]),
                "command": self.command(obs, j, m, h, t, kind) if self.command else "",
            })  # fmt: skip

    def __repr__(self) -> str:
        return f"Reviewed({self.inner!r})"


def _turn_keys(obs: Observation, rows: np.ndarray) -> list[tuple[int, int]]:
    return list(zip(obs.public("dkey")[rows].tolist(), obs.public("turn")[rows].tolist(), strict=True))


def _subset(obs: Observation, rows: np.ndarray) -> Observation:
    """An observation of some of the games of another."""
    return Observation(obs._pub, obs._idx[rows], obs.seat[rows], obs.kind, [w[rows] for w in obs.hand],
                       obs.legal[rows])  # fmt: skip


@dataclass
class Review:
    """A finished review: one row per decision with a choice, and how it was made.

    Attributes
    ----------
    decisions : pandas.DataFrame
        Columns :data:`COLUMNS` (``review.csv``'s): ``hand`` counts the match's hands from 1 (tie-break
        hands too) and ``turn`` the turns of that hand from 1, as ``nines replay`` numbers them and
        ``nines analyze --hand --turn`` takes them; ``command`` shows the decision (for a play, ``nines
        analyze --match-stream`` with the review's samples: the same values).
    player : str
        Who was reviewed.
    lineup : list of str
        The seats as they were filled.
    rules : Rules
    seed : int
    matches : int
    setup : ReviewSetup
    seconds : float
        Wall time of the whole review; ``judge_seconds`` of the search alone.
    note : str, optional
        Why the comparison is not fair (a player that sees hidden cards).
    stopped : bool
        Whether Ctrl-C stopped the review early (``matches`` counts those kept).
    ranges, kept : list of (int, int)
        A strategy review's match indices asked for and kept (half-open pairs; equal unless stopped, when
        each unit kept its finished block from its start); empty for a saved match.
    source : str, optional
        The saved match reviewed, as its path was given (None for a strategy review).
    """

    decisions: pd.DataFrame
    player: str
    lineup: list[str]
    rules: Rules
    seed: int
    matches: int
    setup: ReviewSetup
    seconds: float
    judge_seconds: float
    note: str | None = None
    stopped: bool = False
    ranges: list[Range] = field(default_factory=list)
    kept: list[Range] = field(default_factory=list)
    source: str | None = None

    @property
    def speed(self) -> float:
        """Decisions with a choice reviewed per second of wall time."""
        return len(self.decisions) / self.seconds if self.seconds > 0 else float("nan")


def _frame(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _setup_options(setup: ReviewSetup) -> str:
    """``nines analyze``'s options that judge as ``setup`` does: the samples, and any other setting not its default."""
    parts = ["--samples", str(setup.samples)]
    default = ReviewSetup()  # nines analyze's defaults too: expert rollouts to the end of the hand, inference 1
    if setup.policy != default.policy:
        parts += ["--policy", setup.policy]
    if setup.outcome != default.outcome:
        parts += ["--outcome", setup.outcome]
    if setup.infer != default.infer:
        parts += ["--infer", f"{setup.infer:g}"]
    return shlex.join(parts)


def _command(rules: Rules, specs: list[str], seed: int, setup: ReviewSetup, obs: Observation, j: int, match: int,
             hand: int, turn: int, kind: DecisionKind) -> str:  # fmt: skip
    """The command that shows a reviewed decision: ``nines analyze`` for a play, else ``nines replay``.

    ``hand`` and ``turn`` count from 1, as ``nines replay`` numbers them; the analyze command
    samples on the match's own stream with the review's settings, so it prints the review's values.
    """
    if kind == DecisionKind.PLAY:
        base = replay_command(rules, specs, seed, match, "analyze")
        return f"{base} --hand {hand} --turn {turn} --match-stream {_setup_options(setup)}"
    return replay_command(rules, specs, seed, match)


#: Order of the kinds of decision within a turn, for sorting the rows of a review.
_KIND_ORDER = {"dealer_declare": 0, "play": 1, "play_drawn": 2, "declare": 3}


def review_range(
    lineup: list,
    rules: Rules,
    seed: int,
    start: int,
    n: int,
    setup: ReviewSetup,
    batch_size: int = 256,
    on_matches=None,  # noqa: ANN001 - nines_sim.runs.pool's progress callback
    should_stop=None,  # noqa: ANN001 - nines_sim.runs.pool's stop callback
) -> tuple[list[dict], float, int]:
    """Review seat 0 of ``lineup`` in matches ``start .. start + n - 1`` (a unit of work of :mod:`nines_sim.runs.pool`).

    A stopped range keeps its finished block of matches from ``start`` (``start .. k - 1``, ``k`` its first
    unfinished match), as a tournament's chunk does: a whole block of match indices, which ``--ranges`` plays
    again exactly, not a sample biased towards short matches.

    Returns
    -------
    tuple
        (rows of the kept matches, seconds the search took, matches kept).
    """
    if should_stop is not None and should_stop():
        return [], 0.0, 0
    made = make_lineup(lineup)
    specs = [spec_of(s) if isinstance(s, Strategy) else str(s) for s in lineup]
    seat0 = Reviewed(made[0], setup, partial(_command, rules, specs, seed, setup))
    eng = CompiledEngine(rules, [seat0, *made[1:]], seed, start, n, batch_size=batch_size, specs=specs)
    seat0.engine = eng
    done = kept = 0
    while eng.B and not (should_stop is not None and should_stop()):
        eng.advance()
        if on_matches is not None and eng.matches_done > done:
            block = eng.lowest_unfinished() - start
            on_matches(eng.matches_done - done, block - kept)
            done, kept = eng.matches_done, block
    kept = eng.lowest_unfinished() - start
    return [r for r in seat0.rows if r["match"] < start + kept], seat0.seconds, kept


class ReviewWork:
    """A strategy review as an experiment of :func:`nines_sim.runs.driver.run`: seat 0 of ``lineup`` reviewed
    in the matches of ``ranges`` of ``seed``, cut into units that each keep their finished block when stopped."""

    play = staticmethod(review_range)

    def __init__(self, lineup: list, rules: Rules, seed: int, ranges: list[Range], setup: ReviewSetup,
                 batch_size: int = 256) -> None:  # fmt: skip
        from nines_sim.runs.ranges import KeptBlocks, total

        self.lineup, self.rules, self.seed, self.ranges = lineup, rules, seed, ranges
        self.setup, self.batch_size = setup, batch_size
        self.matches = total(ranges)
        self.warm = [rules]
        self.parts: dict[tuple[int, int], tuple] = {}
        self.kept = KeptBlocks()

    def shape(self):  # noqa: ANN201 - nines_sim.runs.chunks.Shape
        from nines_sim.runs.chunks import Keeps, Shape

        return Shape(Keeps.BLOCK)  # the reviewed seat decides in Python: one unit per worker

    def units(self, size: int, portable: Callable) -> Iterator[tuple[tuple[int, int], tuple]]:
        from nines_sim.runs.ranges import cut

        lineup = self.lineup
        if all(isinstance(s, str) for s in lineup):
            lineup = list(portable(tuple(lineup)))
        for s, n in cut(self.ranges, size):
            yield (s, n), (lineup, self.rules, self.seed, s, n, self.setup, self.batch_size)

    def take(self, tag: tuple[int, int], result: tuple) -> int:
        self.parts[tag] = result
        return self.kept.add(tag[0], result[2])

    def outcome(self, partial: bool) -> tuple[list[dict], float, list[Range], bool]:
        """(rows sorted by match, hand, turn and kind; the search's seconds; the kept ranges; whether stopped)."""
        rows = [r for tag in sorted(self.parts) for r in self.parts[tag][0]]
        rows.sort(key=lambda r: (r["match"], r["hand"], r["turn"], _KIND_ORDER[r["kind"]]))
        return rows, sum(p[1] for p in self.parts.values()), self.kept.ranges(), partial


def review_strategy(
    strategy: str | Strategy,
    against: Sequence[str | Strategy] = ("expert",),
    matches: int = 200,
    rules: Rules | None = None,
    seed: int = 0,
    setup: ReviewSetup | None = None,
    batch_size: int = 256,
    workers: int = 1,
    on_progress=None,  # noqa: ANN001 - nines_sim.runs.pool.Progress
    ranges: list[Range] | None = None,
) -> Review:
    """Review a strategy over ``matches`` matches, seated at seat 0 against ``against`` (seats 1, 2, ...).

    The matches are split into units reviewed in ``workers`` parallel processes (the run driver,
    :mod:`nines_sim.runs.driver`); the rows are the same for any number of workers (each match and each
    decision's samples depend on the seed alone), sorted by match, hand, turn and kind.  ``ranges``
    (half-open pairs within ``matches``) reviews only those matches.  Ctrl-C stops early and keeps each
    unit's finished block of matches (``Review.kept``; ``Review.stopped`` is then True).

    Raises
    ------
    nines_sim.strategy.registry.StrategyNotFound
        For a spec that names no strategy.
    ValueError
        If the lineup does not fill the rules' seats.
    """
    from nines_sim.runs import driver
    from nines_sim.runs.backends import Local

    setup = setup or ReviewSetup()
    rules = rules or Rules(players=len(against) + 1)
    lineup = [strategy, *against]
    made = make_lineup(lineup)
    specs = [spec_of(s) if isinstance(s, Strategy) else str(s) for s in lineup]
    wanted = ranges or [(0, matches)]
    t0 = time.perf_counter()
    work = ReviewWork(lineup, rules, seed, wanted, setup, batch_size)
    rows, judged, kept, stopped = driver.run(work, Local(max(1, workers)), on_progress)
    wall = time.perf_counter() - t0
    played = sum(b - a for a, b in kept)
    return Review(_frame(rows), specs[0], specs, rules, seed, played, setup, wall, judged,
                  hidden_card_note(made[:1]), stopped, wanted, kept)  # fmt: skip


def review_saved(saved: SavedMatch, path: str = "FILE", setup: ReviewSetup | None = None) -> Review:
    """Review the person's decisions in a saved match (``nines play``) read from ``path``.

    Raises
    ------
    nines_sim.play.SavedMatchError
        If the file does not replay (see :func:`nines_sim.play.driver.run_match`).
    """
    from nines_sim.play.driver import run_match

    setup = setup or ReviewSetup()
    where = shlex.quote(str(path))

    def command(obs: Observation, j: int, match: int, hand: int, turn: int, kind: DecisionKind) -> str:
        if kind != DecisionKind.PLAY:
            return f"nines replay {where}"
        # the file replayed to the play, sampled on the match's own stream with the review's settings: its values
        return f"nines analyze {where} --hand {hand} --turn {turn} --match-stream {_setup_options(setup)}"

    seats: list[Reviewed] = []

    def wrap(person: Strategy) -> Strategy:
        seats.append(Reviewed(person, setup, command))
        return seats[-1]

    t0 = time.perf_counter()
    run_match(saved, wrap_seat=wrap)
    wall = time.perf_counter() - t0
    seat = seats[0]
    return Review(_frame(seat.rows), PERSON, saved.lineup, saved.rules, saved.seed, 1, setup, wall, seat.seconds,
                  source=str(path))  # fmt: skip


def review_command(review: Review, ranges: list[Range] | None = None) -> str:
    """The ``nines review`` command that makes ``review`` again: the same decisions and values.

    Parameters
    ----------
    review : Review
    ranges : list of (int, int), optional
        A strategy review's match indices to review (default: those it asked for); a stopped review's
        ``kept`` gives its ``kept_command``.

    Returns
    -------
    str
        A shell command line; workers do not change the rows, so none are given.
    """
    from nines_sim.engine.broker import rule_overrides
    from nines_sim.runs.ranges import format_ranges

    setup = ["--samples", str(review.setup.samples)]
    if review.setup.policy != ReviewSetup().policy:
        setup += ["--policy", review.setup.policy]
    if review.setup.luck:
        setup += ["--luck"]
    if review.source is not None:
        return shlex.join(["nines", "review", review.source, *setup])
    wanted = ranges if ranges is not None else review.ranges
    parts = ["nines", "review", review.lineup[0]]
    for spec in review.lineup[1:]:
        parts += ["--against", spec]
    parts += ["--matches", str(max((b for _, b in wanted), default=review.matches)), "--seed", str(review.seed),
              "--rules", review.rules.preset]  # fmt: skip
    for over in rule_overrides(review.rules):
        parts += ["--rule", over]
    whole = [(0, max((b for _, b in wanted), default=0))]
    if wanted and wanted != whole:
        parts += ["--ranges", format_ranges(wanted)]
    from nines_sim.runs.learned_files import digest_words, learned_files

    # the learned files its seats played, by digest: reviewed again once one has changed, it says so
    return shlex.join(parts + setup + digest_words(learned_files([str(s) for s in review.lineup], review.rules)))
