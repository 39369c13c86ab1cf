"""A store on disk: the only part of the model that touches files.

Readers never write (spec 6: a degraded read leaves the original in place).
Writers run the whole read -> mutate -> write cycle under an exclusive lock
on `session.json.lock` and replace files atomically (temp file + rename),
as spec 4.1 requires. An unparseable session is copied to a quarantine file
before a writer replaces it; a session or an entry of a newer version is
never written over (spec 6: degrade to read-only), and a store merge keeps
what it cannot read (AMB-FORWARD-MERGE).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Iterator

from conformance import patterns
from conformance.model import frontmatter
from conformance.model.dates import sort_key
from conformance.model.entry import is_live, newer_schema_version, read_entry
from conformance.model.merge import merge_session_texts
from conformance.model.session import DEFAULT_CAPS, load_session_text, render
from conformance.model.writer import SESSION_OPS, Stamp, WriterError

MEMORY_DIR = "memory"
SESSION_FILE = "session.json"
LOCK_FILE = "session.json.lock"
QUARANTINE_SUFFIX = ".quarantine-"
LEGACY_TYPES = {"user", "feedback", "project", "reference"}
_LINES = patterns.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\z")
# A top-level `key:` line, as `edit_frontmatter` finds the keys it replaces.
_KEY_LINE = patterns.compile(rf"([^{patterns.PY_SPACE}#:][^:]*):(?:[{patterns.PY_SPACE}]|\z)")


def decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def read_text(path: Path) -> str | None:
    data = read_bytes(path)
    return None if data is None else decode(data)


def entry_paths(store: Path) -> list[Path]:
    """The entry files of a store: `memory/*.md`, never a link that leaves the store."""
    memory = store / MEMORY_DIR
    if not memory.is_dir():
        return []
    root = store.resolve()
    return [
        path for path in sorted(memory.glob("*.md"))
        if path.is_file() and path.resolve().is_relative_to(root)
    ]


def read_store(store: Path | str) -> dict:
    """What a reader of `store` presents: the protocol's `read_store` result."""
    store = Path(store)
    entries = [(path.stem, path.read_bytes()) for path in entry_paths(store)]
    return store_from_bytes(entries, read_bytes(store / SESSION_FILE))


def store_from_bytes(entry_bytes: list[tuple[str, bytes]], session_bytes: bytes | None) -> dict:
    """`read_store` of a store already read: its entry files as (link, bytes), its session.json or None."""
    entries = [read_entry(link, decode(data)) for link, data in entry_bytes]
    for entry in entries:
        entry["live"] = is_live(entry)
    loaded = load_session_text(None if session_bytes is None else decode(session_bytes))
    session = {"status": loaded.status, "live": render(loaded.session)}
    if loaded.reason:
        session["reason"] = loaded.reason
    return {"entries": entries, "session": session}


@contextlib.contextmanager
def locked(store: Path) -> Iterator[None]:
    """The store's exclusive writer lock, held for a whole read-mutate-write cycle."""
    store.mkdir(parents=True, exist_ok=True)
    fd = os.open(store / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        _lock(fd)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _lock(fd: int) -> None:
    try:
        import fcntl
    except ImportError:  # Windows
        import msvcrt

        msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
    else:
        fcntl.flock(fd, fcntl.LOCK_EX)


def atomic_write(path: Path, data: bytes) -> None:
    """No reader ever sees a partial file: write a temp file beside it, then rename."""
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise


def quarantine(path: Path, now: str) -> Path:
    """Copy the original beside itself before anything replaces it (spec 4.1, 6)."""
    target = path.with_name(path.name + QUARANTINE_SUFFIX + "".join(c for c in now if c.isascii() and c.isalnum()))
    counter = 0
    while target.exists():
        counter += 1
        target = target.with_name(f"{target.name}-{counter}")
    atomic_write(target, path.read_bytes())
    return target


def keep_beside(path: Path, data: bytes) -> Path:
    """A quarantine copy of `data` beside `path`, named by its digest: a merge
    has no clock, and the same bytes kept twice are one copy (AMB-FORWARD-MERGE)."""
    target = path.with_name(path.name + QUARANTINE_SUFFIX + hashlib.sha256(data).hexdigest()[:12])
    atomic_write(target, data)
    return target


def session_bytes(session: dict) -> bytes:
    return (json.dumps(session, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def apply_session_op(store: Path | str, op: str, stamp: Stamp, caps: dict = DEFAULT_CAPS, **args) -> list[str]:
    """One writer operation as a locked read-mutate-write cycle."""
    store = Path(store)
    path = store / SESSION_FILE
    with locked(store):
        loaded = load_session_text(read_text(path))
        log: list[str] = []
        if loaded.status == "degraded":
            if loaded.reason == "newer-version":
                raise WriterError("session.json is of a newer version than this writer knows: read-only (spec 6)")
            log.append(f"quarantined unreadable session.json as {quarantine(path, stamp.now).name}")
        session, op_log = SESSION_OPS[op](loaded.session, stamp=stamp, caps=caps, **args)
        atomic_write(path, session_bytes(session))
    return log + op_log


def _entry_path(store: Path, link: object) -> Path:
    if (not isinstance(link, str) or not link or any(c in link for c in "/\\\x00")
            or link.startswith(".") or link.endswith(".md")):
        raise WriterError(f"not a link name (a file name without .md, no path separators): {link!r}")
    return store / MEMORY_DIR / f"{link}.md"


def write_entry(store: Path | str, link: str, fields: dict, body: str, stamp: Stamp) -> None:
    """Create a canonical entry file, stamping its identity and date fields (spec 3.3, 8)."""
    store = Path(store)
    path = _entry_path(store, link)
    if not isinstance(fields, dict) or not isinstance(body, str):
        raise WriterError("frontmatter must be an object and body a string")
    entry_type = fields.get("type")
    if entry_type in LEGACY_TYPES or isinstance(fields.get("metadata"), dict) and "type" in fields["metadata"]:
        raise WriterError("writers must not emit legacy dialects for new entries (spec Appendix A)")
    if not isinstance(entry_type, str) or not isinstance(fields.get("name"), str):
        raise WriterError("an entry needs a string `type` and `name` (spec 3.2)")
    fields = dict(fields)
    stamps = {"next_action": ("added", "machine_id"), "goal": ("set_on",), "decision": ("date",)}
    for field in stamps.get(entry_type, ()):
        fields.setdefault(field, stamp.machine_id if field == "machine_id" else stamp.now)
    fields.setdefault("created", stamp.now)
    with locked(store):
        if path.exists():
            raise WriterError(f"entry already exists: {link}")
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            content = frontmatter.serialize_frontmatter(fields) + body
        except frontmatter.UnrepresentableFrontmatter as error:
            raise WriterError(f"frontmatter outside the subset of spec 3.1: {error}") from None
        atomic_write(path, content.encode("utf-8"))


def update_entry(store: Path | str, link: str, set_fields: dict, unset: list[str], stamp: Stamp) -> None:
    """Change frontmatter keys of an existing entry, leaving every other line
    byte for byte as it was, unknown fields included (spec 3.2, 8)."""
    store = Path(store)
    path = _entry_path(store, link)
    if not isinstance(set_fields, dict) or not isinstance(unset, list):
        raise WriterError("`set` must be an object and `unset` a list of keys")
    with locked(store):
        try:
            text = path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            raise WriterError(f"no such entry: {link}") from None
        except UnicodeDecodeError:
            raise WriterError(f"entry is not UTF-8, refusing to rewrite it: {link}") from None
        version = newer_schema_version(frontmatter.parse_entry_text(text).fields)
        if version is not None:
            raise WriterError(f"entry {link} has schema_version {version}, newer than this writer knows: "
                              "read-only (spec 6)")
        changes = dict(set_fields)
        if "updated" not in changes and "updated" not in unset:
            changes["updated"] = stamp.now
        try:
            edited = edit_frontmatter(text, changes, unset)
        except frontmatter.UnrepresentableFrontmatter as error:
            raise WriterError(f"value outside the frontmatter subset of spec 3.1: {error}") from None
        atomic_write(path, edited.encode("utf-8"))


def edit_frontmatter(text: str, changes: dict, unset: list[str]) -> str:
    """Replace, add or remove top-level keys of the frontmatter block by lines."""
    newline = "\r\n" if "\r\n" in text else "\n"
    parsed = frontmatter.parse_entry_text(text)
    lines = _LINES.findall(text)  # the parser's line breaks: \r\n, \r or \n
    if not parsed.has_frontmatter:
        block = frontmatter.serialize_frontmatter(changes).replace("\n", newline)
        return block + text
    # 0-based indexes of the opening and the closing `---` (the parser counts from 1).
    start, end = parsed.frontmatter_start - 1, parsed.body_start - 2
    blocks = _key_blocks(lines, start + 1, end)
    removed = set(unset) | set(changes)
    kept: list[str] = []
    position = start + 1
    for key, first, last in blocks:
        kept.extend(lines[position:first])
        if key not in removed:
            kept.extend(lines[first:last])
        elif key in changes:
            kept.append(_serialize_key(key, changes.pop(key), newline))
        position = last
    kept.extend(lines[position:end])
    kept.extend(_serialize_key(key, value, newline) for key, value in changes.items())
    return "".join(lines[: start + 1] + kept + lines[end:])


def _key_blocks(lines: list[str], first: int, end: int) -> list[tuple[str, int, int]]:
    """(key, first line, line after last) of each top-level key between `first` and `end`."""
    blocks: list[tuple[str, int, int]] = []
    for index in range(first, end):
        line = lines[index]
        match = _KEY_LINE.match(line)
        if match and not line.startswith("- "):
            if blocks:
                blocks[-1] = (blocks[-1][0], blocks[-1][1], index)
            blocks.append((match.group(1).strip(), index, end))
    return blocks


def _serialize_key(key: str, value: object, newline: str) -> str:
    block = frontmatter.serialize_frontmatter({key: value})
    inner = block.split("\n")[1:-2]  # drop the `---` lines
    return "".join(line + newline for line in inner)


def merge_stores(local: Path | str, remote: Path | str, out: Path | str, caps: dict = DEFAULT_CAPS) -> None:
    """Union of entry files by link name, same name resolved by newest (spec 5.2),
    a done_at copy winning over the copies it completes (5.3.2); sessions merged.

    Nothing this model cannot read is lost (spec 6, AMB-FORWARD-MERGE): an entry
    copy of a newer schema_version is kept byte for byte instead of any copy
    it cannot be compared with, and a degraded session.json contributes
    nothing to the merged one but is kept beside it."""
    local, remote, out = Path(local), Path(remote), Path(out)
    (out / MEMORY_DIR).mkdir(parents=True, exist_ok=True)
    candidates: dict[str, list[bytes]] = {}
    for store in (local, remote):
        for path in entry_paths(store):
            candidates.setdefault(path.name, []).append(path.read_bytes())
    for name, copies in candidates.items():
        kept, beside = _merged_entry(name, copies)
        atomic_write(out / MEMORY_DIR / name, kept)
        for data in beside:
            keep_beside(out / MEMORY_DIR / name, data)
    sessions = [read_bytes(store / SESSION_FILE) for store in (local, remote)]
    texts = [None if data is None else decode(data) for data in sessions]
    if any(text is not None for text in texts):
        # Written like a writer writes it (spec 4.1): under the store's lock, atomically.
        with locked(out):
            atomic_write(out / SESSION_FILE, session_bytes(merge_session_texts(*texts, caps=caps)))
            for data, text in zip(sessions, texts):
                if data is not None and load_session_text(text).status == "degraded":
                    keep_beside(out / SESSION_FILE, data)


def _merged_entry(name: str, copies: list[bytes]) -> tuple[bytes, list[bytes]]:
    """The bytes the merged store holds for one entry file, and the copies kept beside them."""
    readings = [(read_entry(name[:-3], decode(data)), data) for data in copies]
    # A newer schema is neither interpreted nor replaced: its dates cannot be compared (spec 6).
    unreadable = sorted({data for entry, data in readings if entry["status"] == "quarantined"}, reverse=True)
    if unreadable:
        return unreadable[0], unreadable[1:]
    return _newest_entry([(entry["fields"] or {}, data) for entry, data in readings]), []


def _newest_entry(readings: list[tuple[dict, bytes]]) -> bytes:
    """The copy that wins: a completed copy over every copy it completes, else newest."""

    def opened(fields: dict):
        return sort_key(fields.get("added", fields.get("set_on")))

    def rank(reading: tuple[dict, bytes]) -> tuple:
        fields, data = reading
        completes_all = "done_at" in fields and all(
            opened(other) <= sort_key(fields["done_at"]) for other, _ in readings
        )
        return (completes_all, sort_key(fields.get("updated") or fields.get("created")), data)

    return max(readings, key=rank)[1]
