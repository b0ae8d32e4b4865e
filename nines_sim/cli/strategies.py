"""``nines strategies``: every strategy, built-in or plug-in, with its parameters."""

from __future__ import annotations

import typer

from nines_sim.cli.app import usage_error


def strategies_cmd() -> None:
    """List every strategy: name, source, classifier, description, parameters; and broken plug-ins."""
    from nines_sim.strategy.params import declared
    from nines_sim.strategy.registry import StrategyNotFound, builtin_classes, plugins

    try:
        rows = [(n, c, "built-in") for n, c in sorted(builtin_classes().items())]
        found = plugins()
    except StrategyNotFound as exc:
        raise usage_error(str(exc)) from None
    rows += [(p.name, p.cls, p.source) for p in found if p.cls is not None]
    for name, cls, src in rows:
        doc = " ".join((cls.__doc__ or "").split())
        first = doc.split(". ")[0].rstrip(".") + "."
        flags = ", ".join(k for k, v in cls.classifier.items() if v) or "-"
        own = f"; its class calls itself {cls.name!r}" if cls.name and cls.name != name else ""
        typer.echo(f"{name:<16} [{src}{own}] ({flags})\n    {first}")
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
