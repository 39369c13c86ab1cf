"""The comparison rules every check keyword shares (docs/running.md, "Comparison rules"):
golden cases, each a conforming difference that must pass or be advisory, beside a real one that decides."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from conformance.fuzz import strategies
from conformance.model.identity import text_hash
from conformance.runner.checks import CheckContext, FileContext, evaluate_check
from conformance.runner.compare import (CLOCK_STAMP, MISSING, UNKNOWN_FIELD, Rules, _differences, differences,
                                        subset_differences)

READER = CheckContext(rules=Rules(reader_reported=True))
WRITER = CheckContext()


def failures(check: dict, document: dict, context: CheckContext = WRITER):
    return evaluate_check(check, document, context=context)


def deciding(found):
    return [failure for failure in found if failure.advisory is None]


def session_document(*actions: dict) -> dict:
    return {"session": {"version": 1, "current": {"next_actions": list(actions)}}}


# --- dates compare as instants (5.2) ---------------------------------------------------------

def test_the_same_instant_in_another_spelling_passes():
    document = session_document({"text": "Ship", "added": "2026-01-02T10:00:00.120000+00:00"})
    for spelling in ("2026-01-02T10:00:00.120Z", "2026-01-02T10:00:00.12Z", "2026-01-02T11:00:00.120+01:00"):
        assert failures({"path": "/session/current/next_actions",
                         "equals": [{"text": "Ship", "added": spelling}]}, document) == []
        assert failures({"path": "/session/current/next_actions",
                         "contains": [{"text": "ship", "added": spelling}]}, document) == []


def test_another_instant_fails_and_decides():
    document = session_document({"text": "Ship", "added": "2026-01-02T10:00:00.121Z"})
    failure, = failures({"path": "/session/current/next_actions",
                         "equals": [{"text": "Ship", "added": "2026-01-02T10:00:00.120Z"}]}, document)
    assert failure.path == "/session/current/next_actions/0/added" and failure.advisory is None


def test_a_date_only_where_a_date_field_is_compared_as_a_text_elsewhere():
    # "2026-01-02" and "2026-01-02T00:00:00Z" are one instant only where the field is a date.
    assert failures({"path": "/x", "equals": {"summary": "2026-01-02"}},
                    {"x": {"summary": "2026-01-02T00:00:00Z"}}) != []
    assert failures({"path": "/x", "equals": {"date": "2026-01-02"}}, {"x": {"date": "2026-01-02T00:00:00Z"}}) == []


# --- list items align by identity (5.1) ---------------------------------------------------------

def test_an_extra_item_is_reported_as_extra_with_its_identity_not_as_a_shifted_field():
    expected = [{"text": "A", "added": "2026-01-01"}, {"text": "B", "added": "2026-01-02"},
                {"text": "C", "added": "2026-01-03"}]
    actual = [expected[0], expected[1], {"added": "2026-01-05"}, {"text": "Extra", "added": "2026-01-04"},
              expected[2]]
    found = failures({"path": "/session/current/next_actions", "equals": expected}, session_document(*actual))
    assert sorted(f.message for f in found) == [
        'extra element {"added": "2026-01-05"} (it has no identity)', 'extra item "Extra"']
    extra = next(f for f in found if "Extra" in f.message)
    assert extra.path == "/session/current/next_actions/3" and extra.actual == actual[3]


def test_a_missing_item_is_reported_with_its_value_and_a_changed_one_at_its_field():
    expected = [{"text": "A", "why": "x"}, {"text": "B", "why": "y"}]
    found = failures({"path": "/d", "equals": expected}, {"d": [{"text": "b", "why": "z"}]})
    assert [(f.path, f.expected, f.message) for f in found] == [
        ("/d", {"text": "A", "why": "x"}, 'missing item "A" (items align by identity)'),
        ("/d/0/text", "B", 'expected "B", found "b"'), ("/d/0/why", "y", 'expected "y", found "z"')]


def test_a_list_equals_itself_even_where_two_texts_are_one_identity():
    # U+00DF casefolds to "ss": two spellings of one identity in one list.
    items = [{"text": "Straße", "added": "2026-01-01"}, {"text": "STRASSE", "added": "2026-01-02"}]
    assert list(differences(items, json.loads(json.dumps(items)), "/l")) == []
    assert list(differences(items, list(reversed(items)), "/l")) == []


def test_messages_show_values_as_json():
    failure, = failures({"path": "/live/goals", "identities": ["a"]}, {"live": {"goals": ["a", "b"]}})
    assert failure.message == 'unexpected ["b"]'


# --- bodies up to line endings and edge blank lines ------------------------------------------------

def entry_document(body: str, fields: dict | None = None) -> dict:
    return {"entries": {"fact_a": {"link": "fact_a", "status": "ok", "type": "fact",
                                   "fields": fields or {"type": "fact", "name": "A"}, "body": body}}}


def test_a_crlf_body_with_edge_blank_lines_passes():
    document = entry_document("\r\nFirst line.\r\n\r\nSecond line.\r\n\r\n")
    assert failures({"path": "/entries/fact_a/body", "equals": "First line.\n\nSecond line.\n"}, document) == []
    assert failures({"path": "/entries/fact_a", "matches": {"body": "First line.\n\nSecond line."}}, document) == []


def test_a_body_that_differs_inside_fails():
    document = entry_document("First line.\nSecond line.\n")
    assert deciding(failures({"path": "/entries/fact_a/body", "equals": "First line.\n\nSecond line.\n"},
                             document))


def test_an_entry_file_compares_as_fields_and_body():
    text = "---\ntype: fact\nname: A\ncreated: 2026-02-01\n---\nBody.\n"
    same = "---\r\ntype: fact\r\nname: A\r\ncreated: 2026-02-01T00:00:00Z\r\n---\r\n\r\nBody.\r\n"
    other = "---\ntype: fact\nname: B\ncreated: 2026-02-01\n---\nBody.\n"
    assert failures({"path": "/files/memory~1fact_a.md", "equals": text}, {"files": {"memory/fact_a.md": same}}) == []
    assert deciding(failures({"path": "/files/memory~1fact_a.md", "equals": text},
                             {"files": {"memory/fact_a.md": other}}))


# --- links compare as a set (3.4) -----------------------------------------------------------

def test_links_in_another_order_or_repeated_pass():
    check = {"path": "/entries/fact_a/links", "equals": ["fact_c", "fact_b"]}
    for links in (["fact_b", "fact_c"], ["fact_c", "fact_b", "fact_c"]):
        assert failures(check, {"entries": {"fact_a": {"links": links}}}) == []


def test_a_missing_or_extra_link_decides_and_is_named():
    check = {"path": "/entries/fact_a/links", "equals": ["fact_b", "fact_c"]}
    found = deciding(failures(check, {"entries": {"fact_a": {"links": ["fact_c", "fact_d", "fact_d"]}}}))
    assert [(failure.expected, failure.actual) for failure in found] == [("fact_b", MISSING), (MISSING, "fact_d")]


def test_a_list_elsewhere_still_compares_in_order():
    check = {"path": "/entries/fact_a/fields/tags", "equals": ["b", "c"]}
    assert deciding(failures(check, {"entries": {"fact_a": {"fields": {"tags": ["c", "b"]}}}}))


def test_unchanged_stays_byte_exact():
    files = FileContext({"files": {"memory/a.md": b"---\ntype: fact\n---\nx\n"}},
                        {"files": {"memory/a.md": b"---\r\ntype: fact\r\n---\r\nx\r\n"}})
    found = evaluate_check({"path": "/files/memory/a.md", "unchanged": True}, {"files": {}}, files)
    assert deciding(found) and found[0].message == "memory/a.md was modified"


# --- unknown frontmatter keys, as a reader reports them, are advisory (3.2) ------------------------

def test_an_unknown_key_value_mismatch_is_advisory_for_a_reader():
    document = entry_document("x", {"type": "fact", "name": "A", "x_count": "3"})
    failure, = failures({"path": "/entries/fact_a/fields", "equals": {"type": "fact", "name": "A", "x_count": 3}},
                        document, READER)
    assert failure.path == "/entries/fact_a/fields/x_count" and failure.advisory == UNKNOWN_FIELD


def test_a_reader_that_does_not_report_unknown_keys_fails_nothing_that_decides():
    document = entry_document("x", {"type": "fact", "name": "A"})
    found = failures({"path": "/entries/fact_a/fields", "equals": {"type": "fact", "name": "A", "x_note": "n",
                                                                     "metadata": {"type": "t"}}}, document, READER)
    assert len(found) == 2 and not deciding(found)
    assert not deciding(failures({"path": "/entries/fact_a/fields/x_note", "equals": "n"}, document, READER))


def test_a_defined_field_still_decides_and_a_writer_must_keep_unknown_keys():
    document = entry_document("x", {"type": "fact", "name": "B", "x_count": 3})
    assert deciding(failures({"path": "/entries/fact_a/fields", "matches": {"name": "A"}}, document, READER))
    # Entries of a write are read by the kit: preserving unknown fields is the writer's MUST (3.2).
    assert deciding(failures({"path": "/entries/fact_a/fields", "matches": {"x_count": 4}}, document, WRITER))


# --- stamps from an implementation's clock never decide between two runs --------------------------

def test_a_fresh_stamp_never_decides_a_comparison_of_two_runs():
    first = {"version": 1, "created_at": "2026-12-02T11:00:00.000Z", "updated_at": "2026-12-02T11:00:00.000Z",
             "current": {"parked_actions": [{"text": "p", "added": "2026-01-01", "parked_at": "2026-12-02T11:00:00Z"}]}}
    second = json.loads(json.dumps(first).replace("11:00:00", "11:00:07"))
    found = list(differences(first, second, "/ba/session", Rules(across_runs=True)))
    assert len(found) == 3 and {item.advisory for item in found} == {CLOCK_STAMP}
    # Within one run the same difference decides.
    assert all(item.advisory is None for item in differences(first, second, "/session"))


def test_stamped_checks_only_the_items_the_op_wrote():
    document = session_document({"text": "old, moved back from parked", "added": "2026-01-01"},
                                {"text": "new", "added": "2026-02-01T00:00:00Z", "machine_id": "m"})
    moved = CheckContext(input_lists={text_hash("old, moved back from parked"): frozenset({"parked_actions"})})
    check = {"path": "/session/current/next_actions", "stamped": ["added", "machine_id"]}
    assert failures(check, document, moved) == []
    failure, = failures(check, document)  # without knowing the input, every item is checked
    assert failure.path == "/session/current/next_actions/0/machine_id"


def test_an_item_moved_into_parked_must_carry_the_stamp_of_the_move():
    document = {"session": {"current": {"parked_actions": [{"text": "task", "added": "2026-01-01"}]}}}
    was_live = CheckContext(input_lists={text_hash("task"): frozenset({"next_actions"})})
    failure, = failures({"path": "/session/current/parked_actions", "stamped": ["parked_at", "machine_id"]},
                        document, was_live)
    assert failure.path == "/session/current/parked_actions/0/parked_at"


def test_after_passes_an_equal_instant():
    document = session_document({"text": "Ship", "added": "2026-01-02T10:00:00Z"})
    check = {"path": "/session/current/next_actions", "contains": [{"text": "Ship", "added": {"$after": "X"}}]}
    check["contains"][0]["added"]["$after"] = "2026-01-02T11:00:00+01:00"
    assert failures(check, document) == []
    check["contains"][0]["added"]["$after"] = "2026-01-02T10:00:00.001Z"
    assert deciding(failures(check, document))


def test_after_a_basic_format_date_is_advisory_when_its_instant_is_not_earlier():
    # ISO 8601's basic format: the kit reads it as the epoch (AMB-DATES), other parsers as the instant it spells.
    check = {"path": "/session/current/next_actions", "contains": [{"text": "Ship", "added": {"$after": "X"}}]}
    check["contains"][0]["added"]["$after"] = "2026-01-02T10:00:00Z"
    for stamp, decides in (("20260102T110000+0100", False), ("20260102T120000Z", False),
                           ("20260102T095959Z", True), ("20261302T120000Z", True)):
        found = failures(check, session_document({"text": "Ship", "added": stamp}))
        assert len(found) == 1 and bool(deciding(found)) is decides, stamp


# --- a value that says what its absence says (3.3.3, 4.1, 5.3.1) ------------------------------------

def decisions_document(*decisions: dict) -> dict:
    return {"session": {"version": 1, "current": {"decisions": list(decisions)}}}


def test_hidden_false_passes_where_the_key_is_absent_and_the_other_way_round():
    spelled_out = decisions_document({"text": "Use Postgres", "date": "2026-01-02", "hidden": False})
    left_out = decisions_document({"text": "Use Postgres", "date": "2026-01-02"})
    for document, other in ((spelled_out, left_out), (left_out, spelled_out)):
        assert failures({"path": "/session/current/decisions", "equals": other["session"]["current"]["decisions"]},
                        document) == []
        assert failures({"path": "/session/current/decisions",
                         "contains": [{"text": "use postgres", "hidden": None}]}, document) == []


def test_hidden_false_where_the_tombstone_belongs_fails_and_decides():
    hidden = {"text": "Use Postgres", "date": "2026-01-02", "hidden": True, "hidden_at": "2026-01-03"}
    document = decisions_document({"text": "Use Postgres", "date": "2026-01-02", "hidden": False})
    found = deciding(failures({"path": "/session/current/decisions", "equals": [hidden]}, document))
    assert ("/session/current/decisions/0/hidden", False) in [(failure.path, failure.actual) for failure in found]
    assert deciding(failures({"path": "/session/current/decisions", "contains": [{"text": "Use Postgres",
                                                                                 "hidden": True}]}, document))


def test_only_false_means_absent_for_hidden_and_an_empty_list_for_any_key():
    # A value of another type is not the absence of a tombstone: it is reported, as any unexpected value is.
    for value in (0, "false", None, "", "no"):
        document = decisions_document({"text": "Use Postgres", "hidden": value})
        assert deciding(failures({"path": "/session/current/decisions",
                                  "contains": [{"text": "Use Postgres", "hidden": None}]}, document)), value
    assert list(subset_differences({"parked_actions": None}, {"parked_actions": []}, "/x")) == []
    assert list(subset_differences({"parked_actions": None}, {"parked_actions": [{"text": "a"}]}, "/x"))


# --- properties -------------------------------------------------------------------------------------

ITEM_TEXTS = st.sampled_from(["Ship", "ship ", "SHIP", "Straße", "STRASSE", "Fix it", "", " "])
DATES = st.sampled_from(["2026-01-01", "2026-01-01T00:00:00Z", "2026-01-01T01:00:00+01:00", "not a date", ""])
ITEMS = st.fixed_dictionaries({"text": ITEM_TEXTS}, optional={"added": DATES, "machine_id": st.text(max_size=3)})
ROWS = st.fixed_dictionaries({"summary": st.text(max_size=3)}, optional={"date": DATES})


@given(st.lists(ITEMS, max_size=6), st.lists(ROWS, max_size=4), st.randoms(use_true_random=False))
def test_two_runs_of_a_session_agree_in_any_order_of_its_lists(items, rows, random):
    session = {"current": {"next_actions": items}, "history": rows}
    shuffled = json.loads(json.dumps(session))
    random.shuffle(shuffled["current"]["next_actions"])
    random.shuffle(shuffled["history"])
    assert list(differences(session, shuffled, "/session", Rules(across_runs=True))) == []
    # Within one run, items still align by identity; history keeps its order (4.1: newest first).
    shuffled["history"] = rows
    assert list(differences(session, shuffled, "/session")) == []


@given(st.lists(ITEMS, min_size=1, max_size=6), st.data())
def test_dropping_an_item_is_always_reported_and_decides(items, data):
    dropped = data.draw(st.integers(0, len(items) - 1))
    fewer = items[:dropped] + items[dropped + 1:]
    found = list(differences(items, fewer, "/l"))
    assert found and all(item.advisory is None for item in found)
    assert any(item.message.startswith("missing item") for item in found)


@given(st.one_of(strategies.json_values(), strategies.sessions()),
       st.sampled_from(["", "/session", "/store/entries/a/links", "/store/entries/a/body", "/l"]), st.booleans())
def test_skipping_the_walk_for_identical_json_hides_no_difference(value, path, across_runs):
    # `differences` returns at once for two identical JSON values: the walk must find nothing there.
    assert list(_differences(value, json.loads(json.dumps(value)), path, rows_unordered=across_runs)) == []
