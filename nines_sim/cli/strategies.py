"""``nines strategies``: every strategy, built-in or plug-in, with its parameters."""

from __future__ import annotations

import typer

from nines_sim.cli.app import usage_error


def strategies_cmd() -> None:
    """List every strategy: name, source, classifier, description, parameters; and broken plug-ins."""
    from nines_sim.strategy.params import declared
    from nines_sim.strategy.registry import ALIAS_NOTES, StrategyNotFound, builtin_classes, make_lineup, plugins

    try:
        builtins = builtin_classes()
        found = plugins()
    except StrategyNotFound as exc:
        raise usage_error(str(exc)) from None
    # an alias is listed among the built-ins, as the seat it stands for with the values it sets
    aliases = {a: make_lineup([a])[0] for a in ALIAS_NOTES}
    rows = [(n, c, "built-in") for n, c in builtins.items()] + [(a, type(s), "alias") for a, s in aliases.items()]
    rows.sort()
    rows += [(p.name, p.cls, p.source) for p in found if p.cls is not None]
    for name, cls, src in rows:
        if src == "alias":
            values = ", ".join(f"{k}={v}" for k, v in aliases[name].values.items())
            typer.echo(f"{name:<16} [built-in, alias of {cls.name}] ({_flags(cls)})\n    {ALIAS_NOTES[name]}.")
            typer.echo(f"      at {values}")
            continue
        doc = " ".join((cls.__doc__ or "").split())
        first = doc.split(". ")[0].rstrip(".") + "."
        own = f"; its class calls itself {cls.name!r}" if cls.name and cls.name != name else ""
        typer.echo(f"{name:<16} [{src}{own}] ({_flags(cls)})\n    {first}")
        if cls.classifier.get("sees_hidden_cards"):
            typer.echo(
                "    NOT A FAIR PLAYER: it sees every hand and the stock (a reference for what hidden cards are worth)."
            )
        for p in declared(cls):
            typer.echo(f"      {p.name:<20} {p.kind:<6} default {p.default!s:<6} in {p.bounds():<10}  {p.help}")
    for p in found:
        if p.cls is None:
            fix = f"pip uninstall {p.dist}" if p.dist else f"remove the entry point {p.value}"
            typer.echo(f"{p.name:<16} [BROKEN {p.source}] cannot be used\n    {p.error} (fix it, or: {fix})")


def _flags(cls: type) -> str:
    """The classifier flags a strategy class sets, comma-separated, or "-"."""
    return ", ".join(k for k, v in cls.classifier.items() if v) or "-"
