#!/usr/bin/env python3
"""Mutant 42: update_entry matches frontmatter key lines by prefix.

Breaks spec 3.2 (writers preserve the fields they do not recognize when
rewriting an entry) and 8 (Writer: preserves unknown fields on rewrite),
requirements S3.2-writers-preserve-unknown-fields and
S8-writer-preserves-unknown-fields. Level: writer.

The writer picks the key lines to rewrite with `line.startswith(key)`, so
setting `updated` drops `updated_by`, and unsetting `tag` drops `tags`.
"""

from __future__ import annotations

from _mutant import wrap, serve_mutant


def mutate() -> None:
    from conformance.model import frontmatter, store

    def by_prefix(original, text, changes, unset):
        """the edit, rewriting every key line that starts with a changed key"""
        keys = frontmatter.parse_entry_text(text).fields
        named = [*changes, *unset]
        caught = [key for key in keys if key not in named and any(key.startswith(wanted) for wanted in named)]
        return original(text, changes, [*unset, *caught])

    wrap(store, "edit_frontmatter", by_prefix)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
