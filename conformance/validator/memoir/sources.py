"""Reading one file of a store, bounded, without ever writing.

A file is read only up to `MAX_BYTES`; a file with NUL bytes is binary and
not decoded at all; a pipe, socket or device is never opened. Memory per
file stays bounded whatever the store holds.
"""

from __future__ import annotations

import codecs
import os
import stat
from pathlib import Path
from typing import NamedTuple

from conformance.validator.core.file_kinds import OPEN_FLAGS
from conformance.validator.core.findings import Diagnostic, diagnostic
from conformance.validator.memoir import rules

MAX_BYTES = 4 * 1024 * 1024


class FileText(NamedTuple):
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
        # Opened without blocking and checked on the descriptor: a pipe, socket
        # or device is never read. A raw descriptor, not a buffered file object:
        # cheaper per file, and a store has thousands of small files.
        descriptor = os.open(path, OPEN_FLAGS)
        try:
            status = os.fstat(descriptor)
            if not stat.S_ISREG(status.st_mode):
                return FileText(None, error="not a regular file (a pipe, socket or device is never opened)")
            # As many bytes as the file has (one more, to see it grew), never a
            # buffer of `limit` bytes for a small file.
            wanted = min(status.st_size, limit) + 1
            data = os.read(descriptor, wanted)  # a regular file reads short only at its end
            if len(data) == wanted <= limit:
                data += _read_up_to(descriptor, limit + 1 - wanted)
            size = max(status.st_size, len(data))
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


def file_diagnostics(display: str, kind: str, read: FileText) -> list[Diagnostic]:
    """What reading the file itself found: unreadable, binary, not UTF-8."""
    found = []
    if read.error is not None:
        found.append(diagnostic(rules.UNREADABLE, display, f"cannot read the file ({read.error}); check its permissions"))
    if read.binary:
        found.append(diagnostic(
            rules.BINARY, display,
            f"binary data (NUL bytes), not a text {kind} file, so it was not read; remove it from the store"))
    if read.bad_utf8 is not None:
        line, column = read.bad_utf8
        found.append(diagnostic(
            rules.NOT_UTF8, display,
            "not valid UTF-8 from here on (read with the bad bytes replaced by U+FFFD); save the file as UTF-8",
            line, column))
    return found
