"""What a path is before the validator opens it: a regular file, or why not.

Opening a named pipe for reading blocks until a writer comes (and opening a
device can do anything its driver does), so every validator asks here first:
a path is opened only when it is a regular file (its link followed), and then
without blocking, so that a file swapped for a pipe after the question is not
waited on either (the descriptor is checked again with `fstat`).
"""

from __future__ import annotations

import errno
import os
import stat

# Read-only, never waiting on a pipe that replaced a file since it was asked about.
OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)

_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def special_kind(mode: int) -> str | None:
    """What a file of this mode is when it is neither a regular file nor a directory."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return next((name for test, name in _SPECIAL_KINDS if test(mode)), "not a regular file")


def not_a_file_reason(mode: int) -> str:
    """Why a file of this (special) mode is not read."""
    return f"{special_kind(mode)}, not a regular file: never opened"


def stat_error_reason(error: OSError) -> str:
    """Why a path that cannot even be looked at was not read."""
    if error.errno == errno.ELOOP:
        return "a loop of symbolic links, which leads to no file"
    return error.strerror or str(error)


def why_not_a_file(path: str) -> str | None:
    """None when `path` is a regular file (its symbolic link followed), else
    why it is not read: special file, directory, loop of links, missing."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        return stat_error_reason(error)
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory, not a file"
    return not_a_file_reason(mode)
