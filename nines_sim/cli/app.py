"""The ``nines`` application: the Typer app, its one-line usage errors, the version option and ``main``.

The commands register themselves on :data:`app` in their own modules (:mod:`nines_sim.cli`).
"""

from __future__ import annotations

import sys
import warnings
from typing import Annotated

import typer
from typer.core import TyperGroup

from nines_sim import __version__
from nines_sim.engine.failures import StrategyFailure
from nines_sim.runs.stages import STARTING_STOPPED, run_reached, stopped_words

# Typer vendors click in some versions: take click's exception classes from Typer's own.
_CLICK_EXCEPTION = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")
_USAGE_ERROR = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


def echo_error(message: str) -> None:
    """Print ``Error: message`` on stderr, on a line of its own even right after a progress bar."""
    # A progress bar leaves its line open; where stderr is not a terminal nothing clears it.
    # (No tqdm loaded, no bar open: a usage error does not load it.)
    tqdm = getattr(sys.modules.get("tqdm"), "tqdm", None)
    # (a bar a Ctrl-C caught while it was being built has no .disable yet: not open)
    fresh = "\n" if any(not getattr(b, "disable", True) for b in list(getattr(tqdm, "_instances", ()))) else ""
    typer.echo(f"{fresh}Error: {message}", err=True)


def usage_error(message: str) -> typer.Exit:
    """Print a one-line usage error and return the exit (code 2) to raise."""
    echo_error(message)
    return typer.Exit(code=2)


def strategy_failed(exc: StrategyFailure) -> typer.Exit:
    """Print a strategy's failure in play (its message names the strategy and where to see it) as one line and
    return the exit (code 1) to raise.

    Every command that plays a user's strategy ends here, whichever command and however deep the failure
    was raised: the app's :meth:`OneLineErrors.invoke` catches it around every command."""
    echo_error(str(exc))
    return typer.Exit(code=1)


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
    """Warnings as one ``Warning:`` line, without Python's source location."""
    typer.echo(f"Warning: {message}", err=True)


def _starting_stopped() -> typer.Exit:
    echo_error(stopped_words())
    return typer.Exit(code=130)


class OneLineErrors(TyperGroup):
    """Click's usage errors (ranges, types, unknown options) as one ``Error:`` line, exit code 2."""

    def make_context(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt:
            raise _starting_stopped() from None

    def invoke(self, ctx):  # noqa: ANN001, ANN201
        # The commands hear Ctrl-C themselves while they play or write (a run folder keeps what finished); one
        # that reaches here came before, between, or after (said as far as the run got: stages.stopped_words),
        # and Typer would end with code 130 and no word.
        run_reached(STARTING_STOPPED)  # each command starts afresh (tests run many in one process)
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _starting_stopped() from None
        except StrategyFailure as exc:
            raise strategy_failed(exc) from None

    def main(self, *args, standalone_mode: bool = True, **kwargs):  # noqa: ANN002, ANN003, ANN201
        argv = kwargs.get("args", args[0] if args else None)
        twice = self._given_twice(list(sys.argv[1:] if argv is None else argv))
        if twice is not None:
            echo_error(twice)
            if not standalone_mode:
                raise typer.Exit(code=2)
            sys.exit(2)
        try:
            with warnings.catch_warnings():
                warnings.showwarning = _one_line_warning
                rv = super().main(*args, standalone_mode=False, **kwargs)
        except _CLICK_EXCEPTION as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # plain 'nines': the help, not an error
                typer.echo(exc.format_message(), err=True)
            else:
                if type(exc).__name__ == "NoSuchOption":
                    _close_options_only(exc)
                message = " ".join(exc.format_message().replace("Value error, ", "").split()).rstrip(".")
                if isinstance(exc, _USAGE_ERROR) and exc.ctx is not None:
                    message += f" (see '{exc.ctx.command_path} --help')"
                echo_error(message)
            if not standalone_mode:
                raise
            sys.exit(exc.exit_code)
        except typer.Abort:
            if not standalone_mode:
                raise
            echo_error("aborted")
            sys.exit(1)
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)

    def _given_twice(self, argv: list[str]) -> str | None:
        """The usage error for an option that takes one value given twice (click keeps the last silently:
        ``tournament --rules A --rules B`` played B alone); None when there is none."""
        name = next((a for a in argv if not a.startswith("-")), None)
        command = self.commands.get(name) if name else None
        if command is None:
            return None
        rest = argv[argv.index(name) + 1 :]
        rest = rest[: rest.index("--")] if "--" in rest else rest
        for param in command.params:
            if param.param_type_name != "option" or param.multiple or getattr(param, "is_flag", False):
                continue
            opts = [*param.opts, *param.secondary_opts]
            given = sum(a in opts or any(a.startswith(f"{o}=") for o in opts if o.startswith("--")) for a in rest)
            if given > 1:
                hint = " (compare rule sets with 'nines compare-rules')" if "--rules" in opts else ""
                shown = next((o for o in opts if o.startswith("--")), opts[0])
                return f"{shown} is given {given} times; give it once{hint}"
        return None


def _close_options_only(exc: Exception) -> None:
    """Keep, of the options click suggests for an unknown one, those whose names are close without the dashes.

    click matches ``--bogus`` against ``--out`` with the dashes, which make any two long options look alike
    (``compare-rules --bogus`` suggested ``--out``)."""
    from difflib import SequenceMatcher

    name = str(getattr(exc, "option_name", "")).lstrip("-")
    given = getattr(exc, "possibilities", None) or []
    exc.possibilities = [p for p in given if SequenceMatcher(None, name, p.lstrip("-")).ratio() >= 0.6]  # type: ignore[attr-defined]


app = typer.Typer(
    cls=OneLineErrors,
    help="nines-sim: seeded simulations of the card game Nines - tournaments, rule variants, benchmarks.",
    no_args_is_help=True,
    add_completion=False,
    # click's plain help shows switches as flags (Typer's rich help writes '--quiet <bool>')
    rich_markup_mode=None,
)


@app.callback(invoke_without_command=True)
def _root(
    version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False,
) -> None:
    if version:
        typer.echo(f"nines-sim {__version__}")
        raise typer.Exit()
