"""The memory diff format (memory-diff-format v0.1): YAML proposals of changes to durable memory.

- `document`: checking one diff file (reading, schema, cross-field rules)
- `schema`: schema/memory-diff.schema.json, each error filed under its rule
- `checks`: the rules no schema can state
- `rules`: the catalogue

The functions here are the format's interface to the validator; importing
this package loads no YAML or schema code (``memoir-conform rules`` needs
only `rules`). docs/sibling-formats.md documents every rule and
interpretation.
"""

from __future__ import annotations

import os

from conformance.validator.memory_diff import rules

FORMAT = rules.FORMAT
RULES = rules.RULES
SUFFIXES = (".yaml", ".yml")


def detect(path: str) -> bool:
    """Whether `path` looks like a memory diff, for ``validate --kind auto``."""
    return os.path.isfile(path) and path.endswith(SUFFIXES)


def plan(paths: list[str], **options):
    """The files to check (raises NothingToCheck for a directory without any)."""
    from conformance.validator.memory_diff import document

    return document.plan(paths, **options)


def events(plan: list[str], jobs: int = 1, **options):
    """One `FileChecked` event per file, in the order of `plan`."""
    from conformance.validator.memory_diff import document

    return document.events(plan, jobs=jobs, **options)


def validate_paths(paths: list[str], **options) -> list:
    """Every finding for the diffs named by `paths` (a directory: the *.yaml and *.yml files under it), sorted."""
    from conformance.validator.memory_diff import document

    return document.validate_paths(paths, **options)


def validate_text(text: str, path: str = "<memory-diff>") -> list:
    """Every finding for a memory diff given as text."""
    from conformance.validator.memory_diff import document

    return document.validate_text(text, path)


def validate_bytes(raw: bytes, path: str = "<memory-diff>") -> list:
    """Every finding for a memory diff given as bytes."""
    from conformance.validator.memory_diff import document

    return document.validate_bytes(raw, path)
