#!/usr/bin/env python3
"""Mutant 21: update_entry drops frontmatter fields it does not recognise.

Breaks spec 3.2 (writers MUST preserve fields they do not recognize when
rewriting an entry) and spec 8 (a Writer preserves unknown fields on
rewrite), requirements S3.2-writers-preserve-unknown-fields and
S8-writer-preserves-unknown-fields. Level: writer.

After the edit the frontmatter is rebuilt from the fields of spec 3.2 and
3.3 only.
"""

from __future__ import annotations

from pathlib import Path

from _mutant import serve_mutant, wrap

KNOWN_FIELDS = {
    # spec 3.2
    "type", "name", "description", "created", "updated", "schema_version", "project", "tags", "aliases", "origin",
    # spec 3.3
    "source", "scope", "date", "why", "rejected", "hidden", "hidden_at", "superseded_by", "trigger",
    "how_to_apply", "fired_count", "last_fired", "set_on", "done_at", "added", "machine_id",
}


def mutate() -> None:
    from conformance.model import frontmatter, store

    def update_entry(original, store_dir, link, set_fields, unset, stamp):
        """update_entry that rewrites the frontmatter from the known fields"""
        original(store_dir, link, set_fields, unset, stamp)
        path = Path(store_dir) / store.MEMORY_DIR / f"{link}.md"
        parsed = frontmatter.parse_entry_text(path.read_text(encoding="utf-8"))
        known = {key: value for key, value in parsed.fields.items() if key in KNOWN_FIELDS}
        store.atomic_write(path, (frontmatter.serialize_frontmatter(known) + parsed.body).encode("utf-8"))

    wrap(store, "update_entry", update_entry)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
