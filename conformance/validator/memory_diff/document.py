"""Checking memory diff files: reading, structure and cross-field rules, per file.

A memory diff is a YAML document proposing changes to durable memory because
of one source event. A file is read as UTF-8 within a size limit, parsed by
the safe reader (`core.safe_yaml`: anchors and aliases refused), checked
against schema/memory-diff.schema.json (`schema`) and by the rules no schema
can state (`checks`). Nothing here raises on bad input: a file that cannot be
read or parsed is a finding.
"""

from __future__ import annotations

import os
import stat

from conformance.validator.core.file_kinds import OPEN_FLAGS, why_not_a_file
from conformance.validator.core.findings import Diagnostic, FileChecked, NothingToCheck, diagnostic, in_order
from conformance.validator.core.safe_yaml import LoadedYaml, YamlProblem, decode_utf8, load_yaml
from conformance.validator.memory_diff import rules
from conformance.validator.memory_diff.checks import check_semantics
from conformance.validator.memory_diff.schema import check_schema

DEFAULT_MAX_BYTES = 1024 * 1024
SUFFIXES = (".yaml", ".yml")


def plan(paths: list[str], **_options) -> list[str]:
    """The files to check: each file named, and the ``*.yaml``/``*.yml`` files
    under each directory (raises NothingToCheck for a directory without any)."""
    files = []
    for given in paths:
        found = _expand(str(given))
        if not found:
            raise NothingToCheck(f"no memory diff (a *.yaml or *.yml file) under {given}")
        files.extend(found)
    return files


def events(plan: list[str], jobs: int = 1, max_bytes: int = DEFAULT_MAX_BYTES, **_options):
    """One event per file, in the order of `plan`."""
    for path in plan:
        yield FileChecked(path, in_order(validate_file(path, max_bytes=max_bytes)))


def validate_paths(paths: list[str], *, max_bytes: int = DEFAULT_MAX_BYTES, **_options) -> list[Diagnostic]:
    """Diagnostics for every memory diff named by `paths`.

    A directory stands for the ``*.yaml`` and ``*.yml`` files under it
    (symbolic links inside it are not followed). Options meant for other formats (such
    as ``since``) are accepted and ignored, so one command line can serve all.
    """
    findings: list[Diagnostic] = []
    for given in paths:
        for file in _expand(str(given)):
            findings.extend(validate_file(file, max_bytes=max_bytes))
    return sorted(findings, key=lambda finding: finding.sort_key)


def validate_file(path: str, *, max_bytes: int = DEFAULT_MAX_BYTES) -> list[Diagnostic]:
    """Diagnostics for the memory diff in the file at `path`."""
    raw = _read(path, max_bytes)
    if isinstance(raw, Diagnostic):
        return [raw]
    return validate_bytes(raw, path)


def validate_bytes(raw: bytes, path: str = "<memory-diff>") -> list[Diagnostic]:
    """Diagnostics for a memory diff given as bytes; `path` names it in findings."""
    text = decode_utf8(raw)
    if isinstance(text, YamlProblem):
        return [diagnostic(rules.READ, path, text.message, text.line, text.column)]
    return validate_text(text, path)


def validate_text(text: str, path: str = "<memory-diff>") -> list[Diagnostic]:
    """Diagnostics for a memory diff given as text."""
    loaded = load_yaml(text)
    if isinstance(loaded, YamlProblem):
        rule = rules.YAML_ALIAS if loaded.kind == "alias" else rules.YAML
        return [diagnostic(rule, path, loaded.message, loaded.line, loaded.column)]
    return check_document(loaded, path)


def check_document(loaded: LoadedYaml, path: str) -> list[Diagnostic]:
    """Schema and cross-field findings for a loaded document."""
    if loaded.data is None:
        return [diagnostic(rules.SCHEMA, path, "the document is empty; a memory diff is a mapping (version, id, trigger, changes, ...)", 1, 1)]
    findings = check_schema(loaded, path) + check_semantics(loaded, path)
    return sorted(findings, key=lambda finding: finding.sort_key)


def _expand(given: str) -> list[str]:
    if not os.path.isdir(given):
        return [given]
    found = []
    for directory, subdirectories, files in os.walk(given):
        subdirectories.sort()
        for name in sorted(files):
            candidate = os.path.join(directory, name)
            if name.endswith(SUFFIXES) and not os.path.islink(candidate):
                found.append(candidate)
    return found


def _read(path: str, max_bytes: int) -> bytes | Diagnostic:
    """The file's bytes, or the finding that says why it was not read (a
    pipe or device is never opened, so that nothing blocks)."""
    if not os.path.lexists(path):
        return diagnostic(rules.READ, path, "no such file")
    if os.path.isdir(path):
        return diagnostic(rules.READ, path, "is a directory, not a memory diff file")
    reason = why_not_a_file(path)
    if reason is not None:
        return diagnostic(rules.READ, path, f"cannot be read: {reason}")
    try:
        descriptor = os.open(path, OPEN_FLAGS)
        try:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):  # swapped for a pipe since it was looked at
                return diagnostic(rules.READ, path, "cannot be read: not a regular file: never read")
            pieces, have = [], 0
            while have <= max_bytes and (piece := os.read(descriptor, max_bytes + 1 - have)):
                pieces.append(piece)
                have += len(piece)
        finally:
            os.close(descriptor)
    except OSError as error:
        return diagnostic(rules.READ, path, f"cannot be read: {error.strerror or error}")
    if have > max_bytes:
        return diagnostic(rules.READ, path, f"larger than the {max_bytes}-byte limit for a memory diff; not parsed")
    return b"".join(pieces)
