"""Conforming implementations earn Full: one per choice the spec leaves open (issue 19).

Each class or patch below is an implementation that differs from the
reference model in one choice the spec allows, built the way an implementer
outside the project would build it (on python-frontmatter, PyYAML,
`datetime.isoformat()`, Go's RFC 3339 layout and `omitempty`, JavaScript's
`JSON.stringify` and `toISOString()`). Each must earn Full against
the bundled corpus; docs/running.md ("What the verdict does not demand")
lists them, one row each. They run in-process (verdict_support): only the
vectors that send an op the implementation changes are run against it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
import shutil
import tempfile
from datetime import date, datetime, timezone
from pathlib import Path

import frontmatter as python_frontmatter
import pytest
import yaml

from conformance.model import entry as model_entry
from conformance.model import frontmatter as model_frontmatter
from conformance.model import merge as model_merge
from conformance.model import writer as model_writer
from conformance.model.frontmatter import parse_entry_text, serialize_frontmatter
from conformance.model.identity import PURGED_TEXT, item_key
from conformance.model.session import DEFAULT_CAPS, load_session_text
from conformance.model.store import atomic_write, edit_frontmatter, keep_beside
from conformance.protocol.messages import ErrorResponse, OkResponse
from conformance.reference import utc_now
from conformance.runner.execute import run_vector
from conformance.runner.implementations import ModelImplementation

from verdict_support import RewritesFrontmatter, explain, failing, graded_of, graded_run, plain

SESSION_OPS = ("add_goal", "complete_goal", "add_next_action", "complete_next_action", "add_question",
               "add_decision", "hide_decision", "record_session")
ENTRY_OPS = ("write_entry", "update_entry")
WRITE_OPS = (*SESSION_OPS, *ENTRY_OPS, "merge_sessions", "merge_stores")


def assert_full(graded, result):
    assert result.earned == "full", explain(graded)


# --- readers (spec 3.1, 3.2) ---------------------------------------------------------------

def _python_frontmatter_parse(text):
    """An entry read by python-frontmatter, as most Python tools read one: the file opened as
    utf-8-sig, metadata through PyYAML's safe loader, the body stripped of surrounding whitespace."""
    parsed = parse_entry_text(text)
    try:
        post = python_frontmatter.loads(text.removeprefix("\ufeff"))
    except yaml.YAMLError:
        return parsed  # what the library rejects, the entry's subset reading stands in for (no level at stake)
    if not parsed.has_frontmatter:
        return dataclasses.replace(parsed, body=post.content)
    metadata = plain(post.metadata) if isinstance(post.metadata, dict) else {}
    return dataclasses.replace(parsed, fields=metadata or parsed.fields, body=post.content)


def test_a_reader_built_on_python_frontmatter_earns_full(corpus, reference_results, tmp_path, monkeypatch):
    monkeypatch.setattr(model_entry, "parse_entry_text", _python_frontmatter_parse)
    graded, result = graded_run(corpus, reference_results, ModelImplementation(), ["read_store"], tmp_path)
    assert_full(graded, result)


# The fields spec 3.2 and 3.3 define (schema/entry.schema.json); a reader keeps no other key.
DEFINED_FIELDS = frozenset((
    "type", "name", "description", "created", "updated", "schema_version", "project", "tags", "aliases", "origin",
    "why", "rejected", "date", "hidden", "hidden_at", "superseded_by", "trigger", "how_to_apply", "fired_count",
    "last_fired", "scope", "source", "set_on", "done_at", "added", "machine_id",
))


class IgnoresUnknownFrontmatterKeys(ModelImplementation):
    """Reports only the frontmatter fields the spec defines: 3.2 "Readers MUST ignore fields they do not recognize"."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "read_store" and outcome.ok:
            for found in outcome.result["entries"]:
                if isinstance(found.get("fields"), dict):
                    found["fields"] = {key: value for key, value in found["fields"].items() if key in DEFINED_FIELDS}
        return outcome


def test_a_reader_that_does_not_report_unknown_keys_earns_full(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, IgnoresUnknownFrontmatterKeys(), ["read_store"], tmp_path)
    assert_full(graded, result)


def javascript_date_text(value):
    """What js-yaml's Date objects become through `JSON.stringify`: `toISOString()`, a date as UTC midnight."""
    if isinstance(value, datetime):
        moment = (value if value.tzinfo else value.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    if isinstance(value, date):
        return value.isoformat() + "T00:00:00.000Z"
    if isinstance(value, dict):
        return {str(key): javascript_date_text(item) for key, item in value.items()}
    if isinstance(value, list):
        return [javascript_date_text(item) for item in value]
    return value


def str_date_text(value):
    """`json.dumps(metadata, default=str)`, the usual way to put PyYAML's dates into JSON
    (`2026-01-02 10:00:00+00:00`)."""
    if isinstance(value, (date, datetime)):
        return str(value)
    if isinstance(value, dict):
        return {str(key): str_date_text(item) for key, item in value.items()}
    if isinstance(value, list):
        return [str_date_text(item) for item in value]
    return value


def _engine_dates_parse(as_text):
    def parse(text):
        parsed = parse_entry_text(text)
        try:
            post = python_frontmatter.loads(text.removeprefix("\ufeff"))
        except yaml.YAMLError:
            return parsed
        if not parsed.has_frontmatter or not isinstance(post.metadata, dict) or not post.metadata:
            return parsed
        return dataclasses.replace(parsed, fields=as_text(post.metadata))
    return parse


@pytest.mark.parametrize("as_text", [javascript_date_text, str_date_text], ids=["to-iso-string", "str"])
def test_a_reader_that_reports_yaml_dates_in_its_platform_text_earns_full(corpus, reference_results, tmp_path,
                                                                          monkeypatch, as_text):
    # 3.2: `created` is "ISO 8601 date or date-time"; a YAML engine hands back date objects, and how a reader
    # turns them into text again is its own (a date is also that day's midnight, AMB-DATES).
    assert javascript_date_text(date(2026, 1, 2)) == "2026-01-02T00:00:00.000Z"
    assert str_date_text(datetime(2026, 1, 2, 10, tzinfo=timezone.utc)) == "2026-01-02 10:00:00+00:00"
    monkeypatch.setattr(model_entry, "parse_entry_text", _engine_dates_parse(as_text))
    graded, result = graded_run(corpus, reference_results, ModelImplementation(), ["read_store"], tmp_path)
    assert_full(graded, result)


class ReportsTheDefaultSchemaVersion(ModelImplementation):
    """Reports `schema_version: 1` on an entry that has none: 6, "absent = 1", filled in as a migration fills
    defaults for missing fields."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "read_store" and outcome.ok:
            for found in outcome.result["entries"]:
                if found["status"] == "ok" and isinstance(found.get("fields"), dict):
                    found["fields"].setdefault("schema_version", 1)
        return outcome


def test_a_reader_that_reports_the_default_schema_version_earns_full(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, ReportsTheDefaultSchemaVersion(), ["read_store"], tmp_path)
    assert_full(graded, result)


class ReportsLinksSorted(ModelImplementation):
    """Reports each entry's links sorted, as a reader holding them in a set would (3.4 gives them no order),
    each listed twice, as a reader listing every occurrence would."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "read_store" and outcome.ok:
            for found in outcome.result["entries"]:
                found["links"] = sorted(found["links"] * 2)
        return outcome


def test_a_reader_that_reports_links_sorted_or_repeated_earns_full_with_every_should(corpus, reference_results,
                                                                                      tmp_path):
    graded, result = graded_run(corpus, reference_results, ReportsLinksSorted(), ["read_store"], tmp_path)
    assert_full(graded, result)
    assert failing(graded, "should") == []


class RendersLiveListsInItsOwnOrder(ModelImplementation):
    """Renders every live list in reverse text order: 4.1 orders history only."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "read_store" and outcome.ok:
            live = outcome.result["session"]["live"]
            for name, texts in live.items():
                if isinstance(texts, list):
                    live[name] = sorted(texts, key=str, reverse=True)
        return outcome


def test_a_reader_that_renders_live_lists_in_its_own_order_earns_full(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, RendersLiveListsInItsOwnOrder(), ["read_store"], tmp_path)
    assert_full(graded, result)


class ReportsOpaqueEntriesAsBlobs(ModelImplementation):
    """Reports no fields for an opaque entry: 8 asks a Reader to "render as opaque", nothing more
    (AMB-OPAQUE-FIELDS)."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "read_store" and outcome.ok:
            for found in outcome.result["entries"]:
                if found["status"] == "opaque":
                    found["fields"] = {}
        return outcome


def test_a_reader_that_reports_no_fields_for_opaque_entries_earns_full(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, ReportsOpaqueEntriesAsBlobs(), ["read_store"], tmp_path)
    assert_full(graded, result)
    assert "read.golden.legacy-mixed-unicode" in failing(graded, "advisory")


class MovesAsideWhatItCannotRead(ModelImplementation):
    """Quarantines by moving: a newer-schema entry and an unparseable session.json are renamed to a backup
    beside them, not copied (4.1 and 6 ask only that the original is preserved; AMB-READER-WRITES)."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "read_store" and outcome.ok:
            store = Path(args["store"])
            moved = [store / "memory" / f"{found['link']}.md" for found in outcome.result["entries"]
                     if found["status"] == "quarantined"]
            session = store / "session.json"
            if outcome.result["session"]["status"] == "degraded" and session.is_file():
                try:
                    json.loads(session.read_bytes())
                except ValueError:
                    moved.append(session)
            for path in moved:
                if path.is_file():
                    keep_beside(path, path.read_bytes())
                    path.unlink()
        return outcome


def test_a_reader_that_moves_aside_what_it_cannot_read_earns_full(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, MovesAsideWhatItCannotRead(), ["read_store"], tmp_path)
    assert_full(graded, result)
    assert "read.entry.reading-never-writes" not in failing(graded, "advisory"), "the entry it can read is untouched"


# --- writers: dates spelled by the platform (spec 3.2, 4.1, 5.2) ------------------------------

DATE_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)")
# Keys whose values a writer parses as instants (4.1); values under other keys it passes through as text.
SESSION_DATE_KEYS = frozenset(("created_at", "updated_at", "last_seen", "set_on", "added", "parked_at", "done_at",
                               "asked", "date", "hidden_at"))


def isoformat_spelling(value: str) -> str:
    """Python's `datetime.isoformat()`: `…00.120Z` becomes `…00.120000+00:00`."""
    return datetime.fromisoformat(value.replace("Z", "+00:00")).isoformat()


def go_rfc3339_spelling(value: str) -> str:
    """Go's `time.RFC3339Nano` layout: trailing zeros of the fraction dropped, UTC as `Z` (`…00.12Z`)."""
    when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    text = when.strftime("%Y-%m-%dT%H:%M:%S")
    if when.microsecond:
        text += f".{when.microsecond:06d}".rstrip("0")
    offset = when.utcoffset()
    return text + ("Z" if not offset else when.isoformat()[-6:])


def _respell(value, spell, key=None):
    if isinstance(value, dict):
        return {name: _respell(item, spell, name) for name, item in value.items()}
    if isinstance(value, list):
        return [_respell(item, spell, key) for item in value]
    if isinstance(value, str) and key in SESSION_DATE_KEYS and DATE_TIME.fullmatch(value):
        return spell(value)
    return value


def respell_session(session: dict, spell) -> dict:
    """Every date of the sections the writer knows respelled; unknown keys pass through as they were (5.4)."""
    known = {**session}
    for key in ("created_at", "updated_at", "machines", "history"):
        if key in known:
            known[key] = _respell(known[key], spell, key)
    if isinstance(known.get("current"), dict):
        known["current"] = {name: _respell(items, spell) if name in model_merge.KNOWN_LISTS else items
                            for name, items in known["current"].items()}
    return known


class SpellsDatesItsOwnWay(ModelImplementation):
    """Writes every date it parsed through its platform's formatter: the same instants, other text."""

    def __init__(self, spell, **kwargs):
        super().__init__(**kwargs)
        self.spell = spell

    def fork(self):
        return type(self)(self.spell, caps=self.context.caps)

    def call(self, op, args):
        outcome = super().call(op, args)
        if not isinstance(outcome, OkResponse):
            return outcome
        if op == "merge_sessions":
            outcome.result["session"] = respell_session(outcome.result["session"], self.spell)
        elif op in SESSION_OPS or op == "merge_stores":
            path = Path(args["out" if op == "merge_stores" else "store"]) / "session.json"
            loaded = load_session_text(path.read_text(encoding="utf-8")) if path.exists() else None
            if loaded is not None and loaded.status == "ok":
                session = respell_session(json.loads(path.read_text(encoding="utf-8")), self.spell)
                atomic_write(path, json.dumps(session, indent=2, ensure_ascii=False).encode("utf-8"))
        elif op in ENTRY_OPS:
            self._respell_fresh_stamps(Path(args["store"]) / "memory" / f"{args['link']}.md")
        return outcome

    def _respell_fresh_stamps(self, path: Path) -> None:
        """The stamps this write put in the frontmatter (`created`, `updated`, ...), in the platform's spelling."""
        text = path.read_text(encoding="utf-8")
        now = self.context.stamp().now[:16]  # the minute of this write: a vector's own dates are years away
        atomic_write(path, DATE_TIME.sub(lambda m: self.spell(m[0]) if m[0].startswith(now) else m[0], text)
                     .encode("utf-8"))


@pytest.mark.parametrize("spell", [isoformat_spelling, go_rfc3339_spelling], ids=["isoformat", "go-rfc3339"])
def test_a_writer_that_spells_dates_with_its_platform_earns_full(corpus, reference_results, tmp_path, spell):
    assert isoformat_spelling("2026-03-01T10:00:00.120Z") == "2026-03-01T10:00:00.120000+00:00"
    assert go_rfc3339_spelling("2026-03-01T10:00:00.120Z") == "2026-03-01T10:00:00.12Z"
    graded, result = graded_run(corpus, reference_results, SpellsDatesItsOwnWay(spell), WRITE_OPS, tmp_path)
    assert_full(graded, result)


def whole_seconds_clock() -> str:
    """Go's `time.Now().UTC().Format(time.RFC3339)`: the clock itself at whole seconds."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def naive_utc_clock() -> str:
    """Python's `datetime.utcnow().isoformat()`: microseconds and no offset (read as UTC, AMB-DATES)."""
    return datetime.now(timezone.utc).replace(tzinfo=None).isoformat()


class StampsWithItsOwnClock(ModelImplementation):
    """Every stamp it writes taken from `clock`: not a respelling, the instants themselves differ."""

    def __init__(self, clock, **kwargs):
        super().__init__(**kwargs)
        self.context.clock = clock

    def fork(self):
        return type(self)(self.context.clock, caps=self.context.caps)


@pytest.mark.parametrize("clock", [whole_seconds_clock, naive_utc_clock], ids=["go-rfc3339-seconds", "utcnow"])
def test_a_writer_that_stamps_with_its_platform_clock_earns_full(corpus, reference_results, tmp_path, clock):
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", whole_seconds_clock())
    graded, result = graded_run(corpus, reference_results, StampsWithItsOwnClock(clock), WRITE_OPS, tmp_path)
    assert_full(graded, result)


class StampsNoMachineId(ModelImplementation):
    """A writer that keeps no machine identity: no `machine_id` on what it writes, no `machines` entry.
    Spec 4.1: "`machine_id` SHOULD be stamped by writers" (AMB-MACHINE-ID-STAMP)."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if not isinstance(outcome, OkResponse):
            return outcome
        if op in SESSION_OPS:
            path = Path(args["store"]) / "session.json"
            session = json.loads(path.read_text(encoding="utf-8"))
            session.pop("machines", None)
            atomic_write(path, json.dumps(self._unstamped(session), indent=2).encode("utf-8"))
        elif op == "write_entry":
            path = Path(args["store"]) / "memory" / f"{args['link']}.md"
            lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
            kept = [line for line in lines  # the id may be quoted: a UUID can look like a number
                    if not (line.startswith("machine_id:") and self.context.machine_id in line)]
            atomic_write(path, "".join(kept).encode("utf-8"))
        return outcome

    def _unstamped(self, value):
        if isinstance(value, dict):
            return {key: self._unstamped(item) for key, item in value.items()
                    if not (key == "machine_id" and item == self.context.machine_id)}
        return [self._unstamped(item) for item in value] if isinstance(value, list) else value


def test_a_writer_that_stamps_no_machine_id_earns_full_and_is_told_the_should(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, StampsNoMachineId(), [*SESSION_OPS, "write_entry"], tmp_path)
    assert_full(graded, result)
    missed = failing(graded, "should")
    assert {"write.stamp.add-next-action", "write.history.rows-stamped",
            "write.entry-stamp.next-action-entry-gets-added-and-machine-id"} <= set(missed), missed


# --- writers: session.json as other JSON libraries write it (spec 4.1, 5.4) ------------------------

class RewritesItsSessionFiles(ModelImplementation):
    """Writes every session.json, and the merged session it returns, through `restyle` and `dump`."""

    def restyle(self, session: dict) -> dict:
        return session

    def dump(self, session: dict) -> str:
        return json.dumps(session, indent=2, ensure_ascii=False) + "\n"

    def call(self, op, args):
        outcome = super().call(op, args)
        if not isinstance(outcome, OkResponse):
            return outcome
        if op == "merge_sessions":
            outcome.result["session"] = self.restyle(outcome.result["session"])
        elif op in SESSION_OPS or op == "merge_stores":
            path = Path(args["out" if op == "merge_stores" else "store"]) / "session.json"
            loaded = load_session_text(path.read_text(encoding="utf-8")) if path.exists() else None
            if loaded is not None and loaded.status == "ok":
                session = self.restyle(json.loads(path.read_text(encoding="utf-8")))
                atomic_write(path, self.dump(session).encode("utf-8"))
        return outcome


class WritesJsonStringify(RewritesItsSessionFiles):
    """`JSON.stringify(session, null, 2)` written as is: no newline at the end of the file."""

    def dump(self, session):
        return json.dumps(session, indent=2, ensure_ascii=False)


class WritesTabsInWindowsTextMode(RewritesItsSessionFiles):
    """Tab indentation, through a file opened in text mode on Windows: CRLF line breaks."""

    def dump(self, session):
        return json.dumps(session, indent="\t", ensure_ascii=False).replace("\n", "\r\n") + "\r\n"


def _keys_reversed(value):
    if isinstance(value, dict):
        return {key: _keys_reversed(value[key]) for key in reversed(list(value))}
    return [_keys_reversed(item) for item in value] if isinstance(value, list) else value


class WritesItemKeysInItsOwnOrder(RewritesItsSessionFiles):
    """Every object's keys in the order its own struct declares them (here: the reverse of the model's)."""

    def restyle(self, session):
        return _keys_reversed(session)


@pytest.mark.parametrize("implementation", [WritesJsonStringify, WritesTabsInWindowsTextMode,
                                            WritesItemKeysInItsOwnOrder])
def test_session_json_in_another_json_layout_earns_full(corpus, reference_results, tmp_path, implementation):
    # 4.1: "a single JSON document"; nothing fixes whitespace, line breaks or key order.
    graded, result = graded_run(corpus, reference_results, implementation(), WRITE_OPS, tmp_path)
    assert_full(graded, result)


# Go's `omitempty`: the zero value of a field the schema does not require is left out. `hidden: false` is the
# absence of a tombstone (5.3.1); parked_actions, completed_actions and completed_goals "MAY be absent" (4.1).
OMITTED_WHEN_EMPTY = {"hidden": False, "why": "", "rejected": "", "machine_id": "", "files_touched": [],
                      "duration_min": None}
OPTIONAL_LISTS = ("parked_actions", "completed_actions", "completed_goals")


def _omit_empty(value):
    if isinstance(value, dict):
        return {key: _omit_empty(item) for key, item in value.items()
                if not (key in OMITTED_WHEN_EMPTY and type(item) is type(OMITTED_WHEN_EMPTY[key])
                        and item == OMITTED_WHEN_EMPTY[key])}
    return [_omit_empty(item) for item in value] if isinstance(value, list) else value


class OmitsEmptyValues(RewritesItsSessionFiles):
    """A Go writer whose session structs tag their optional fields `omitempty`; unknown keys pass through
    untouched (5.4)."""

    def restyle(self, session):
        known = {**session}
        for key in ("machines", "history"):
            if key in known:
                known[key] = _omit_empty(known[key])
        if isinstance(known.get("current"), dict):
            known["current"] = {name: _omit_empty(items) if name in model_merge.KNOWN_LISTS else items
                                for name, items in known["current"].items()
                                if not (name in OPTIONAL_LISTS and items == [])}
        return known


def test_a_writer_that_omits_empty_optional_values_earns_full(corpus, reference_results, tmp_path):
    assert _omit_empty({"text": "a", "hidden": False, "why": "", "n": 0}) == {"text": "a", "n": 0}
    graded, result = graded_run(corpus, reference_results, OmitsEmptyValues(), WRITE_OPS, tmp_path)
    assert_full(graded, result)


class SpellsOutHiddenFalse(RewritesItsSessionFiles):
    """A Go writer whose `Decision` struct has `Hidden bool` without `omitempty`: every decision it writes or
    merges carries `hidden: false` unless it is a tombstone (3.3.3: `hidden` MAY; only `true` marks one)."""

    def restyle(self, session):
        current = session.get("current")
        if isinstance(current, dict) and isinstance(current.get("decisions"), list):
            current["decisions"] = [{"hidden": False, **item} if isinstance(item, dict) else item
                                    for item in current["decisions"]]
        return session


def test_a_writer_that_writes_hidden_false_on_every_live_decision_earns_full(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, SpellsOutHiddenFalse(), WRITE_OPS, tmp_path)
    assert_full(graded, result)


# The date field of each list a write adds to, and of history rows.
ADDED_DATE_FIELDS = ("set_on", "added", "asked", "date", "done_at")


class AddsItsOwnKeysToWhatItWrites(ModelImplementation):
    """Puts its own key (`x_written_by`) on every item and history row it writes: unknown fields are the
    extension mechanism (3.2, 6) and every other implementation passes them through (5.4)."""

    def call(self, op, args):
        now = utc_now()
        self.context.clock = lambda: now  # this write's stamp, to tell the items it wrote from the rest
        outcome = super().call(op, args)
        if op in SESSION_OPS and isinstance(outcome, OkResponse):
            path = Path(args["store"]) / "session.json"
            session = json.loads(path.read_text(encoding="utf-8"))

            def marked(item):
                written = isinstance(item, dict) and any(item.get(field) == now for field in ADDED_DATE_FIELDS)
                return {**item, "x_written_by": "another-implementation/1.0"} if written else item

            session["current"] = {name: [marked(item) for item in items] if name in model_merge.KNOWN_LISTS else items
                                  for name, items in session["current"].items()}
            session["history"] = [marked(row) for row in session["history"]]
            atomic_write(path, json.dumps(session, indent=2, ensure_ascii=False).encode("utf-8"))
        return outcome


def test_a_writer_that_adds_its_own_keys_to_items_and_history_rows_earns_full(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, AddsItsOwnKeysToWhatItWrites(), SESSION_OPS, tmp_path)
    assert_full(graded, result)


# --- writers: entry files (spec 3.1, 3.2) ------------------------------------------------------

class UpdatesEntriesWithLf(ModelImplementation):
    """update_entry writes the whole file back with LF line breaks, whatever the original used."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "update_entry" and isinstance(outcome, OkResponse):
            path = Path(args["store"]) / "memory" / f"{args['link']}.md"
            atomic_write(path, path.read_bytes().replace(b"\r\n", b"\n"))
        return outcome


class UpdatesEntriesWithABlankLineAfterTheBlock(ModelImplementation):
    """update_entry writes a blank line between the closing `---` and the body."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "update_entry" and isinstance(outcome, OkResponse):
            path = Path(args["store"]) / "memory" / f"{args['link']}.md"
            text = path.read_text(encoding="utf-8")
            parsed = parse_entry_text(text)
            if parsed.has_frontmatter:
                lines = text.splitlines(keepends=True)
                closing = parsed.body_start - 1  # lines before the body: the block, its closing line included
                newline = "\r\n" if lines[closing - 1].endswith("\r\n") else "\n"
                atomic_write(path, "".join([*lines[:closing], newline, *lines[closing:]]).encode("utf-8"))
        return outcome


@pytest.mark.parametrize("implementation", [UpdatesEntriesWithLf, UpdatesEntriesWithABlankLineAfterTheBlock])
def test_an_entry_update_in_its_own_line_layout_earns_full(corpus, reference_results, tmp_path, implementation):
    graded, result = graded_run(corpus, reference_results, implementation(), ["update_entry"], tmp_path)
    assert_full(graded, result)


PYYAML_OPTIONS = {"sort_keys": False, "allow_unicode": True, "default_flow_style": False}


def pyyaml_frontmatter(fields: dict, options: dict = PYYAML_OPTIONS) -> str | None:
    """The block PyYAML's `safe_dump` writes for `fields`, when it stays in the 3.1 subset (it reads back
    as the same fields with no problem); None when it does not, and the writer keeps its own form."""
    dumped = yaml.safe_dump(fields, **options, width=10**6)
    block = f"---\n{dumped}---\n"
    parsed = parse_entry_text(block)
    return block if parsed.fields == fields and not parsed.problems else None


class WritesFrontmatterWithPyYaml(RewritesFrontmatter):
    """Serialises frontmatter with PyYAML's `safe_dump` wherever its output is in the 3.1 subset."""

    options = PYYAML_OPTIONS

    def block(self, parsed):
        return pyyaml_frontmatter(parsed.fields, self.options)


def test_a_writer_that_dumps_frontmatter_with_pyyaml_earns_full(corpus, reference_results, tmp_path):
    assert pyyaml_frontmatter({"type": "fact", "name": "A", "tags": ["x", "y"]}) == (
        "---\ntype: fact\nname: A\ntags:\n- x\n- y\n---\n")
    graded, result = graded_run(corpus, reference_results, WritesFrontmatterWithPyYaml(), ENTRY_OPS, tmp_path)
    assert_full(graded, result)


class WritesFrontmatterWithPyYamlDefaults(WritesFrontmatterWithPyYaml):
    """`safe_dump`'s own defaults: keys sorted, every non-ASCII character a `\\xE9` / `\\U0001F600` escape
    in double quotes (only the line width is lifted, see WritesNewEntriesWithPythonFrontmatter)."""

    options = {}


def test_a_writer_that_dumps_frontmatter_with_pyyaml_defaults_earns_full(corpus, reference_results, tmp_path):
    assert pyyaml_frontmatter({"type": "fact", "name": "\u00e9t\u00e9"}, {}) == (
        '---\nname: "\\xE9t\\xE9"\ntype: fact\n---\n')
    graded, result = graded_run(corpus, reference_results, WritesFrontmatterWithPyYamlDefaults(), ENTRY_OPS, tmp_path)
    assert_full(graded, result)


class RefusesLineBreaksInFrontmatter(ModelImplementation):
    """write_entry refuses a value with a line break: multi-line text belongs in the body (3.1)."""

    def call(self, op, args):
        values = [] if op != "write_entry" else list(args.get("frontmatter", {}).values())
        texts = [text for value in values for text in (value if isinstance(value, list) else [value])]
        if any(isinstance(text, str) and ("\n" in text or "\r" in text) for text in texts):
            return ErrorResponse(None, "invalid_input", "a value with a line break belongs in the body")
        return super().call(op, args)


def test_a_writer_that_refuses_line_breaks_passes_the_vector_that_allows_it(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, RefusesLineBreaksInFrontmatter(), ["write_entry"],
                                tmp_path)
    assert_full(graded, result)
    item = next(item for item in graded if item.vector.id == "write.frontmatter.line-breaks-and-controls-escaped")
    assert item.result.outcome == "pass", item.result.failures


def _entry_file(args) -> Path:
    return Path(args["store"]) / "memory" / f"{args['link']}.md"


class StampsNoUpdated(ModelImplementation):
    """update_entry leaves `updated` as it was: 3.2 makes it a MAY, and section 8's list of what a Writer
    stamps (`added`, `set_on`, `date`, `machine_id`) does not name it."""

    def call(self, op, args):
        before = None
        if op == "update_entry":
            with contextlib.suppress(OSError, UnicodeDecodeError, TypeError, KeyError):
                before = parse_entry_text(_entry_file(args).read_text(encoding="utf-8")).fields
        outcome = super().call(op, args)
        if (before is not None and isinstance(outcome, OkResponse)
                and "updated" not in args["set"] and "updated" not in args["unset"]):
            path = _entry_file(args)
            text = path.read_text(encoding="utf-8")
            kept = edit_frontmatter(text, {"updated": before["updated"]}, []) if "updated" in before else (
                edit_frontmatter(text, {}, ["updated"]))
            atomic_write(path, kept.encode("utf-8"))
        return outcome


class StampsNoCreated(ModelImplementation):
    """write_entry leaves `created` out unless it is given: 3.2 makes it a SHOULD."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "write_entry" and isinstance(outcome, OkResponse) and "created" not in args["frontmatter"]:
            path = _entry_file(args)
            atomic_write(path, edit_frontmatter(path.read_text(encoding="utf-8"), {}, ["created"]).encode("utf-8"))
        return outcome


class StampsEntryDatesAsDays(ModelImplementation):
    """Stamps `created` and `updated` as a date, as the spec's own examples do (`created: 2026-05-14`):
    3.2 asks for an "ISO 8601 date or date-time"."""

    def call(self, op, args):
        now = utc_now()
        self.context.clock = lambda: now
        outcome = super().call(op, args)
        if op in ENTRY_OPS and isinstance(outcome, OkResponse):
            path = _entry_file(args)
            text = path.read_text(encoding="utf-8")
            fields = parse_entry_text(text).fields
            days = {key: now[:10] for key in ("created", "updated") if fields.get(key) == now}
            if days:
                atomic_write(path, edit_frontmatter(text, days, []).encode("utf-8"))
        return outcome


@pytest.mark.parametrize("implementation", [StampsNoUpdated, StampsNoCreated, StampsEntryDatesAsDays])
def test_a_writer_that_stamps_entry_dates_its_own_way_earns_full(corpus, reference_results, tmp_path, implementation):
    graded, result = graded_run(corpus, reference_results, implementation(), ENTRY_OPS, tmp_path)
    assert_full(graded, result)


def basic_format_clock() -> str:
    """`time.strftime("%Y%m%dT%H%M%SZ")`, as request signers stamp: ISO 8601's basic format."""
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def test_a_writer_that_stamps_entries_in_iso_8601_basic_format_earns_full(corpus, reference_results, tmp_path):
    # 3.3: `added`, `set_on` and `date` are "ISO 8601"; the kit reads only the extended format (AMB-DATES), so a
    # basic-format stamp is reported as advisory, never charged.
    graded, result = graded_run(corpus, reference_results, StampsWithItsOwnClock(basic_format_clock), ENTRY_OPS,
                                tmp_path)
    assert_full(graded, result)
    advisory = {item.vector.id for item in graded if "advisory" in item.failed_strengths}
    assert "write.entry-stamp.goal-entry-gets-set-on" in advisory


class WritesNewEntriesWithPythonFrontmatter(ModelImplementation):
    """write_entry through python-frontmatter's `dumps`: keys sorted, a blank line after the closing `---`,
    the body stripped and no newline at the end. `width` keeps PyYAML from folding a long value over
    several lines, which would leave the 3.1 subset (one `key: value` per line)."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "write_entry" and isinstance(outcome, OkResponse):
            path = _entry_file(args)
            stamped = parse_entry_text(path.read_text(encoding="utf-8")).fields
            post = python_frontmatter.Post(args["body"], **stamped)
            atomic_write(path, python_frontmatter.dumps(post, width=10**6).encode("utf-8"))
        return outcome


def test_a_writer_that_writes_new_entries_with_python_frontmatter_earns_full(corpus, reference_results, tmp_path):
    assert python_frontmatter.dumps(python_frontmatter.Post("Body\n", type="fact", name="A"), width=10**6) == (
        "---\nname: A\ntype: fact\n---\n\nBody")
    graded, result = graded_run(corpus, reference_results, WritesNewEntriesWithPythonFrontmatter(), ["write_entry"],
                                tmp_path)
    assert_full(graded, result)


def _is_legacy(fields: dict) -> bool:
    metadata = fields.get("metadata")
    nested = isinstance(metadata, dict) and ("type" in metadata or "originSessionId" in metadata)
    return nested or "originSessionId" in fields or fields.get("type") in model_entry.LEGACY_TYPES


class RefusesToEditLegacyFiles(ModelImplementation):
    """update_entry on a legacy-dialect file is refused: 8 asks a Writer to edit entries without corrupting
    the store, and Appendix A makes rewriting legacy files "an implementation choice ... not an obligation"
    (AMB-LEGACY-EDIT)."""

    def call(self, op, args):
        if op == "update_entry":
            with contextlib.suppress(OSError, UnicodeDecodeError, TypeError, KeyError):
                if _is_legacy(parse_entry_text(_entry_file(args).read_text(encoding="utf-8")).fields):
                    return ErrorResponse(0, "invalid_input", "a legacy-dialect file: run the consolidation first")
        return super().call(op, args)


class RewritesLegacyFilesAsCanonical(ModelImplementation):
    """update_entry rewrites a legacy-dialect file in canonical form as it edits it (Appendix A's consolidation
    pass): the type read from metadata.type and mapped, originSessionId as origin.session_id, every other
    key where it was."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "update_entry" and isinstance(outcome, OkResponse):
            path = _entry_file(args)
            text = path.read_text(encoding="utf-8")
            parsed = parse_entry_text(text)
            if parsed.has_frontmatter and _is_legacy(parsed.fields):
                fields = model_entry.read_entry(args["link"], text)["fields"]
                fields.pop("originSessionId", None)
                metadata = {key: value for key, value in fields.pop("metadata", {}).items()
                            if key not in ("type", "originSessionId")}
                if metadata:
                    fields["metadata"] = metadata
                atomic_write(path, (serialize_frontmatter(fields) + parsed.body).encode("utf-8"))
        return outcome


class CanonicalisesAndDropsWhatItDoesNotKnow(RewritesLegacyFilesAsCanonical):
    """The consolidation pass, dropping metadata.node_type: a field the spec does not define, lost (3.2)."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "update_entry" and isinstance(outcome, OkResponse):
            path = _entry_file(args)
            parsed = parse_entry_text(path.read_text(encoding="utf-8"))
            if isinstance(parsed.fields.get("metadata"), dict):
                fields = {key: value for key, value in parsed.fields.items() if key != "metadata"}
                atomic_write(path, (serialize_frontmatter(fields) + parsed.body).encode("utf-8"))
        return outcome


def test_a_consolidation_that_drops_an_unknown_legacy_key_does_not_earn_writer(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, CanonicalisesAndDropsWhatItDoesNotKnow(),
                                ["update_entry"], tmp_path)
    assert result.earned == "reader"
    assert "write.entry.legacy-file-update-keeps-fields" in failing(graded)


@pytest.mark.parametrize("implementation", [RefusesToEditLegacyFiles, RewritesLegacyFilesAsCanonical])
def test_a_writer_that_refuses_or_canonicalises_legacy_files_on_update_earns_full(corpus, reference_results,
                                                                                  tmp_path, implementation):
    graded, result = graded_run(corpus, reference_results, implementation(), ["update_entry"], tmp_path)
    assert_full(graded, result)


class WritesInWindowsTextMode(ModelImplementation):
    """Every file it writes (session.json, new entries, a merged store) has CRLF line breaks, as Python's
    text mode writes them on Windows: no rule of 3.1 or 4.1 fixes line endings."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if not isinstance(outcome, OkResponse):
            return outcome
        if op in SESSION_OPS:
            paths = [Path(args["store"]) / "session.json"]
        elif op == "write_entry":
            paths = [_entry_file(args)]
        elif op == "merge_stores":
            paths = [Path(args["out"]) / "session.json", *(Path(args["out"]) / "memory").glob("*.md")]
        else:
            paths = []
        for path in paths:
            if path.is_file():
                atomic_write(path, path.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
        return outcome


def test_a_writer_in_windows_text_mode_earns_full(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, WritesInWindowsTextMode(), WRITE_OPS, tmp_path)
    assert_full(graded, result)


# --- newer versions: quarantine and degrade (spec 6) -------------------------------------------

class QuarantinesNewerEntries(ModelImplementation):
    """update_entry on a newer schema_version: the original quarantined beside it, then an empty-but-valid
    entry holding only what this update sets (spec 6: "an empty-but-valid state, or read-only")."""

    def call(self, op, args):
        if op == "update_entry":
            path = Path(args["store"]) / "memory" / f"{args.get('link')}.md"
            fields = parse_entry_text(path.read_text(encoding="utf-8")).fields if path.is_file() else {}
            if model_entry.newer_schema_version(fields) is not None:
                keep_beside(path, path.read_bytes())
                atomic_write(path, serialize_frontmatter(dict(args.get("set") or {})).encode("utf-8"))
                return OkResponse(0, {})
        return super().call(op, args)


def test_quarantining_a_newer_entry_then_writing_an_empty_valid_one_earns_full(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, QuarantinesNewerEntries(), ["update_entry"], tmp_path)
    assert_full(graded, result)
    item = next(item for item in graded if item.vector.id == "write.forward.update-entry-newer-schema-refused")
    assert item.failed_strengths == ("advisory",), "only the kit's read-only reading is not followed"


def _numeric_version(fields):
    """schema_version as a number wherever one can be read from it: `"2"` and `2.0` are version 2."""
    try:
        version = float(fields.get("schema_version", 1))
    except (TypeError, ValueError):
        return None
    return int(version) if version > 1 else None


def _cast_version(fields):
    """schema_version through `int()`, as a reader sure of its input writes it: it throws on `two` or `1.5`."""
    version = int(fields.get("schema_version") or 1)
    return version if version > 1 else None


def test_a_reader_that_takes_numeric_strings_and_floats_for_versions_earns_full(corpus, reference_results, tmp_path,
                                                                                  monkeypatch):
    # AMB-ENTRY-VERSION: quarantining "2" or 2.0 as version 2 is as careful as reading it as version 1.
    monkeypatch.setattr(model_entry, "newer_schema_version", _numeric_version)
    graded, result = graded_run(corpus, reference_results, ModelImplementation(), ["read_store"], tmp_path)
    assert_full(graded, result)


def test_a_reader_that_throws_on_a_malformed_version_does_not_earn_reader(corpus, reference_results, tmp_path,
                                                                          monkeypatch):
    monkeypatch.setattr(model_entry, "newer_schema_version", _cast_version)
    graded, result = graded_run(corpus, reference_results, ModelImplementation(), ["read_store"], tmp_path)
    assert result.earned is None
    crashed = {item.vector.id for item in graded if item.outcome == "error"}
    assert {"read.entry-version.word-read-or-set-aside",
            "read.entry-version.float-between-read-or-set-aside"} <= crashed


def _degraded_copy(path: Path) -> bool:
    """A file of a version newer than this implementation knows."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.name == "session.json":
        try:
            data = json.loads(text)
        except ValueError:
            return False
        return isinstance(data, dict) and isinstance(data.get("version"), int) and data["version"] > 1
    return model_entry.newer_schema_version(parse_entry_text(text).fields) is not None


class MergesStoresContributingNothingNewer(ModelImplementation):
    """merge_stores reads each replica as it would load it: a newer-version copy degrades to nothing, so it
    contributes nothing to `out` and stays, untouched, in its own replica (spec 6)."""

    def call(self, op, args):
        if op != "merge_stores":
            return super().call(op, args)
        with tempfile.TemporaryDirectory() as scratch:
            readable = {}
            for side in ("local", "remote"):
                readable[side] = Path(scratch) / side
                shutil.copytree(args[side], readable[side], ignore=lambda folder, names: [
                    name for name in names if (Path(folder) / name).is_file() and _degraded_copy(Path(folder) / name)])
            return super().call(op, {**args, **{side: str(path) for side, path in readable.items()}})


def test_a_store_merge_where_newer_copies_contribute_nothing_earns_full(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, MergesStoresContributingNothingNewer(), ["merge_stores"],
                                tmp_path)
    assert_full(graded, result)
    item = next(item for item in graded if item.vector.id == "merge.stores.newer-schema-entry-remote-reaches-merge")
    assert item.failed_strengths == ("advisory",), "carrying the newer bytes into `out` is the kit's reading"


# --- caps (spec 4.1) -------------------------------------------------------------------------

def test_an_implementation_with_caps_of_one_earns_full(corpus, tmp_path):
    # Every cap 1; parked_actions has "its own, larger cap" (4.1).
    implementation = ModelImplementation(caps={**{name: 1 for name in DEFAULT_CAPS}, "parked_actions": 2})
    results = [run_vector(vector, implementation, implementation.describe(), tmp_path) for vector in corpus]
    graded, result = graded_of(corpus, results)
    assert_full(graded, result)
    assert not [item.vector.id for item in graded if item.result.outcome == "error"]


# --- merges: ties, tombstones, convergence (spec 5.2, 5.3, 5.4) --------------------------------

def test_equal_dates_broken_by_a_symmetric_rule_then_the_tombstone_inherited_earn_full(corpus, reference_results,
                                                                                        tmp_path, monkeypatch):
    # No preference for the hidden copy among equal dates: the canonical tie-break picks a copy, and a hidden
    # copy of the identity still hides it (5.3.1). merge(M, M) = M holds; merge(M, A) = M need not.
    monkeypatch.setattr(model_merge, "decision_rank",
                        lambda item: (model_merge.is_purged(item), *model_merge.by_date("date")(item)))
    graded, result = graded_run(corpus, reference_results, ModelImplementation(), ["merge_sessions", "merge_stores"],
                                tmp_path)
    assert_full(graded, result)


def test_tombstones_of_both_sides_filtering_before_the_cap_earn_full(corpus, reference_results, tmp_path,
                                                                     monkeypatch):
    merge_current = model_merge.merge_current

    def filter_then_cap(local, remote, caps, parked_at):
        merged = merge_current(local, remote, caps, parked_at)
        uncapped = {**caps, "completed_actions": 10**6, "completed_goals": 10**6}
        done = model_merge.merge_tombstones(local["completed_actions"] + remote["completed_actions"], 10**6)
        merged["next_actions"], merged["parked_actions"] = model_merge.merge_actions(local, remote, done, uncapped,
                                                                                     parked_at)
        goals_done = model_merge.merge_tombstones(local["completed_goals"] + remote["completed_goals"], 10**6)
        merged["goals"] = model_merge.merge_goals(local, remote, goals_done, caps["goals"])
        return merged

    monkeypatch.setattr(model_merge, "merge_current", filter_then_cap)
    graded, result = graded_run(corpus, reference_results, ModelImplementation(), ["merge_sessions", "merge_stores"],
                                tmp_path)
    assert_full(graded, result)


def test_first_seen_kept_among_copies_the_render_cannot_tell_apart_earns_full(corpus, reference_results, tmp_path,
                                                                                monkeypatch):
    # Equal dates, copies differing only in machine_id: whichever came first stays (the render shows no machine).
    def by_date(field):
        return lambda item: (model_merge.dates.sort_key(item.get(field)),
                             model_merge.canonical({k: v for k, v in item.items() if k != "machine_id"}))

    # History rows keyed by (date, machine_id, summary) as 5.2 says; of two with one key, the first seen stays.
    def merge_history(local, remote, cap):
        rows = {}
        for row in [*local, *remote]:
            key = model_merge.canonical([row.get("date"), row.get("machine_id"), row.get("summary")])
            rows.setdefault(key, row)
        return sorted(rows.values(), key=lambda row: model_merge.dates.sort_key(row.get("date")), reverse=True)[:cap]

    monkeypatch.setattr(model_merge, "by_date", by_date)
    monkeypatch.setattr(model_merge, "merge_history", merge_history)
    graded, result = graded_run(corpus, reference_results, ModelImplementation(), ["merge_sessions", "merge_stores"],
                                tmp_path)
    assert_full(graded, result)


# --- locking (spec 4.1) ------------------------------------------------------------------------

class RefusesWhileTheLockIsBusy(ModelImplementation):
    """A writer that does not wait for a busy lock: it refuses the write, and the caller knows it was not done.
    The concurrent calls run one after another here; every third one finds the lock taken."""

    def call_in_parallel(self, jobs):
        results = []
        for job in jobs:
            outcomes = []
            for index, (op, args) in enumerate(job):
                busy = index % 3 == 1
                outcomes.append(ErrorResponse(0, "internal", "the store is locked by another writer; try again")
                                if busy else self.call(op, args))
            results.append(outcomes)
        return results


def test_a_writer_that_refuses_while_the_lock_is_busy_passes_the_concurrency_vectors(corpus, tmp_path):
    implementation = RefusesWhileTheLockIsBusy()
    concurrency = [vector for vector in corpus if vector.op == "concurrent_writes"]
    assert concurrency
    results = [run_vector(vector, implementation, implementation.describe(), tmp_path) for vector in concurrency]
    assert [result.outcome for result in results] == ["pass"] * len(concurrency), [r.failures for r in results]


class RefusesEveryConcurrentWrite(RefusesWhileTheLockIsBusy):
    """Refuses every write made while another writer runs: nothing gets through, so nothing is shown."""

    def call_in_parallel(self, jobs):
        return [[ErrorResponse(0, "internal", "the store is locked") for _ in job] for job in jobs]


def test_a_writer_that_refuses_every_concurrent_write_does_not_pass(corpus, tmp_path):
    implementation = RefusesEveryConcurrentWrite()
    vector = next(vector for vector in corpus if vector.op == "concurrent_writes")
    result = run_vector(vector, implementation, implementation.describe(), tmp_path)
    assert result.outcome == "fail"
    assert [failure.check for failure in result.failures] == ["concurrent_write_accepted"]


# --- interpretations (docs/spec-ambiguities.md): another reading never costs a level -------------

def test_a_merge_that_reads_a_number_as_a_javascript_date_earns_full(corpus, reference_results, tmp_path,
                                                                      monkeypatch):
    parse_date = model_merge.dates.parse_date

    def parse(value):  # AMB-DATES: `new Date(1767225600000)`
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return datetime.fromtimestamp(value / 1000, timezone.utc)
        return parse_date(value)

    monkeypatch.setattr(model_merge.dates, "parse_date", parse)
    graded, result = graded_run(corpus, reference_results, ModelImplementation(), ["merge_sessions", "merge_stores"],
                                tmp_path)
    assert_full(graded, result)
    assert "merge.newest.non-string-date-loses" in failing(graded, "advisory")


LIVE_LISTS = {"add_goal": ("goals", "set_on"), "add_question": ("open_questions", "asked")}


class RefreshesWhatIsLive(ModelImplementation):
    """Adding a goal or question that is already live rewrites that one item with the new spelling and
    stamps, its unknown fields kept (AMB-ADD-LIVE: the reference model leaves it as it was)."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if op in LIVE_LISTS and isinstance(outcome, OkResponse):
            path = Path(args["store"]) / "session.json"
            session = json.loads(path.read_text(encoding="utf-8"))
            name, field = LIVE_LISTS[op]
            stamp = self.context.stamp()
            session["current"][name] = [
                {**item, "text": args["text"], field: stamp.now, "machine_id": stamp.machine_id}
                if isinstance(item, dict) and item_key(item) == item_key({"text": args["text"]}) else item
                for item in session["current"][name]]
            atomic_write(path, json.dumps(session, indent=2).encode("utf-8"))
        return outcome


def test_a_writer_that_refreshes_a_live_goal_or_question_on_add_earns_full(corpus, reference_results, tmp_path):
    graded, result = graded_run(corpus, reference_results, RefreshesWhatIsLive(), list(LIVE_LISTS), tmp_path)
    assert_full(graded, result)


def test_completion_stamped_with_the_clock_alone_earns_full(corpus, reference_results, tmp_path, monkeypatch):
    # AMB-FUTURE-DATED: `done_at` is now, as a plain writer stamps it, even for a copy dated after the clock.
    def complete(session, text, stamp, open_lists, tombstones, cap, date_field):
        key = model_writer._identity(text)
        session = model_writer._begin(session, stamp)
        found = []
        for name in open_lists:
            session["current"][name], removed = model_writer._without(session["current"][name], key)
            found.extend(removed)
        session["current"][tombstones] = model_writer._record_tombstone(
            session["current"][tombstones], found[0]["text"] if found else text, stamp.now, cap)
        return session, []

    monkeypatch.setattr(model_writer, "_complete", complete)
    graded, result = graded_run(corpus, reference_results, ModelImplementation(),
                                ["complete_next_action", "complete_goal"], tmp_path)
    assert_full(graded, result)
    assert "write.future-dated.complete-items-added-after-the-clock" in failing(graded, "advisory")


def test_completing_what_is_not_open_refused_earns_full(corpus, reference_results, tmp_path, monkeypatch):
    # 5.3.2 says what completing an open item records; a user completing nothing is told so, and nothing changes.
    for op, open_lists in (("complete_next_action", ("next_actions", "parked_actions")), ("complete_goal", ("goals",))):
        def refusing(session, *, text, stamp, caps, complete=model_writer.SESSION_OPS[op], open_lists=open_lists):
            key = model_writer._identity(text)
            if not any(item_key(item) == key for name in open_lists for item in session["current"][name]):
                raise model_writer.WriterError(f"nothing open to complete: {text!r}")
            return complete(session, text=text, stamp=stamp, caps=caps)

        monkeypatch.setitem(model_writer.SESSION_OPS, op, refusing)
    graded, result = graded_run(corpus, reference_results, ModelImplementation(),
                                ["complete_next_action", "complete_goal"], tmp_path)
    assert_full(graded, result)


def _refusing_at_the_cap(add, capped):
    """`add`, refusing a new identity while every list in `capped` is full: the user is told, nothing leaves."""
    def refusing(session, *, text, stamp, caps, **args):
        key = model_writer._identity(text)
        current = session["current"]
        known = any(item_key(item) == key for name in capped for item in current[name])
        full = all(len([item for item in current[name] if item.get("hidden") is not True]) >= caps[name]
                   for name in capped)
        if full and not known:
            raise model_writer.WriterError(f"{capped[0]} is full; complete one first")
        return add(session, text=text, stamp=stamp, caps=caps, **args)
    return refusing


def test_a_writer_that_refuses_adds_at_the_cap_earns_full(corpus, reference_results, tmp_path, monkeypatch):
    # AMB-CAP-REFUSAL: rotation is the only way items leave (5.2); refusing an add removes nothing.
    capped = {"add_goal": ("goals",), "add_question": ("open_questions",), "add_decision": ("decisions",),
              "add_next_action": ("next_actions", "parked_actions")}
    for op, lists in capped.items():
        monkeypatch.setitem(model_writer.SESSION_OPS, op, _refusing_at_the_cap(model_writer.SESSION_OPS[op], lists))
    graded, result = graded_run(corpus, reference_results, ModelImplementation(), list(capped), tmp_path)
    assert_full(graded, result)
    assert {"write.cap-size.capped-lists-one-over-cap", "write.cap-size.parked-one-over-cap"} <= set(
        failing(graded, "advisory")), "the refusals are reported against the kit's reading"
    # The runner-driven writes (graded_run keeps the reference's results for them) add no question past the cap.
    implementation = ModelImplementation()
    atomic = [vector for vector in corpus if vector.op == "atomic_writes"]
    results = [run_vector(vector, implementation, implementation.describe(), tmp_path) for vector in atomic]
    assert atomic and [r.outcome for r in results] == ["pass"] * len(atomic), [r.failures for r in results]


def test_a_writer_that_refuses_adds_one_below_the_cap_does_not_earn_writer(corpus, reference_results, tmp_path,
                                                                          monkeypatch):
    # Below the cap nothing would rotate out: the refusal loses the item the user asked for.
    add = _refusing_at_the_cap(model_writer.SESSION_OPS["add_goal"], ("goals",))

    def add_goal(session, *, caps, **args):
        return add(session, caps={**caps, "goals": caps["goals"] - 1}, **args)

    monkeypatch.setitem(model_writer.SESSION_OPS, "add_goal", add_goal)
    graded, result = graded_run(corpus, reference_results, ModelImplementation(), ["add_goal"], tmp_path)
    assert result.earned == "reader"
    assert "write.cap-size.capped-lists-one-below-cap" in failing(graded)


def test_hiding_a_missing_decision_recorded_as_a_tombstone_earns_full(corpus, reference_results, tmp_path,
                                                                      monkeypatch):
    # AMB-HIDE-MISSING: the tombstone is written anyway, so the decision stays hidden wherever it turns up.
    hide = model_writer.SESSION_OPS["hide_decision"]

    def hide_even_missing(session, *, text, stamp, purge=False, caps=DEFAULT_CAPS):
        key = model_writer._identity(text)
        if any(item_key(item) == key for item in session["current"]["decisions"]):
            return hide(session, text=text, stamp=stamp, purge=purge, caps=caps)
        session = model_writer._begin(session, stamp)
        tombstone = {"text": text, "machine_id": stamp.machine_id, "hidden": True, "hidden_at": stamp.now}
        if purge:
            tombstone.update(text=PURGED_TEXT, text_hash=key)
        session["current"]["decisions"].append(tombstone)
        return session, []

    monkeypatch.setitem(model_writer.SESSION_OPS, "hide_decision", hide_even_missing)
    graded, result = graded_run(corpus, reference_results, ModelImplementation(), ["hide_decision"], tmp_path)
    assert_full(graded, result)
    assert "write.hide.missing-is-invalid-input" in failing(graded, "advisory")


def test_a_parked_action_added_again_keeping_its_added_earns_full(corpus, reference_results, tmp_path, monkeypatch):
    # AMB-READD-PARKED, the other reading of 4.1's "`added` is unchanged": back to live with its own `added`,
    # the oldest of the others parked to make room.
    add = model_writer.SESSION_OPS["add_next_action"]

    def unpark(session, *, text, stamp, caps=DEFAULT_CAPS):
        key = model_writer._identity(text)
        current = session["current"]
        parked = [item for item in current["parked_actions"] if item_key(item) == key]
        if not parked or any(item_key(item) == key for item in current["next_actions"]):
            return add(session, text=text, stamp=stamp, caps=caps)
        session = model_writer._begin(session, stamp)
        current = session["current"]
        current["parked_actions"] = [item for item in current["parked_actions"] if item_key(item) != key]
        others, overflow = model_writer._rotate_oldest(current["next_actions"], "added", caps["next_actions"] - 1)
        current["next_actions"] = [*others, {k: v for k, v in parked[0].items() if k != "parked_at"}]
        current["parked_actions"] += [{**item, "parked_at": stamp.now} for item in overflow]
        current["parked_actions"] = model_writer._rotate_oldest(current["parked_actions"], "added",
                                                                caps["parked_actions"])[0]
        return session, []

    monkeypatch.setitem(model_writer.SESSION_OPS, "add_next_action", unpark)
    graded, result = graded_run(corpus, reference_results, ModelImplementation(), ["add_next_action"], tmp_path)
    assert_full(graded, result)


def test_a_session_row_updated_where_it_stands_keeping_its_date_earns_full(corpus, reference_results, tmp_path,
                                                                           monkeypatch):
    # 4.1: "the same session updates its own row in place"; its `date` can stay the session's start.
    record = model_writer.SESSION_OPS["record_session"]

    def in_place(session, *, summary, stamp, session_id=None, caps=DEFAULT_CAPS, **rest):
        rows = [index for index, row in enumerate(session["history"])
                if session_id is not None and isinstance(row, dict) and row.get("session_id") == session_id]
        if not rows or not isinstance(summary, str) or not summary.strip():
            return record(session, summary=summary, stamp=stamp, session_id=session_id, caps=caps, **rest)
        session = model_writer._begin(session, stamp)
        first = rows[0]
        session["history"][first] = {**session["history"][first], "summary": summary, "machine_id": stamp.machine_id}
        session["history"] = [row for index, row in enumerate(session["history"])
                              if index == first or index not in rows]
        return session, []

    monkeypatch.setitem(model_writer.SESSION_OPS, "record_session", in_place)
    graded, result = graded_run(corpus, reference_results, ModelImplementation(), ["record_session"], tmp_path)
    assert_full(graded, result)


def test_a_reader_that_trims_every_unicode_space_off_plain_values_earns_full(corpus, reference_results, tmp_path,
                                                                             monkeypatch):
    # AMB-FRONTMATTER-YAML: YAML trims only spaces and tabs; Python's str.strip() also a no-break space.
    plain_scalar = model_frontmatter._plain_scalar
    monkeypatch.setattr(model_frontmatter, "_plain_scalar", lambda raw: plain_scalar(raw.strip()))
    graded, result = graded_run(corpus, reference_results, ModelImplementation(), ["read_store"], tmp_path)
    assert_full(graded, result)
