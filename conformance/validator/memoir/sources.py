"""Finding and reading the files to validate, without ever writing or leaving the store.

A PATH given to ``validate`` is a store (a directory with ``memory/`` or
``session.json``), a memory directory (entry files directly inside), an
entry file (``*.md``) or a session file (``*.json``). Inside a store, a
symbolic link is followed only when its target stays inside the store; a
file is read only up to `MAX_BYTES`, and a file with NUL bytes is binary and
not decoded at all, so memory stays bounded whatever the store holds.
"""

from __future__ import annotations

import codecs
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from conformance.validator.memoir import rules
from conformance.validator.core.findings import Diagnostic, diagnostic

MAX_BYTES = 4 * 1024 * 1024
MEMORY_DIR = "memory"
SESSION_FILE = "session.json"
# Files a store keeps beside session.json that are not entries or sessions:
# its lock, quarantine copies and backups.
_SESSION_COMPANIONS = ("session.json.",)
INDEX_NAMES = {"memory", "readme", "index"}


@dataclass(frozen=True)
class FileText:
    """What reading one file gave."""

    text: str | None            # decoded text (invalid bytes replaced); None when unreadable or binary
    size: int = 0
    truncated: bool = False     # only the first MAX_BYTES were read
    binary: bool = False
    bad_utf8: tuple[int, int] | None = None  # (line, column) of the first byte that is not UTF-8
    error: str | None = None


def read_bounded(path: str | Path, limit: int = MAX_BYTES) -> FileText:
    """Read at most `limit` bytes of a file as UTF-8 text. Never raises."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return FileText(None, error="not a regular file (a pipe, socket or device is never opened)")
        # A raw descriptor, not a buffered file object: cheaper per file, and
        # a store has thousands of small files.
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        try:
            data = _read_up_to(descriptor, limit + 1)
            size = os.fstat(descriptor).st_size if len(data) > limit else len(data)
        finally:
            os.close(descriptor)
    except OSError as error:
        return FileText(None, error=error.strerror or str(error))
    truncated = len(data) > limit
    if truncated:
        data = data[:limit]
    if b"\0" in data:
        return FileText(None, max(size, len(data)), truncated, binary=True)
    try:
        if truncated:
            # final=False: a multi-byte character cut by the limit is not an error.
            text = codecs.getincrementaldecoder("utf-8")().decode(data, final=False)
        else:
            text = data.decode("utf-8")
        return FileText(text, max(size, len(data)), truncated)
    except UnicodeDecodeError as error:
        place = _byte_place(data, error.start)
        return FileText(data.decode("utf-8", errors="replace"), max(size, len(data)), truncated, bad_utf8=place)


def _read_up_to(descriptor: int, count: int) -> bytes:
    """Up to `count` bytes, fewer only at the end of the file (a single read
    may return less than asked)."""
    data = os.read(descriptor, count)
    if not data or len(data) >= count:
        return data
    pieces = [data]
    have = len(data)
    while have < count:
        piece = os.read(descriptor, count - have)
        if not piece:
            break
        pieces.append(piece)
        have += len(piece)
    return b"".join(pieces)


def _byte_place(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", errors="replace")) + 1
    return line, column


@dataclass
class Source:
    """One file to check: where it is, how to show it, and what it is."""

    path: str       # where to read it
    display: str    # how diagnostics name it
    kind: str       # "entry" or "session"


@dataclass
class StoreScan:
    """The files of one store (or of loose files sharing a directory)."""

    display_root: str
    entries: list[Source] = field(default_factory=list)
    sessions: list[Source] = field(default_factory=list)
    # Link names that exist beside loose entry files (for resolving their links);
    # None for a store, whose entries are all read.
    sibling_links: set[str] | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _inside(path: str, root: str) -> bool:
    real = os.path.realpath(path)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def scan_store(directory: str) -> StoreScan:
    """The entry and session files of a store or memory directory."""
    display_root = os.path.normpath(directory)
    root = os.path.realpath(directory)
    scan = StoreScan(display_root)
    memory = os.path.join(directory, MEMORY_DIR)
    session = os.path.join(directory, SESSION_FILE)
    if os.path.isdir(memory) or os.path.lexists(session):
        memory_display = os.path.join(display_root, MEMORY_DIR)
        if os.path.lexists(session):
            _add(scan, session, os.path.join(display_root, SESSION_FILE), "session", root)
        if os.path.lexists(memory):
            if not _inside(memory, root):
                scan.diagnostics.append(diagnostic(
                    rules.SYMLINK_OUTSIDE, memory_display,
                    f"{MEMORY_DIR}/ is a link to {os.path.realpath(memory)}, outside the store: not followed"))
            elif os.path.isdir(memory):
                _scan_memory_dir(scan, memory, memory_display, root, skip_session=False)
    else:
        _scan_memory_dir(scan, directory, display_root, root, skip_session=True)
    return scan


def _scan_memory_dir(scan: StoreScan, directory: str, display: str, root: str, skip_session: bool) -> None:
    try:
        names = sorted(os.listdir(directory))
    except OSError as error:
        scan.diagnostics.append(diagnostic(rules.UNREADABLE, display, f"cannot list the directory: {error.strerror}"))
        return
    for name in names:
        if name.startswith("."):
            continue  # hidden files and folders (.git, .DS_Store) are no part of the format
        path = os.path.join(directory, name)
        shown = os.path.join(display, name)
        if skip_session and (name == SESSION_FILE or name.startswith(_SESSION_COMPANIONS)):
            if name == SESSION_FILE:
                _add(scan, path, shown, "session", root)
            continue
        if os.path.islink(path) and not _inside(path, root):
            scan.diagnostics.append(diagnostic(
                rules.SYMLINK_OUTSIDE, shown, f"a link to {os.path.realpath(path)}, outside the store: not followed"))
            continue
        if os.path.isdir(path):
            scan.diagnostics.append(diagnostic(
                rules.OTHER_FILE, shown, "a subdirectory: entries are files directly in the memory directory; not read"))
            continue
        if name.endswith(".md"):
            scan.entries.append(Source(path, shown, "entry"))
        elif not name.startswith(_SESSION_COMPANIONS):
            scan.diagnostics.append(diagnostic(
                rules.OTHER_FILE, shown, "not an entry file (entries end in .md): readers ignore it"))


def _add(scan: StoreScan, path: str, display: str, kind: str, root: str) -> None:
    if os.path.islink(path) and not _inside(path, root):
        scan.diagnostics.append(diagnostic(
            rules.SYMLINK_OUTSIDE, display, f"a link to {os.path.realpath(path)}, outside the store: not followed"))
        return
    (scan.sessions if kind == "session" else scan.entries).append(Source(path, display, kind))


def scan_loose_files(paths: list[str]) -> list[StoreScan]:
    """Loose files named on the command line, grouped by directory so that
    their links resolve against the entry files beside them."""
    groups: dict[str, StoreScan] = {}
    for path in paths:
        display = os.path.normpath(path)
        parent = os.path.dirname(os.path.abspath(path))
        scan = groups.get(parent)
        if scan is None:
            scan = groups[parent] = StoreScan(os.path.dirname(display) or ".", sibling_links=_links_in(parent))
        kind = "session" if path.endswith(".json") else "entry"
        (scan.sessions if kind == "session" else scan.entries).append(Source(path, display, kind))
    return list(groups.values())


def _links_in(directory: str) -> set[str]:
    try:
        return {name[:-3] for name in os.listdir(directory) if name.endswith(".md")}
    except OSError:
        return set()


def file_diagnostics(source: Source, read: FileText) -> list[Diagnostic]:
    """What reading the file itself found: unreadable, binary, not UTF-8, too large."""
    found = []
    if read.error is not None:
        found.append(diagnostic(rules.UNREADABLE, source.display, f"cannot read the file: {read.error}"))
    if read.binary:
        found.append(diagnostic(
            rules.BINARY, source.display,
            f"binary data (NUL bytes), not a text {'session' if source.kind == 'session' else 'entry'} file; "
            "not read any further"))
    if read.bad_utf8 is not None:
        line, column = read.bad_utf8
        found.append(diagnostic(
            rules.NOT_UTF8, source.display,
            "not valid UTF-8 from here on; read with the invalid bytes replaced by U+FFFD", line, column))
    if read.truncated:
        found.append(diagnostic(
            rules.TOO_LARGE, source.display,
            f"{read.size} bytes: only the first {MAX_BYTES} are checked"))
    return found
