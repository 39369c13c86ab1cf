"""The run as JUnit XML (`--junit FILE`), for CI systems that show test results.

One `<testsuite>` per spec section (a vector's first section), one
`<testcase>` per vector: `<failure>` for a failed check (with expected
against actual at the JSON path) and for xpass / stale, `<error>` for an
adapter fault, `<skipped>` for a vector that is not applicable or an
expected failure.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from conformance.runner.checks import to_json_value
from conformance.runner.grading import GradedVector
from conformance.runner.run import RunRecord
from conformance.safe_text import printable


def _section_key(section: str) -> tuple:
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in section.split("."))


def failure_text(item: GradedVector) -> str:
    lines = []
    for failure in item.result.failures:
        lines.append(f"at {failure.path or '/'} ({failure.check}): {failure.message}")
        lines.append(f"  expected: {json.dumps(to_json_value(failure.expected), ensure_ascii=False)}")
        lines.append(f"  actual:   {json.dumps(to_json_value(failure.actual), ensure_ascii=False)}")
        if failure.note:
            lines.append(f"  note: {failure.note}")
    for sent in item.result.sent[:3]:
        lines.append(f"sent: {sent['op']} {json.dumps(sent['args'], ensure_ascii=False)[:500]}")
    return "\n".join(lines)


def _case(item: GradedVector) -> ET.Element:
    vector, result = item.vector, item.result
    case = ET.Element("testcase", {
        "classname": f"memoir.{vector.level}.{vector.sections[0]}",
        "name": vector.id,
        "time": f"{result.duration:.3f}",
        "file": vector.file,
    })
    properties = ET.SubElement(case, "properties")
    for name, value in (("title", vector.title), ("sections", " ".join(vector.sections)),
                        ("requirements", " ".join(vector.requirements)), ("digest", vector.digest)):
        ET.SubElement(properties, "property", {"name": name, "value": value})
    outcome = item.outcome
    if outcome == "fail" or (outcome == "stale" and result.outcome == "fail"):
        first = result.failures[0] if result.failures else None
        message = f"{first.path or '/'}: {first.message}" if first else "failed"
        element = ET.SubElement(case, "failure", {"message": message, "type": "CheckFailure"})
        element.text = failure_text(item)
    elif outcome == "error" or (outcome == "stale" and result.outcome == "error"):
        element = ET.SubElement(case, "error", {"message": result.detail or "adapter error", "type": "AdapterFault"})
        element.text = result.stderr_tail
    elif outcome == "xpass":
        element = ET.SubElement(case, "failure", {"message": "listed as an expected failure but passed (xpass)",
                                                  "type": "UnexpectedPass"})
        element.text = f"reason listed: {item.expected.reason}"
    elif outcome == "stale":
        ET.SubElement(case, "failure", {"message": "the expect-fail entry's digest does not match the vector",
                                        "type": "StaleExpectation"})
    elif outcome == "not_applicable":
        ET.SubElement(case, "skipped", {"message": f"not applicable: {result.detail}"})
    elif outcome == "xfail":
        ET.SubElement(case, "skipped", {"message": f"expected failure: {item.expected.reason}"})
    return case


def build(record: RunRecord) -> ET.Element:
    suites: dict[str, list[GradedVector]] = {}
    for item in record.graded:
        suites.setdefault(item.vector.sections[0], []).append(item)
    root = ET.Element("testsuites", {"name": f"memoir-conform {record.kit_version} (spec v{record.spec})"})
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    for section in sorted(suites, key=_section_key):
        cases = [_case(item) for item in suites[section]]
        counts = {
            "tests": len(cases),
            "failures": sum(case.find("failure") is not None for case in cases),
            "errors": sum(case.find("error") is not None for case in cases),
            "skipped": sum(case.find("skipped") is not None for case in cases),
            "time": sum(item.result.duration for item in suites[section]),
        }
        suite = ET.SubElement(root, "testsuite", {
            "name": f"spec {section}",
            **{key: (f"{value:.3f}" if key == "time" else str(value)) for key, value in counts.items()},
        })
        suite.extend(cases)
        for key in totals:
            totals[key] += counts[key]
    for key, value in totals.items():
        root.set(key, f"{value:.3f}" if key == "time" else str(value))
    return root


def _printable_tree(root: ET.Element) -> ET.Element:
    """Every text and attribute made printable: valid XML whatever an adapter or a file said."""
    for element in root.iter():
        if element.text:
            element.text = printable(element.text, multiline=True)
        for name, value in element.attrib.items():
            element.set(name, printable(value, multiline=True))
    return root


def write(record: RunRecord, path: Path) -> None:
    tree = ET.ElementTree(_printable_tree(build(record)))
    ET.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)
