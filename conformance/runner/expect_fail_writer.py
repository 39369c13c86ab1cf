"""`run --write-expect-fail FILE`: keep an expect-fail file in step with a run.

From a finished run, the file is created or updated:

- a vector that makes the run fail (a failed MUST check or an adapter error
  at or below the claimed level) and is not listed is added, with its
  digest and a placeholder reason to replace;
- a listed vector that passed (xpass) is removed;
- a listed vector whose digest no longer matches (stale) is reported with
  both digests and left as it is: the vector changed, so whether the entry
  still holds needs a person. With `--refresh-digests` its digest is
  updated when the changed vector still fails, and the entry is removed when
  it passes;
- every other entry is kept as written: expected failures that still fail,
  entries for vectors this run did not select, entries naming no vector.

A YAML file is updated in place with its comments and order kept; a JSON
file is rewritten with two-space indentation. The file is replaced
atomically (a temporary file renamed over it).
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from conformance.runner.execute import ERROR, FAIL, PASS
from conformance.runner.grading import STALE, XPASS, Grade, GradedVector, blocks_run

PLACEHOLDER_REASON = "TODO: say why this vector fails and link the issue (added by --write-expect-fail)"


@dataclass
class Update:
    """What a run changes in an expect-fail file."""

    added: list[GradedVector] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)         # ids that now pass
    stale: list[GradedVector] = field(default_factory=list)  # digest changed: reported
    refreshed: list[GradedVector] = field(default_factory=list)

    @property
    def changes(self) -> bool:
        return bool(self.added or self.removed or self.refreshed)


def plan(graded: list[GradedVector], result: Grade, refresh_digests: bool = False) -> Update:
    update = Update()
    for item in graded:
        if item.expected is None:
            if blocks_run(item, result) and item.result.outcome in (FAIL, ERROR):
                update.added.append(item)
        elif item.outcome == XPASS:
            update.removed.append(item.vector.id)
        elif item.outcome == STALE:
            if not refresh_digests:
                update.stale.append(item)
            elif item.result.outcome == PASS:
                update.removed.append(item.vector.id)
            else:
                update.refreshed.append(item)
    return update


def _entry(item: GradedVector) -> dict:
    return {"id": item.vector.id, "reason": PLACEHOLDER_REASON, "digest": item.vector.digest}


def _entries(document: object) -> list:
    """The list of entries inside a loaded document (bare, or under `expected_failures`)."""
    if isinstance(document, dict):
        return document["expected_failures"]
    return document


def apply(document: object, update: Update) -> object:
    """`document` (as loaded; None for a new file) with the update applied, in place when it can be."""
    if document is None:
        document = []
    entries = _entries(document)
    removed = set(update.removed)
    kept = [entry for entry in entries if not (isinstance(entry, dict) and entry.get("id") in removed)]
    digests = {item.vector.id: item.vector.digest for item in update.refreshed}
    for entry in kept:
        if isinstance(entry, dict) and entry.get("id") in digests:
            entry["digest"] = digests[entry["id"]]
    listed = {entry.get("id") for entry in kept if isinstance(entry, dict)}
    entries[:] = kept + [_entry(item) for item in sorted(update.added, key=lambda item: item.vector.id)
                         if item.vector.id not in listed]
    return document


def _is_yaml(path: Path, text: str | None) -> bool:
    if text is not None and text.strip():
        try:
            json.loads(text)
            return False
        except ValueError:
            return True
    return path.suffix.lower() in (".yaml", ".yml")


def write(path: Path, update: Update) -> None:
    """Apply `update` to the file at `path` (created when missing)."""
    text = path.read_text(encoding="utf-8") if path.exists() else None
    if _is_yaml(path, text):
        from ruamel.yaml import YAML

        yaml = YAML()  # round trip: comments and key order survive
        yaml.indent(mapping=2, sequence=2, offset=0)
        document = apply(yaml.load(text) if text and text.strip() else None, update)
        buffer = io.StringIO()
        yaml.dump(document, buffer)
        new_text = buffer.getvalue().rstrip("\n") + "\n"
    else:
        document = apply(json.loads(text) if text and text.strip() else None, update)
        new_text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    _replace(path, new_text)


def _replace(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def report(path: Path, update: Update, written: bool) -> list[str]:
    """Lines telling the user what changed in the file, and what needs them."""
    lines = []
    if update.added:
        lines.append(f"{path}: added {len(update.added)} failing vector(s) with a placeholder reason: "
                     f"{_some([item.vector.id for item in update.added])}; write each reason")
    if update.removed:
        lines.append(f"{path}: removed {len(update.removed)} entr{'y' if len(update.removed) == 1 else 'ies'} "
                     f"whose vectors now pass: {_some(update.removed)}")
    for item in update.refreshed:
        lines.append(f"{path}: {item.vector.id}: digest refreshed (the changed vector still fails)\n"
                     f"    was: {item.expected.digest}\n    now: {item.vector.digest}")
    for item in update.stale:
        lines.append(f"{path}: {item.vector.id}: the vector changed since the entry was written; entry kept as it "
                     f"is: re-check it, then rerun with --refresh-digests\n"
                     f"    entry digest:  {item.expected.digest}\n    vector digest: {item.vector.digest}")
    if not written and not update.stale:
        lines.append(f"{path}: nothing to change")
    return lines


def _some(ids: list[str], shown: int = 10) -> str:
    return ", ".join(ids[:shown]) + (f" and {len(ids) - shown} more" if len(ids) > shown else "")
