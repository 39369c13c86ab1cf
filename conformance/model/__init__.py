"""The reference model of the memoir format v0.1.2.

Pure functions over plain data (the dicts and lists that `json.loads`
gives), one module per part of the spec:

- `identity`: normalized text and text_hash (spec 5.1)
- `dates`: ISO 8601 parsing with the epoch fallback (spec 5.2)
- `frontmatter`: the restricted YAML subset of entry files (spec 3.1)
- `entry`: reading one entry file, legacy dialects included (spec 3, App. A)
- `session`: loading, migrating and rendering session.json (spec 4, 6)
- `merge`: the merge rules (spec 5), the part Full conformance is about
- `writer`: the writer operations on a session (spec 4.1, 5.3)
- `store`: the only module that touches files: reading a store, atomic
  locked writes, quarantine copies (spec 4.1, 6)
"""
