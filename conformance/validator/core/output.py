"""Rendering findings as they stream in: human text, JSON, SARIF 2.1.0 and JUnit XML.

Shared by every format the validator checks. An `Output` takes the events of
`findings` one at a time and writes each at once, so a report of a million
findings never sits in memory: JSON and SARIF are written as one document
whose result array grows as files are checked; JUnit, whose header carries
the totals, is spooled to a temporary file and copied out at the end.

Findings of the legacy category (Appendix A dialects, all readable) are
summarised in one line per store unless ``--legacy show`` lists them;
``--legacy error`` lists them and fails the run (a writer's CI: writers MUST
NOT emit legacy dialects).

Messages quote file content (keys, values, link targets) and paths are the
user's file names, so every renderer makes control characters visible,
line breaks included: a store cannot drive the terminal, break a line of
the report or the XML.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections import Counter
from json.encoder import encode_basestring as _string
from pathlib import Path
from typing import IO
from urllib.parse import quote

from conformance import __version__
from conformance.safe_text import printable
from conformance.validator.core.findings import (
    SEVERITIES,
    Diagnostic,
    Event,
    FileChecked,
    Rule,
    StoreFindings,
    StoreFinished,
    StoreStarted,
)

OUTPUT_FORMATS = ("human", "json", "sarif", "junit")
LEGACY_MODES = ("summary", "show", "error")
TOOL_NAME = "memoir-conform"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVELS = {"error": "error", "warning": "warning", "legacy": "note", "info": "note"}
_COLOURS = {"error": "\033[31m", "warning": "\033[33m", "legacy": "\033[35m", "info": "\033[36m",
            "bold": "\033[1m", "dim": "\033[2m"}
_RESET = "\033[0m"


def visible(text: str) -> str:
    """Control, bidirectional, zero-width and invisible characters, tabs, line
    breaks and lone surrogates written as escapes (`conformance.safe_text`)."""
    return printable(text, tabs=False)


def _plural(count: int, word: str) -> str:
    return f"{count} {word if count == 1 else word + 's'}"


def _section(diagnostic: Diagnostic) -> str:
    section = diagnostic.section
    return f"spec {section}" if section[:1].isdigit() or section.startswith("App") else section


class _StoreTally:
    """What one store (or the loose files of a run) held of the legacy category."""

    def __init__(self, path: str | None, description: str = ""):
        self.path = path
        self.description = description
        self.files = 0
        self.legacy_files = 0
        self.legacy_rules: Counter = Counter()

    def line(self, mode: str) -> str | None:
        if not self.legacy_files:
            return None
        uses = "uses a legacy dialect" if self.legacy_files == 1 else "use legacy dialects"
        hint = "; `--legacy=show` to list them" if mode == "summary" else ""
        return f"{_plural(self.legacy_files, 'file')} {uses}; all readable (Appendix A){hint}"

    def to_json(self) -> dict:
        return {"path": None if self.path is None else _text(self.path), "description": _text(self.description),
                "files": self.files,
                "legacy_files": self.legacy_files, "legacy": dict(sorted(self.legacy_rules.items()))}


class Output:
    """Counts and the legacy policy, shared by every renderer; subclasses write."""

    def __init__(self, stream: IO[str], *, legacy: str = "summary", strict: bool = False):
        self.stream = stream
        self.legacy = legacy
        self.strict = strict
        self.counts: Counter = Counter()
        self.files = 0
        self.stores: list[_StoreTally] = []
        self._loose = _StoreTally(None, "files outside any store")
        self._store: _StoreTally | None = None

    # -- events ------------------------------------------------------------------

    def feed(self, event: Event) -> None:
        if isinstance(event, FileChecked):
            tally = self._store or self._loose
            if event.checked:
                self.files += 1
                tally.files += 1
            shown = self._tally(event.diagnostics, tally)
            if shown or event.checked:
                self.file(event.path, shown, event.checked)
        elif isinstance(event, StoreFindings):
            shown = self._tally(event.diagnostics, self._store or self._loose)
            if shown:
                self.store_findings(event.path, shown)
        elif isinstance(event, StoreStarted):
            self._store = _StoreTally(event.path, event.description)
            self.stores.append(self._store)
            self.store_started(event.path, event.description)
        elif isinstance(event, StoreFinished):
            if self._store is not None:
                self.store_finished(self._store)
            self._store = None

    def _tally(self, diagnostics: tuple[Diagnostic, ...], tally: _StoreTally) -> tuple[Diagnostic, ...]:
        """Count the findings and return those to show."""
        counts = self.counts
        for found in diagnostics:
            counts[found.severity] += 1
        if not counts["legacy"] or not any(d.severity == "legacy" for d in diagnostics):
            return diagnostics
        # A file is counted once, however many legacy findings it has.
        tally.legacy_files += len({d.path for d in diagnostics if d.severity == "legacy"})
        tally.legacy_rules.update(d.rule for d in diagnostics if d.severity == "legacy")
        if self.legacy == "summary":
            return tuple(d for d in diagnostics if d.severity != "legacy")
        return diagnostics

    def close(self) -> int:
        """Finish the report; the exit code: 1 when it fails, else 0."""
        self.finish()
        return self.exit_code()

    def exit_code(self) -> int:
        failing = self.counts["error"] or (self.strict and self.counts["warning"]) or (
            self.legacy == "error" and self.counts["legacy"])
        return 1 if failing else 0

    @property
    def legacy_files(self) -> int:
        return self._loose.legacy_files + sum(store.legacy_files for store in self.stores)

    def summary_line(self) -> str:
        counts = self.counts
        where = f" in {_plural(len(self.stores), 'store')}" if self.stores else ""
        text = (f"{_plural(self.files, 'file')} checked{where}: {_plural(counts['error'], 'error')}, "
                f"{_plural(counts['warning'], 'warning')}, {counts['info']} info")
        if self.legacy_files:
            text += f"; {_plural(self.legacy_files, 'file')} in legacy dialects (readable, Appendix A)"
        return text

    # -- what subclasses write -------------------------------------------------------

    def store_started(self, path: str, description: str) -> None:
        pass

    def file(self, path: str, diagnostics: tuple[Diagnostic, ...], checked: bool) -> None:
        pass

    def store_findings(self, path: str, diagnostics: tuple[Diagnostic, ...]) -> None:
        for name, found in _by_path(diagnostics):
            self.file(name, found, False)

    def store_finished(self, store: _StoreTally) -> None:
        pass

    def finish(self) -> None:
        pass


def _by_path(diagnostics: tuple[Diagnostic, ...]) -> list[tuple[str, tuple[Diagnostic, ...]]]:
    groups: dict[str, list[Diagnostic]] = {}
    for found in diagnostics:
        groups.setdefault(found.path, []).append(found)
    return [(path, tuple(found)) for path, found in groups.items()]


class HumanOutput(Output):
    """Grouped by store and file, one line per finding, a summary line at the end."""

    def __init__(self, stream: IO[str], *, color: bool = False, **options):
        super().__init__(stream, **options)
        self.color = color
        self._wrote_anything = False

    def _paint(self, text: str, style: str) -> str:
        return f"{_COLOURS[style]}{text}{_RESET}" if self.color else text

    def _block(self, lines: list[str]) -> None:
        # One write per block (a file's findings), the blank line before it included.
        self.stream.write(("\n" if self._wrote_anything else "") + "\n".join(lines) + "\n")
        self._wrote_anything = True

    def store_started(self, path: str, description: str) -> None:
        self._block([self._paint(f"== {visible(path)}", "bold") + f"  ({visible(description)})"])

    def file(self, path: str, diagnostics: tuple[Diagnostic, ...], checked: bool, heading: str = "") -> None:
        if not diagnostics:
            return
        lines = [self._paint(visible(path), "bold") + heading]
        for found in diagnostics:
            place = f"{found.line}:{found.column}" if found.line else "-"
            lines.append(
                f"  {place:>7}  {self._paint(f'{found.severity:<7}', found.severity)}  {visible(found.message)}  "
                + self._paint(f"[{found.rule}, {_section(found)}]", "dim"))
        self._block(lines)

    def store_findings(self, path: str, diagnostics: tuple[Diagnostic, ...]) -> None:
        for name, found in _by_path(diagnostics):
            self.file(name, found, False, heading=self._paint("  (checked against the whole store)", "dim"))

    def store_finished(self, store: _StoreTally) -> None:
        line = store.line(self.legacy)
        if line:
            self._block([self._paint("  legacy ", "legacy") + f"{visible(store.path)}: {line}"])

    def finish(self) -> None:
        line = self._loose.line(self.legacy)
        if line:
            self._block([self._paint("  legacy ", "legacy") + line])
        self._block([self.summary_line()])


def _text(text: str) -> str:
    """Text for a JSON document written as UTF-8: a lone surrogate (a file name
    that is not UTF-8, an escape in a value) cannot be encoded, so it is shown."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")  # fails exactly when the text holds a surrogate
    except UnicodeEncodeError:
        return visible(text)
    return text


def _diagnostic_json(found: Diagnostic) -> str:
    # Written by hand around the C string encoder: a dict through json.dumps
    # costs three times as much, and a report can hold a million findings.
    # The path stays the file's name (its unsafe characters as JSON escapes);
    # the message, read by people, shows them as visible escapes.
    return (f'{{"path": {printable(_string(_text(found.path)))}, "line": {found.line}, "column": {found.column}, '
            f'"severity": "{found.severity}", "rule": {_string(found.rule)}, '
            f'"message": {_string(visible(found.message))}, "section": {_string(found.section)}}}')


class _ArrayWriter:
    """Items of a JSON array written one per line as they come."""

    def __init__(self, stream: IO[str], indent: str):
        self.stream = stream
        self.indent = indent
        self.count = 0

    def add(self, item_json: str) -> None:
        self.stream.write(("\n" if not self.count else ",\n") + self.indent + item_json)
        self.count += 1

    def add_all(self, items_json: list[str]) -> None:
        """Several items in one write (a file's findings)."""
        if not items_json:
            return
        separator = ",\n" + self.indent
        self.stream.write(("\n" if not self.count else ",\n") + self.indent + separator.join(items_json))
        self.count += len(items_json)

    def close(self, closing_indent: str) -> None:
        self.stream.write(f"\n{closing_indent}]" if self.count else "]")


class JsonOutput(Output):
    """One JSON document: the findings first (streamed), then stores and the summary."""

    def __init__(self, stream: IO[str], **options):
        super().__init__(stream, **options)
        tool = json.dumps({"name": TOOL_NAME, "version": __version__})
        stream.write(f'{{\n  "tool": {tool},\n  "diagnostics": [')
        self._items = _ArrayWriter(stream, "    ")

    def file(self, path: str, diagnostics: tuple[Diagnostic, ...], checked: bool) -> None:
        self._items.add_all([_diagnostic_json(found) for found in diagnostics])

    def finish(self) -> None:
        self._items.close("  ")
        stores = [store.to_json() for store in self.stores]
        if self._loose.files or self._loose.legacy_files:
            stores.append(self._loose.to_json())
        summary = {**{severity: self.counts[severity] for severity in SEVERITIES}, "files": self.files,
                   "stores": len(self.stores), "legacy_files": self.legacy_files}
        self.stream.write(',\n  "stores": ' + json.dumps(stores, ensure_ascii=False)
                          + ',\n  "summary": ' + json.dumps(summary) + "\n}\n")


def sarif_artifact(path: str) -> dict:
    """A SARIF artifact location: relative to %SRCROOT% (the working directory)
    when the path stays inside it, else an absolute file URI."""
    normal = os.path.normpath(path)
    if os.path.isabs(normal) or normal == ".." or normal.startswith(".." + os.sep):
        return {"uri": Path(os.path.abspath(normal)).as_uri()}  # percent-encoded
    return {"uri": quote(normal.replace(os.sep, "/")), "uriBaseId": "%SRCROOT%"}


class SarifOutput(Output):
    """SARIF 2.1.0: one run whose driver describes every rule; results streamed."""

    def __init__(self, stream: IO[str], *, catalogue: list[Rule], **options):
        super().__init__(stream, **options)
        self._index = {rule.id: position for position, rule in enumerate(catalogue)}
        driver = {
            "name": TOOL_NAME,
            "version": __version__,
            "rules": [{
                "id": rule.id,
                "shortDescription": {"text": rule.summary},
                "defaultConfiguration": {"level": _SARIF_LEVELS[rule.severity]},
                "properties": {"section": rule.section, "format": rule.format, "severity": rule.severity,
                               "tags": [rule.format, rule.severity]},
            } for rule in catalogue],
        }
        head = json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0"}, indent=2)[:-2]
        stream.write(head + ',\n  "runs": [\n    {\n      "tool": {"driver": '
                     + json.dumps(driver, ensure_ascii=False)
                     + '},\n      "columnKind": "unicodeCodePoints",\n      "results": [')
        self._items = _ArrayWriter(stream, "        ")

    def file(self, path: str, diagnostics: tuple[Diagnostic, ...], checked: bool) -> None:
        for found in diagnostics:
            region = {"startLine": max(found.line, 1)}
            if found.line and found.column:
                region["startColumn"] = found.column
            result = {"ruleId": found.rule}
            if found.rule in self._index:
                result["ruleIndex"] = self._index[found.rule]
            result.update({
                "level": _SARIF_LEVELS[found.severity],
                "message": {"text": visible(found.message)},
                "locations": [{"physicalLocation": {"artifactLocation": sarif_artifact(_text(found.path)),
                                                    "region": region}}],
                "properties": {"section": found.section, "severity": found.severity},
            })
            self._items.add(json.dumps(result, ensure_ascii=False))

    def finish(self) -> None:
        self._items.close("      ")
        stores = [store.to_json() for store in self.stores]
        self.stream.write(',\n      "properties": ' + json.dumps({"stores": stores, "summary": self.summary_line()},
                                                                 ensure_ascii=False) + "\n    }\n  ]\n}\n")


class JunitOutput(Output):
    """JUnit XML: one test case per file checked, failing on an error (or a
    warning with --strict, or a legacy finding with --legacy error)."""

    def __init__(self, stream: IO[str], **options):
        super().__init__(stream, **options)
        self._spool = tempfile.TemporaryFile("w+", encoding="utf-8")
        self._cases = 0
        self._failures = 0
        self._failing = {"error"} | ({"warning"} if self.strict else set()) | (
            {"legacy"} if self.legacy == "error" else set())

    def file(self, path: str, diagnostics: tuple[Diagnostic, ...], checked: bool) -> None:
        self._case(visible(path), diagnostics)

    def store_findings(self, path: str, diagnostics: tuple[Diagnostic, ...]) -> None:
        for name, found in _by_path(diagnostics):
            self._case(f"{visible(name)} (store-wide checks)", found)

    def _case(self, name: str, diagnostics: tuple[Diagnostic, ...]) -> None:
        # Imported here: xml.sax.saxutils brings urllib.request with it, which every
        # other format would pay for at start-up.
        from xml.sax.saxutils import escape, quoteattr

        self._cases += 1
        lines = "\n".join(f"{visible(d.path)} {d.line}:{d.column} {d.severity} {d.rule} [{d.section}] "
                          f"{visible(d.message)}" for d in diagnostics)
        failed = [d for d in diagnostics if d.severity in self._failing]
        write = self._spool.write
        write(f'    <testcase classname="{TOOL_NAME}.validate" name={quoteattr(name)}')
        if failed:
            self._failures += 1
            message = visible(f"{_plural(len(failed), 'finding')}: {failed[0].message}")
            write(f'>\n      <failure type={quoteattr(failed[0].rule)} message={quoteattr(message)}>'
                  f"{escape(lines)}</failure>\n    </testcase>\n")
        elif lines:
            write(f">\n      <system-out>{escape(lines)}</system-out>\n    </testcase>\n")
        else:
            write(" />\n")

    def finish(self) -> None:
        counts = (f'name="{TOOL_NAME} validate" tests="{self._cases}" failures="{self._failures}" '
                  'errors="0" skipped="0"')
        self.stream.write(f"<?xml version='1.0' encoding='utf-8'?>\n<testsuites {counts}>\n  <testsuite {counts}>\n")
        self._spool.seek(0)
        shutil.copyfileobj(self._spool, self.stream)
        self._spool.close()
        self.stream.write("  </testsuite>\n</testsuites>\n")


def make_output(fmt: str, stream: IO[str], *, catalogue: list[Rule], color: bool = False, **options) -> Output:
    if fmt == "human":
        return HumanOutput(stream, color=color, **options)
    if fmt == "json":
        return JsonOutput(stream, **options)
    if fmt == "sarif":
        return SarifOutput(stream, catalogue=catalogue, **options)
    return JunitOutput(stream, **options)


def render(events, fmt: str = "human", *, catalogue: list[Rule] = (), **options) -> str:
    """A whole report as one string (for tests and small inputs)."""
    import io

    buffer = io.StringIO()
    output = make_output(fmt, buffer, catalogue=list(catalogue), **options)
    for event in events:
        output.feed(event)
    output.close()
    return buffer.getvalue()


def render_rules(rules: list[Rule], fmt: str) -> str:
    """The rule catalogue as a text table, JSON or a Markdown table."""
    if fmt == "json":
        return json.dumps([{"id": rule.id, "severity": rule.severity, "section": rule.section,
                            "format": rule.format, "summary": rule.summary,
                            **({"former_ids": list(rule.former_ids)} if rule.former_ids else {})}
                           for rule in rules], indent=2) + "\n"
    rows = [(rule.id, rule.severity, rule.section, rule.summary) for rule in rules]
    if fmt == "markdown":
        lines = ["| Rule | Severity | Section | Requires |", "|---|---|---|---|"]
        lines += [f"| `{id}` | {severity} | {section} | {summary.replace('|', chr(92) + '|')} |"
                  for id, severity, section, summary in rows]
        return "\n".join(lines) + "\n"
    from tabulate import tabulate

    return tabulate(rows, headers=["rule", "severity", "section", "requires"], tablefmt="plain") + "\n"
