"""Finding the memoir stores a user points at, and listing their files.

``validate PATH`` accepts what people have on disk, not only the layout of
spec 2. A directory is searched (symbolic links are not followed) for:

- a **store**: a folder with ``memory/`` or ``session.json`` (spec 2), which
  covers ``.claude/projects/<project>/`` and a repository with ``memory/``;
- a **memory folder**: entry files directly inside a folder that is named
  ``memory``, holds a ``MEMORY.md`` index, or sits in ``agent-memory/`` (one
  folder of memory per sub-agent: ``.claude/agent-memory/<agent>/``);
- and, in PATH itself only, **entry files**: ``*.md`` files whose
  frontmatter has a ``type``.

Hidden folders other than ``.claude`` and folders of installed or built
code (``node_modules`` and the like) are not searched. A store is not
searched inside. Finding nothing is an error of its own (`NothingFound`),
which says what was looked for: a mistyped path must not pass in CI.

Listing a store reads directory entries only (no file is opened) and never
writes. A symbolic link is followed only when its target stays inside the
store.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

from conformance.validator.core.file_kinds import OPEN_FLAGS, not_a_file_reason, stat_error_reason, why_not_a_file
from conformance.validator.core.findings import Diagnostic, NothingToCheck, diagnostic
from conformance.validator.memoir import rules

MEMORY_DIR = "memory"
SESSION_FILE = "session.json"
INDEX_FILE = "MEMORY.md"
AGENT_MEMORY = "agent-memory"
# Files a store keeps beside session.json that are not entries or sessions:
# its lock, quarantine copies and backups.
SESSION_COMPANIONS = ("session.json.",)
SEARCHED_HIDDEN = {".claude"}
NOT_SEARCHED = {"node_modules", "__pycache__", "site-packages", "venv", "env", "dist", "build", "target"}
MAX_DEPTH = 8
_SNIFFED_FILES = 50
_SNIFFED_BYTES = 4096

LOOKED_FOR = (
    "folders with memory/ or session.json (stores, as in .claude/projects/<project>/), "
    "memory folders (named memory/, holding a MEMORY.md index, or .claude/agent-memory/<agent>/), "
    "and entry files (*.md whose frontmatter has a type) directly in the folder given; "
    "hidden folders other than .claude and folders such as node_modules are not searched"
)


class NothingFound(NothingToCheck):
    """A path under which no store and no entry file was found."""


@dataclass(frozen=True)
class Target:
    """One store, memory folder, or group of loose files to check."""

    display: str               # how the output names it
    description: str           # what it is, in words
    layout: str                # "store" (spec 2), "folder" (a memory folder) or "files" (named on the command line)
    root: str                  # no symbolic link is followed out of it
    entries_dir: str           # where its entry files are
    entries_display: str
    session: str | None = None  # a store's session.json, when it has one
    files: tuple[str, ...] | None = None  # loose files named on the command line (all in entries_dir)


def targets(paths: list[str]) -> list[Target]:
    """What to check for `paths` (directories searched, files grouped by
    folder), each once. Raises NothingFound for a directory holding nothing
    to check."""
    found: list[Target] = []
    loose: dict[str, list[str]] = {}
    for path in paths:
        if os.path.isdir(path):
            here = discover(path)
            if not here:
                raise NothingFound(f"no memoir store or entry file found under {path}: looked for {LOOKED_FOR}. "
                                   "To check files anyway, name them")
            found.extend(here)
        else:
            loose.setdefault(os.path.dirname(os.path.abspath(path)), []).append(path)
    for directory, files in loose.items():
        shown = os.path.dirname(os.path.normpath(files[0]))
        found.append(Target(shown or ".", f"{len(files)} file{'s' if len(files) != 1 else ''} named", "files",
                            directory, directory, shown, files=tuple(files)))
    unique: dict[tuple, Target] = {}
    for target in found:
        key = (os.path.realpath(target.entries_dir), target.files)
        unique.setdefault(key, target)
    return list(unique.values())


def discover(directory: str) -> list[Target]:
    """The stores and memory folders at or under `directory`."""
    display = os.path.normpath(directory)
    here = _target(directory, display, os.path.basename(os.path.dirname(os.path.abspath(directory))))
    if here is not None:
        return [here]
    found: list[Target] = []
    _search(directory, display, 1, found)
    if not found and _has_entry_files(directory):
        found.append(Target(display, "a folder of entry files", "folder", directory, directory, display))
    return found


def _target(directory: str, display: str, parent_name: str) -> Target | None:
    """`directory` as a store or memory folder, or None when it is neither."""
    memory = os.path.join(directory, MEMORY_DIR)
    session = os.path.join(directory, SESSION_FILE)
    has_memory = os.path.isdir(memory)
    has_session = os.path.lexists(session)
    if has_memory or has_session:
        what = ("memory/ and session.json" if has_memory and has_session
                else "memory/ but no session.json" if has_memory else "session.json but no memory/")
        return Target(display, f"a store with {what}", "store", directory, memory, os.path.join(display, MEMORY_DIR),
                      session=session if has_session else None)
    name = os.path.basename(os.path.abspath(directory))
    if parent_name == AGENT_MEMORY:
        description = f"the memory folder of agent {name!r}"
    elif os.path.isfile(os.path.join(directory, INDEX_FILE)):
        description = f"a memory folder with {INDEX_FILE}"
    elif name == MEMORY_DIR:
        description = "a memory folder"
    else:
        return None
    return Target(display, description, "folder", directory, directory, display)


def _search(directory: str, display: str, depth: int, found: list[Target]) -> None:
    if depth > MAX_DEPTH:
        return
    try:
        with os.scandir(directory) as listing:
            children = sorted(entry.name for entry in listing if entry.is_dir(follow_symlinks=False))
    except OSError:
        return
    parent_name = os.path.basename(os.path.abspath(directory))
    for name in children:
        if (name.startswith(".") and name not in SEARCHED_HIDDEN) or name in NOT_SEARCHED:
            continue
        path = os.path.join(directory, name)
        shown = os.path.join(display, name)
        target = _target(path, shown, parent_name)
        if target is not None:
            found.append(target)
        else:
            _search(path, shown, depth + 1, found)


def _has_entry_files(directory: str) -> bool:
    """Whether `directory` directly holds a *.md file whose frontmatter has a type.
    Only regular files are opened (a pipe named *.md would block the search)."""
    try:
        with os.scandir(directory) as listing:
            names = sorted(entry.name for entry in listing if entry.name.endswith(".md") and _is_file(entry))
    except OSError:
        return False
    for name in names[:_SNIFFED_FILES]:
        head = _head(os.path.join(directory, name))
        if head is None:
            continue
        lines = head.lstrip("\ufeff").splitlines()
        if not lines or lines[0].rstrip() != "---":
            continue
        for line in lines[1:]:
            if line.rstrip() == "---":
                break
            if line.lstrip().startswith("type:") and line.split(":", 1)[1].strip():
                return True
    return False


def _is_file(entry: os.DirEntry) -> bool:
    try:
        return entry.is_file()  # a link is followed; a loop of links is no file
    except OSError:
        return False


def _head(path: str) -> str | None:
    """The first bytes of a regular file as text, or None (never waiting on a pipe swapped in)."""
    try:
        descriptor = os.open(path, OPEN_FLAGS)
        try:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                return None
            return os.read(descriptor, _SNIFFED_BYTES).decode("utf-8", errors="replace")
        finally:
            os.close(descriptor)
    except OSError:
        return None


# -- listing one target ---------------------------------------------------------------------


@dataclass
class Listing:
    """The files of one target, in the order they are reported."""

    target: Target
    sessions: list[tuple[str, str]] = field(default_factory=list)  # (path, display)
    # Every name reported in the entries folder, sorted: entry files and the
    # names that only carry a note (in `notes`).
    names: list[str] = field(default_factory=list)
    notes: dict[str, Diagnostic] = field(default_factory=dict)
    link_names: set[str] = field(default_factory=set)  # every entry file's link name (beside loose files too)
    root_notes: list[Diagnostic] = field(default_factory=list)  # about the folder itself

    @property
    def entry_count(self) -> int:
        return len(self.names) - len(self.notes)


def _inside(path: str, root: str) -> bool:
    real = os.path.realpath(path)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def list_target(target: Target) -> Listing:
    """The session and entry files of a target, without opening any."""
    listing = Listing(target)
    root = os.path.realpath(target.root)
    if target.session is not None:
        _add_session(listing, target.session, os.path.join(target.display, SESSION_FILE), root)
    if target.files is not None:
        _list_loose(listing)
        return listing
    if os.path.islink(target.entries_dir) and not _inside(target.entries_dir, root):
        listing.root_notes.append(diagnostic(
            rules.SYMLINK_OUTSIDE, target.entries_display,
            f"{MEMORY_DIR}/ is a link to {os.path.realpath(target.entries_dir)}, outside the store: not followed; "
            "keep the entry files inside the store"))
        return listing
    if not os.path.isdir(target.entries_dir):
        return listing
    _list_entries(listing, root)
    return listing


def _add_session(listing: Listing, path: str, shown: str, root: str) -> None:
    """A store's session.json, to be read when it is a regular file inside the store."""
    if os.path.islink(path) and not _inside(path, root):
        listing.root_notes.append(_outside(shown, path))
        return
    reason = why_not_a_file(path)
    if reason is not None:
        listing.root_notes.append(_not_read(shown, reason))
    else:
        listing.sessions.append((path, shown))


def _entry_kind(entry: os.DirEntry) -> str:
    """"file", "directory", or why the entry is neither (a special file, a
    loop of links, a link to nothing). A link is followed (the caller has
    made sure it stays inside the store); the folder listing's file types
    answer without a system call for everything else."""
    try:
        if entry.is_dir():
            return "directory"
        if entry.is_file():
            return "file"
        mode = entry.stat().st_mode
    except OSError as error:
        return stat_error_reason(error)
    return not_a_file_reason(mode)


def _not_read(shown: str, reason: str) -> Diagnostic:
    return diagnostic(rules.UNREADABLE, shown,
                      f"cannot read the file ({reason}); readers cannot read it either: make it a file or remove it")


def _outside(shown: str, path: str) -> Diagnostic:
    return diagnostic(rules.SYMLINK_OUTSIDE, shown,
                      f"a link to {os.path.realpath(path)}, outside the store: not followed; copy the file into the "
                      "store or remove the link")


def _list_entries(listing: Listing, root: str) -> None:
    target = listing.target
    try:
        with os.scandir(target.entries_dir) as scan:
            entries = sorted(scan, key=lambda entry: entry.name)
    except OSError as error:
        listing.root_notes.append(diagnostic(
            rules.UNREADABLE, target.entries_display,
            f"the folder cannot be listed ({error.strerror}): check its permissions"))
        return
    shown_prefix = os.path.join(target.entries_display, "")
    for entry in entries:
        name = entry.name
        if name.startswith("."):
            continue  # hidden files and folders (.git, .DS_Store) are no part of the format
        shown = shown_prefix + name
        if target.layout == "folder" and (name == SESSION_FILE or name.startswith(SESSION_COMPANIONS)):
            if name == SESSION_FILE:
                _add_session(listing, entry.path, shown, root)
            continue
        if entry.is_symlink() and not _inside(entry.path, root):
            listing.names.append(name)
            listing.notes[name] = _outside(shown, entry.path)
            continue
        kind = _entry_kind(entry)
        if kind == "directory":
            listing.names.append(name)
            listing.notes[name] = diagnostic(
                rules.OTHER_FILE, shown,
                "a folder inside the memory folder: readers take entries only from the memory folder itself, "
                "so nothing in it is read; move entries up a level or leave it out of the store")
            continue
        if name.endswith(".md"):
            listing.names.append(name)
            listing.link_names.add(name[:-3])
            if kind != "file":  # a pipe, a device, a loop of links: never opened
                listing.notes[name] = _not_read(shown, kind)
        elif not name.startswith(SESSION_COMPANIONS):
            listing.names.append(name)
            listing.notes[name] = diagnostic(
                rules.OTHER_FILE, shown,
                "not an entry file (entries end in .md): readers ignore it; rename it or move it out if it is "
                "meant to be an entry")


def _list_loose(listing: Listing) -> None:
    target = listing.target
    for path in sorted(set(target.files), key=os.path.basename):
        name = os.path.basename(path)
        shown = os.path.join(target.entries_display, name)
        reason = why_not_a_file(path)
        if name.endswith(".json"):
            if reason is None:
                listing.sessions.append((path, shown))
            else:
                listing.root_notes.append(_not_read(shown, reason))
        else:
            listing.names.append(name)
            if reason is not None:
                listing.notes[name] = _not_read(shown, reason)
    # Links of loose files resolve against every entry file beside them.
    try:
        listing.link_names = {name[:-3] for name in os.listdir(target.entries_dir) if name.endswith(".md")}
    except OSError:
        listing.link_names = {name[:-3] for name in listing.names if name.endswith(".md")}
