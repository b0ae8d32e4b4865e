"""Sample the hidden cards: complete positions consistent with what one player may see.

From an :class:`~nines_sim.strategy.base.Observation` only (the deciding player's
hand and public information), :func:`sample_positions` deals the unseen cards
(the deck less the own hand, the discard pile and its top card) into the other
seats' hands, whose sizes are public, and the stock, whose size is public.
Every sample is a pure function of the decision's random stream, so the same
decision draws the same samples in any batch or process.

What is public narrows the deal:

- Reshuffles (T5).  The stock is empty when the pile is shuffled into it, so
  after a reshuffle this hand the stock holds only cards that went through the
  pile: a face never played this hand (``Observation.played``, the starter
  included) that the player cannot see is in another hand, never in the stock
  (:func:`must_be_in_hand`).  This is exact, not a guess, and always applied.
- Draws (T1), optional (``infer``): a player who drew while suit ``s`` was
  active held no card of suit ``s`` and no 9 at that moment.  Such cards may
  have been drawn since, so they are made less likely in that hand, not
  excluded (:func:`hand_weights`).  Each seat's hand follows its own draws,
  whatever its place in the deal order: the deal's law is close to the one in
  which a deal's probability is proportional to the product, over the other
  hands' cards, of their seat's weight (see :mod:`nines_sim.search.sample_deal`).
- Counts (T2, T4), optional (``counts``): the weights make a lacked card rarer one
  card at a time, so 1-2% of weighted deals give a seat more of the faces it lacked
  at a draw turn than it drew since, which no deal can.  With ``counts`` no sample
  does (:func:`count_bounds`): a sample over a bound is drawn again, so the samples
  are the weighted ones conditioned on the bounds.
"""

from __future__ import annotations

import numpy as np

from nines_sim.engine.draw_log import LOG_DECL, LOG_K, LOG_KEPT, LOG_TURN_MAX
from nines_sim.engine.position import PositionBatch
from nines_sim.engine.slots import DRAW_LOG_SEATS, DRAW_LOG_WORDS
from nines_sim.game.cards import FACE_RANK, FACE_SUIT, N_FACES, NINE_RANK
from nines_sim.search.policies import DRAW_MODELS
from nines_sim.search.sample_deal import deal_samples, deal_samples_one_hidden, purpose_word
from nines_sim.search.sample_keys import write_sample_keys
from nines_sim.strategy.base import Observation

ONE = np.uint64(1)
#: Stream purposes of the sampler, under the decision root (see :mod:`nines_sim.game.rng`).
SAMPLE_CARDS = 40
SAMPLE_KEYS = 41
SAMPLE_SWAPS = 42
#: ``counts``: the purposes of a sample's draws after its first, of their swaps, and of the last resort's trades.
SAMPLE_RETRY = 43
SAMPLE_RETRY_SWAPS = 44
SAMPLE_REPAIR = 45
#: ``counts``: a sample over a count bound is drawn again up to this many times before it is repaired.
RETRIES = 16
#: Sweeps of swaps over the hidden hands' cards that bring each seat's hand to its own weights
#: when two or more hidden seats are dealt (:func:`nines_sim.search.sample_deal.deal_samples`, step 3).
SWEEPS = 8


def _count_words(words: list[np.ndarray]) -> np.ndarray:
    """Copies of each face in count-coded words of shape (n,): int64, (n, 52)."""
    bits = np.arange(N_FACES, dtype=np.uint64)
    out = np.zeros((words[0].shape[0], N_FACES), dtype=np.int64)
    for w in words:
        out += ((w[:, None] >> bits) & ONE).astype(np.int64)
    return out


def must_be_in_hand(obs: Observation, unseen: np.ndarray) -> np.ndarray:
    """Faces whose unseen copies are in another hand, not the stock (T5): bool, (n, 52).

    After a reshuffle this hand, the stock holds only cards that went through
    the discard pile; a face never played this hand never did.

    Parameters
    ----------
    obs : Observation
    unseen : numpy.ndarray
        int64, (n, 52): copies of each face the player cannot see.
    """
    never_played = ((obs.played[:, None] >> np.arange(N_FACES, dtype=np.uint64)) & ONE) == 0
    return (obs.public("reshuffles")[:, None] > 0) & never_played & (unseen > 0)


def hand_weights(obs: Observation, infer: float) -> np.ndarray:
    """Relative weight of each face in each seat's hand, from the draws each seat made (T1).

    A seat that drew while suit ``s`` was active held no card of suit ``s`` and
    no 9 then (a 9 is always legal, unless ``nine_on_nine`` is off).  Cards it
    drew later may be such cards, so they get weight ``1 - infer`` rather than 0.

    Parameters
    ----------
    obs : Observation
    infer : float
        0 (draws reveal nothing: every weight 1) to 1 (at least 0.001).

    Returns
    -------
    numpy.ndarray
        float64, (n, P, 52).
    """
    n, P = obs.n, obs.players
    if infer <= 0:
        return np.ones((n, P, N_FACES))
    drew = obs.drew_on
    held_none = ((drew[:, :, None] >> FACE_SUIT[None, None, :].astype(np.int64)) & 1) == 1
    if obs.rules.nine_on_nine:
        held_none |= (drew[:, :, None] != 0) & (FACE_RANK == NINE_RANK)[None, None, :]
    return np.where(held_none, max(1.0 - infer, 1e-3), 1.0)


#: ``draws="log"``: the weight of a card that a seat's draw turns showed it lacked, by ``k``, the cards the seat
#: drew since the last of those turns (0, 1, 2, 3 or more): a card drawn at that turn and kept though legal, or
#: one drawn later.  Measured relative to a card no draw excluded, in the seats' own hands at their decisions,
#: heads-up, classic and hard-nines alike (``reports/draw-log/calibrate.py``): naturals at
#: ``k`` = 0, 1, 2: 0, 0.19, 0.50 for ``expert`` and 0.07, 0.20, 0.46 for ``lookahead`` (which keeps a legal drawn
#: card at times), 1.4 at 3 or more (capped at 1 here); a 9 at ``k`` = 0: 0.26 and 0.22.  The weights are
#: between the two players', as for an opponent of either kind.
LOG_NATURAL = np.array([0.03, 0.2, 0.5, 1.0])
LOG_NINE = np.array([0.25, 0.4, 0.7, 1.0])
#: ``draws="log+declare"``: the weight of a natural of the suit a seat last declared, where no draw turn since
#: excluded it, by the seat's own turns since it declared (1, 2, 3 or more; 0: its declaring turn), as measured
#: with the draw log's weights: 2.6, 4.3, 2.6, 1.5 for ``expert`` and 1.8, 3.3, 1.9, 1.1 for ``lookahead``
#: (``reports/draw-log/calibrate_declare.py``); between the two, as for the draws.
LOG_DECLARED = np.array([2.2, 3.7, 2.2, 1.3])


def log_view(obs: Observation) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each seat's draw log (:mod:`nines_sim.engine.draw_log`), read.

    Returns
    -------
    tuple of numpy.ndarray
        ``(k, kept, suit, turn)``: ``k`` int64 (n, P, 52), the cards each seat drew since the last draw turn
        on which the face was legal (3: 3 or more; -1: never this hand); ``kept`` bool (n, P), whether the
        seat's log was kept since the deal (false in a described position); ``suit``, ``turn`` int64 (n, P),
        the suit each seat last declared and the turn it did (-1: none).
    """
    n, P = obs.n, obs.players
    words = np.asarray(obs.public("draw_log")).reshape(n, DRAW_LOG_SEATS, DRAW_LOG_WORDS)[:, :P]
    bits = np.arange(N_FACES, dtype=np.int64)
    k = np.full((n, P, N_FACES), -1, dtype=np.int64)
    for age in range(4):
        k[((words[..., LOG_K + age, None] >> bits) & 1) == 1] = age
    decl = words[..., LOG_DECL]
    return k, (decl & LOG_KEPT) != 0, (decl & 0xFF) - 1, ((decl >> 8) & LOG_TURN_MAX) - 1


def log_weights(obs: Observation, infer: float, declare: bool = False) -> np.ndarray:
    """Relative weight of each face in each seat's hand from the draw log (T1, T2, T4): float64, (n, P, 52).

    A face that a seat's draw turns showed it lacked came in with one of the ``k`` cards it drew since the
    last such turn (or was drawn there and kept though legal): weight :data:`LOG_NATURAL` (:data:`LOG_NINE`
    for a 9) at ``k``, moved towards 1 as ``infer`` falls to 0.  A seat whose log was not kept (a described
    position) falls back on :func:`hand_weights`.  With ``declare``, the naturals of the suit a seat last
    declared that no draw excluded weigh :data:`LOG_DECLARED` at the seat's own turns since (T3: a player
    tends to declare a suit it holds), moved towards 1 likewise.
    """
    k, kept, suit, turn = log_view(obs)
    kk = np.maximum(k, 0)
    table = np.where(FACE_RANK == NINE_RANK, LOG_NINE[kk], LOG_NATURAL[kk])
    w = np.where(k < 0, 1.0, 1.0 - infer * (1.0 - table))
    if declare:
        n_in = np.maximum(obs.in_hand.sum(axis=1), 1)[:, None]  # (n, 1)
        since = obs.public("turn")[:, None] - turn  # turns since it declared, (n, P)
        age = np.clip((since + n_in - 1) // n_in, 0, 3)  # the seat's own turns, its next one counted
        boost = 1.0 + infer * (LOG_DECLARED[age] - 1.0)  # (n, P)
        declared = (suit >= 0)[..., None] & (FACE_SUIT == suit[..., None])
        w = np.where(declared & (FACE_RANK != NINE_RANK) & (k < 0), w * boost[..., None], w)
    return np.where(kept[..., None], w, hand_weights(obs, infer))


def count_bounds(obs: Observation) -> tuple[np.ndarray, int]:
    """What the draw log bounds in each seat's hand: the count of cards of the faces its draw turns showed it lacked.

    A seat draws only when it holds no legal card (T2, T4), so a face legal at a draw turn can be in its hand now
    only as a card drawn at that turn (kept though legal: at most one, T4; none under V2, where the drawn legal card
    is played) or since.  The log (:mod:`nines_sim.engine.draw_log`) keeps each face's ``k``, the cards drawn since
    its last such turn.  Every card of ages 0 to ``j`` came in at or after the oldest of those turns, so a seat
    holds at most ``j + slack`` of them (``j`` = 0, 1, 2; at 3 or more nothing is bounded).  Counted in physical
    cards, both copies with two decks.

    Returns
    -------
    tuple
        ``(age, slack)``: ``age`` int64 (n, P, 52), each face's ``k`` in each seat's log where it is 0, 1 or 2,
        else -1 (never lacked, 3 or more, or a seat whose log was not kept: a described position); ``slack`` 1,
        or 0 under the draw rule ``until-playable`` (V2).
    """
    k, kept, _, _ = log_view(obs)
    age = np.where(kept[..., None] & (k >= 0) & (k <= 2), k, -1).astype(np.int64)
    return age, 0 if obs.rules.draw_rule == "until-playable" else 1


def count_breaks(obs: Observation, hands: list[np.ndarray], samples: int = 1) -> np.ndarray:
    """Which worlds give some seat more cards of the faces it lacked than it drew since (T2, T4).

    Parameters
    ----------
    obs : Observation
        Of ``n`` games.
    hands : list of numpy.ndarray
        Count-coded hand words, uint64, (n * samples, P) per deck: ``samples`` worlds per game, game-major (the
        ``hands`` of :func:`sample_positions`; with ``samples`` 1, the true hands).
    samples : int

    Returns
    -------
    numpy.ndarray
        bool, (n * samples,): some seat over its bound (:func:`count_bounds`); the deciding seat, whose hand a
        sample does not deal, is not counted.
    """
    age, slack = count_bounds(obs)
    g = np.repeat(np.arange(obs.n), samples)
    held = sum(_count_words_2d(w) for w in hands)  # (R, P, 52)
    a = age[g]
    over = np.zeros(held.shape[:2], dtype=bool)
    for j in range(3):
        over |= (held * ((a >= 0) & (a <= j))).sum(axis=2) > j + slack
    over[np.arange(len(g)), obs.seat[g]] = False
    return over.any(axis=1)


def _count_words_2d(words: np.ndarray) -> np.ndarray:
    """Copies of each face in count-coded words of shape (R, P): int64, (R, P, 52)."""
    return ((words[..., None] >> np.arange(N_FACES, dtype=np.uint64)) & ONE).astype(np.int64)


def sample_positions(obs: Observation, samples: int, salt: int = 0, infer: float = 0.0,
                     draws: str = "suits", counts: bool = False, tally: np.ndarray | None = None,
                     ) -> PositionBatch:  # fmt: skip
    """``samples`` complete positions per game of an observation, at the deciding seat's turn.

    Parameters
    ----------
    obs : Observation
        Of ``n`` games; it must show the discard pile (:attr:`Observation.pile`).
    samples : int
        Positions per game, K >= 1.
    salt : int
        Picks an independent set of samples for the same decision (0..63).
    infer : float
        How much less likely a card is in a hand whose draws say it was not held then
        (:func:`hand_weights`); 0: draws are ignored.
    draws : str
        One of :data:`~nines_sim.search.policies.DRAW_MODELS`: ``suits`` (:func:`hand_weights`), ``log`` or
        ``log+declare`` (:func:`log_weights`).
    counts : bool
        Keep every seat's hand within the count bounds of its draw log (:func:`count_bounds`): a sample over a bound
        is drawn again (the law of the samples within the bounds, unchanged), up to :data:`RETRIES` times, then
        brought within them by trades and bounded swaps.  False: the samples of the first versions.
    tally : numpy.ndarray, optional
        int64, (n, 3), zeros: filled, with ``counts``, with each game's draws made again, samples repaired, and
        samples a repair left over a bound (:func:`~nines_sim.search.sample_deal.deal_samples`).

    Returns
    -------
    PositionBatch
        ``n * K`` positions, game-major (row ``g * K + k``).  The own seat's hand,
        the discard pile, the top card, the sizes, the totals and the public
        history are the observation's; the other hands and the stock are sampled;
        ``seat`` is the deciding seat.  The card and decision keys of sample
        ``k`` of a game are the same for every call with the same ``salt``
        (common random numbers across candidate moves).

    Raises
    ------
    ValueError
        If the unseen cards do not fill the public hand sizes and stock size
        (an observation that no deal could produce).
    """
    if samples < 1:
        raise ValueError(f"samples must be >= 1, not {samples}")
    if draws not in DRAW_MODELS:
        raise ValueError(f"draws must be one of {', '.join(DRAW_MODELS)}, not {draws!r}")
    n, K, P, D = obs.n, samples, obs.players, obs.rules.decks
    known = _count_words(list(obs.hand)) + _count_words(obs.pile)
    known[np.arange(n), obs.top] += 1
    unseen = D - known  # copies of each face not seen by the player, (n, 52)
    if (unseen < 0).any():
        raise ValueError("the observation shows a card more often than the decks hold")
    if not np.array_equal(unseen.sum(axis=1), obs.hand_sizes.sum(axis=1) - obs.hand_sizes[np.arange(n), obs.seat]
                          + obs.stock_size):  # fmt: skip
        raise ValueError("the unseen cards do not match the public hand sizes and stock size")
    sizes = obs.hand_sizes.copy()
    sizes[np.arange(n), obs.seat] = 0  # the own hand is known
    # every field but the dealt cards, the keys and the match index is the game's: its row, repeated per sample
    worlds = _game_rows(obs).take(np.repeat(np.arange(n), K))
    state = worlds.state
    base = obs.random(salt)
    weights = log_weights(obs, infer, draws == "log+declare") if draws != "suits" else hand_weights(obs, infer)
    age, slack = count_bounds(obs) if counts else (np.full((n, P, N_FACES), -1, dtype=np.int64), 1)
    retry = np.array([purpose_word(SAMPLE_RETRY), purpose_word(SAMPLE_RETRY_SWAPS), purpose_word(SAMPLE_REPAIR)])
    # one hidden seat a game and no bounds (heads-up): step 3 never runs, and its form leaves that code out
    deal = deal_samples_one_hidden if not counts and ((sizes > 0).sum(axis=1) <= 1).all() else deal_samples
    # the deal fills the other seats' hands (the own seat's, dealt none, keeps the game's) and the stock
    deal(base, purpose_word(SAMPLE_CARDS), K, unseen, must_be_in_hand(obs, unseen),
         weights, sizes, obs.stock_size.astype(np.int64), state.hands, state.stock,
         purpose_word(SAMPLE_SWAPS), SWEEPS, age, slack, RETRIES if counts else 0, retry,
         np.zeros((n, 3), dtype=np.int64) if tally is None else tally)  # fmt: skip
    write_sample_keys(base, purpose_word(SAMPLE_KEYS), K, state.keys, state.st)  # and the match index
    return worlds


def _game_rows(obs: Observation) -> PositionBatch:
    """One position per game of ``obs`` holding what every sample of the game shares: the own hand, the discard
    pile, the top card, the sizes, the totals and the public history (the other hands, the stock, the keys and the
    match index are left to each sample)."""
    n, P = obs.n, obs.players
    rows = np.arange(n)
    hands = [np.zeros((n, P), dtype=np.uint64) for _ in obs.hand]
    for h, own in zip(hands, obs.hand, strict=True):
        h[rows, obs.seat] = own
    pub = obs.public
    hands_played = pub("hands_played")
    a: dict[str, object] = {
        "hands": hands,
        "under": obs.pile,
        "stock": 0,
        "stock_pos": 0,
        "stock_end": obs.stock_size,
        "top": obs.top,
        "active": obs.active_suit,
        "seat": obs.seat,
        "dealer": obs.dealer,
        "dirbit": pub("dirbit"),
        "seats_mask": pub("seats_mask"),
        "n_in": obs.in_hand.sum(axis=1),
        "totals": obs.totals,
        "ncards": obs.hand_sizes,
        "drew_on": obs.drew_on,
        "draw_log": pub("draw_log"),
        "played": obs.played,
        "turn": pub("turn"),
        "streak": pub("streak"),
        "drawn": pub("drawn"),
        "reshuffles": pub("reshuffles"),
        "in_tb": pub("in_tb") != 0,
        "hands_played": hands_played,
        "tb_hands": pub("tb_hands"),
        "hand_seq": hands_played + pub("tb_hands") + 1,
        "nine_starter": False,
        "first_dealer": obs.dealer,
        "match": rows,
        "hkey": 0,
        "dkey": 0,
        "mkey": 0,
        "dmkey": 0,
    }
    return PositionBatch(obs.rules, a)
