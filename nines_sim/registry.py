"""One registry of strategies: the built-ins, installed plug-ins and specs by path.

A strategy is found by

- its ``name`` among the classes in the ``strategies`` package (built-ins),
- its name among entry points of the group ``nines_sim.strategies``,
- ``package.module:Class`` or ``path/to/file.py:Class``.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
import sys
from importlib.metadata import entry_points
from pathlib import Path

from nines_sim.strategy import Strategy

ENTRY_POINT_GROUP = "nines_sim.strategies"


class StrategyNotFound(LookupError):
    """A strategy spec that names nothing usable; the message says what is available."""


def _classes_in(module) -> list[type[Strategy]]:  # noqa: ANN001
    return [
        c
        for _, c in inspect.getmembers(module, inspect.isclass)
        if issubclass(c, Strategy) and c is not Strategy and c.__module__ == module.__name__ and c.name
    ]


def builtin_classes() -> dict[str, type[Strategy]]:
    """Every strategy class defined in the ``strategies`` package, by name."""
    import nines_sim.strategies as strategies

    out: dict[str, type[Strategy]] = {}
    for info in sorted(pkgutil.iter_modules(strategies.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"nines_sim.strategies.{info.name}")
        for c in _classes_in(module):
            if c.name in out and out[c.name] is not c:
                raise StrategyNotFound(f"two built-in strategies are named {c.name!r}")
            out[c.name] = c
    return out


def plugin_classes() -> dict[str, tuple[type[Strategy], str]]:
    """Strategies declared by installed packages in the entry-point group, by name, with their source."""
    out: dict[str, tuple[type[Strategy], str]] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            c = ep.load()
        except Exception as exc:  # a broken plug-in must not hide the others
            raise StrategyNotFound(f"plug-in {ep.name!r} ({ep.value}) does not import: {exc}") from exc
        _check_class(c, ep.value)
        out[c.name or ep.name] = (c, f"plugin {ep.value}")
    return out


def available() -> list[tuple[str, type[Strategy], str]]:
    """(name, class, source) of every strategy found, built-ins first."""
    rows = [(n, c, "built-in") for n, c in builtin_classes().items()]
    seen = {n for n, _, _ in rows}
    for n, (c, src) in plugin_classes().items():
        if n in seen:
            raise StrategyNotFound(f"two strategies are named {n!r} (a built-in and {src}); rename one")
        rows.append((n, c, src))
    return rows


def _check_class(c: object, spec: str) -> None:
    if not (inspect.isclass(c) and issubclass(c, Strategy)):
        raise StrategyNotFound(f"{spec} is not a Strategy subclass (subclass nines_sim.strategy.Strategy)")
    if inspect.isabstract(c):
        raise StrategyNotFound(f"{spec} does not implement play() and declare()")


def load_class(spec: str) -> type[Strategy]:
    """The strategy class a spec names.

    Raises
    ------
    StrategyNotFound
        For an unknown name (listing the known ones), a module or file that does
        not import, a missing class, or a class that is not a strategy.
    """
    if ":" in spec:
        where, _, cls_name = spec.rpartition(":")
        if where.endswith(".py") or "/" in where or "\\" in where:
            path = Path(where)
            if not path.is_file():
                raise StrategyNotFound(f"no such file: {where} (in strategy spec {spec!r})")
            mod_name = f"nines_user_{abs(hash(str(path.resolve())))}"
            module_spec = importlib.util.spec_from_file_location(mod_name, path)
            module = importlib.util.module_from_spec(module_spec)  # type: ignore[arg-type]
            sys.modules[mod_name] = module
            try:
                module_spec.loader.exec_module(module)  # type: ignore[union-attr]
            except Exception as exc:
                raise StrategyNotFound(f"{where} does not import: {type(exc).__name__}: {exc}") from exc
        else:
            try:
                module = importlib.import_module(where)
            except Exception as exc:
                raise StrategyNotFound(f"module {where!r} does not import: {type(exc).__name__}: {exc}") from exc
        c = getattr(module, cls_name, None)
        if c is None:
            raise StrategyNotFound(f"{where} has no class {cls_name!r}")
        _check_class(c, spec)
        return c
    for name, c, _ in available():
        if name == spec:
            return c
    names = ", ".join(n for n, _, _ in available())
    raise StrategyNotFound(f"unknown strategy {spec!r}; available: {names} (or module:Class, file.py:Class)")


def make_lineup(specs: list) -> list[Strategy]:
    """Strategy instances for a lineup of specs or instances; a repeated spec shares one instance."""
    made: dict[str, Strategy] = {}
    out: list[Strategy] = []
    for s in specs:
        if isinstance(s, Strategy):
            out.append(s)
            continue
        if s not in made:
            cls = load_class(s)
            try:
                made[s] = cls()
            except Exception as exc:
                raise StrategyNotFound(
                    f"strategy {s!r} cannot be created without arguments ({type(exc).__name__}: {exc}); "
                    f"give its __init__ defaults for every parameter"
                ) from None
        out.append(made[s])
    by_name: dict[str, type] = {}
    for st in out:
        other = by_name.setdefault(st.name, type(st))
        if other is not type(st):
            raise StrategyNotFound(
                f"two strategies are named {st.name!r} ({other.__module__}.{other.__qualname__} and "
                f"{type(st).__module__}.{type(st).__qualname__}); give one a different name"
            )
    return out


def hidden_card_players(specs: list) -> list[str]:
    """The specs whose strategy sees hidden cards (classifier ``sees_hidden_cards``, e.g. ``clairvoyant``).

    Such a strategy is not a fair player: tables and reports that include it say so.
    Specs that do not resolve are skipped (they fail elsewhere, with their own message).
    """
    out = []
    for s in specs:
        try:
            c = type(s) if isinstance(s, Strategy) else load_class(str(s))
        except StrategyNotFound:
            continue
        if c.classifier.get("sees_hidden_cards") and str(s) not in out:
            out.append(s.name if isinstance(s, Strategy) else str(s))
    return out


def hidden_card_note(specs: list) -> str | None:
    """One sentence saying which strategies of a lineup see hidden cards, or None."""
    names = hidden_card_players(specs)
    if not names:
        return None
    return (
        f"Not a fair comparison: {', '.join(names)} sees every hand and the stock (sees_hidden_cards); "
        f"its results measure what hidden information is worth."
    )


def display_name(strategy: Strategy) -> str:
    """The name a strategy is shown under."""
    return strategy.name or type(strategy).__name__
