"""`memoir-conform spec-feedback`: where a shipped implementation and the spec text disagree.

From one or more run reports (schema/report.schema.json), a Markdown report
for the spec's authors with one entry per distinct cause of failure rather
than one per vector (docs/spec-feedback.md):

- `causes`: failures grouped by cause, derived vectors folded with their base,
  adapter faults and unsupported ops set apart;
- `sizes`: which vector of a cause is the smallest to show it;
- `text_checks`: what the spec text and the requirement index say about a
  cause (the requirement's sentence, the interpretation it rests on,
  cross-references that point nowhere);
- `markdown`: the report itself; `command`: the subcommand.
"""
