"""Rendering diagnostics: human text, JSON, SARIF 2.1.0 and JUnit XML.

Shared by every format the validator checks (memoir, memory diffs, REME
vaults): a renderer takes the files that were checked and the diagnostics
found, already sorted, and returns the whole report as one string.

Messages quote file content (keys, values, link targets), so every
renderer that prints to a terminal or XML first makes control characters
visible: a store cannot drive the terminal or break the report.
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path
from urllib.parse import quote

from conformance import __version__
from conformance.validator.core.findings import Diagnostic, Rule

OUTPUT_FORMATS = ("human", "json", "sarif", "junit")
TOOL_NAME = "memoir-conform"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVELS = {"error": "error", "warning": "warning", "info": "note"}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_COLOURS = {"error": "\033[31m", "warning": "\033[33m", "info": "\033[36m", "bold": "\033[1m", "dim": "\033[2m"}
_RESET = "\033[0m"


def visible(text: str) -> str:
    """Control characters (and lone surrogates) written as escapes."""
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}" if ord(match.group()) < 0x100
                        else f"\\u{ord(match.group()):04x}", text)


def counts(diagnostics: list[Diagnostic]) -> dict[str, int]:
    found = Counter(diagnostic.severity for diagnostic in diagnostics)
    return {"error": found["error"], "warning": found["warning"], "info": found["info"]}


def exit_code(diagnostics: list[Diagnostic], strict: bool) -> int:
    """0 clean, 1 errors (or warnings with --strict)."""
    found = counts(diagnostics)
    return 1 if found["error"] or (strict and found["warning"]) else 0


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary_line(files: list[str], diagnostics: list[Diagnostic]) -> str:
    found = counts(diagnostics)
    failing = len({diagnostic.path for diagnostic in diagnostics if diagnostic.severity == "error"})
    return (f"{_plural(len(files), 'file')} checked: {_plural(found['error'], 'error')}, "
            f"{_plural(found['warning'], 'warning')}, {found['info']} info"
            + (f" ({_plural(failing, 'file')} with errors)" if failing else ""))


def _section(diagnostic: Diagnostic) -> str:
    section = diagnostic.section
    return f"spec {section}" if section[:1].isdigit() or section.startswith("App") else section


def render_human(files: list[str], diagnostics: list[Diagnostic], color: bool = False) -> str:
    def paint(text: str, style: str) -> str:
        return f"{_COLOURS[style]}{text}{_RESET}" if color else text

    lines: list[str] = []
    current = None
    for diagnostic in diagnostics:
        if diagnostic.path != current:
            if current is not None:
                lines.append("")
            current = diagnostic.path
            lines.append(paint(visible(diagnostic.path), "bold"))
        place = f"{diagnostic.line}:{diagnostic.column}" if diagnostic.line else "-"
        lines.append(
            f"  {place:>7}  {paint(f'{diagnostic.severity:<7}', diagnostic.severity)}  {visible(diagnostic.message)}  "
            + paint(f"[{diagnostic.rule}, {_section(diagnostic)}]", "dim"))
    if lines:
        lines.append("")
    lines.append(summary_line(files, diagnostics))
    return "\n".join(lines) + "\n"


_PLACEHOLDER = "\u0000memoir-conform-items\u0000"


def _dump_with_items(document: dict, items, indent: str) -> str:
    """`document` as indented JSON, with the placeholder value replaced by
    `items`, one compact item per line: the C encoder does the bulk, so a
    report of 100,000 findings stays fast and small in memory."""
    head = json.dumps(document, indent=2, ensure_ascii=False)
    body = (",\n" + indent).join(json.dumps(item, ensure_ascii=False) for item in items)
    array = f"[\n{indent}{body}\n{indent[:-2]}]" if body else "[]"
    before, after = head.split(json.dumps(_PLACEHOLDER), 1)
    return "".join((before, array, after, "\n"))


def render_json(files: list[str], diagnostics: list[Diagnostic]) -> str:
    document = {
        "tool": {"name": TOOL_NAME, "version": __version__},
        "files": list(files),
        "summary": {**counts(diagnostics), "files": len(files)},
        "diagnostics": _PLACEHOLDER,
    }
    # Built by hand: dataclasses.asdict copies deeply and is slow on 100,000 findings.
    items = ({"path": d.path, "line": d.line, "column": d.column, "severity": d.severity,
              "rule": d.rule, "message": d.message, "section": d.section} for d in diagnostics)
    return _dump_with_items(document, items, "    ")


def _artifact(path: str) -> dict:
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(path.replace(os.sep, "/")), "uriBaseId": "%SRCROOT%"}


def render_sarif(files: list[str], diagnostics: list[Diagnostic], rules: list[Rule]) -> str:
    """SARIF 2.1.0: one run, every known rule in the driver, one result per diagnostic."""
    catalogue = list(rules)
    known = {rule.id for rule in catalogue}
    for diagnostic in diagnostics:  # a rule from outside the catalogue still gets a descriptor
        if diagnostic.rule not in known:
            known.add(diagnostic.rule)
            catalogue.append(Rule(diagnostic.rule, diagnostic.severity, diagnostic.section, diagnostic.rule))
    index = {rule.id: position for position, rule in enumerate(catalogue)}

    def result(diagnostic: Diagnostic) -> dict:
        region = {"startLine": max(diagnostic.line, 1)}
        if diagnostic.line and diagnostic.column:
            region["startColumn"] = diagnostic.column
        return {
            "ruleId": diagnostic.rule,
            "ruleIndex": index[diagnostic.rule],
            "level": _SARIF_LEVELS[diagnostic.severity],
            "message": {"text": diagnostic.message},
            "locations": [{"physicalLocation": {"artifactLocation": _artifact(diagnostic.path), "region": region}}],
            "properties": {"section": diagnostic.section},
        }

    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": TOOL_NAME,
                "version": __version__,
                "rules": [{
                    "id": rule.id,
                    "shortDescription": {"text": rule.summary},
                    "defaultConfiguration": {"level": _SARIF_LEVELS[rule.severity]},
                    "properties": {"section": rule.section, "format": rule.format, "tags": [rule.format]},
                } for rule in catalogue],
            }},
            "columnKind": "unicodeCodePoints",
            "artifacts": [{"location": _artifact(path)} for path in files],
            "results": _PLACEHOLDER,
        }],
    }
    return _dump_with_items(document, (result(diagnostic) for diagnostic in diagnostics), "        ")


def render_junit(files: list[str], diagnostics: list[Diagnostic], strict: bool = False) -> str:
    """JUnit XML: one test case per file; it fails on an error (or a warning with --strict)."""
    by_file: dict[str, list[Diagnostic]] = {path: [] for path in files}
    for diagnostic in diagnostics:
        by_file.setdefault(diagnostic.path, []).append(diagnostic)
    failing = {"error", "warning"} if strict else {"error"}
    failures = sum(1 for found in by_file.values() if any(d.severity in failing for d in found))
    attributes = {"name": f"{TOOL_NAME} validate", "tests": str(len(by_file)), "failures": str(failures),
                  "errors": "0", "skipped": "0"}
    root = ElementTree.Element("testsuites", attributes)
    suite = ElementTree.SubElement(root, "testsuite", attributes)
    for path in sorted(by_file):
        case = ElementTree.SubElement(suite, "testcase", {"classname": f"{TOOL_NAME}.validate", "name": visible(path)})
        found = by_file[path]
        lines = [f"{d.line}:{d.column} {d.severity} {d.rule} [{d.section}] {visible(d.message)}" for d in found]
        failed = [d for d in found if d.severity in failing]
        if failed:
            failure = ElementTree.SubElement(case, "failure", {
                "type": failed[0].rule, "message": visible(f"{_plural(len(failed), 'finding')}: {failed[0].message}")})
            failure.text = "\n".join(lines)
        elif lines:
            ElementTree.SubElement(case, "system-out").text = "\n".join(lines)
    return ElementTree.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def render_rules(rules: list[Rule], fmt: str) -> str:
    """The rule catalogue as a text table, JSON or a Markdown table."""
    if fmt == "json":
        return json.dumps([{"id": rule.id, "severity": rule.severity, "section": rule.section,
                            "format": rule.format, "summary": rule.summary} for rule in rules], indent=2) + "\n"
    rows = [(rule.id, rule.severity, rule.section, rule.summary) for rule in rules]
    if fmt == "markdown":
        lines = ["| Rule | Severity | Section | Requires |", "|---|---|---|---|"]
        lines += [f"| `{id}` | {severity} | {section} | {summary.replace('|', chr(92) + '|')} |"
                  for id, severity, section, summary in rows]
        return "\n".join(lines) + "\n"
    from tabulate import tabulate

    return tabulate(rows, headers=["rule", "severity", "section", "requires"], tablefmt="plain") + "\n"
