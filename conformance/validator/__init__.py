"""The validator: checks stores and files against their format's spec and reports findings.

One package per format, over a small shared core:

- `core`: rules, findings and the events a checker streams (`findings`),
  line and column from one index per text (`positions`), the human, JSON,
  SARIF and JUnit renderers (`output`), and the safe YAML reader the sibling
  formats share (`safe_yaml`)
- `memoir`: memoir stores, entry files and session files
- `memory_diff`: memory diff documents
- `reme_vault`: REME vaults
- `rules`: which formats there are, and every rule of each
- `command`: the `validate` and `rules` subcommands
"""
