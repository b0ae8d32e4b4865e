"""One rounding rule for every number a person reads, in the terminal and in report.md alike.

The CSVs store floats with ``FLOAT_FORMAT`` (10 significant digits).  The
console formats the value in memory and report.md the value read back from
the CSV, so both first take those 10 digits and then round half away from
zero: 0.00125 and 0.0012499999999999734 both read +0.13 pp everywhere.  A
value that rounds to zero prints without a sign ("0.00", never "-0.00").
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

#: printf format of every float written to a CSV: enough digits to round-trip what a reader sees.
FLOAT_FORMAT = "%.10g"


def decimal_text(x: float | None, decimals: int, *, signed: bool = False, scale: int = 1) -> str:
    """``x * scale`` with ``decimals`` decimals, rounded by the one rule above; ``"n/a"`` for None or NaN.

    Parameters
    ----------
    x : float or None
        The value (e.g. a rate, 0.2512).
    decimals : int
        Decimals to print (>= 0).
    signed : bool
        Print ``+`` before a positive value (differences); zero stays unsigned.
    scale : int
        Multiplier applied after the CSV's rounding: 100 for percentages and percentage points.

    Returns
    -------
    str
        E.g. ``decimal_text(0.00125, 2, signed=True, scale=100) == "+0.13"``.
    """
    if x is None or not math.isfinite(float(x)):
        return "n/a"
    value = (Decimal(FLOAT_FORMAT % float(x)) * scale).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    if value == 0:
        value = value.copy_abs()
        return f"{value:.{decimals}f}"
    return f"{value:{'+' if signed else ''}.{decimals}f}"


def speed_text(per_second: float | None) -> str:
    """A speed for people: ``"12,345"`` from 10 up, two significant digits below (``"0.48"``, ``"1.5"``).

    A search player's run plays about one match a second or fewer; rounded to a whole number its speed read
    ``0 matches/s``.  ``"n/a"`` for None or NaN.
    """
    if per_second is None or not math.isfinite(per_second):
        return "n/a"
    return f"{per_second:,.0f}" if per_second >= 10 else f"{per_second:.2g}"
