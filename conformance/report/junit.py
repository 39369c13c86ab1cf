"""The run as JUnit XML (`--junit FILE`), for CI systems that show test results.

One `<testsuite>` per spec section (a vector's first section), one
`<testcase>` per vector, and a last testcase, `verdict`, that carries the
verdict (the result model's counts as its properties, the short verdict
and its explanation). The file is red exactly when the run failed (exit code 1):
`<failure>` (or `<error>` for an adapter fault) marks only the vectors
that make the run fail: a failed MUST check, an adapter error or a
missing op at or below the claimed level, an xpass and a stale entry.
Everything else that did not pass is `<skipped>` with a message saying
why it costs nothing: an expected failure, only SHOULD or advisory checks
failed, above the claimed level, or not applicable. `verdict` fails when
the run fails for a reason no vector carries (a level no vector tests).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from conformance.runner import result_model
from conformance.report.failure_block import describe_failure, why_no_cost
from conformance.runner.grading import Grade, GradedVector, blocks_run
from conformance.runner.requirements import RequirementIndex
from conformance.runner.run import RunRecord
from conformance.runner.strength import MUST
from conformance.safe_text import printable


def _section_key(section: str) -> tuple:
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in section.split("."))


def _case(item: GradedVector, grade: Grade, requirements: RequirementIndex) -> ET.Element:
    vector, result = item.vector, item.result
    case = ET.Element("testcase", {
        "classname": f"memoir.{vector.level}.{vector.sections[0]}",
        "name": vector.id,
        "time": f"{result.duration:.3f}",
        "file": vector.file,
    })
    properties = ET.SubElement(case, "properties")
    for name, value in (("title", vector.title), ("sections", " ".join(vector.sections)),
                        ("requirements", " ".join(vector.requirements)), ("digest", vector.digest),
                        ("failed", " ".join(item.failed_strengths))):
        if value:
            ET.SubElement(properties, "property", {"name": name, "value": value})
    if item.outcome == "pass":
        return case
    if not blocks_run(item, grade):
        element = ET.SubElement(case, "skipped", {"message": why_no_cost(item, grade)})
        if result.failures:
            element.text = describe_failure(item, requirements)
        return case
    if item.outcome == "xpass":
        element = ET.SubElement(case, "failure", {"message": "listed as an expected failure but passed (xpass)",
                                                  "type": "UnexpectedPass"})
        element.text = f"reason listed: {item.expected.reason}"
    elif item.outcome == "stale" and result.outcome == "pass":
        ET.SubElement(case, "failure", {"message": "the expect-fail entry's digest does not match the vector",
                                        "type": "StaleExpectation"})
    elif result.outcome == "error":
        element = ET.SubElement(case, "error", {"message": result.detail or "adapter error", "type": "AdapterFault"})
        element.text = describe_failure(item, requirements)
    elif result.outcome == "not_applicable":
        ET.SubElement(case, "failure", {"message": f"not applicable: {result.detail}", "type": "NotApplicable"})
    else:
        first = next((f for f, s in zip(result.failures, item.failure_strengths) if s == MUST), None)
        message = f"{first.path or '/'}: {first.message}" if first else "failed"
        element = ET.SubElement(case, "failure", {"message": message, "type": "CheckFailure"})
        element.text = describe_failure(item, requirements)
    return case


def _verdict_case(record: RunRecord) -> ET.Element:
    """The verdict: the result model's counts as properties, the short verdict and its
    explanation; a failure only when the run fails for a reason no vector carries."""
    grade = record.grade
    results = result_model.of_run(record.graded, grade)
    case = ET.Element("testcase", {"classname": "memoir.grade", "name": "verdict", "time": "0.000"})
    properties = ET.SubElement(case, "properties")
    for name, count in results.counts.items():
        ET.SubElement(properties, "property", {"name": name, "value": str(count)})
    text = f"{results.headline}\n{grade.verdict}"
    if grade.exit_code and not any(blocks_run(item, grade) for item in record.graded):
        ET.SubElement(case, "failure", {"message": results.headline, "type": "Verdict"}).text = text
    else:
        ET.SubElement(case, "system-out").text = text
    return case


def build(record: RunRecord) -> ET.Element:
    suites: dict[str, list[ET.Element]] = {}
    times: dict[str, float] = {}
    for item in record.graded:
        section = item.vector.sections[0]
        suites.setdefault(section, []).append(_case(item, record.grade, record.requirements))
        times[section] = times.get(section, 0.0) + item.result.duration
    suites["grade"] = [_verdict_case(record)]
    root = ET.Element("testsuites", {"name": f"memoir-conform {record.kit_version} (spec v{record.spec})"})
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    for section in sorted(suites, key=_section_key):
        cases = suites[section]
        counts = {
            "tests": len(cases),
            "failures": sum(case.find("failure") is not None for case in cases),
            "errors": sum(case.find("error") is not None for case in cases),
            "skipped": sum(case.find("skipped") is not None for case in cases),
            "time": times.get(section, 0.0),
        }
        suite = ET.SubElement(root, "testsuite", {
            "name": f"spec {section}" if section != "grade" else "grade",
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
