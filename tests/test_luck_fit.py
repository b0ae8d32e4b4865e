"""The luck value's fit from sums (nines_sim.luck.value.Moments, measure.fit_reserved): no array of every hand."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from sklearn.linear_model import Ridge

from nines_sim.game.rules import make_rules
from nines_sim.luck import compiled
from nines_sim.luck.features import NJ
from nines_sim.luck.measure import FIT_START, fit_reserved, measure_luck
from nines_sim.luck.value import Moments, fit_value
from nines_sim.strategy.registry import make_lineup


def test_the_ridge_from_moments_gathered_in_chunks_is_scikit_learn_s_ridge():
    """Stage 1's ridge solved from its sums of squares and products, gathered over uneven chunks (one empty), is
    scikit-learn's ``Ridge(solver="cholesky")`` with its intercept on the whole data, to 1e-10 relative, per kind and
    seat; the data off-centre (means of 3 to 5 standard deviations), where uncentred sums would lose digits."""
    gen = np.random.default_rng(41)
    h, P, alpha = 3000, 3, 1.0
    blocks = gen.normal(size=(h, 3, P, NJ)) * gen.uniform(0.1, 2.0, NJ) + gen.uniform(-5, 5, NJ)
    blocks[:, :, :, :40] += 0.3 * blocks[:, :, :, 40:80]  # correlated columns, as the phase copies are
    penalties = gen.integers(0, 60, size=(h, P)) + (blocks[:, 0, :, :5].sum(axis=2) * 3).astype(np.int64)
    cuts = [0, 700, 700, 1900, h]
    moments = Moments.of(blocks[:0], penalties[:0])
    for a, b in zip(cuts, cuts[1:], strict=False):
        moments = moments.merge(Moments.of(blocks[a:b], penalties[a:b]))
    points = moments.ridge(alpha)
    pen = penalties.astype(float)
    for p in range(P):
        y = pen[:, p] - (pen.sum(axis=1) - pen[:, p]) / (P - 1)
        for k in range(3):
            expected = Ridge(alpha=alpha, solver="cholesky").fit(blocks[:, k, p], y).coef_
            np.testing.assert_allclose(points[k, p], expected, rtol=0, atol=1e-10 * np.abs(expected).max())
    assert moments.n == h


def test_the_streamed_fit_is_the_fit_on_every_hand_for_any_workers():
    """``fit_reserved`` (stage 1 from each chunk's moments, the reserved matches walked again for stage 2) gives the
    value fitted on every hand of the same matches at once to 1e-10 of each kind and seat's largest weight, and the
    same bytes with one worker or two (the chunks' moments merged in match order)."""
    rules = make_rules("skip-reverse").replace(players=3)
    specs = ["random", "expert", "dump-faces"]
    one = fit_reserved(rules, specs, 6, 1100)
    two = fit_reserved(rules, specs, 6, 1100, workers=2)
    assert one.weights.tobytes() == two.weights.tobytes() and one.points.tobytes() == two.points.tobytes()
    hands = measure_luck(rules, specs, 6, FIT_START, 1100, keep_parts=False)
    whole = fit_value(None, hands.shares, hands.hand_blocks, hands.hand_penalties, hand_match=hands.hand_match,
                      hand_weights=hands.hand_weights)  # fmt: skip
    scale = np.abs(whole.weights).max(axis=2, keepdims=True)
    assert (np.abs(one.weights - whole.weights) <= 1e-10 * scale).all() and scale.min() > 0.01
    np.testing.assert_allclose(one.points, whole.points, rtol=0, atol=1e-10 * np.abs(whole.points).max())


def test_a_traced_chunk_s_hands_are_freed_when_it_returns():
    """The tracing engine lives in a reference cycle; its walker, holding every hand's blocks of the chunk, is let go
    when the chunk returns, not at the next cyclic collection (before: each chunk's blocks, 26 MB for 500 heads-up
    matches, stayed until then, and a fit's memory grew chunk by chunk)."""
    rules = make_rules("classic").replace(players=2)
    specs = ["expert", "dump-faces"]
    gc.collect()
    gc.disable()
    try:
        out = compiled.trace_luck(rules, make_lineup(specs), specs, 0, 0, 20, keep_parts=False)
        # type(), not isinstance(): a dead weak proxy among the objects raises on isinstance's __class__
        alive = [o for o in gc.get_objects() if type(o) is compiled.RowWalker]
    finally:
        gc.enable()
    assert out[3].shape[0] > 20 and not alive


def test_stage_two_s_least_squares_is_scikit_learn_s_to_the_bit_without_importing_it():
    """Stage 2's least squares (``value.least_squares``) gives scikit-learn's ``LinearRegression`` coefficients byte
    for byte, on off-centre and correlated columns (and rank-deficient ones); and a fit no longer imports
    scikit-learn (0.8 s of processor time a --luck run paid for one small regression per seat)."""
    import subprocess
    import sys

    from sklearn.linear_model import LinearRegression

    from nines_sim.luck.value import least_squares

    gen = np.random.default_rng(7)
    x = gen.normal(size=(4000, 10)) * gen.uniform(0.01, 3.0, 10) + gen.uniform(-4, 4, 10)
    x[:, 5:] += 0.5 * x[:, :5]
    y = (gen.random(4000) < 0.3 + 0.02 * x[:, 0]).astype(np.float64)
    for cols in (x, x[:, ::2], np.stack([x[:, 0], x[:, 0] * 2.0], axis=1)):  # the last one rank-deficient
        assert least_squares(cols, y).tobytes() == LinearRegression().fit(cols, y).coef_.tobytes()
    code = (
        "import sys; from nines_sim.game.rules import make_rules; from nines_sim.luck.measure import fit_reserved; "
        "fit_reserved(make_rules('classic').replace(players=2), ['random', 'dump-faces'], 3, 60); "
        "print('sklearn' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


@pytest.mark.parametrize("plugin", ["LateIllegal", "LateRaise"])
def test_a_strategy_failing_in_a_reserved_match_is_named_there_with_its_replay_command(plugin):
    """A plug-in that fails in the fit's reserved matches: the error names the match as one of the luck fit's
    reserved matches (2^61 + k, which the docs call them) with its index, and gives the ``nines replay`` command of
    that index (before: ``in match 2305843009213693952 of seed 0`` and no command)."""
    import re

    from nines_sim.engine.broker import IllegalMoveError, StrategyError

    specs = [f"tests.replay_plugins:{plugin}", "random"]
    with pytest.raises((IllegalMoveError, StrategyError)) as failed:
        fit_reserved(make_rules("classic").replace(players=2), specs, 3, 20)
    text = str(failed.value)
    found = re.search(r"in reserved match 2\^61 \+ (\d+) of seed 3, one of the matches --luck fits its value on "
                      r"before the run \(match index (\d+)\)", text)  # fmt: skip
    assert found, text
    k, index = int(found[1]), int(found[2])
    assert 0 <= k < 20 and index == FIT_START + k
    assert f"see the position and the traceback with: nines replay {' '.join(specs)} --seed 3 --match {index}" in text
