"""Strategy parameters: declarations, values carried in a strategy spec, and their checks.

A strategy class declares what it lets a user (or ``nines tune``) change in
``params``, a tuple of :class:`Param`.  A spec names a strategy and may carry
values, in one of two forms, split off before the name is resolved:

``NAME:key=value,key=value``
    values inline; also ``module:Class:key=value`` and ``file.py:Class:key=value``
    (the values always follow the class name, after the last colon, and are
    recognised by their ``=``).
``NAME@file.json``
    values from a JSON file written by ``nines tune`` (``best.json``):
    ``{"strategy": NAME, "params": {key: value, ...}}``.
``NAME@file.json:key=value,key=value``
    the file's values, with the inline ones given after it in their place.
``NAME@model.npz``
    a model file for a strategy with a ``path`` parameter named ``model`` (``learned@model.npz``); the same
    as ``NAME:model=model.npz``.

Every check raises :class:`ParamError` with a one-line message.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nines_sim.game.path_lookup import look_up, shown
from nines_sim.spelling import did_you_mean

KINDS = ("int", "float", "choice", "path")


class ParamError(ValueError):
    """Parameter values that do not fit a strategy's declarations; the message says what would."""


@dataclass(frozen=True)
class Param:
    """One tunable parameter of a strategy.

    Attributes
    ----------
    name : str
        Key in specs and JSON files (``w_follow``).
    kind : str
        ``"int"``, ``"float"`` or ``"choice"``.
    default : int, float or str
        The value the strategy plays without being told otherwise.
    low, high : float, optional
        Inclusive bounds of an ``int`` or ``float`` parameter (also the tuner's search range).
    choices : tuple, optional
        The allowed values of a ``choice`` parameter.  A ``path`` parameter takes a file's path (not tuned).
    help : str
        One line: what it changes, and the source of the idea (a rule-document tip, a measurement).
    """

    name: str
    kind: str
    default: Any
    low: float | None = None
    high: float | None = None
    choices: tuple = ()
    help: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"parameter {self.name!r}: kind must be one of {KINDS}, not {self.kind!r}")
        if self.kind == "path":
            if not isinstance(self.default, str):
                raise ValueError(f"parameter {self.name!r}: default {self.default!r} is not a path")
        elif self.kind == "choice":
            if self.default not in self.choices:
                raise ValueError(f"parameter {self.name!r}: default {self.default!r} is not among {self.choices}")
        elif self.low is None or self.high is None or not self.low <= self.default <= self.high:
            raise ValueError(f"parameter {self.name!r}: default {self.default!r} outside [{self.low}, {self.high}]")

    def bounds(self) -> str:
        """The allowed values in words: ``1..4`` or ``0.0..10.0`` or ``a|b|c``."""
        if self.kind == "choice":
            return "|".join(map(str, self.choices))
        if self.kind == "path":
            return "any file"
        return f"{self.low:g}..{self.high:g}" if self.kind == "float" else f"{int(self.low)}..{int(self.high)}"

    def coerce(self, value: Any, strategy: str) -> Any:
        """``value`` (a string from a spec, or a JSON value) as this parameter's type, checked against its bounds.

        Raises
        ------
        ParamError
            For a value of the wrong type or outside the bounds.
        """
        where = f"{strategy} parameter {self.name}"
        if self.kind == "path":
            if not isinstance(value, str) or not value.strip():
                raise ParamError(f"{where} takes a file path, not {value!r}")
            return value
        if self.kind == "choice":
            for c in self.choices:
                if value == c or str(value) == str(c):
                    return c
            raise ParamError(f"{where} must be one of {self.bounds()}, not {value!r}")
        try:
            if isinstance(value, bool):
                raise ValueError
            if self.kind == "int":
                v: Any = int(value) if not isinstance(value, float) else value
                if isinstance(v, float):
                    if not v.is_integer():
                        raise ValueError
                    v = int(v)
            else:
                v = float(value)
                if not math.isfinite(v):
                    raise ValueError
        except (TypeError, ValueError):
            raise ParamError(
                f"{where} takes {'an integer' if self.kind == 'int' else 'a number'}, not {value!r}"
            ) from None
        if not self.low <= v <= self.high:
            raise ParamError(f"{where} must lie in {self.bounds()}, not {v!r}")
        return v


def declared(cls: type) -> tuple[Param, ...]:
    """The parameters a strategy class declares (empty for one that declares none)."""
    return tuple(getattr(cls, "params", ()) or ())


def defaults(cls: type) -> dict[str, Any]:
    """Every declared parameter at its default, in declaration order."""
    return {p.name: p.default for p in declared(cls)}


def check_values(cls: type, values: dict[str, Any], strategy: str) -> dict[str, Any]:
    """Values for ``cls`` coerced and checked, in declaration order.

    Raises
    ------
    ParamError
        For values given to a strategy that declares no parameters, an unknown
        name (the message lists the known ones), or a bad value.
    """
    params = {p.name: p for p in declared(cls)}
    if values and not params:
        raise ParamError(f"strategy {strategy!r} declares no parameters; it takes none")
    for k in values:
        if k not in params:
            hint = did_you_mean(k, params)
            raise ParamError(f"{strategy} has no parameter {k!r}{hint}; its parameters are: {', '.join(params)}")
    return {k: params[k].coerce(values[k], strategy) for k in params if k in values}


def split_spec(spec: str) -> tuple[str, str | None, str | None]:
    """``(base, inline values, json path)`` of a strategy spec; see the module docstring.

    ``expert:w_follow=2.5`` -> ``("expert", "w_follow=2.5", None)``;
    ``expert@best.json`` -> ``("expert", None, "best.json")``;
    ``expert@best.json:w_follow=2`` -> ``("expert", "w_follow=2", "best.json")``;
    ``file.py:Class`` -> ``("file.py:Class", None, None)``.
    """
    head, at, path = spec.rpartition("@")
    # a path after '@' never holds a colon here: 'dir@x/s.py:Class' is a plug-in file spec
    if at and head and path and ":" not in path:
        return head, None, path
    if at and head:
        path, colon, tail = path.rpartition(":")
        if colon and path and ":" not in path and "=" in tail:
            return head, tail, path
    head, colon, tail = spec.rpartition(":")
    if colon and head and "=" in tail:
        return head, tail, None
    return spec, None, None


def parse_inline(text: str, strategy: str) -> dict[str, str]:
    """``key=value,key=value`` as a dict of strings.

    Raises
    ------
    ParamError
        For an item without ``=``, an empty key or a key given twice.
    """
    out: dict[str, str] = {}
    for item in text.split(","):
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key or not value:
            raise ParamError(f"strategy {strategy!r}: parameters are written key=value,key=value, not {item!r}")
        if key in out:
            raise ParamError(f"strategy {strategy!r}: parameter {key!r} is given twice")
        out[key] = value
    return out


def _same_plugin(written: str, given: str) -> bool:
    """Whether two plug-in specs name the same class of a file of the same name (``a/x.py:C``, ``/b/x.py:C``);
    the file may have been named from another folder."""
    if ":" not in written or ":" not in given:
        return False
    (wf, _, wc), (gf, _, gc) = written.rpartition(":"), given.rpartition(":")
    return wc == gc and Path(wf).name == Path(gf).name


def read_values(
    inline: str | None, path: str | None, strategy: str, given_as: str = "", takes_model: bool = False
) -> dict[str, Any]:
    """The values a spec carries: those of the file at ``path``, replaced by the ``inline`` ones it names
    (``given_as``: the spec the strategy was named by, e.g. a plug-in's ``file.py:Class``, also accepted as the
    file's ``"strategy"``; ``takes_model``: the strategy has a ``model`` path parameter, so a file that is not
    JSON may have been meant as a model, and its error says how one is named).

    Raises
    ------
    ParamError
        As :func:`parse_inline` and :func:`read_json`.
    """
    if path and path.lower().endswith(".npz"):  # a model file: the value of the 'model' parameter
        return {"model": path, **(parse_inline(inline, strategy) if inline else {})}
    return {**(read_json(path, strategy, given_as, takes_model) if path else {}),
            **(parse_inline(inline, strategy) if inline else {})}  # fmt: skip


def read_json(path: str, strategy: str, given_as: str = "", takes_model: bool = False) -> dict[str, Any]:
    """The parameter values in a JSON file for ``strategy`` (the ``best.json`` of ``nines tune``), which names
    it by its name or, for a plug-in, by the spec it was tuned under (``dir/file.py:Class``: the same file
    name and class as ``given_as``).

    Raises
    ------
    ParamError
        For a missing or malformed file, a folder, or a file written for another strategy.
    """
    p = Path(path)
    kind, why = look_up(p)
    if kind == "folder":  # a tuning's run folder, most likely: its best.json is the file meant
        inside = f"; name the file in it: {strategy}@{p / 'best.json'}" if look_up(p / "best.json")[0] == "file" else ""
        raise ParamError(f"{path} is a folder, not a parameter file (in {strategy}@{path}){inside}")
    if kind != "file":
        raise ParamError(f"no such parameter file: {shown(path)}{why and ' '}{why} (in {strategy}@{shown(path)})")
    try:
        data = json.loads(p.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        model = f"; a model file of nines train ends in .npz ({strategy}@model.npz)" if takes_model else ""
        raise ParamError(f"{path} is not a readable JSON file ({type(exc).__name__}: {exc}){model}") from None
    if not isinstance(data, dict) or not isinstance(data.get("params"), dict):
        raise ParamError(f'{path} is not a parameter file: it needs {{"strategy": ..., "params": {{...}}}}')
    if data.get("strategy") != strategy and not _same_plugin(str(data.get("strategy")), given_as):
        raise ParamError(f"{path} holds parameters for {data.get('strategy')!r}, not for {strategy!r}")
    return data["params"]


def format_value(v: Any) -> str:
    """A value as written in a spec: ``repr`` of floats (exact), plain ints and choices."""
    return repr(v) if isinstance(v, float) else str(v)


def spec_with(base: str, values: dict[str, Any]) -> str:
    """The spec that names ``base`` with ``values`` inline (``base`` alone when there are none)."""
    if not values:
        return base
    return f"{base}:" + ",".join(f"{k}={format_value(v)}" for k, v in values.items())


def label(name: str, values: dict[str, Any]) -> str:
    """How tables and charts show a strategy with values: ``expert(w_follow=2.5)``; short floats (4 digits)."""
    if not values:
        return name
    shown = ",".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in values.items())
    return f"{name}({shown})"
