"""``nines rules``: the presets and every rules option."""

from __future__ import annotations

import typer

from nines_sim.game.rules import OPTION_CLAUSES, OPTION_HELP, PRESETS, Rules


def rules_cmd() -> None:
    """List the rule presets and every rules option with its default and RULES.md clause."""
    typer.echo("Presets (combine with '+', e.g. hard-nines+no-nine-out):")
    for name, (clause, over) in PRESETS.items():
        desc = ", ".join(f"{k}={v}" for k, v in over.items()) or "the defaults below"
        typer.echo(f"  {name:<22} {clause:<4} {desc}")
    typer.echo(
        "\nOptions: write them after the preset (--rules 'classic:nine_penalty=20,target=50') "
        "or one at a time (--rule nine_penalty=20):"
    )
    d = Rules()
    for name, value in d.options().items():
        shown = ",".join(map(str, value)) if isinstance(value, tuple) else value
        typer.echo(f"  {name:<14} {str(shown):<14} {OPTION_CLAUSES[name]:<11} {OPTION_HELP[name]}")
