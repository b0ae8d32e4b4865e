"""One registry of strategies: the built-ins, installed plug-ins and specs by path.

A strategy is found by

- its ``name`` among the classes in the ``nines_sim.strategies`` package (built-ins),
- its entry-point name among entry points of the group ``nines_sim.strategies``:
  the entry-point name is the strategy's name, how it is called and shown,
  whatever the class's own ``name`` says,
- ``package.module:Class`` (the current folder is searched after the installed
  packages) or ``path/to/file.py:Class``.

An installed plug-in that does not import does not stop the others: it is
skipped with a :class:`BrokenPluginWarning` naming its distribution, and is an
error only when asked for by name.

Any of these may carry parameter values (``expert:w_follow=2.5``,
``file.py:Class:k=v``, ``expert@best.json``); :func:`resolve_spec` splits them
off before the name is looked up (see :mod:`nines_sim.strategy.params`).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib
import importlib.util
import inspect
import os
import pkgutil
import re
import sys
import warnings
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

from nines_sim.engine.failures import OWN_FAILURES
from nines_sim.game.path_lookup import look_up, shown
from nines_sim.spelling import did_you_mean
from nines_sim.strategy import params as P
from nines_sim.strategy.base import Strategy

ENTRY_POINT_GROUP = "nines_sim.strategies"
_USER_MODULE_PREFIX = "nines_user_"
#: Names that stand for a built-in at given values, playable as any name (and as a search's ``policy``):
#: ``tuned-expert``, ``expert`` at the values ``nines tune`` found for the classic rules
#: (docs/tuned/expert-classic.json).
ALIASES = {
    "tuned-expert": (
        "expert:w_penalty=1.3688637126139174,w_follow=7.387996855950631,w_block=6.270573292100337,d"
        "anger_cards=0,next_player_factor=0.3625069943846019,shed_nine_at=2,switch_against=1,spare_"
        "nines=8,declare_points=7.238786808590629,w_rank=2.1327810324009806,w_short=0.8623954477598"
        "169,end_cards=2,w_penalty_end=0.3748838794628869,nine_at_end=0,w_scarce=2.0056619562805795"
        ",declare_short=0.7899669977245569"
    ),
}
#: What each of :data:`ALIASES` is, as ``nines strategies`` lists it.
ALIAS_NOTES = {
    "tuned-expert": "expert at the values 'nines tune' found for the classic rules (docs/tuned/expert-classic.json)",
}


class StrategyNotFound(LookupError):
    """A strategy spec that names nothing usable; the message says what is available."""


class BrokenPluginWarning(UserWarning):
    """An installed plug-in that cannot be used was skipped; the message names its distribution."""


@dataclass(frozen=True)
class Plugin:
    """One entry point of the group ``nines_sim.strategies``.

    Attributes
    ----------
    name : str
        The entry-point name: the strategy's name.
    value : str
        What it points at, ``module:Class``.
    dist : str
        The distribution that declares it (the name to ``pip uninstall``), or "".
    cls : type of Strategy or None
        The class, or None where it is broken.
    error : str
        Why it is broken ("" where it is not).
    """

    name: str
    value: str
    dist: str
    cls: type[Strategy] | None
    error: str = ""

    @property
    def source(self) -> str:
        return f"plugin {self.value}" + (f" from {self.dist}" if self.dist else "")

    def broken_message(self) -> str:
        fix = f"pip uninstall {self.dist}" if self.dist else f"remove its entry point {self.value}"
        return f"the plug-in {self.name!r} ({self.value}) cannot be used: {self.error}; fix it or {fix}"


_warned: set[tuple[str, str, str]] = set()


def _classes_in(module) -> list[type[Strategy]]:  # noqa: ANN001
    return [
        c
        for _, c in inspect.getmembers(module, inspect.isclass)
        if issubclass(c, Strategy) and c is not Strategy and c.__module__ == module.__name__ and c.name
    ]


def builtin_classes() -> dict[str, type[Strategy]]:
    """Every strategy class defined in the ``strategies`` package, by name.

    The built-ins' compiled twins (``*_compiled`` modules) define no class and are not imported: they load numba,
    which the turn loop imports them for.
    """
    return dict(_builtin_classes())  # a copy: the one found stays as found


# Found once a process (the package's modules do not change while it runs): a strategy named by name looked at
# every module again, 0.5 ms of processor time, and a review names its rollout policy at every decision it judges.
@functools.cache
def _builtin_classes() -> dict[str, type[Strategy]]:
    import nines_sim.strategies as strategies

    out: dict[str, type[Strategy]] = {}
    for info in sorted(pkgutil.iter_modules(strategies.__path__), key=lambda i: i.name):
        if info.name.endswith("_compiled"):
            continue
        module = importlib.import_module(f"nines_sim.strategies.{info.name}")
        for c in _classes_in(module):
            if c.name in out and out[c.name] is not c:
                raise StrategyNotFound(f"two built-in strategies are named {c.name!r}")
            out[c.name] = c
    return out


def plugins(warn: bool = False) -> list[Plugin]:
    """Every entry point of the group, loaded; broken ones carry the reason.

    Parameters
    ----------
    warn : bool
        Issue a :class:`BrokenPluginWarning` (once per process) for each broken one.
    """
    builtins = builtin_classes()
    out: list[Plugin] = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(getattr(ep, "dist", None), "name", None) or ""
        try:
            c = ep.load()
            _check_class(c, ep.value)
            if ep.name in builtins:
                raise StrategyNotFound(f"its name clashes with the built-in {ep.name!r}")
            error = ""
        except OWN_FAILURES as exc:  # a broken plug-in must not hide the others
            c, error = None, str(exc) if isinstance(exc, StrategyNotFound) else f"{type(exc).__name__}: {exc}"
        if any(p.name == ep.name for p in out):
            c, error = None, f"two installed plug-ins are named {ep.name!r}"
        plugin = Plugin(ep.name, ep.value, dist, c, error)
        out.append(plugin)
        if error and warn and (plugin.name, plugin.value, dist) not in _warned:
            _warned.add((plugin.name, plugin.value, dist))
            warnings.warn(f"skipped {plugin.broken_message()}", BrokenPluginWarning, stacklevel=2)
    return out


def plugin_classes() -> dict[str, tuple[type[Strategy], str]]:
    """Strategies of the working plug-ins, by entry-point name, with their source (broken ones are skipped)."""
    return {p.name: (p.cls, p.source) for p in plugins(warn=True) if p.cls is not None}


def available() -> list[tuple[str, type[Strategy], str]]:
    """(name, class, source) of every usable strategy, built-ins first; broken plug-ins are skipped with a warning."""
    rows = [(n, c, "built-in") for n, c in builtin_classes().items()]
    rows += [(n, c, src) for n, (c, src) in plugin_classes().items()]
    return rows


def _check_class(c: object, spec: str) -> None:
    if not (inspect.isclass(c) and issubclass(c, Strategy)):
        raise StrategyNotFound(f"{spec} is not a Strategy subclass (subclass nines_sim.strategy.base.Strategy)")
    if inspect.isabstract(c):
        raise StrategyNotFound(f"{spec} does not implement play() and declare()")


def user_module_name(path: str | os.PathLike) -> str:
    """The module name a strategy file is imported under: the same in every process and every run.

    Built from a digest of the file's resolved path (not ``hash()``, which changes from process to process):
    numba's on-disk cache of a compiled strategy names the module its code came from, and a later run must
    import the file under that name again.

    Parameters
    ----------
    path : str or os.PathLike
        The strategy file, as given (relative or absolute).

    Returns
    -------
    str
        ``nines_user_<file stem>_<16 hex digits>``.
    """
    digest = hashlib.sha256(str(Path(path).resolve()).encode()).hexdigest()[:16]
    stem = re.sub(r"\W", "_", Path(path).stem)
    return f"{_USER_MODULE_PREFIX}{stem}_{digest}"


def _load_file(where: str, spec: str):  # noqa: ANN202 - a module
    """Import a strategy file under :func:`user_module_name`, its own folder importable while it loads.

    As ``python path/to/file.py`` does, the file's folder comes first on ``sys.path`` while the file runs, so
    that ``from helpers import x`` finds ``helpers.py`` beside it without PYTHONPATH; the folder is taken off
    again afterwards (the helpers it imported stay loaded).  Each worker process, local or on Dask, loads the
    file by its spec the same way.
    """
    path = Path(where)
    mod_name = user_module_name(path)
    module_spec = _python_file(where, spec, mod_name)
    if mod_name in sys.modules:
        return sys.modules[mod_name]
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[mod_name] = module
    folder = str(path.resolve().parent)
    sys.path.insert(0, folder)
    try:
        module_spec.loader.exec_module(module)  # type: ignore[union-attr]
    except OWN_FAILURES as exc:
        del sys.modules[mod_name]
        raise StrategyNotFound(f"{where} does not import: {type(exc).__name__}: {exc}") from exc
    finally:
        if folder in sys.path:  # the entry added above (the first one), even if the file changed sys.path
            sys.path.remove(folder)
    return module


def _python_file(where: str, spec: str, mod_name: str) -> importlib.machinery.ModuleSpec:
    """How Python would import the strategy file ``where`` (nothing in it runs), or why it cannot: a folder, no
    file, not a Python file."""
    kind, why = look_up(where)
    if kind == "folder":
        raise StrategyNotFound(f"{shown(where)} is a folder, not a .py file (in strategy spec {shown(spec)!r})")
    if kind != "file":
        raise StrategyNotFound(f"no such file: {shown(where)}{why and ' '}{why} (in strategy spec {shown(spec)!r})")
    module_spec = importlib.util.spec_from_file_location(mod_name, where)
    if module_spec is None:  # Python imports only files it has a loader for (.py, compiled extensions)
        raise StrategyNotFound(f"{where} is not a Python file: name a .py file (in strategy spec {spec!r})")
    return module_spec


def _needs_class_name(where: str) -> StrategyNotFound:
    """The error for a strategy file named without ``:ClassName``, listing the named classes the file defines.

    The file is read, not run: a script's top level (a whole tournament of its own) ran before this error was
    said.  Its classes are those at its top level that set a ``name`` (a strategy's name), as a
    :class:`~nines_sim.strategy.base.Strategy` subclass that can be played does."""
    _python_file(where, where, user_module_name(where))
    try:
        tree = ast.parse(Path(where).read_bytes(), filename=where)
    except (SyntaxError, ValueError) as exc:  # ValueError: null bytes
        listed = f"it does not parse: {type(exc).__name__}: {exc}"
    else:
        found = [c.name for c in tree.body if isinstance(c, ast.ClassDef) and _sets_a_name(c)]
        listed = f"it defines {', '.join(found)}" if found else "it defines no Strategy subclass with a name"
    return StrategyNotFound(f"a strategy file needs a class name, as in {where}:ClassName; {listed}")


def _sets_a_name(c: ast.ClassDef) -> bool:
    """Whether a class's body sets ``name`` to a string that is not empty."""
    for stmt in c.body:
        targets = (
            stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
        )
        value = getattr(stmt, "value", None)
        if any(isinstance(t, ast.Name) and t.id == "name" for t in targets):
            return isinstance(value, ast.Constant) and isinstance(value.value, str) and bool(value.value)
    return False


def _import_module(where: str):  # noqa: ANN202 - a module
    # As ``python -m`` does, find modules of the current folder; after the installed ones, which they cannot shadow.
    here = os.getcwd()
    if here not in sys.path and "" not in sys.path:
        sys.path.append(here)
    try:
        return importlib.import_module(where)
    except OWN_FAILURES as exc:
        raise StrategyNotFound(f"module {where!r} does not import: {type(exc).__name__}: {exc}") from exc


def _is_path(where: str) -> bool:
    return where.endswith(".py") or "/" in where or "\\" in where


def _find(spec: str) -> tuple[type[Strategy], str | None]:
    """The class a spec names, and the name to show it under where that is not the class's own."""
    if ":" in spec:
        where, _, cls_name = spec.rpartition(":")
        if not where.strip():  # ':k=1', ':Class': not a module named ''
            raise StrategyNotFound(
                f"a strategy name is missing before ':' in {spec!r}; write e.g. expert:k=v, file.py:Class"
            )
        # (look_up, not Path.is_file: a name too long to be a file is not one, where is_file raised OSError)
        module = _load_file(where, spec) if _is_path(where) or look_up(where)[0] == "file" else _import_module(where)
        c = getattr(module, cls_name, None)
        if c is None:
            found = inspect.getmembers(module, inspect.isclass)
            classes = [n for n, k in found if issubclass(k, Strategy) and k is not Strategy]
            raise StrategyNotFound(f"{where} has no class {cls_name!r}{did_you_mean(cls_name, classes)}")
        _check_class(c, spec)
        return c, None
    if _is_path(spec):
        raise _needs_class_name(spec)
    builtins = builtin_classes()
    if spec in builtins:
        return builtins[spec], None
    found_plugins = plugins(warn=True)
    for p in found_plugins:
        if p.name == spec:
            if p.cls is None:
                raise StrategyNotFound(p.broken_message())
            return p.cls, (spec if p.cls.name != spec else None)
    if look_up(spec)[0] == "file":  # a file named without a slash (README.md) is a file as ./README.md is
        raise _needs_class_name(spec)
    known = [*builtins, *ALIASES, *(p.name for p in found_plugins if p.cls is not None)]
    listed = ", ".join(known)
    unknown = f"unknown strategy {spec!r}" if spec.strip() else f"a strategy name is missing ({spec!r} names none)"
    raise StrategyNotFound(
        f"{unknown}{did_you_mean(spec, known)}; available: {listed} (or module:Class, file.py:Class)"
    )


def load_class(spec: str) -> type[Strategy]:
    """The strategy class a spec names.

    Raises
    ------
    StrategyNotFound
        For an unknown name (listing the known ones), a broken plug-in asked for
        by name, a module or file that does not import, a file without a class
        name (listing its strategy classes), a missing class, or a class that is
        not a strategy.
    """
    return _find(spec)[0]


def spec_of(strategy: Strategy) -> str:
    """How the CLI can find a strategy instance: its registered name, ``file.py:Class`` or ``module:Class``.

    Falls back to the strategy's name for a class defined where no file holds it
    (an interactive session).
    """
    cls = type(strategy)
    if builtin_classes().get(strategy.name) is cls:
        return strategy.name
    module = sys.modules.get(cls.__module__)
    if cls.__module__.startswith(_USER_MODULE_PREFIX) or cls.__module__ == "__main__":
        path = getattr(module, "__file__", None)
        return f"{path}:{cls.__qualname__}" if path else strategy.name
    if module is not None and "<locals>" not in cls.__qualname__:
        return f"{cls.__module__}:{cls.__qualname__}"
    return strategy.name


def describe_class(cls: type) -> str:
    """Where a strategy class comes from, as a user would name it (a file path, not an internal module name)."""
    module = sys.modules.get(cls.__module__)
    if cls.__module__.startswith(_USER_MODULE_PREFIX) and getattr(module, "__file__", None):
        return f"{module.__file__}:{cls.__qualname__}"
    if cls.__module__.startswith("nines_sim.strategies.") and getattr(cls, "name", ""):
        return f"the built-in {cls.name!r}"
    return f"{cls.__module__}:{cls.__qualname__}"


def resolve_spec(spec: str) -> tuple[type[Strategy], str, dict]:
    """The class a spec names, its spec without values, and the values it carries (checked).

    Raises
    ------
    StrategyNotFound
        As :func:`load_class`, and for values that do not fit the class's
        parameters or a parameter file that is missing, malformed or for another strategy.
    """
    return _resolve(spec)[:3]


def _resolve(spec: str) -> tuple[type[Strategy], str, dict, str | None]:
    """:func:`resolve_spec`, and the name to show the strategy under where that is not the class's own."""
    spec = ALIASES.get(spec, spec)  # an alias is the built-in's spec it stands for
    base, inline, path = P.split_spec(spec)
    try:
        cls, shown = _find(base)
    except StrategyNotFound:
        head = base.rpartition(":")[0]
        names = {n for n, _, _ in available()}
        if head and head in names and path is not None and "=" in base:  # 'lookahead:policy=learned@m.npz'
            learned = ("; policy=learned plays the model shipped for the rules and table (a model file is played "
                       "as learned@FILE)") if "=learned" in base else ""  # fmt: skip
            raise StrategyNotFound(
                f"in {spec!r}, '@{path}' comes after the values: a parameter file is written "
                f"{head}@file.json, and values to change in it {head}@file.json:key=value{learned}"
            ) from None
        if head and head in names:  # 'expert:w_follow' is a value, not module:Class
            raise StrategyNotFound(f"in {spec!r}, parameters are written {head}:key=value,key=value") from None
        before_at = base.partition("@")[0]
        if before_at in names:  # 'expert@best.json:w_follow', 'expert@x:y.json'
            raise StrategyNotFound(
                f"in {spec!r}, a parameter file is written {before_at}@file.json, "
                f"and values to change in it {before_at}@file.json:key=value,key=value"
            ) from None
        raise
    name = shown or cls.name or base
    try:
        takes_model = any(p.name == "model" and p.kind == "path" for p in getattr(cls, "params", ()))
        values = P.read_values(inline, path, name, base, takes_model)
        return cls, base, P.check_values(cls, values, name), shown
    except P.ParamError as exc:
        raise StrategyNotFound(str(exc)) from None


def canonical_spec(spec: str) -> str:
    """A spec with its values written inline and exact (a ``@file.json`` read once), for manifests and workers."""
    _, base, values = resolve_spec(spec)
    return P.spec_with(base, values)


def _create(spec: str, cls: type, values: dict) -> Strategy:
    """``cls(**values)``; why not in one line: arguments its ``__init__`` requires and has no default for, or
    the exception its ``__init__`` raised (with the file and line), which no default would cure."""
    from nines_sim.strategy.debug import user_location

    try:
        inspect.signature(cls).bind(**values)
    except TypeError as exc:
        raise StrategyNotFound(
            f"strategy {spec!r} cannot be created without arguments ({exc}); "
            f"give its __init__ defaults for every parameter"
        ) from None
    except ValueError:  # no signature to read (a class built in C): creating it says what is wrong
        pass
    try:
        return cls(**values)
    except StrategyNotFound:  # the strategy's own one-line reason (e.g. a model file it cannot read)
        raise
    except OWN_FAILURES as exc:
        raise StrategyNotFound(
            f"strategy {spec!r} raised {type(exc).__name__} in its __init__: {exc}{user_location(exc, cls)}"
        ) from None


def make_lineup(specs: list) -> list[Strategy]:
    """Strategy instances for a lineup of specs or instances; a repeated spec shares one instance."""
    made: dict[str, Strategy] = {}
    out: list[Strategy] = []
    for s in specs:
        if isinstance(s, Strategy):
            out.append(s)
            continue
        if s not in made:
            cls, _, values, shown = _resolve(s)
            made[s] = _create(s, cls, values)
            if shown is not None:
                made[s].name = shown  # a plug-in is called and shown by its entry-point name
        out.append(made[s])
    by_name: dict[str, type] = {}
    for st in out:
        other = by_name.setdefault(st.name, type(st))
        if other is not type(st):
            raise StrategyNotFound(
                f"two strategies are named {st.name!r} ({describe_class(other)} and {describe_class(type(st))}); "
                f"give one a different name"
            )
    return out


def display_name(strategy: Strategy) -> str:
    """The name a strategy is shown under."""
    return strategy.label or type(strategy).__name__
