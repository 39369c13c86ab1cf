"""Hostile files (issue 16, validator items): what the linear-time machinery finds, and the smaller items.

How long the hostile files take is measured by benchmarks/hostile_files_bench.py,
which asserts a time budget; these tests check that the fast forms find
exactly what the slow forms they replace found, and that each smaller item
of 16.11 behaves.
"""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.cli import main
from conformance.model.frontmatter import column_of, line_of
from conformance.validator import memoir
from conformance.validator.core.findings import MAX_PER_RULE
from conformance.validator.core.positions import LineIndex
from conformance.validator.memoir import rules, secrets
from conformance.validator.memoir.entry import check_entry
from conformance.validator.memoir.jsonpos import JsonPlaces
from conformance.validator.memoir.session import check_session
from conformance.validator.memoir.sources import MAX_BYTES

# -- 16.9: secret patterns in linear time ------------------------------------------------------

# Each scanner of secrets.py in its plain, backtracking form (as before issue 16), in the same order.
_TOKEN = "[A-Za-z0-9_-]"
PLAIN_PATTERNS = [
    r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----",
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    r"(?i:aws_secret_access_key)[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9/+=]{40}\b",
    r"\bgh[pousr]_[A-Za-z0-9]{36,}\b|\bgithub_pat_[A-Za-z0-9_]{60,}\b",
    rf"\bglpat-{_TOKEN}{{20,}}\b",
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b",
    r"https://hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]+",
    rf"\bAIza{_TOKEN}{{35}}\b",
    rf"\bsk-ant-{_TOKEN}{{20,}}",
    rf"\bsk-(?:proj-|svcacct-|admin-)?{_TOKEN}{{20,}}T3BlbkFJ{_TOKEN}{{20,}}",
    r"\bsk-[A-Za-z0-9]{48}\b",
    r"\b[rs]k_live_[0-9A-Za-z]{24,}\b",
    r"\bnpm_[A-Za-z0-9]{36}\b",
    rf"\bpypi-AgEIcHlwaS5vcmc{_TOKEN}{{50,}}",
    r"\bhf_[A-Za-z0-9]{34,}\b",
    rf"\beyJ{_TOKEN}{{10,}}\.eyJ{_TOKEN}{{10,}}\.{_TOKEN}{{10,}}",
]
PIECES = ["sk-", "ant-", "proj-", "T3BlbkFJ", "eyJ", ".", "-", "_", " ", "\n", "=", ":", "/", "'", "a1B2c3D4e5",
          "ZZZZZZZZZZ", "0123456789", "ghp_", "github_pat_", "glpat-", "xoxb-", "AKIA", "ASIA", "AIza", "sk_live_",
          "npm_", "pypi-AgEIcHlwaS5vcmc", "hf_", "aws_secret_access_key", "AWS_SECRET_ACCESS_KEY",
          "https://hooks.slack.com/services/", "T", "B", "-----BEGIN ", "PRIVATE KEY-----", "RSA "]
texts = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)


def _starts(pattern: re.Pattern, text: str) -> list[int]:
    return [match.start() for match in pattern.finditer(text)
            if not (match.re.groups and match.group("hit") is None)]


@settings(max_examples=400, deadline=None)
@given(text=texts)
def test_each_linear_secret_pattern_finds_what_its_backtracking_form_finds(text):
    assert len(PLAIN_PATTERNS) == len(secrets._SCANNERS)
    for plain, (kind, hints, pattern) in zip(PLAIN_PATTERNS, secrets._SCANNERS):
        expected = _starts(re.compile(plain), text)
        assert _starts(pattern, text) == expected, kind
        if expected:  # the hints never hide a match
            assert any(hint in text for hint in hints), kind
    every_start = {start for plain in PLAIN_PATTERNS for start in _starts(re.compile(plain), text)}
    index = LineIndex(text)
    assert {(found.line, found.column) for found in secrets.scan(text)} == {index.place(s) for s in every_start}


def test_repeated_prefixes_give_the_real_secret_and_nothing_else():
    key = "sk-" + "a1B2" * 12
    text = "sk-" * 50_000 + " " + key + "\n" + "eyJ-" * 50_000 + "\n" + "ghp_" * 50_000
    found = secrets.scan(text)
    assert [(f.kind, f.line, f.column) for f in found] == [("OpenAI API key", 1, 150_002)]


# -- 16.10: positions from one index per text ---------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="ab\r\n", max_size=80), offsets=st.lists(st.integers(0, 80), max_size=12))
def test_line_index_answers_like_counting_from_the_start(text, offsets):
    index = LineIndex(text)
    for offset in offsets:  # in any order: a question before an earlier answer too
        offset = min(offset, len(text))
        assert index.place(offset) == (line_of(text, offset), column_of(text, offset))


@settings(max_examples=150, deadline=None)
@given(body=st.lists(st.sampled_from(["[[a]]", "[[b|alias]]", "[[c#h]]", " ", "\n", "\r\n", "x", "[[", "]]", "[[ d ]]"]),
                     max_size=40).map("".join))
def test_link_places_are_the_first_place_of_each_target(body):
    text = "---\ntype: fact\nname: n\n---\n" + body
    _found, summary = check_entry("m/fact_x.md", "fact_x", text)
    for target, line, column in summary.links:
        offset = text.index("[[", len(text) - len(body) + _first_link_offset(body, target))
        assert (line, column) == (line_of(text, offset), column_of(text, offset)), target


def _first_link_offset(body: str, target: str) -> int:
    for match in re.finditer(r"\[\[([^\[\]\r\n]+?)\]\]", body):
        if match.group(1).split("|", 1)[0].split("#", 1)[0].strip() == target:
            return match.start()
    raise AssertionError(target)


def test_a_file_of_many_links_reports_each_place_and_caps_the_unresolved(tmp_path):
    memory = tmp_path / "memory"
    memory.mkdir()
    links = "".join(f"[[l{index}]]\n" for index in range(MAX_PER_RULE + 500))
    (memory / "fact_a.md").write_text("---\ntype: fact\nname: a\ndescription: d\ncreated: 2026-01-01\n---\n" + links,
                                      encoding="utf-8")
    unresolved = [d for d in memoir.validate([str(tmp_path)]).diagnostics if d.rule == rules.LINK_UNRESOLVED.id]
    assert len(unresolved) == MAX_PER_RULE + 1
    assert [(d.line, d.column) for d in unresolved[:3]] == [(7, 1), (8, 1), (9, 1)]
    assert unresolved[-1].message.startswith("500 more [[links]]")


def _plain_offset(text: str, path: tuple) -> int | None:
    """Where the value at `path` starts, walking the text along it from the top each time (the old way)."""
    decoder = json.JSONDecoder()
    index = 0
    for part in path:
        while text[index] in " \t\r\n":
            index += 1
        if text[index] == "{":
            index += 1
            while True:
                while text[index] in " \t\r\n,":
                    index += 1
                key, index = json.decoder.scanstring(text, index + 1)
                index = text.index(":", index) + 1
                while text[index] in " \t\r\n":
                    index += 1
                if key == part:
                    break
                _value, index = decoder.raw_decode(text, index)
        else:
            index += 1
            for _skip in range(part):
                while text[index] in " \t\r\n,":
                    index += 1
                _value, index = decoder.raw_decode(text, index)
            while text[index] in " \t\r\n,":
                index += 1
    while text[index] in " \t\r\n":
        index += 1
    return index


json_values = st.recursive(st.integers() | st.text(max_size=4) | st.booleans() | st.none(),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner,
                                                                                       max_size=4), max_leaves=20)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            yield from _paths(item, prefix + (position,))


@settings(max_examples=200, deadline=None)
@given(value=json_values, indent=st.sampled_from([None, 1, 2]))
def test_json_places_are_those_of_walking_from_the_top(value, indent):
    text = json.dumps(value, indent=indent)
    places = JsonPlaces(text)
    for path in reversed(list(_paths(value))):  # deepest first: the cache is filled out of order
        offset = _plain_offset(text, path)
        assert places.locate(path) == (line_of(text, offset), column_of(text, offset)), path
    assert places.locate(("no such key",) if isinstance(value, dict) else (999,)) == (0, 0)


def test_a_session_with_thousands_of_bad_items_lists_the_first_and_counts_the_rest():
    items = [{"text": f"action {index}", "added": "2026-02-30"} for index in range(MAX_PER_RULE + 200)]
    text = json.dumps({"version": 1, "current": {"next_actions": items}}, indent=1)
    found = [d for d in check_session("session.json", text) if d.rule == rules.SESSION_DATE.id]
    assert len(found) == MAX_PER_RULE + 1
    assert found[-1].message.startswith("200 more findings of this rule")


# -- 16.11: the smaller items ---------------------------------------------------------------------

def test_a_value_longer_than_what_is_read_is_reported_as_cut_not_as_unterminated(tmp_path):
    path = tmp_path / "fact_long.md"
    path.write_text("---\ntype: fact\nname: " + "x" * (MAX_BYTES + 1000) + "\n---\nbody\n", encoding="utf-8")
    report = memoir.validate([str(path)])
    assert [d.rule for d in report.diagnostics] == [rules.TOO_LARGE_TO_CHECK.id]
    assert report.diagnostics[0].severity == "error" and "not closed within the first" in report.diagnostics[0].message


def test_an_oversized_session_fails_instead_of_passing_unchecked(tmp_path, capsys):
    session = tmp_path / "session.json"
    session.write_text(json.dumps({"version": 1, "pad": "x" * (MAX_BYTES + 10)}), encoding="utf-8")
    assert main(["validate", "--format", "json", str(tmp_path)]) == 1
    [found] = json.loads(capsys.readouterr().out)["diagnostics"]
    assert found["rule"] == rules.TOO_LARGE_TO_CHECK.id and "not checked" in found["message"]


def test_a_file_name_with_a_line_break_keeps_the_report_one_line_per_finding(tmp_path, capsys):
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "fact_a\nfake: 1:1  error  forged.md").write_text("---\ntype: fact\nname: n\n---\n", encoding="utf-8")
    main(["validate", str(tmp_path)])
    out = capsys.readouterr().out
    assert "fact_a\\u000afake: 1:1  error  forged.md" in out
    assert not any(line.startswith("fake:") for line in out.splitlines())


def test_hostile_file_names_cannot_write_to_the_terminal(tmp_path, capsys):
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "fact_\x1b]0;owned\x07.md").write_text("---\ntype: fact\nname: n\n---\n", encoding="utf-8")
    main(["validate", "--color", "never", str(tmp_path)])
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\\u001b]0;owned\\u0007" in out

