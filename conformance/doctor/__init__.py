"""`memoir-conform doctor`: an adapter's protocol hygiene, checked before a real run.

- `probe`: one adapter process watched on its raw stdout, and the result of a check
- `command`: the hygiene checks (describe, ids, flushing, clean stdout, end of input) and the subcommand
- `smoke`: every op the adapter declares, sent once on a tiny store
"""
