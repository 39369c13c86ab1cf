"""GitHub Actions output shared by the commands: annotations and the job summary.

A command that knows it runs in GitHub Actions (`--github`, on by default
when `GITHUB_ACTIONS=true`) writes workflow commands, which the runner turns
into annotations on the run and on files, and appends markdown to the file
`GITHUB_STEP_SUMMARY` names, which becomes the job's summary page.

The command format is GitHub's documented one:
`::error file=F,line=L,col=C,title=T::MESSAGE` (also `warning`, `notice`).
In the message, `%`, CR and LF are written `%25`, `%0D` and `%0A`; in a
property value `:` and `,` are also escaped (`%3A`, `%2C`), since they
separate the properties. Every command line this kit writes is built by
`workflow_command`, the one place where such text leaves the kit, after
`conformance.safe_text.printable` (like the job summary).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TextIO

from conformance.safe_text import backtick_fence, printable

LEVELS = ("error", "warning", "notice")
# GitHub shows at most this many annotations of each level per step; the
# rest are counted in one notice that points at the job summary.
SHOWN_PER_LEVEL = 10


def escape_data(text: str) -> str:
    """A workflow command's message, escaped (other control characters made visible)."""
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    """A workflow command's property value (file, title, ...), escaped."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(level: str, message: str, *, title: str | None = None, file: str | None = None,
                     line: int | None = None, col: int | None = None) -> str:
    """One `::level props::message` line."""
    if level not in LEVELS:
        raise ValueError(f"not an annotation level: {level!r}")
    properties = [(name, value) for name, value in (("file", file), ("line", line), ("col", col), ("title", title))
                  if value not in (None, "", 0)]
    shown = ",".join(f"{name}={escape_property(str(value))}" for name, value in properties)
    return f"::{level}{' ' + shown if shown else ''}::{escape_data(message)}"


class Annotations:
    """Workflow commands, at most SHOWN_PER_LEVEL of each level (the rest counted)."""

    def __init__(self, where_the_rest_are: str = "the job summary"):
        self.lines: list[str] = []
        self.left_out: dict[str, int] = {}
        self.where_the_rest_are = where_the_rest_are

    def add(self, level: str, message: str, **properties) -> None:
        if sum(line.startswith(f"::{level}") for line in self.lines) >= SHOWN_PER_LEVEL:
            self.left_out[level] = self.left_out.get(level, 0) + 1
            return
        self.lines.append(workflow_command(level, message, **properties))

    def write(self, out: TextIO) -> None:
        lines = list(self.lines)
        if self.left_out:
            counted = ", ".join(f"{count} more {level}{'s' if count > 1 else ''}"
                                for level, count in self.left_out.items())
            lines.append(workflow_command("notice", f"{counted} not annotated: see {self.where_the_rest_are}"))
        for line in lines:
            print(line, file=out)


def add_github_option(group) -> None:
    """`--github` / `--no-github`: GitHub Actions output, on by default under GitHub Actions."""
    group.add_argument("--github", action=argparse.BooleanOptionalAction, default=None,
                       help="write GitHub Actions annotations and a job summary ($GITHUB_STEP_SUMMARY); "
                            "on by default when GITHUB_ACTIONS=true (docs/ci.md)")


def enabled(flag: bool | None) -> bool:
    """`--github` given, or not given and running in GitHub Actions."""
    return flag if flag is not None else os.environ.get("GITHUB_ACTIONS") == "true"


def write_step_summary(markdown: str) -> str | None:
    """Append `markdown` to the job summary; a note when that cannot be done."""
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return "GITHUB_STEP_SUMMARY is not set: no job summary written"
    try:
        with open(path, "a", encoding="utf-8") as summary:
            summary.write(printable(markdown.rstrip("\n"), multiline=True) + "\n")
    except OSError as error:
        return f"cannot write the job summary to {path}: {error.strerror or error}"
    return None


# --- markdown --------------------------------------------------------------------

def cell(text: str) -> str:
    """Text for a markdown table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


# Every ASCII punctuation character may be backslash-escaped in GitHub's
# markdown; these are the ones that start markup (emphasis, links, images,
# headings, lists, HTML tags and entities, tables).
_MARKDOWN_SPECIAL = str.maketrans({char: "\\" + char for char in "\\`*_{}[]()#+-.!|~<>&"})


def text(value: str) -> str:
    """Text from an adapter or a file for a markdown line or cell: one line,
    its markdown and HTML shown as typed, never rendered."""
    return " ".join(value.split()).translate(_MARKDOWN_SPECIAL)


def code(text: str) -> str:
    """Inline code that holds any backticks in `text`."""
    fence = backtick_fence(text)
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{padding}{text}{padding}{fence}"


def code_block(text: str) -> str:
    fence = backtick_fence(text, 3)
    return f"{fence}text\n{text}\n{fence}"


def anchor(heading: str) -> str:
    """The fragment GitHub gives a markdown heading: lower case, punctuation
    other than `-` and `_` dropped, spaces as `-`."""
    return "".join(c for c in heading.strip().lower() if c.isalnum() or c in "_- ").replace(" ", "-")


# --- findings of `validate` ----------------------------------------------------------

_FINDING_LEVELS = {"error": "error", "warning": "warning", "legacy": "notice", "info": "notice"}
SHOWN_FINDINGS = 200


class FindingsTee:
    """`validate --github`: a validator output that also annotates the findings.

    It passes every event on to the output it wraps and keeps, from those
    with findings (`diagnostics`: objects with `path`, `line`, `column`,
    `severity`, `rule`, `message`, `section`), a bounded number for the
    annotations and the job summary; at `close` it writes both. Findings of
    the legacy category (Appendix A dialects, all readable) are annotated
    only when the output lists them (`legacy`).
    """

    def __init__(self, report, out: TextIO, *, legacy: bool = False):
        self.report = report
        self.out = out
        self.legacy = legacy
        self.annotations = Annotations("the job summary and the step's output")
        self.kept: list = []
        self.left_out = 0

    def __getattr__(self, name: str):
        return getattr(self.report, name)

    def feed(self, event) -> None:
        self.report.feed(event)
        for finding in getattr(event, "diagnostics", ()):
            if finding.severity == "legacy" and not self.legacy:
                continue
            self.annotations.add(_FINDING_LEVELS.get(finding.severity, "notice"), finding.message,
                                 title=f"{finding.rule} (spec {finding.section})", file=finding.path,
                                 line=finding.line or None, col=finding.column or None)
            if len(self.kept) < SHOWN_FINDINGS:
                self.kept.append(finding)
            else:
                self.left_out += 1

    def close(self) -> int:
        code = self.report.close()
        self.annotations.write(self.out)
        problem = write_step_summary(self.summary())
        if problem:
            print(f"memoir-conform validate: note: {problem}", file=sys.stderr)
        return code

    def summary(self) -> str:
        """The job summary: the output's summary line, then the findings in a table."""
        lines = ["## memoir-conform validate", "", self.report.summary_line(), ""]
        if self.kept:
            lines += ["| place | severity | rule | spec | message |", "|---|---|---|---|---|"]
            for finding in self.kept:
                place = finding.path + (f":{finding.line}:{finding.column}" if finding.line else "")
                lines.append(f"| {code(place)} | {finding.severity} | {code(finding.rule)} | {cell(finding.section)} "
                             f"| {cell(finding.message)} |")
        if self.left_out:
            lines.append(f"\n... and {self.left_out} more findings (see the step's output)")
        return "\n".join(lines) + "\n"
