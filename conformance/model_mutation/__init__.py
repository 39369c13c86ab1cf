"""Automated mutation testing of the reference model (`conformance/model/`).

mutmut generates every small mutation of the model's functions (an operator
swapped, a constant changed, an argument dropped); each mutant is run
against the corpus in-process, and it is *killed* when a vector that
decides a level fails, as the runner's own grading judges it. A survivor
is either a hole in the corpus (a vector is missing) or an equivalent
mutant, explained in `equivalents.json` (docs/mutants.md).

- `harness`: the corpus as pytest tests, one per vector: what mutmut runs
- `workspace`: the mutmut project a run builds, and running mutmut in it
- `outcomes`: reading mutmut's results back, with a stable identity per mutant
- `explanations`: the committed reasons why survivors are equivalent
- `report`: `reports/model-mutation.md`
- `command`: the `memoir-conform model-mutation` subcommand
"""
