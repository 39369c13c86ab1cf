"""Mutation testing of the corpus: does it catch the bugs the spec was written against?

Each mutant (`runners/mutants/<nn>_<slug>.py`) is the reference model with
exactly one rule broken, served over the adapter protocol and claiming
Full. Running the corpus against every mutant shows which vectors catch
which bug; a mutant that no vector of its level catches is a hole in the
corpus (docs/mutants.md).

- `registry`: the mutant table (`runners/mutants/mutants.json`)
- `evaluate`: running the corpus against the reference and each mutant, verdicts
- `report`: the Markdown and JSON reports
- `command`: the `memoir-conform mutants` subcommand
"""
