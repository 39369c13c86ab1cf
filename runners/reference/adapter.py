#!/usr/bin/env python3
"""The reference adapter: the reference model of memoir-conform behind the adapter protocol.

Run it as `python runners/reference/adapter.py` (in a source checkout or,
from an installed wheel, at `conformance.resources.runners_dir() /
"reference" / "adapter.py"`). It is deliberately thin: every op lives in
`conformance/reference.py` (`handle(op, args, context)` with a
`reference.Context`), and the JSON Lines loop in
`conformance/protocol/server.py`.
"""

from __future__ import annotations

import sys
from pathlib import Path


def _use_own_package() -> None:
    """Import the `conformance` package this file ships with, wherever that is.

    Source checkout: runners/reference/adapter.py -> the checkout root.
    Installed wheel: conformance/_data/runners/reference/adapter.py -> site-packages.
    """
    for folder in Path(__file__).resolve().parents:
        if (folder / "conformance" / "__init__.py").is_file():
            sys.path.insert(0, str(folder))
            return


def main() -> int:
    _use_own_package()
    try:
        from conformance import reference
        from conformance.protocol.server import serve
    except ImportError as error:
        print(f"reference adapter: cannot load the reference model: {error}", file=sys.stderr)
        return 2
    # One machine identity per adapter process, persisted under the scratch
    # HOME the runner gave us (spec 4.1: machine UUIDs never change).
    machine = reference.Context.from_home()

    def handle(op: str, args: dict, _request) -> dict:
        return reference.handle(op, args, machine)

    return serve(handle, reference.describe)


if __name__ == "__main__":
    sys.exit(main())
