"""What a tournament plays (:class:`Plan`): its format, its strategies and its games (a lineup under a rule
set each), and the columns of its tables.

The lowest layer of :mod:`nines_sim.experiments.tournament`: the formats (:mod:`~.work`), the league
(:mod:`~.league`), the chunks' play (:mod:`~.games`) and the tables (:mod:`~.tables`) all build on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nines_sim.game.rules import Rules
from nines_sim.results.stats import MIN_MATCHES_TO_RANK
from nines_sim.strategy.registry import display_name, make_lineup

FORMATS = ("table", "round-robin", "field", "league")
#: Formats whose runs are rated from the finishing orders (:mod:`nines_sim.experiments.tournament.league`).
RATED_FORMATS = ("round-robin", "league")
#: With no strategies named: the four one-line heuristics and ``expert`` (the fast, fair built-ins) at a 5-seat table.
DEFAULT_LINEUP = ("random", "hold-nines", "dump-faces", "suit-majority", "expert")

SUMMARY_COLUMNS = [
    "position", "rank", "strategy", "matches", "wins", "win_rate", "win_rate_low", "win_rate_high",
    "mean_total", "sd_total", "go_out_rate", "mean_hand_penalty",
]  # fmt: skip
HANDS_COLUMNS = [
    "hands", "mean_turns_per_hand", "mean_hands_per_match", "blocked_rate", "capped_hands",
    "reshuffles_per_hand", "nine_starter_rate", "first_player_go_out_rate",
]  # fmt: skip
DISTRIBUTION_COLUMNS = ["strategy", "kind", "points", "count"]
SEAT_COLUMNS = ["seat_from_dealer", "hands", "go_outs", "go_out_rate"]
PAIRWISE_COLUMNS = [
    "comparison", "a", "b", "matches", "estimate", "se", "ci_low", "ci_high", "test", "p_value", "p_holm",
    "significant",
]  # fmt: skip
HEAD_TO_HEAD_COLUMNS = ["strategy", "opponent", "matches", "win_rate", "win_rate_low", "win_rate_high"]
MATCH_COLUMNS_FIXED = ["game", "match", "hands", "tiebreak_hands", "first_dealer"]
TOO_SMALL_NOTE = (
    f"stopped with too few matches to rank (under {MIN_MATCHES_TO_RANK} per game): no ranks, no significance claims"
)


class TournamentError(ValueError):
    """A tournament that cannot be set up as asked; the message says what to do."""


@dataclass(frozen=True)
class Game:
    """One lineup under one rule set: ``key`` names it in tables ("table", "random vs dump-faces")."""

    key: str
    rules: Rules
    lineup: tuple[str, ...]


def entry_names(specs: list[str]) -> list[str]:
    """The names the CSVs give a lineup's strategies: each one's ``display_name`` (values to 4 digits,
    ``expert(w_follow=2.5)``), or its spec where two different specs would share a name (``expert:w_follow=2.5001``
    and ``expert:w_follow=2.5002``), so that no two strategies of a run have one name.

    Parameters
    ----------
    specs : list of str
        Strategy specs, one per entry (a spec may repeat: one strategy in several seats).

    Returns
    -------
    list of str
    """
    names = [display_name(s) for s in make_lineup(list(specs))]
    specs_of: dict[str, set[str]] = {}
    for spec, name in zip(specs, names):
        specs_of.setdefault(name, set()).add(str(spec))
    return [str(spec) if len(specs_of[name]) > 1 else name for spec, name in zip(specs, names)]


@dataclass
class Plan:
    """What a tournament plays.

    Attributes
    ----------
    format : str
    strategies : list of str
        The strategy specs as given (for ``table``, one per seat).
    games : list of Game
    baseline : str or None
    labels : list of str
        The strategies' names, as tables show them.
    """

    format: str
    strategies: list[str]
    games: list[Game]
    baseline: str | None = None
    labels: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.labels:
            self.labels = entry_names(self.strategies)

    def label_of(self, spec: str) -> str:
        """The name a strategy spec is shown under (a class's ``name``, not its import path)."""
        return self.labels[self.strategies.index(spec)]
