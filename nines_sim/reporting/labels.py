"""The short label a person reads for a strategy: in the terminal table, ``report.md`` and every chart.

A strategy with tuned values has a long name: ``expert@docs/tuned/expert-classic.json`` is, written out,
sixteen parameters with 17-digit values (``expert:w_penalty=1.3688637126139174,...``, ~260 characters), and
the CSVs name it with 4-digit values (``expert(w_penalty=1.369,...)``).  Those full names stay in the CSVs and
``manifest.json``; what is shown is

- a parameter file by its file name: ``expert@expert-classic.json``;
- a plug-in file by its file name: ``strategies/lowest.py:Lowest`` -> ``lowest.py:Lowest``;
- values rounded to 3 significant digits, more only where needed to tell two entries of a lineup apart:
  ``expert(w_penalty=1.37,w_follow=7.39,...)``;
- cut to :data:`LABEL_WIDTH` characters with an ellipsis, keeping the labels of a lineup distinct.

Built-in names (``random``, ``hold-nines``, ...) are shown unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: Most characters a label takes (a table column, a tick label, a legend entry).
LABEL_WIDTH = 40

ELLIPSIS = "\u2026"

#: Significant digits tried in turn until the rounded labels of a lineup are distinct.
_DIGITS = (3, 4, 6, 17)

_LABEL_FORM = re.compile(r"^(?P<base>[^()]+)\((?P<values>[^()]*=[^()]*)\)$")


def _basename(path: str) -> str:
    return path.replace("\\", "/").rstrip("/").rpartition("/")[2] or path


def _parse(spec: str) -> tuple[str, list[tuple[str, str]] | None]:
    """``(head, values)``: the shown head of a spec and its ``key=value`` items (None when it carries none)."""
    spec = spec.strip()
    m = _LABEL_FORM.match(spec)  # the CSVs' form: expert(w_penalty=1.369,...)
    if m:
        return m["base"], _items(m["values"])
    head, colon, tail = spec.rpartition(":")
    if colon and head and "=" in tail:  # expert:w_follow=2.5,...
        return _head(head), _items(tail)
    return _head(spec), None


def _head(base: str) -> str:
    """Files by their names: a parameter file (``expert@dir/best.json`` -> ``expert@best.json``) and a plug-in
    file (``dir/x.py:Class`` -> ``x.py:Class``); any other base unchanged."""
    name, at, path = base.rpartition("@")
    if at and name and path:
        return f"{_head(name)}@{_basename(path)}"
    where, colon, cls = base.rpartition(":")
    if colon and ("/" in where or "\\" in where):
        return f"{_basename(where)}:{cls}"
    return base


def _items(text: str) -> list[tuple[str, str]]:
    out = []
    for item in text.split(","):
        k, _, v = item.partition("=")
        out.append((k.strip(), v.strip()))
    return out


def _round(value: str, digits: int) -> str:
    """A value rounded to ``digits`` significant digits; integers and words unchanged."""
    try:
        int(value)
        return value
    except ValueError:
        pass
    try:
        x = float(value)
    except ValueError:
        return value
    return f"{x:.{digits}g}"


def _render(head: str, values: list[tuple[str, str]] | None, digits: int, keys: Sequence[str] | None) -> str:
    if values is None:
        return head
    shown = [(k, v) for k, v in values if keys is None or k in keys]
    text = ",".join(f"{k}={_round(v, digits)}" for k, v in shown)
    if keys is not None and len(shown) < len(values):
        text = f"{text},{ELLIPSIS}" if text else ELLIPSIS
    return f"{head}({text})"


def _cut(label: str, width: int) -> str:
    """At most ``width`` characters: the end replaced by an ellipsis (before a closing parenthesis if any),
    after the last whole ``key=value`` item that fits."""
    if len(label) <= width:
        return label
    close = ")" if label.endswith(")") else ""
    room = max(1, width - 1 - len(close))
    head = label[:room]
    whole = max(head.rfind(","), head.rfind("(")) + 1  # keep only whole items
    if close and whole > head.find("(") + 1:
        head = head[:whole]
    return head + ELLIPSIS + close


def _distinct(specs: Sequence[str], labels: Sequence[str]) -> bool:
    """Whether different specs got different labels (one spec seated twice may share its label)."""
    seen: dict[str, str] = {}
    for s, lab in zip(specs, labels):
        if seen.setdefault(lab, s) != s:
            return False
    return True


def short_labels(specs: Sequence[str], width: int = LABEL_WIDTH) -> list[str]:
    """The short labels of a lineup's strategies, distinct where the specs differ.

    Parameters
    ----------
    specs : sequence of str
        Strategy specs as given (``expert@best.json``, ``expert:w_follow=2.5``) or as the CSVs name them
        (``expert(w_follow=2.5)``), one per entry; an entry may repeat.
    width : int
        Most characters of a label (at least 8).

    Returns
    -------
    list of str
        One label per spec, at most ``width`` characters each.  Values are rounded to 3 significant digits,
        to more where that tells two entries apart; where the cut would still make two labels equal, the
        parameters that differ between them are shown first; as a last resort the labels are numbered.
    """
    width = max(8, width)
    parsed = [_parse(str(s)) for s in specs]
    # The parameters whose values differ between entries with the same head: what tells them apart.
    by_head: dict[str, list[list[tuple[str, str]]]] = {}
    for head, values in parsed:
        by_head.setdefault(head, []).append(values or [])
    differing = {
        head: [k for k in dict.fromkeys(k for vs in group for k, _ in vs)
               if len({dict(vs).get(k) for vs in group}) > 1] if len(group) > 1 else None  # alone: all values
        for head, group in by_head.items()
    }  # fmt: skip
    for digits in _DIGITS:
        labels = [_cut(_render(h, v, digits, None), width) for h, v in parsed]
        if _distinct(specs, labels):
            return labels
    for digits in _DIGITS:
        labels = [_cut(_render(h, v, digits, differing[h]), width) for h, v in parsed]
        if _distinct(specs, labels):
            return labels
    # Differences beyond any width: number the entries that share a label with another spec (in order of
    # appearance); a label that names one spec only stays as it is, rounded as far as the lineup allows.
    labels = _fewest_digits(parsed, width)
    numbers: dict[str, dict[str, int]] = {}
    for s, lab in zip(specs, labels):
        numbers.setdefault(lab, {}).setdefault(s, len(numbers[lab]) + 1)
    out = []
    for s, lab in zip(specs, labels):
        if len(numbers[lab]) == 1:
            out.append(lab)
            continue
        tag = f" #{numbers[lab][s]}"
        out.append(_cut(lab, width - len(tag)) + tag)
    return out


def _fewest_digits(parsed: list, width: int) -> list[str]:
    """Labels at the fewest significant digits that keep apart the most specs (numbering does the rest)."""
    best: list[str] = []
    for digits in _DIGITS:
        labels = [_cut(_render(h, v, digits, None), width) for h, v in parsed]
        if not best or len(set(labels)) > len(set(best)):  # more digits only where they tell more apart
            best = labels
    return best


def short_label(spec: str, width: int = LABEL_WIDTH) -> str:
    """The short label of one strategy spec (see :func:`short_labels`)."""
    return short_labels([spec], width)[0]


def label_map(names: Sequence[str], given: Sequence[str] | None = None, width: int = LABEL_WIDTH) -> dict[str, str]:
    """Each strategy name of a run's CSVs mapped to its short label.

    Parameters
    ----------
    names : sequence of str
        The names the CSVs use, in lineup order (summary or comparison positions).
    given : sequence of str, optional
        The specs as the user gave them, in the same order (``manifest.json``'s ``specs_given``); their
        parameter files name the labels.  Ignored unless as long as ``names``.
    width : int
        Most characters of a label.

    Returns
    -------
    dict of str to str
    """
    names = [str(n) for n in names]
    source = list(names)
    if given is not None and len(given) == len(names):
        # a parameter file names the entry; any other given spec (a plug-in's path) leaves the CSVs' name
        source = [str(g) if _parse(str(g))[0].endswith(".json") else n for g, n in zip(given, names)]
    return dict(zip(names, short_labels(same_strategy_same_spec(names, source), width)))


def same_strategy_same_spec(names: Sequence[str], specs: Sequence[str]) -> list[str]:
    """``specs`` with every entry whose strategy (``names``) came earlier given the earlier entry's spec: two
    parameter files of the same values are one strategy to the CSVs, so they must be one label too."""
    first: dict[str, str] = {}
    return [first.setdefault(str(n), str(s)) for n, s in zip(names, specs)]
