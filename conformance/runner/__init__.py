"""The conformance runner: load vectors, run them against an implementation, grade it.

- `vectors`: vector files, validation, digests, `$repeat` expansion, stores
- `checks`: the `expect` keywords, expected against actual at a JSON Pointer
- `implementations`: an adapter subprocess, or the reference model in-process
- `execute`: one vector in its scratch directory, its result document
- `run`: many vectors, on a pool of implementations (`-j N`)
- `selection`, `requirements`, `grading`: which vectors count, and for what
- `result_model`: the graded run counted once, for every output
- `command`: the `memoir-conform run` subcommand

The outputs (console, JSON, JUnit, GitHub, several implementations, merged
shards) are `conformance.report`; `doctor` is `conformance.doctor`.
"""
