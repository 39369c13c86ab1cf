"""Reading a REME vault from disk: which file is what (reme: Vault layout).

A vault has topics at ``topics/{folder}/{name}.md`` and events at
``events/{YYYY-MM-DD}/{name}/{name}.md`` (the index); the other files of an
event folder are its materials. ``memory_archive`` moves archived memories
under ``Archive/``, where the same layout applies but is not demanded.

Scanning only reads: nothing is ever written. Symbolic links are reported and
never followed, and files are opened with O_NOFOLLOW so a link swapped in
during the scan is not followed either. Hidden files and folders (``.git``,
``.obsidian``) are not part of the vault.
"""

from __future__ import annotations

import os
import posixpath
import stat
from dataclasses import dataclass, field
from datetime import date

from conformance.validator.reme_vault import rules
from conformance.validator.core.safe_yaml import YamlProblem, decode_utf8
from conformance.validator.reme_vault.frontmatter import Frontmatter, read_frontmatter
from conformance.validator.core.findings import Diagnostic, diagnostic

DEFAULT_MAX_BYTES = 1024 * 1024
ARCHIVE = "Archive"

TOPIC, EVENT, MATERIAL, ARCHIVED, OTHER, ATTACHMENT = "topic", "event", "material", "archived", "other", "attachment"
MEMORY_KINDS = (TOPIC, EVENT, ARCHIVED)
# What lifecycle the protocol's axis table expects where.
EXPECTED_LIFECYCLE = {TOPIC: "evolving", EVENT: "streaming", MATERIAL: "frozen"}


@dataclass
class VaultFile:
    relpath: str                       # posix path relative to the vault root
    kind: str                          # one of the kinds above
    event_folder: str | None = None    # for event indexes and materials: the folder's relpath
    archived: bool = False             # under Archive/
    text: str | None = None            # decoded text of a readable .md file
    front: Frontmatter | None = None   # its frontmatter

    @property
    def is_markdown(self) -> bool:
        return self.relpath.endswith(".md")

    @property
    def stem(self) -> str:
        return posixpath.splitext(posixpath.basename(self.relpath))[0]


@dataclass
class Vault:
    root: str                                           # as the user gave it
    files: dict[str, VaultFile] = field(default_factory=dict)
    event_folders: set[str] = field(default_factory=set)
    findings: list[Diagnostic] = field(default_factory=list)
    readable: bool = True

    def display(self, relpath: str) -> str:
        """How a file of the vault is named in diagnostics."""
        return os.path.join(self.root, *relpath.split("/"))

    def memories(self) -> list[VaultFile]:
        return [file for file in self.files.values() if file.kind in MEMORY_KINDS]


def scan_vault(root: str, *, max_bytes: int = DEFAULT_MAX_BYTES) -> Vault:
    """Read the vault at `root`; layout findings are in `Vault.findings`."""
    vault = Vault(root=root)
    if not os.path.isdir(root):
        reason = "no such directory" if not os.path.exists(root) else "not a directory; a REME vault is a directory"
        vault.findings.append(diagnostic(rules.READ, root, reason))
        vault.readable = False
        return vault
    real_root = os.path.realpath(root)
    for directory, subdirectories, names in os.walk(root, onerror=lambda error: _walk_error(vault, error)):
        subdirectories[:] = sorted(name for name in subdirectories if not name.startswith("."))
        relative_dir = os.path.relpath(directory, root)
        for name in list(subdirectories):
            full = os.path.join(directory, name)
            if os.path.islink(full):
                subdirectories.remove(name)
                _symlink(vault, real_root, full, _join(relative_dir, name))
        for name in sorted(names):
            if name.startswith("."):
                continue
            full = os.path.join(directory, name)
            relpath = _join(relative_dir, name)
            if os.path.islink(full):
                _symlink(vault, real_root, full, relpath)
                continue
            _add_file(vault, full, relpath, max_bytes)
    _check_event_folders(vault)
    return vault


def _join(relative_dir: str, name: str) -> str:
    return name if relative_dir in (".", "") else posixpath.join(relative_dir.replace(os.sep, "/"), name)


def _walk_error(vault: Vault, error: OSError) -> None:
    vault.findings.append(diagnostic(rules.READ, error.filename or vault.root, f"cannot be listed: {error.strerror or error}"))


def _symlink(vault: Vault, real_root: str, full: str, relpath: str) -> None:
    target = os.path.realpath(full)
    inside = target == real_root or target.startswith(real_root + os.sep)
    where = "a path inside the vault" if inside else "a path outside the vault"
    vault.findings.append(diagnostic(rules.SYMLINK, vault.display(relpath),
                                     f"symbolic link to {where}; not followed (links can lead out of the vault)"))


def classify(relpath: str) -> tuple[str, str | None, bool, str | None]:
    """(kind, event folder, archived, path-template problem) for a vault file."""
    parts = relpath.split("/")
    archived = parts[0] == ARCHIVE and len(parts) > 1
    if archived:
        parts = parts[1:]
    prefix = [ARCHIVE] if archived else []
    markdown = relpath.endswith(".md")
    if parts[0] == "topics":
        if len(parts) == 3 and markdown:
            return TOPIC, None, archived, None
        if not markdown:
            return ATTACHMENT, None, archived, None
        if archived:
            return ARCHIVED, None, archived, None
        return TOPIC, None, archived, "a topic lives at topics/{folder}/{name}.md"
    if parts[0] == "events":
        if len(parts) >= 4:
            folder = "/".join(prefix + parts[:3])
            problem = None if _is_date(parts[1]) else f"event date folder {parts[1]!r} is not a YYYY-MM-DD date"
            if len(parts) == 4 and parts[3] == parts[2] + ".md":
                return EVENT, folder, archived, None if archived else problem
            return MATERIAL, folder, archived, None
        if not markdown:
            return ATTACHMENT, None, archived, None
        if archived:
            return ARCHIVED, None, archived, None
        return EVENT, None, archived, "an event lives in its folder at events/{YYYY-MM-DD}/{name}/{name}.md"
    if archived:
        return (ARCHIVED if markdown else ATTACHMENT), None, archived, None
    return (OTHER if markdown else ATTACHMENT), None, archived, None


def _is_date(text: str) -> bool:
    if len(text) != 10:
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return text[4] == "-" and text[7] == "-"


def _add_file(vault: Vault, full: str, relpath: str, max_bytes: int) -> None:
    kind, folder, archived, problem = classify(relpath)
    file = VaultFile(relpath=relpath, kind=kind, event_folder=folder, archived=archived)
    vault.files[relpath] = file
    if folder is not None:
        vault.event_folders.add(folder)
    if problem is not None:
        vault.findings.append(diagnostic(rules.PATH_TEMPLATE, vault.display(relpath), problem))
    if kind == OTHER:
        vault.findings.append(diagnostic(rules.NOT_A_MEMORY, vault.display(relpath),
                                         "markdown outside topics/, events/ and Archive/: not a memory, not checked"))
    if not file.is_markdown or kind == OTHER:
        return
    raw = _read_nofollow(full, max_bytes)
    if isinstance(raw, str):
        if kind != MATERIAL:
            vault.findings.append(diagnostic(rules.READ, vault.display(relpath), raw))
        return
    text = decode_utf8(raw)
    if isinstance(text, YamlProblem):
        if kind != MATERIAL:  # a material is a raw artifact: any bytes are fine
            vault.findings.append(diagnostic(rules.READ, vault.display(relpath), text.message, text.line, text.column))
        return
    file.text = text
    file.front = read_frontmatter(text)


def _read_nofollow(full: str, max_bytes: int) -> bytes | str:
    """The file's bytes, or why they could not be read."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(full, flags)
    except OSError as error:
        return f"cannot be read: {error.strerror or error}"
    with os.fdopen(descriptor, "rb") as stream:
        # Checked on the open descriptor: a FIFO or device would block or never end.
        if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
            return "not a regular file; not read"
        try:
            raw = stream.read(max_bytes + 1)
        except OSError as error:
            return f"cannot be read: {error.strerror or error}"
    if len(raw) > max_bytes:
        return f"larger than the {max_bytes}-byte limit for a memory file; not read"
    return raw


def _check_event_folders(vault: Vault) -> None:
    for folder in sorted(vault.event_folders):
        name = folder.rsplit("/", 1)[-1]
        index = f"{folder}/{name}.md"
        if index not in vault.files:
            vault.findings.append(diagnostic(
                rules.PATH_TEMPLATE, vault.display(folder),
                f"event folder has no index {name}.md (an event lives at events/{{YYYY-MM-DD}}/{{name}}/{{name}}.md)"))
