"""The frontmatter subset parser and writer (spec 3.1)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.model.frontmatter import (
    PROBLEM_CODES,
    UnrepresentableFrontmatter,
    parse_entry_text,
    serialize_frontmatter,
)


def codes(parsed) -> list[str]:
    return [problem.code for problem in parsed.problems]


def problem(parsed, code):
    found = [p for p in parsed.problems if p.code == code]
    assert found, f"no {code!r} problem in {parsed.problems}"
    return found[0]


# -- the forms of the subset -------------------------------------------------


def test_scalars_nested_mapping_and_lists():
    parsed = parse_entry_text(
        "---\n"
        "name: Staging endpoints\n"
        "count: 12\n"
        "negative: -3\n"
        "hidden: true\n"
        "shown: false\n"
        "nothing: null\n"
        "tilde: ~\n"
        "empty:\n"
        "created: 2026-05-14\n"
        "origin:\n"
        "  tool: memoir\n"
        "  session_id: abc\n"
        "tags:\n"
        "  - one\n"
        "  - 2\n"
        "aliases:\n"
        "- compact\n"
        "---\n"
        "Body text\n"
    )
    assert parsed.has_frontmatter
    assert parsed.problems == ()
    assert parsed.fields == {
        "name": "Staging endpoints", "count": 12, "negative": -3, "hidden": True, "shown": False,
        "nothing": None, "tilde": None, "empty": None, "created": "2026-05-14",
        "origin": {"tool": "memoir", "session_id": "abc"},
        "tags": ["one", "2"], "aliases": ["compact"],
    }
    assert parsed.body == "Body text\n"
    assert parsed.frontmatter_start == 1
    assert parsed.body_start == 20


def test_unquoted_values_are_taken_verbatim():
    # AMB-FRONTMATTER-LINES: ': ' is kept, ' #' is not a comment.
    parsed = parse_entry_text(
        "---\n"
        "name: Trailer order: Assisted-by before Signed-off-by\n"
        "description: 2026-08-14 #1131 closed — 7 PRs   \n"
        "weird: `drop(expr)` silences #[must_use]\n"
        "---\n"
    )
    assert parsed.problems == ()
    assert parsed.fields["name"] == "Trailer order: Assisted-by before Signed-off-by"
    assert parsed.fields["description"] == "2026-08-14 #1131 closed — 7 PRs"
    assert parsed.fields["weird"] == "`drop(expr)` silences #[must_use]"


def test_metadata_with_trailing_space_is_a_nested_mapping():
    parsed = parse_entry_text("---\nmetadata: \n  node_type: memory\n  type: feedback\n---\n")
    assert parsed.fields == {"metadata": {"node_type": "memory", "type": "feedback"}}
    assert parsed.problems == ()


def test_quoted_values():
    parsed = parse_entry_text(
        '---\n'
        'a: "line\\nbreak \\"q\\" \\u00e9 \\\\"\n'
        "b: 'it''s: fine # here'\n"
        'c: "true"\n'
        'd: "12"\n'
        '---\n'
    )
    assert parsed.problems == ()
    assert parsed.fields == {"a": 'line\nbreak "q" é \\', "b": "it's: fine # here", "c": "true", "d": "12"}


def test_double_quoted_value_followed_by_text_reads_as_the_raw_line():
    # Real-world file 003.
    parsed = parse_entry_text('---\nname: "통과" 한마디 = 커밋\n---\n')
    assert parsed.fields["name"] == '"통과" 한마디 = 커밋'
    found = problem(parsed, "quoted-trailing-text")
    assert (found.line, found.column) == (2, 11)


def test_crlf_and_bom():
    parsed = parse_entry_text("\ufeff---\r\nname: x\r\nmetadata:\r\n  type: project\r\n---\r\nbody\r\nmore\r\n")
    assert parsed.fields == {"name": "x", "metadata": {"type": "project"}}
    assert parsed.body == "body\r\nmore\r\n"
    assert parsed.body_start == 6
    assert parsed.problems == ()


def test_lone_carriage_returns_are_line_breaks():
    parsed = parse_entry_text("---\rname: x\r---\rbody")
    assert parsed.fields == {"name": "x"}
    assert parsed.body == "body"


def test_html_comment_preamble_is_reported_and_the_frontmatter_read():
    text = "<!-- a reminder\nover two lines -->\n\n<!-- another -->\n---\nname: x\n---\nbody\n"
    parsed = parse_entry_text(text)
    assert parsed.has_frontmatter
    assert parsed.fields == {"name": "x"}
    assert parsed.preamble == "<!-- a reminder\nover two lines -->\n\n<!-- another -->\n"
    assert parsed.frontmatter_start == 5
    assert codes(parsed) == ["preamble"]
    assert parsed.body == "body\n"


def test_text_before_the_delimiter_means_no_frontmatter():
    parsed = parse_entry_text("# Title\n---\nname: x\n---\n")
    assert not parsed.has_frontmatter
    assert parsed.fields == {}
    assert parsed.body == "# Title\n---\nname: x\n---\n"


def test_no_frontmatter():
    parsed = parse_entry_text("# Hooks Setup\n\ntext\n")
    assert not parsed.has_frontmatter
    assert parsed.problems == ()
    assert parsed.body == "# Hooks Setup\n\ntext\n"


@pytest.mark.parametrize("text", ["---\nname: x\nbody without end\n", "---", "---\n"])
def test_unterminated(text):
    parsed = parse_entry_text(text)
    assert not parsed.has_frontmatter
    assert codes(parsed) == ["unterminated"]
    assert problem(parsed, "unterminated").line == 1
    assert parsed.fields == {}


def test_empty_frontmatter_and_body_at_end_of_file():
    parsed = parse_entry_text("---\n---")
    assert parsed.has_frontmatter and parsed.fields == {} and parsed.body == ""


# -- departures from the subset, at line and column ---------------------------


@pytest.mark.parametrize(
    "line, code, column, value",
    [
        ("base: &anchor value", "anchor", 7, "&anchor value"),
        ("copy: *anchor", "alias", 7, "*anchor"),
        ("typed: !!str 12", "tag", 8, "!!str 12"),
        ("list: [a, b]", "flow-collection", 7, "[a, b]"),
        ("map: {a: 1}", "flow-collection", 6, "{a: 1}"),
        ('bad: "a \\q b"', "bad-escape", 9, '"a \\q b"'),
        ('open: "never closed', "unterminated-quote", 7, '"never closed'),
        ("open: 'never closed", "unterminated-quote", 7, "'never closed"),
        ("single: 'a' b", "quoted-trailing-text", 12, "'a' b"),
    ],
)
def test_value_level_problems(line, code, column, value):
    parsed = parse_entry_text(f"---\nname: n\n{line}\n---\n")
    found = problem(parsed, code)
    assert (found.line, found.column) == (3, column)
    key = line.split(":", 1)[0]
    assert parsed.fields[key] == value


def test_aliases_are_never_expanded():
    parsed = parse_entry_text("---\na: &x [1, 2]\nb: *x\nc: *x\n---\n")
    assert parsed.fields == {"a": "&x [1, 2]", "b": "*x", "c": "*x"}
    assert codes(parsed).count("alias") == 2


def test_block_scalar_reported_and_read_as_its_lines():
    parsed = parse_entry_text("---\nname: n\nwhy: |\n  first\n  second\nnext: 1\n---\n")
    found = problem(parsed, "block-scalar")
    assert (found.line, found.column) == (3, 6)
    assert parsed.fields == {"name": "n", "why": "first\nsecond", "next": 1}


def test_deeper_nesting_reported_and_read_as_given():
    # Real-world file 017: a list inside the nested metadata mapping.
    parsed = parse_entry_text(
        "---\nmetadata:\n  type: project\n  relates_to:\n    - a.md\n    - b.md\n  deeper:\n    key: v\n---\n"
    )
    found = [p for p in parsed.problems if p.code == "deep-nesting"]
    assert [(p.line, p.column) for p in found] == [(5, 5), (8, 5)]
    assert parsed.fields == {"metadata": {"type": "project", "relates_to": ["a.md", "b.md"], "deeper": {"key": "v"}}}


def test_duplicate_key_last_wins():
    parsed = parse_entry_text("---\ntype: fact\nname: a\ntype: lesson\n---\n")
    found = problem(parsed, "duplicate-key")
    assert (found.line, found.column) == (4, 1)
    assert parsed.fields == {"name": "a", "type": "lesson"}


def test_lines_of_no_known_form():
    parsed = parse_entry_text("---\nname: x\njust some prose\n  indented: orphan\n- item\n\"quoted\": key\n---\n")
    lines = sorted(p.line for p in parsed.problems if p.code == "bad-line")
    assert lines == [3, 4, 5, 6]
    assert parsed.fields == {"name": "x"}


def test_multi_line_plain_scalar_is_a_bad_line():
    parsed = parse_entry_text("---\ndescription: first part\n  continued here\n---\n")
    assert parsed.fields == {"description": "first part"}
    assert problem(parsed, "bad-line").line == 3


def test_tab_indentation():
    parsed = parse_entry_text("---\norigin:\n\ttool: x\n---\n")
    found = problem(parsed, "tab-indent")
    assert (found.line, found.column) == (3, 1)
    assert parsed.fields == {"origin": {"tool": "x"}}


def test_problem_codes_are_documented():
    parsed_codes = set()
    samples = [
        "<!-- c -->\n---\na: &x 1\nb: *x\nc: !t 1\nd: |\n  x\ne: [1]\nf: 1\nf: 2\ng\nh:\n  i:\n    j: 1\n"
        "k: \"a\" b\nl: \"x\\q\"\nm: \"open\nn:\n\to: 1\n---\n",
        "---\nname: x\n",
    ]
    for sample in samples:
        parsed_codes |= set(codes(parse_entry_text(sample)))
    assert parsed_codes == set(PROBLEM_CODES)


# -- the writer ----------------------------------------------------------------


def test_serialize_canonical_form():
    text = serialize_frontmatter({
        "type": "fact", "name": "Staging: endpoints", "created": "2026-05-14", "count": 3,
        "flag": True, "none": None, "tags": ["a", "true"], "origin": {"tool": "memoir", "session_id": "x #1"},
        "padded": " x ",
    })
    assert text == (
        "---\n"
        "type: fact\n"
        'name: "Staging: endpoints"\n'
        'created: "2026-05-14"\n'
        "count: 3\n"
        "flag: true\n"
        "none: null\n"
        "tags:\n"
        "  - a\n"
        '  - "true"\n'
        "origin:\n"
        "  tool: memoir\n"
        '  session_id: "x #1"\n'
        'padded: " x "\n'
        "---\n"
    )


@pytest.mark.parametrize(
    "fields",
    [{"a": 1.5}, {"a": []}, {"a": {}}, {"a": {"b": [1]}}, {"a": [1]}, {1: "x"}, {"a: b": 1}, {"-a": 1}, {"": 1}],
)
def test_serialize_refuses_what_the_subset_cannot_hold(fields):
    with pytest.raises(UnrepresentableFrontmatter):
        serialize_frontmatter(fields)


_KEYS = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,12}", fullmatch=True)
_SCALARS = st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.text(max_size=40)
_VALUES = (
    _SCALARS
    | st.lists(st.text(max_size=20), min_size=1, max_size=4)
    | st.dictionaries(_KEYS, _SCALARS, min_size=1, max_size=4)
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_KEYS, _VALUES, max_size=8))
def test_round_trip(fields):
    text = serialize_frontmatter(fields) + "body"
    parsed = parse_entry_text(text)
    assert parsed.problems == ()
    assert parsed.fields == fields
    assert parsed.body == "body"


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("-:#&*!|>[]{}\"'\\ \t\r\nabc-\ufeff<!>é1")) | st.characters(),
               max_size=120))
def test_parse_never_raises(text):
    parsed = parse_entry_text(text)
    assert isinstance(parsed.fields, dict)
    for found in parsed.problems:
        assert found.code in PROBLEM_CODES
        assert found.line >= 1 and found.column >= 1


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60), st.text(max_size=60))
def test_crlf_reads_like_lf(first, second):
    lf_text = f"---\nname: {first}\nother: {second}\n---\n".replace("\r", "")
    crlf = parse_entry_text(lf_text.replace("\n", "\r\n"))
    lf = parse_entry_text(lf_text)
    assert crlf.fields == lf.fields
    assert all("\r" not in value for value in crlf.fields.values() if isinstance(value, str))


@pytest.mark.parametrize("block", [
    "\n".join(" " * depth + f"k{depth}:" for depth in range(3000)),
    "a:\n" + "\n".join(" " * depth + "-" for depth in range(3000)),
])
def test_nesting_is_bounded(block):
    parsed = parse_entry_text(f"---\n{block}\n---\nbody")
    assert parsed.body == "body"
    assert sum(p.code == "deep-nesting" for p in parsed.problems) <= 10
    assert any("not read" in p.message for p in parsed.problems)
