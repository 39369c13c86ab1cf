"""The outputs of a graded run, apart from loading, checking, executing and grading it.

Each output reads the run (`conformance.runner.run.RunRecord`) and counts it
with the result model (`conformance.runner.result_model`), so that all of
them give the same numbers:

- `console`: the table, the failure blocks and the verdict a person reads
- `json_report`: the machine-readable report (`schema/report.schema.json`)
- `junit`: JUnit XML for CI dashboards
- `github_report`: GitHub Actions annotations, job summary and step outputs
- `failure_block`: one failing vector explained, shared by the outputs above and the pytest plugin
- `matrix`: several implementations in one `run`, and their summary table
- `merge_reports`: the `merge-reports` subcommand (shard reports into one graded report)
"""
