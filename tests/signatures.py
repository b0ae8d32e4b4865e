"""The signatures numba's type inference asks of compiled functions, counted (issue 42: a callee compiled once more
for each literal constant or array flavour it is passed costs a cold compile its time; counted, not timed)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from types import ModuleType

import numba
from numba.core import compiler
from numba.core.registry import cpu_target
from numba.core.typed_passes import NopythonTypeInference


class _TypeOnly(compiler.CompilerBase):
    """numba's nopython pipeline up to its type inference (which asks each callee for the signature of each call)."""

    def define_pipelines(self):  # noqa: ANN202 - numba's protocol
        pm = compiler.DefaultPassBuilder.define_nopython_pipeline(self.state)
        pm.passes = pm.passes[: [p for p, _ in pm.passes].index(NopythonTypeInference) + 1]
        pm.finalize()
        return [pm]


def _type_again(py_func: Callable, args: tuple, dispatcher: numba.core.dispatcher.Dispatcher | None = None) -> None:
    flags = compiler.Flags()
    if dispatcher is not None:
        c = dispatcher._compiler
        flags = c._customize_flags(flags)
        c.targetdescr.options.parse_as_flags(flags, c.targetoptions)
    try:
        compiler.compile_extra(cpu_target.typing_context, cpu_target.target_context, py_func, args, None, flags, {},
                               pipeline_class=_TypeOnly)  # fmt: skip
    except AttributeError as exc:  # the pipeline cut short leaves no compile result ('cr'): none is needed
        if str(exc) != "cr":
            raise


def signatures_asked(roots: Iterable[tuple[Callable, tuple]], modules: Iterable[ModuleType]) -> dict[str, list[str]]:
    """Type each ``(function, argument types)`` of ``roots`` (a numba dispatcher or a plain function) again, then
    each compiled function of ``modules`` for each signature its callers asked of it, and so on (machine code loaded
    from the cache asks its callees nothing, so each is typed here); the signatures each function of ``modules`` was
    asked for from ``roots``, by name (those asked for any; what other code of this process compiled is not
    counted)."""
    mods = {m.__name__ for m in modules}
    asked: dict[numba.core.dispatcher.Dispatcher, set[tuple]] = {}
    get_call_template = numba.core.dispatcher.Dispatcher.get_call_template

    def heard(self, args, kws):  # noqa: ANN001, ANN202 - numba's typing asks each callee here
        out = get_call_template(self, args, kws)
        if self.py_func.__module__ in mods:
            asked.setdefault(self, set()).add(tuple(out[2]))
        return out

    typed: set[tuple] = set()
    numba.core.dispatcher.Dispatcher.get_call_template = heard
    try:
        for fn, args in roots:
            if isinstance(fn, numba.core.dispatcher.Dispatcher):
                _type_again(fn.py_func, tuple(args), fn)
            else:
                _type_again(fn, tuple(args))
        while todo := [(fn, sig) for fn, sigs in list(asked.items()) for sig in sigs if (fn, sig) not in typed]:
            for fn, sig in todo:
                _type_again(fn.py_func, sig, fn)
                typed.add((fn, sig))
    finally:
        numba.core.dispatcher.Dispatcher.get_call_template = get_call_template
    by_name: dict[str, list[str]] = {}
    for fn, sigs in asked.items():
        by_name.setdefault(fn.py_func.__name__, []).extend(sorted(str(s) for s in sigs))
    return by_name
