"""The memoir format (v0.1.2): stores, entry files and session files.

- `discovery`: the stores a path holds, and the files of each
- `sources`: reading one file, bounded
- `entry` (with `yaml_hazards`, and `lenient`: the reading its field rules
  check): one entry file; `session` (with `jsonpos`):
  one session file; `secrets`: credentials in either
- `store`: what needs the whole store (file names that collide, links)
- `pipeline`: all of it as a stream of events, in parallel for large stores
- `rules`: the catalogue

Importing this package loads none of them: ``memoir-conform rules`` needs
only `rules`.
"""

from __future__ import annotations

import os

FORMAT = "memoir"


def detect(path: str) -> bool:
    """Whether `path` looks like memoir input: a directory, a .md or a .json file."""
    return os.path.isdir(path) or path.endswith((".md", ".json"))


def plan(paths: list[str], **_options) -> list:
    """What to check (raises NothingToCheck for a directory holding nothing)."""
    from conformance.validator.memoir.discovery import targets

    return targets(paths)


def events(plan: list, jobs: int = 1, **_options):
    """The findings, as events in output order (core.findings)."""
    from conformance.validator.memoir.pipeline import events as stream

    return stream(plan, jobs)


def validate(paths: list[str], jobs: int = 1):
    """Everything found under `paths`, collected: a `pipeline.Report`."""
    from conformance.validator.memoir.pipeline import validate as collect

    return collect(paths, jobs)
