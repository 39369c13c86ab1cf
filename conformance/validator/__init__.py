"""The validator: checks stores and files against the spec and reports diagnostics.

- `diagnostics`: the `Rule` and `Diagnostic` values every check produces
- `rules`: the catalogue of memoir rules, and the registry of format modules
- `memoir`: the memoir kind (finding files, per-file checks, store checks)
  built from `sources`, `memoir_entry`, `memoir_session`, `memoir_store`,
  `yaml_hazards`, `secrets`, `positions`, `jsonpos`
- `memory_diff`, `reme_vault`: the sibling formats, plugged in by kind
- `output`: human, JSON, SARIF and JUnit renderers shared by all formats
- `command`: the `validate` and `rules` subcommands
"""
