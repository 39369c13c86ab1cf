#!/usr/bin/env python3
"""Mutant 22: a write rewrites entries it was not asked to touch.

Breaks spec 8 (a Writer never rewrites entries it was not asked to touch),
requirement S8-writer-untouched-entries. Level: writer.

After writing or updating one entry, the writer "tidies" every other entry
file into canonical frontmatter: harmless-looking, but it rewrites the
user's files (spacing, quoting, line endings, comments) behind their back.
"""

from __future__ import annotations

from pathlib import Path

from _mutant import serve_mutant, wrap


def mutate() -> None:
    from conformance.model import frontmatter, store

    def tidy_others(store_dir, link):
        for path in store.entry_paths(Path(store_dir)):
            if path.stem == link:
                continue
            try:
                parsed = frontmatter.parse_entry_text(path.read_text(encoding="utf-8"))
                if parsed.has_frontmatter:
                    tidy = frontmatter.serialize_frontmatter(parsed.fields) + parsed.body
                    store.atomic_write(path, tidy.encode("utf-8"))
            except (UnicodeDecodeError, ValueError, TypeError):
                continue

    def write_entry(original, store_dir, link, *args, **kwargs):
        """write_entry, then a tidy pass over every other entry"""
        original(store_dir, link, *args, **kwargs)
        tidy_others(store_dir, link)

    def update_entry(original, store_dir, link, *args, **kwargs):
        """update_entry, then a tidy pass over every other entry"""
        original(store_dir, link, *args, **kwargs)
        tidy_others(store_dir, link)

    wrap(store, "write_entry", write_entry)
    wrap(store, "update_entry", update_entry)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
