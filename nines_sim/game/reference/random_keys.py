"""The reference's random words (D2, D4, T5 and the strategies' decisions), computed again from the rules' text.

Random words come from ``mix_int`` chained as root -> match key -> hand key -> stream, where the cards use the
root ``blake2b(b"nines-sim/cards/" + seed)`` and the strategies' random numbers the root
``blake2b(b"nines-sim/decisions/" + seed)`` (with ``hashlib`` here, not taken from the engine).
"""

from __future__ import annotations

import hashlib

from nines_sim.game.rng import COUNTER, DECISION, GOLDEN, HAND, M64, PURPOSE, mix_int


def card_root(seed: int) -> int:
    return int.from_bytes(hashlib.blake2b(b"nines-sim/cards/" + str(seed).encode(), digest_size=8).digest(), "little")


def decision_root(seed: int) -> int:
    digest = hashlib.blake2b(b"nines-sim/decisions/" + str(seed).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def match_key(root: int, match: int) -> int:
    return mix_int(mix_int((root + GOLDEN) & M64) ^ match)


def hand_key(mkey: int, hand_seq: int) -> int:
    return mix_int(mkey ^ (((hand_seq + 1) * HAND) & M64))


def stream(key: int, purpose: int, counter: int) -> int:
    return mix_int(key ^ ((purpose * PURPOSE) & M64) ^ ((counter * COUNTER) & M64))


def decision_word(seed: int, match: int, hand_seq: int, kind: int, turn: int, salt: int = 0) -> int:
    """The random word a strategy gets for a decision of ``kind`` on ``turn`` of a hand (``salt`` 0..63)."""
    dkey = hand_key(match_key(decision_root(seed), match), hand_seq)
    return stream(dkey, DECISION + kind, turn * 64 + salt)
