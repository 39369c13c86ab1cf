"""Safe reading, copying and removing of files an adapter made.

The runner reads, copies, lists and removes what an adapter leaves in its
scratch areas, outside any sandbox. An adapter may leave a symbolic link
(to `/dev/zero`, `/etc/shadow`, a host directory), a FIFO (an `open()`
that never returns), a device node, a sparse file of a GiB, or a directory
thousands of levels deep. Everything here therefore:

- opens a file with O_NOFOLLOW | O_NONBLOCK and reads it only when `fstat`
  says it is a regular file, and no more than a size limit;
- walks directories through directory descriptors, without following
  links, to a bounded depth;
- reports what it will not read as an `UnsafeFile` naming what the adapter
  left, which the runner turns into a fault of the vector;
- removes a tree of any depth without recursion, repairing the
  permissions (and, as root, the immutable flag) an adapter took away, and
  says what it had to repair or could not remove.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import struct
import uuid
from dataclasses import dataclass, field
from pathlib import Path

MiB = 1024 * 1024
MAX_FILE_BYTES = 16 * MiB       # one file of a store; stores of the vectors hold a few KiB
MAX_TREE_BYTES = 64 * MiB       # all files of one directory tree
MAX_DEPTH = 32                  # directory levels below the tree's root
MAX_ENTRIES = 20_000            # files and directories of one tree
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# Directories kept open at once while removing: deeper ones are moved up first.
_REMOVE_DEPTH = 16
_FS_IOC_GETFLAGS, _FS_IOC_SETFLAGS = 0x80086601, 0x40086602
_FS_UNREMOVABLE_FLAGS = 0x00000010 | 0x00000020   # FS_IMMUTABLE_FL, FS_APPEND_FL


class UnsafeFile(Exception):
    """Something an adapter left that the runner does not read: a link, a special file, too much."""

    def __init__(self, path: str, what: str):
        super().__init__(f"the adapter left {path}: {what}; the runner does not follow links nor read "
                         "special or oversized files it finds in a scratch directory")
        self.path = path
        self.what = what


def kind_of(mode: int) -> str:
    """What a file of this mode is, in words."""
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"


def _link_words(name: str, dir_fd: int | None) -> str:
    try:
        return f"a symbolic link to {os.readlink(name, dir_fd=dir_fd)!r}"
    except OSError:
        return "a symbolic link"


def _read_open(fd: int, shown: str, limit: int) -> bytes:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeFile(shown, kind_of(info.st_mode))
    if info.st_size > limit:
        raise UnsafeFile(shown, f"a file of {info.st_size} bytes, more than the limit of {limit}")
    parts, size = [], 0
    while chunk := os.read(fd, min(1 * MiB, limit + 1 - size)):
        parts.append(chunk)
        size += len(chunk)
        if size > limit:
            raise UnsafeFile(shown, f"a file that grew past the limit of {limit} bytes while it was read")
    return b"".join(parts)


def read_file(path: Path, limit: int = MAX_FILE_BYTES, shown: str | None = None,
              dir_fd: int | None = None) -> bytes | None:
    """The bytes of a regular file, None when it does not exist; `UnsafeFile` for anything else.

    `shown` names the file in the fault (default: the path).
    """
    shown = str(path) if shown is None else shown
    try:
        fd = os.open(path, _OPEN_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise UnsafeFile(shown, _link_words(str(path), dir_fd)) from None
        if error.errno in (errno.ENXIO, errno.EACCES, errno.EPERM, errno.ENOTDIR):
            raise UnsafeFile(shown, f"a file the runner cannot open ({os.strerror(error.errno)})") from None
        raise
    try:
        return _read_open(fd, shown, limit)
    finally:
        os.close(fd)


@dataclass
class _Budget:
    entries: int = 0
    total: int = 0


def read_tree(directory: Path, *, shown: str | None = None, limit: int = MAX_FILE_BYTES,
              total: int = MAX_TREE_BYTES, depth: int = MAX_DEPTH) -> dict[str, bytes]:
    """relpath -> bytes of every file under `directory` ({} when it is missing); `UnsafeFile`
    for a link, a special file, a file over `limit`, more than `total` bytes in all, or a tree
    deeper than `depth` levels."""
    shown = str(directory) if shown is None else shown
    try:
        root = os.open(directory, _DIR_FLAGS)
    except FileNotFoundError:
        return {}
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            info = os.lstat(directory)
            raise UnsafeFile(shown, _link_words(str(directory), None) if stat.S_ISLNK(info.st_mode)
                             else kind_of(info.st_mode)) from None
        raise
    files: dict[str, bytes] = {}
    budget = _Budget()
    pending = [(root, "")]      # open directories still to list, with their relative path
    try:
        while pending:
            fd, prefix = pending.pop()
            try:
                with os.scandir(fd) as entries:
                    names = sorted(entry.name for entry in entries)
                for name in names:
                    relative = f"{prefix}{name}"
                    budget.entries += 1
                    if budget.entries > MAX_ENTRIES:
                        raise UnsafeFile(shown, f"more than {MAX_ENTRIES} files and directories")
                    info = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    if stat.S_ISDIR(info.st_mode):
                        if relative.count("/") + 1 >= depth:
                            raise UnsafeFile(f"{shown}/{relative}", f"directories nested more than {depth} levels deep")
                        try:
                            pending.append((os.open(name, _DIR_FLAGS, dir_fd=fd), relative + "/"))
                        except OSError as error:
                            raise UnsafeFile(f"{shown}/{relative}",
                                             f"a directory the runner cannot open ({error.strerror})") from None
                        continue
                    data = read_file(Path(name), limit, f"{shown}/{relative}", dir_fd=fd)
                    if data is None:
                        continue  # removed while we looked
                    budget.total += len(data)
                    if budget.total > total:
                        raise UnsafeFile(shown, f"more than {total} bytes of files")
                    files[relative] = data
            finally:
                os.close(fd)
    finally:
        for fd, _ in pending:
            os.close(fd)
    return dict(sorted(files.items()))


def copy_tree(source: Path, target: Path) -> list[str]:
    """Copy `source` into `target` as the adapter left it: links as links (never followed),
    regular files up to the limits, special files and what is too deep or too big left out.
    Returns what was left out, relative to `source`."""
    left_out: list[str] = []
    copied = _Budget()
    pending = [(Path(source), Path(target), 0)]
    while pending:
        directory, into, level = pending.pop()
        into.mkdir(parents=True, exist_ok=True)
        try:
            entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
        except OSError as error:
            left_out.append(f"{os.path.relpath(directory, source)} ({error.strerror})")
            continue
        for entry in entries:
            relative = os.path.relpath(entry.path, source)
            copied.entries += 1
            if copied.entries > MAX_ENTRIES:
                return left_out + [f"{relative} and the rest (more than {MAX_ENTRIES} entries)"]
            try:
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISLNK(info.st_mode):
                    os.symlink(os.readlink(entry.path), into / entry.name)
                elif stat.S_ISDIR(info.st_mode):
                    if level + 1 >= MAX_DEPTH:
                        left_out.append(f"{relative} (nested more than {MAX_DEPTH} levels deep)")
                    else:
                        pending.append((Path(entry.path), into / entry.name, level + 1))
                else:
                    data = read_file(Path(entry.path), shown=relative)
                    copied.total += len(data or b"")
                    if copied.total > MAX_TREE_BYTES:
                        return left_out + [f"{relative} and the rest (more than {MAX_TREE_BYTES} bytes)"]
                    if data is not None:
                        (into / entry.name).write_bytes(data)
            except UnsafeFile as unsafe:
                left_out.append(f"{relative} ({unsafe.what})")
            except OSError as error:
                left_out.append(f"{relative} ({error.strerror})")
    return left_out


# --- removing ----------------------------------------------------------------------

@dataclass
class Removal:
    """What removing a tree took: repairs of what the adapter did, and what stayed."""

    repaired: list[str] = field(default_factory=list)   # made writable (or mutable) again first
    left: list[str] = field(default_factory=list)       # could not be removed

    def fault(self, shown: str) -> str | None:
        """The words for a fault of the vector, or None when nothing was amiss."""
        if self.left:
            return (f"the adapter left {', '.join(self.left[:3])} in {shown}, which the runner cannot remove "
                    "(permissions or the immutable flag); it stays until removed by hand")
        if self.repaired:
            return (f"the adapter made {', '.join(self.repaired[:3])} in {shown} unremovable (permissions or the "
                    "immutable flag); the runner restored them and removed it")
        return None


def _make_removable(fd: int) -> bool:
    """Give the directory (or file) open as `fd` back to its owner: u+rwx, no immutable flag."""
    done = False
    try:
        flags = struct.unpack("i", fcntl.ioctl(fd, _FS_IOC_GETFLAGS, b"\0" * 4))[0]
        if flags & _FS_UNREMOVABLE_FLAGS:
            fcntl.ioctl(fd, _FS_IOC_SETFLAGS, struct.pack("i", flags & ~_FS_UNREMOVABLE_FLAGS))
            done = True
    except OSError:
        pass
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode) and mode & 0o700 != 0o700:
            os.chmod(f"/proc/self/fd/{fd}", stat.S_IMODE(mode) | 0o700)
            done = True
    except OSError:
        pass
    return done


def _open_for_repair(name: str, dir_fd: int) -> int | None:
    """`name` (a directory or regular file, never a link or special file) opened to repair it."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return None
    if stat.S_ISDIR(info.st_mode):
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    elif stat.S_ISREG(info.st_mode):
        flags = _OPEN_FLAGS
    else:
        return None
    try:
        return os.open(name, flags, dir_fd=dir_fd)
    except OSError:
        try:  # a directory without read permission: O_PATH still reaches its mode, not its flags
            return os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
        except OSError:
            return None


def _retry(action, name: str, dir_fd: int, shown: str, removal: Removal) -> bool:
    """Run `action()`; on a permission error repair the parent and the entry, and try once more."""
    try:
        action()
        return True
    except FileNotFoundError:
        return True
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.EACCES, errno.ENOTEMPTY, errno.EROFS):
            removal.left.append(f"{shown} ({error.strerror})")
            return False
    repaired = _make_removable(dir_fd)
    own = _open_for_repair(name, dir_fd)
    if own is not None:
        repaired = _make_removable(own) or repaired
        os.close(own)
    try:
        action()
    except FileNotFoundError:
        return True
    except OSError as error:
        removal.left.append(f"{shown} ({error.strerror})")
        return False
    if repaired:
        removal.repaired.append(shown)
    return True


def remove_tree(path: Path, shown: str | None = None) -> Removal:
    """Remove `path` (a directory, file or link) without following links and without recursion,
    whatever its depth; repair permissions an adapter took away. Never raises for what it finds."""
    path = Path(path)
    shown = path.name if shown is None else shown
    removal = Removal()
    try:
        parent = os.open(path.parent, _DIR_FLAGS)
    except OSError:
        return removal
    try:
        _remove_in(parent, path.name, shown, removal)
    finally:
        os.close(parent)
    return removal


def _listing(fd: int) -> list[str]:
    try:
        with os.scandir(fd) as entries:
            return sorted((entry.name for entry in entries), reverse=True)
    except OSError:
        return []


def _remove_in(parent: int, name: str, shown: str, removal: Removal) -> None:
    try:
        info = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except OSError:
        return
    if not stat.S_ISDIR(info.st_mode):
        _retry(lambda: os.unlink(name, dir_fd=parent), name, parent, shown, removal)
        return
    top = _open_dir(parent, name, shown, removal)
    if top is None:
        return
    # Directories deeper than _REMOVE_DEPTH are moved up into the top one and emptied later,
    # so that no more than _REMOVE_DEPTH directories are open at once.
    later: list[str] = []
    # (fd, names left to remove, the parent's fd, the name in the parent, the path shown)
    stack: list[tuple[int, list[str], int, str, str]] = [(top, _listing(top), parent, name, shown)]
    try:
        while stack:
            fd, names, parent_fd, name_in_parent, where = stack[-1]
            if not names and len(stack) == 1 and later:
                moved = later.pop()
                child = _open_dir(top, moved, f"{shown}/{moved}", removal)
                if child is not None:
                    stack.append((child, _listing(child), top, moved, f"{shown}/{moved}"))
                continue
            if not names:
                stack.pop()
                if fd != top:
                    os.close(fd)
                    _retry(lambda: os.rmdir(name_in_parent, dir_fd=parent_fd), name_in_parent, parent_fd,
                           where, removal)
                continue
            entry_name = names.pop()
            entry_shown = f"{where}/{entry_name}"
            try:
                is_dir = stat.S_ISDIR(os.stat(entry_name, dir_fd=fd, follow_symlinks=False).st_mode)
            except OSError:
                continue
            if not is_dir:
                _retry(lambda: os.unlink(entry_name, dir_fd=fd), entry_name, fd, entry_shown, removal)
            elif len(stack) >= _REMOVE_DEPTH:
                moved = f".memoir-removing-{uuid.uuid4().hex}"
                if _retry(lambda: os.rename(entry_name, moved, src_dir_fd=fd, dst_dir_fd=top),
                          entry_name, fd, entry_shown, removal):
                    later.append(moved)
            else:
                child = _open_dir(fd, entry_name, entry_shown, removal)
                if child is not None:
                    stack.append((child, _listing(child), fd, entry_name, entry_shown))
    finally:
        for fd, *_ in stack:
            if fd != top:
                os.close(fd)
        os.close(top)
    _retry(lambda: os.rmdir(name, dir_fd=parent), name, parent, shown, removal)


def _open_dir(parent: int, name: str, shown: str, removal: Removal) -> int | None:
    opened: list[int] = []

    def open_it() -> None:
        opened.append(os.open(name, _DIR_FLAGS, dir_fd=parent))

    if not _retry(open_it, name, parent, shown, removal) or not opened:
        return None
    return opened[0]
