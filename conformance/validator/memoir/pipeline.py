"""Validating memoir stores, entry files and session files: the memoir kind.

`validate` finds the files (`sources`), checks each one on its own
(`memoir_entry`, `memoir_session`, `secrets`), in a process pool when there
are many, then checks each store as a whole (`memoir_store`). The result is
sorted, so it is the same whatever the parallelism.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from conformance.validator.memoir import rules
from conformance.validator.core.findings import Diagnostic, diagnostic
from conformance.validator.memoir.entry import EntrySummary, check_entry, prepare
from conformance.validator.memoir.session import check_session
from conformance.validator.memoir.store import check_store
from conformance.validator.memoir.secrets import scan as scan_secrets
from conformance.validator.memoir.sources import (
    Source,
    StoreScan,
    file_diagnostics,
    read_bounded,
    scan_loose_files,
    scan_store,
)

RULES = rules.RULES
# Below this many files a process pool costs more than it saves.
PARALLEL_THRESHOLD = 1000


@dataclass(frozen=True)
class Report:
    files: tuple[str, ...]              # every file checked, as displayed
    diagnostics: tuple[Diagnostic, ...]  # sorted


def detect(path: str) -> bool:
    """Whether `path` looks like memoir input: a directory, a .md or a .json file."""
    return os.path.isdir(path) or path.endswith((".md", ".json"))


def check_source(source: Source) -> tuple[list[Diagnostic], EntrySummary | None]:
    """Every finding about one file on its own. Never raises."""
    try:
        return _check_source(source)
    except Exception as error:  # a bug in a check must not hide the other files' findings
        return [diagnostic(
            rules.CHECK_FAILED, source.display, f"the validator failed on this file ({type(error).__name__}: {error})"
        )], None


def _check_source(source: Source) -> tuple[list[Diagnostic], EntrySummary | None]:
    read = read_bounded(source.path)
    found = file_diagnostics(source, read)
    if read.text is None:
        return found, None
    text = read.text
    summary = None
    if source.kind == "session":
        if not read.truncated:
            found.extend(check_session(source.display, text))
    else:
        name = os.path.basename(source.display)
        link = name[:-3] if name.endswith(".md") else name
        entry_found, summary = check_entry(source.display, link, text)
        found.extend(entry_found)
    for secret in scan_secrets(text):
        found.append(diagnostic(
            rules.SECRET, source.display,
            f"something shaped like a {secret.kind} (value not shown): remove it from the store or rotate it",
            secret.line, secret.column))
    return found, summary


# What a worker sends back for one file: its findings and summary as plain
# tuples, which pickle and unpickle several times faster than dataclasses.
_Packed = tuple[tuple[tuple, ...], tuple | None]


def _check_packed(source: Source) -> _Packed:
    found, summary = check_source(source)
    return (tuple((d.path, d.line, d.column, d.severity, d.rule, d.message, d.section) for d in found),
            None if summary is None else (
                summary.display, summary.link, summary.name, summary.type, summary.written_type, summary.status,
                summary.is_index, summary.links))


def _unpack(packed: _Packed) -> tuple[list[Diagnostic], EntrySummary | None]:
    found, summary = packed
    return [Diagnostic(*item) for item in found], None if summary is None else EntrySummary(*summary)


def _scans(paths: list[str]) -> list[StoreScan]:
    scans = []
    loose = []
    for path in paths:
        if os.path.isdir(path):
            scans.append(scan_store(path))
        else:
            loose.append(path)
    if loose:
        scans.extend(scan_loose_files(loose))
    return scans


def _map(sources: list[Source], jobs: int) -> list[tuple[list[Diagnostic], EntrySummary | None]]:
    if jobs <= 1 or len(sources) < PARALLEL_THRESHOLD:
        return [check_source(source) for source in sources]
    prepare()  # the schema compiled once here, inherited by forked workers
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    chunk = max(1, len(sources) // (jobs * 8))
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            return [_unpack(packed) for packed in pool.map(_check_packed, sources, chunksize=chunk)]
    except (OSError, RuntimeError):  # no processes to be had: do it here
        return [check_source(source) for source in sources]


def validate(paths: list[str], jobs: int = 1) -> Report:
    """Check every store, entry file and session file named by `paths`."""
    scans = _scans(paths)
    sources = [source for scan in scans for source in (*scan.sessions, *scan.entries)]
    results = iter(_map(sources, jobs))
    found: list[Diagnostic] = []
    files: list[str] = []
    for scan in scans:
        found.extend(scan.diagnostics)
        summaries = []
        for source in (*scan.sessions, *scan.entries):
            diagnostics, summary = next(results)
            found.extend(diagnostics)
            files.append(source.display)
            if summary is not None:
                summaries.append(summary)
        found.extend(check_store(scan, summaries))
    files.extend(diagnostic.path for diagnostic in found)
    return Report(tuple(sorted(set(files))), tuple(sorted(found, key=lambda item: item.sort_key)))


def validate_paths(paths: list[str], jobs: int = 1) -> list[Diagnostic]:
    """The kind-module interface shared with the other formats."""
    return list(validate(paths, jobs).diagnostics)
