"""Badges: the level earned with nothing waived, as shields endpoint JSON and as SVG."""

from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ET

import pytest

from conformance.site.badges import badge, text_width
from conformance.site.reports import SiteReport, load

SVG = "{http://www.w3.org/2000/svg}"


def site_report(report_paths, name) -> SiteReport:
    return load([report_paths[name]])[0]


def test_the_reference_gets_a_full_badge(report_paths):
    shown = badge(site_report(report_paths, "reference"))
    assert shown.endpoint() == {"schemaVersion": 1, "label": "memoir", "message": "Full 0.1.2", "color": "brightgreen"}


def test_a_waived_failure_never_lifts_the_level_and_is_counted(report_paths):
    waived = site_report(report_paths, "mutant-03-waived")
    # The run would reach Full if the waived failure were fixed; the badge says what was earned.
    assert waived.grade["reached_if_waived_fixed"] == "full"
    assert badge(waived).message == "Writer 0.1.2 (1 waived)"
    assert badge(site_report(report_paths, "mutant-03")).message == "Writer 0.1.2"


def test_no_level_filtered_runs_and_shards(report_paths):
    report = site_report(report_paths, "reference")
    data = copy.deepcopy(report.data)
    data["grade"]["earned"] = None
    assert badge(SiteReport(report.path, data, "x", "x")).endpoint()["message"] == "no level 0.1.2"
    assert badge(SiteReport(report.path, data, "x", "x")).color == "red"
    data["grade"]["filtered"] = True
    assert badge(SiteReport(report.path, data, "x", "x")).message == "filtered run, no level graded"
    data["options"]["shard"] = "2/4"
    assert badge(SiteReport(report.path, data, "x", "x")).message == "shard 2/4, no level graded"


@pytest.mark.parametrize("name", ["reference", "mutant-03-waived"])
def test_the_svg_is_self_contained_and_says_what_the_endpoint_says(report_paths, name):
    shown = badge(site_report(report_paths, name))
    root = ET.fromstring(shown.svg())
    texts = [element.text for element in root.iter(f"{SVG}text")]
    assert texts.count(shown.message) == 2 and texts.count("memoir") == 2
    assert root.find(f"{SVG}title").text == f"memoir: {shown.message}"
    # Nothing outside the file: no links, no images, no external fonts.
    assert "href" not in shown.svg().replace("url(#", "") and "<image" not in shown.svg()
    assert int(root.get("width")) == text_width("memoir") + text_width(shown.message) + 20


def test_the_site_writes_both_badge_files(site):
    endpoint = json.loads((site / "badges" / "mutant-03-waived.json").read_text())
    assert endpoint["message"] == "Writer 0.1.2 (1 waived)"
    ET.parse(site / "badges" / "mutant-03-waived.svg")
