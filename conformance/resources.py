"""Where the corpus, the schemas and the bundled adapters live.

In a source checkout they are the top-level `vectors/`, `schema/` and
`runners/` folders; in an installed wheel they are copied under
`conformance/_data/`. Every other module asks here instead of guessing.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _data_dir(name: str) -> Path:
    installed = _PACKAGE / "_data" / name
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / name


def vectors_dir() -> Path:
    return _data_dir("vectors")


def schema_dir() -> Path:
    return _data_dir("schema")


def runners_dir() -> Path:
    return _data_dir("runners")


def ambiguities_doc() -> Path:
    """docs/spec-ambiguities.md: in a source checkout only (a wheel does not ship docs/)."""
    return vectors_dir().parent / "docs" / "spec-ambiguities.md"


@cache
def load_schema(name: str) -> dict:
    """Load `schema/<name>` (for example ``"vector.schema.json"``)."""
    return json.loads((schema_dir() / name).read_text(encoding="utf-8"))
