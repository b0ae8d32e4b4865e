"""``learned``'s compiled decision (issue 40): the pairs the fit chooses, the pair and tree sums written into
its code (pickled alike in every process, so numba's disk cache keeps each model's decision), and the seats'
features read once a decision."""

from __future__ import annotations

import numpy as np
import pytest

from nines_sim.game.rules import make_rules
from nines_sim.learn.features import CARD_FEATURES, NFC, SUIT_FEATURES
from nines_sim.learn.model import load
from tests.test_learned import RICH_HIDDEN, RICH_PAIRS, _model_file


def test_the_pair_selection_finds_a_planted_product():
    """Values that are a product of two features plus noise, centred within decisions: the first pair chosen is
    that product, and the fit with it explains the values far better than the linear fit."""
    from nines_sim.learn.fit import RIDGE, fit_card_model, fit_ranker

    rng = np.random.default_rng(40)
    m = 6000
    x = rng.random((m, NFC))
    x[:, 0] = 1.0  # the bias feature
    g = np.repeat(np.arange(m // 3), 3)
    y = 2.0 * x[:, 5] * x[:, 17] + 0.5 * x[:, 2] + rng.normal(scale=0.05, size=m)
    y -= np.bincount(g, y)[g] / 3
    assert [tuple(p) for p in fit_card_model(x, y, g, 0, 1, pairs=3)[4]][0] == (5, 17)
    wc, hw, hb, ow, pi, pw = fit_card_model(x, y, g, 0, 1, pairs=1)
    assert pi.tolist() == [[5, 17]] and pw[0] == pytest.approx(2.0, rel=0.25)  # the ridge shrinks it a little
    assert wc[2] == pytest.approx(0.5, abs=0.1) and hw.shape == (0, NFC)
    fitted = x @ wc + (x[:, pi[:, 0]] * x[:, pi[:, 1]]) @ pw
    linear = x @ fit_ranker(x, y, g, RIDGE)
    resid = [np.var(y - (f - np.bincount(g, f)[g] / 3)) for f in (fitted, linear)]
    assert resid[0] < 0.2 * resid[1]


def test_the_pair_products_pickle_alike_in_every_process():
    """numba's disk cache keys a model's compiled decision by its closure, pickled: the compiled pair sum and tree
    sum in it pickle to the same bytes in two processes, so that the second loads the decision the first
    compiled.  This process is one of the two (it may have made other models' sums before, as a training run has when
    a later process loads its model): a second new process cost its start and imports, about 0.65 s of processor
    time."""
    import contextlib
    import io
    import subprocess
    import sys

    code = (
        "import hashlib, numpy as np\n"
        "from numba.core.serialize import dumps\n"
        "from nines_sim.learn.decide import pair_sum_function, tree_sum_function\n"
        "print(hashlib.sha256(dumps(pair_sum_function(np.array([[1, 2], [3, 3]])))).hexdigest())\n"
        "tree = np.array([[3, -1, -1]]), np.array([[0.5, 0.0, 0.0]]), np.array([[[1, 2], [-1, -1], [-1, -1]]])\n"
        "print(hashlib.sha256(dumps(tree_sum_function(*tree))).hexdigest())\n"
    )
    here = io.StringIO()
    with contextlib.redirect_stdout(here):
        exec(code, {})
    out = [here.getvalue(), subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                           check=True).stdout]  # fmt: skip
    assert out[0] == out[1] and [len(line) for line in out[0].split()] == [64, 64]


def _two_models_decisions(tmp_path):
    """The compiled decisions' functions of two models: a small one, and one with hidden units, drawn weights
    and pairs."""
    from nines_sim.learn.decide import decide_for

    rules = make_rules("classic", players=2)
    paths = [
        _model_file(tmp_path, rules, "a.npz"),
        _model_file(tmp_path, rules, "b.npz", RICH_HIDDEN, True, RICH_PAIRS),
    ]
    return [decide_for(load(path)) for path in paths]


def test_each_model_s_compiled_decision_stays_in_numba_s_disk_cache_beside_the_others(tmp_path):
    """Two models' compiled decisions are each loaded from the disk cache after both were compiled (or loaded).

    Before, the cache's stamp took in the model's weights, so saving one model's entry dropped every other's
    from the index: every new model (each round of ``nines train``, the shipped models in turn) evicted the
    last one, and a rerun compiled again (about 10 s each).  The two models are ones the tests above compile
    (loaded here), or compiled here when this test runs alone."""
    from nines_sim.strategy.per_game_compiled import _callback

    decisions = _two_models_decisions(tmp_path)
    for fn in decisions:
        _callback(fn)  # compiled and saved, or loaded
    assert [_callback(fn).cache_hits for fn in decisions] == [1, 1]


def test_a_model_s_decision_asked_from_python_is_loaded_from_numba_s_disk_cache(tmp_path):
    """The decision as called from Python (``nines analyze``, ``nines review``, the strict plug-in checker) is
    cached on disk beside the turn loop's, in entries of its own: a later process loads it (counted by the
    dispatcher's cache hits) where it compiled it again (5-10 s of processor time per model and process).
    A fresh dispatcher of the same function stands for the later process."""
    from nines_sim.strategy.per_game_compiled import _callback, _python_form

    decisions = _two_models_decisions(tmp_path)
    for fn in decisions:
        _python_form(fn)  # compiled and saved, or loaded
        _callback(fn)  # the turn loop's form beside it: neither entry evicts or shadows the other
    again = [_python_form(fn) for fn in decisions]
    assert [sum(d.stats.cache_hits.values()) for d in again] == [1, 1]
    assert [sum(d.stats.cache_misses.values()) for d in again] == [0, 0]
    assert [_callback(fn).cache_hits for fn in decisions] == [1, 1]


def test_a_second_model_s_decision_types_none_of_the_shared_features_again(tmp_path, monkeypatch):
    """The features every model's decision computes (a card's, the seats' context) are compiled once for all
    models, filed in numba's disk cache, and inlined by LLVM into each model's code (issue 42): numba's own
    inlining copied and typed them again in every model's decision, about three quarters of its compile.  Two
    models' decisions, the second compiled here (not loaded from the disk cache), the first loaded from it where
    a test before built it (its compile types the shared features as the second's does): numba inlines into the
    second only the model's own scoring, and each shared function's cache index holds the one signature every
    model calls it with (counted from numba's inliner and the index, not timed)."""
    from numba import cfunc
    from numba.core.inline_closurecall import InlineWorker

    from nines_sim.engine.loop_constants import DECIDE_SIG
    from nines_sim.learn.decide import make_decide
    from nines_sim.strategy.per_game_compiled import _callback

    rules = make_rules("classic", players=2)
    paths = [
        _model_file(tmp_path, rules, "a.npz"),
        _model_file(tmp_path, rules, "b.npz", RICH_HIDDEN, True, RICH_PAIRS),
    ]
    first, second = (make_decide(load(path)) for path in paths)
    _callback(first)  # compiled with the shared features (or they are loaded), or loaded from the disk cache
    inlined = []
    inline = InlineWorker.inline_function

    def recorded(self, caller_ir, block, i, function, *args, **kwargs):  # noqa: ANN001, ANN202 - numba's
        inlined.append(function.__name__)
        return inline(self, caller_ir, block, i, function, *args, **kwargs)

    monkeypatch.setattr(InlineWorker, "inline_function", recorded)
    cfunc(DECIDE_SIG)(second)
    assert "mlp_score" in inlined  # the model's own scoring, its weights constants of its code
    assert not {"card_features", "card_features_in", "seat_context"} & set(inlined), inlined
    from nines_sim.learn.decide import SHARED_FEATURES

    for f in SHARED_FEATURES:
        assert len(f._cache._cache_file._load_index()) == 1, f.__name__


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_seats_features_read_once_a_decision_are_each_candidates(players):
    """The features a decision reads once for all its candidates (:func:`seat_context`: the other seats' sizes,
    totals and draws, the hand's points; the suits' features too) agree with the features' definitions,
    worked out here in plain Python per candidate, at 2-6 seats, a seat out of a tie-break hand (size 0)
    among them."""
    from nines_sim.engine.bits import FACE_NAT_PEN
    from nines_sim.learn.features import card_features, card_features_in, seat_context, suit_features

    c = {n: i for i, n in enumerate(CARD_FEATURES)}
    rng = np.random.default_rng(players)
    for _ in range(200):
        faces = rng.choice(52, size=int(rng.integers(1, 12)), replace=False)
        h0 = int(sum(1 << int(f) for f in faces))
        sizes = rng.integers(0, 6, size=players).astype(np.int64)
        totals = rng.integers(0, 100, size=players).astype(np.int64)
        drew_on = rng.integers(0, 16, size=players).astype(np.int64)
        seat, dirbit, f, s_after = int(rng.integers(players)), int(rng.integers(2)), int(faces[0]), int(rng.integers(4))
        args = (h0, 0, sizes, totals, drew_on, players, seat, dirbit)
        x = card_features_in(f, s_after, h0, 0, 5, 1, 0, seat_context(*args), 20, 30)
        assert x == card_features(f, s_after, h0, 0, 5, 1, 0, sizes, totals, drew_on, players, seat, dirbit, 20, 30)
        nxt = (seat + (-1 if dirbit else 1)) % players
        others = [p for p in range(players) if p != seat]
        live = [int(sizes[p]) for p in others if sizes[p] > 0]
        near_drew = sum(1 for p in others if 0 < sizes[p] <= 2 and (drew_on[p] >> s_after) & 1)
        nine = f % 13 == 8
        left = [int(g) for g in faces[1:]]
        points = sum(FACE_NAT_PEN[g] for g in left if g % 13 != 8)
        nines = sum(1 for g in left if g % 13 == 8)
        assert x[c["next_one_card"]] == float(sizes[nxt] == 1)
        assert x[c["next_two_cards"]] == float(sizes[nxt] == 2)
        assert x[c["other_one_card"]] == float(min(live, default=99) == 1)
        assert x[c["next_drew_on_suit"]] == float((drew_on[nxt] >> s_after) & 1)
        assert x[c["near_out_drew_on_suit"]] == near_drew
        assert x[c["own_total"]] == totals[seat] / 100.0
        assert x[c["max_other_total"]] == max(totals[p] for p in others) / 100.0
        assert x[c["own_minus_best_total"]] == (totals[seat] - min(totals[p] for p in others)) / 100.0
        assert x[c["hand_points_after"]] == (points + 20 * nines) / 50.0
        assert x[c["nines_after"]] == nines and x[c["cards_after"]] == len(left) / 10.0
        assert x[c["nine"]] == float(nine)
        y = suit_features(s_after, h0, 0, 0, sizes, drew_on, players, seat, dirbit)
        assert y[SUIT_FEATURES.index("next_drew_on")] == float((drew_on[nxt] >> s_after) & 1)
        assert y[SUIT_FEATURES.index("near_out_drew_on")] == near_drew
