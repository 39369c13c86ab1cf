"""REME vaults (the REME memory protocol): folders of markdown memories with frontmatter axes.

- `layout`: reading a vault from disk, which file is what (path templates)
- `frontmatter`: a memory's frontmatter block
- `axes`: the four axes and the conditional fields
- `links`: wikilinks, stem uniqueness, event materials
- `status`: the status state machine against an older snapshot (``--since``)
- `vault`: all of it for one vault
- `rules`: the catalogue

The functions here are the format's interface to the validator; importing
this package loads no YAML code (``memoir-conform rules`` needs only
`rules`). docs/sibling-formats.md documents every rule and interpretation.
"""

from __future__ import annotations

import os

from conformance.validator.reme_vault import rules

FORMAT = rules.FORMAT
RULES = rules.RULES


def detect(path: str) -> bool:
    """Whether `path` looks like a REME vault (a directory with topics/ or events/), for ``--kind auto``."""
    return os.path.isdir(path) and any(os.path.isdir(os.path.join(path, part)) for part in ("topics", "events"))


def plan(paths: list[str], **options):
    """The vaults to check (raises NothingToCheck for a path that is not a directory)."""
    from conformance.validator.reme_vault import vault

    return vault.plan(paths, **options)


def events(plan, jobs: int = 1, **options):
    """Per vault: `StoreStarted`, one `FileChecked` per file, `StoreFinished`."""
    from conformance.validator.reme_vault import vault

    return vault.events(plan, jobs=jobs, **options)


def validate_paths(paths: list[str], **options) -> list:
    """Every finding for the vault directories in `paths`, sorted (`since`: an older snapshot)."""
    from conformance.validator.reme_vault import vault

    return vault.validate_paths(paths, **options)
