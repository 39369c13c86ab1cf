"""What every mutant shares: the bootstrap, the override helpers, the server loop.

A mutant is the reference model with one rule broken, served over the
adapter protocol exactly as `runners/reference/adapter.py` serves the
intact model. A mutant file only says how to break its rule:

    from _mutant import replace, serve_mutant

    def mutate():
        from conformance.model import merge
        replace(merge, "merge_machines", lambda local, remote: ...)

    if __name__ == "__main__":
        raise SystemExit(serve_mutant(__file__, mutate))

The override happens inside the mutant's own process, after the model is
imported and before the first request, so the model files stay untouched.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

_HERE = Path(__file__).resolve().parent


def _reference_adapter() -> ModuleType:
    """The reference adapter module (runners/reference/adapter.py), for its bootstrap."""
    path = _HERE.parent / "reference" / "adapter.py"
    spec = importlib.util.spec_from_file_location("memoir_reference_adapter", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def replace(module: ModuleType, name: str, new: Any) -> Any:
    """Put `new` in place of `module.name` everywhere the model can reach it.

    Model modules import each other's functions by name (`from
    conformance.model.session import render`), so overriding the attribute
    of the defining module alone would leave the other bindings intact.
    Every loaded `conformance` module holding the same object under the same
    name gets `new`. Returns the original, for wrappers.
    """
    original = getattr(module, name)
    for loaded_name, loaded in list(sys.modules.items()):
        if (loaded_name == "conformance" or loaded_name.startswith("conformance.")) \
                and getattr(loaded, name, None) is original:
            setattr(loaded, name, new)
    return original


def wrap(module: ModuleType, name: str, wrapper: Callable[..., Any]) -> None:
    """Replace `module.name` by `wrapper(original, *args, **kwargs)`."""
    original = getattr(module, name)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return wrapper(original, *args, **kwargs)

    wrapped.__name__ = getattr(original, "__name__", name)
    wrapped.__doc__ = f"mutated: {wrapper.__doc__ or name}"
    replace(module, name, wrapped)


def wrap_session_op(op: str, wrapper: Callable[..., Any]) -> None:
    """Wrap the writer operation `op` (an entry of `writer.SESSION_OPS`, the
    table that the store's locked read-mutate-write cycle dispatches on)."""
    from conformance.model import writer

    wrap(writer, writer.SESSION_OPS[op].__name__, wrapper)
    writer.SESSION_OPS[op] = getattr(writer, writer.SESSION_OPS[op].__name__)


def mutant_name(file: str) -> str:
    """`memoir-conform mutant 03_hidden_not_sticky` for runners/mutants/03_hidden_not_sticky.py."""
    return f"memoir-conform mutant {Path(file).stem}"


def serve_mutant(file: str, mutate: Callable[[], None]) -> int:
    """Load the model the way the reference adapter does, break one rule, serve."""
    _reference_adapter()._use_own_package()
    try:
        from conformance import reference
        from conformance.protocol.server import serve
    except ImportError as error:
        print(f"mutant: cannot load the reference model: {error}", file=sys.stderr)
        return 2
    mutate()
    machine = reference.Context.from_home()
    name = mutant_name(file)

    def handle(op: str, args: dict, _request) -> dict:
        return reference.handle(op, args, machine)

    return serve(handle, lambda: reference.describe(name))
