"""Random sequences of writer operations, on the implementation and on the reference side by side.

A hypothesis `RuleBasedStateMachine`: each step applies one op (add,
complete, park by overflow, re-add, hide, purge, record_session) to a store
through the implementation, reads the store's session.json from disk with
the reference model (never through the implementation), applies the same
op to the reference model's session, and compares what does not depend on
the clock: identities per rendered list, tombstones, hidden and purged
decisions, history rows, unknown keys, stamps (spec 4.1, 5.3, 6, 8).

The implementation stamps with its own clock. The model takes each step's
`now` from the `updated_at` the implementation wrote (else a clock of its
own), and steps are paced a few milliseconds apart, so that both see the
same order of events. Where two actions still carry equal `added` stamps,
which of them is parked is a tie (AMB-TIE) and is not held against the
implementation.
"""

from __future__ import annotations

import copy
import json
import shutil
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from conformance.fuzz import strategies
from conformance.fuzz.counterexample import Counterexample, WriteCase
from conformance.fuzz.subject import CallProblem, Subject
from conformance.model import dates
from conformance.model.identity import is_purged, item_key, normalize
from conformance.model.session import (
    KNOWN_LISTS,
    KNOWN_TOP_LEVEL,
    RENDERED_LISTS,
    load_session_text,
    render,
)
from conformance.model.store import SESSION_FILE, session_bytes
from conformance.model.writer import SESSION_OPS, Stamp, WriterError

PROPERTY = "writer-ops"
MODEL_MACHINE = "memoir-conform-fuzz-model"
# Milliseconds between the end of one op and the start of the next: writers
# stamp with millisecond resolution (the reference format), so consecutive
# ops get distinct stamps and "added after done_at" means what it says.
PACING_SECONDS = 0.002
STAMPED_FIELDS = {"goals": "set_on", "next_actions": "added", "parked_actions": "added",
                  "open_questions": "asked", "decisions": "date"}


class Pacer:
    """Keeps writer ops a few milliseconds apart."""

    def __init__(self, gap: float = PACING_SECONDS):
        self.gap = gap
        self.last = 0.0

    def wait(self) -> None:
        remaining = self.last + self.gap - time.monotonic()
        if remaining > 0:
            time.sleep(remaining)

    def done(self) -> None:
        self.last = time.monotonic()


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def identities(items: list[dict]) -> list[str]:
    """Sorted labels of the identities of a list, a repeated identity listed twice."""
    return sorted(f"sha256:{item_key(i)}" if is_purged(i) else normalize(i["text"]) for i in items)


def writer_view(session: dict) -> dict:
    """What a writer op must get right, whatever the clock (spec 4.1, 5.3)."""
    current = session["current"]
    rendered = render(session)
    view = {name: sorted(normalize(text) for text in rendered[name]) for name in RENDERED_LISTS}
    view["completed_actions"] = identities(current["completed_actions"])
    view["completed_goals"] = identities(current["completed_goals"])
    view["decisions"] = sorted(
        [label, "purged" if is_purged(d) else "hidden" if d.get("hidden") is True else "visible"]
        for label, d in zip(identities_unsorted(current["decisions"]), current["decisions"])
    )
    view["history"] = sorted([str(r.get("summary")), str(r.get("session_id", ""))] for r in session["history"])
    view["unknown_top_level"] = {k: v for k, v in session.items() if k not in KNOWN_TOP_LEVEL}
    view["unknown_current"] = {k: v for k, v in current.items() if k not in KNOWN_LISTS}
    return view


def identities_unsorted(items: list[dict]) -> list[str]:
    return [f"sha256:{item_key(i)}" if is_purged(i) else normalize(i["text"]) for i in items]


def tie_explains(expected: dict, actual: dict, model: dict) -> bool:
    """True when live and parked differ only by which of equally-dated actions is parked (AMB-TIE)."""
    pool = Counter(expected["next_actions"]) + Counter(expected["parked_actions"])
    if pool != Counter(actual["next_actions"]) + Counter(actual["parked_actions"]):
        return False
    if len(expected["next_actions"]) != len(actual["next_actions"]):
        return False
    moved = set(expected["next_actions"]) ^ set(actual["next_actions"])
    added = {normalize(a["text"]): dates.sort_key(a.get("added"))
             for a in model["current"]["next_actions"] + model["current"]["parked_actions"]}
    return len({added.get(text) for text in moved}) == 1


class WriterRun:
    """What the machines of one property run share: the subject, the clock checks, the last failure."""

    def __init__(self, subject: Subject, on_step: Callable[[], None]):
        self.subject = subject
        self.on_step = on_step
        self.pacer = Pacer()
        self.failure: Counterexample | None = None
        self.failures = 0


def machine_for(run: WriterRun) -> type[RuleBasedStateMachine]:
    """A state machine class bound to one implementation."""
    subject, caps = run.subject, run.subject.caps

    class WriterOps(RuleBasedStateMachine):
        def __init__(self):
            super().__init__()
            self.store = subject.new_store()
            self.model: dict = {}
            self.initial_text: str | None = None
            self.original_bytes: bytes | None = None   # unparseable bytes that must never be lost
            self.trace: list[dict] = []
            self.last_now: datetime | None = None
            self.live_added: dict[str, object] = {}    # identity -> `added` while it was live
            self.overflow_count = 0

        # -- the ops -------------------------------------------------------------

        @initialize(text=strategies.initial_session_texts())
        def seed_store(self, text):
            self.initial_text = text
            if text is not None:
                (self.store / SESSION_FILE).write_text(text, encoding="utf-8")
            loaded = load_session_text(text)
            self.model = loaded.session
            if loaded.status == "degraded":
                self.original_bytes = text.encode("utf-8")

        @rule(text=strategies.writer_texts())
        def add_next_action(self, text):
            self.apply("add_next_action", {"text": text})

        @rule(count=st.integers(1, 2))
        def park_by_overflow(self, count):
            """Add fresh actions until `count` actions are parked by the overflow (spec 4.1)."""
            live = len(self.model["current"]["next_actions"])
            for _ in range(max(0, caps["next_actions"] - live) + count):
                self.overflow_count += 1
                if not self.apply("add_next_action", {"text": f"overflow task {self.overflow_count:02d}"}):
                    return

        @precondition(lambda self: self._readdable())
        @rule(data=st.data())
        def re_add(self, data):
            """Add again an action that is parked or completed (spec 4.1, 5.3.2), in another spelling."""
            text = data.draw(st.sampled_from(self._readdable()))
            self.apply("add_next_action", {"text": data.draw(st.sampled_from(strategies.text_variants(text.strip())))})

        @rule(data=st.data())
        def complete_next_action(self, data):
            open_texts = [a["text"] for a in self.model["current"]["next_actions"] + self.model["current"]["parked_actions"]]
            choices = st.sampled_from(open_texts) if open_texts else strategies.writer_texts()
            self.apply("complete_next_action", {"text": data.draw(st.one_of(choices, strategies.writer_texts()))})

        @rule(text=strategies.writer_texts())
        def add_goal(self, text):
            self.apply("add_goal", {"text": text})

        @precondition(lambda self: self.model["current"]["goals"])
        @rule(data=st.data())
        def complete_goal(self, data):
            text = data.draw(st.sampled_from([g["text"] for g in self.model["current"]["goals"]]))
            self.apply("complete_goal", {"text": data.draw(st.sampled_from(strategies.text_variants(text.strip())))})

        @rule(text=strategies.writer_texts())
        def add_question(self, text):
            self.apply("add_question", {"text": text})

        @rule(text=strategies.writer_texts(), why=st.sampled_from([None, "because"]))
        def add_decision(self, text, why):
            self.apply("add_decision", {"text": text} if why is None else {"text": text, "why": why})

        @precondition(lambda self: self._hideable())
        @rule(data=st.data(), purge=st.booleans())
        def hide_decision(self, data, purge):
            """Hide, or hide and purge, a decision the store holds (spec 5.3.1; AMB-HIDE-MISSING)."""
            text = data.draw(st.sampled_from(self._hideable()))
            variant = data.draw(st.sampled_from(strategies.text_variants(text.strip())))
            self.apply("hide_decision", {"text": variant, "purge": purge})

        @rule(summary=st.sampled_from(["refactor", "tests", "docs"]),
              session_id=st.sampled_from([None, "s-1", "s-2"]))
        def record_session(self, summary, session_id):
            args = {"summary": summary}
            if session_id is not None:
                args["session_id"] = session_id
            self.apply("record_session", args)

        def teardown(self):
            shutil.rmtree(self.store, ignore_errors=True)

        # -- helpers ---------------------------------------------------------------

        def _readdable(self) -> list[str]:
            current = self.model["current"]
            return [a["text"] for a in current["parked_actions"] + current["completed_actions"]
                    if isinstance(a.get("text"), str)]

        def _hideable(self) -> list[str]:
            return [d["text"] for d in self.model["current"]["decisions"] if not is_purged(d)]

        def _now(self, written: dict | None) -> str:
            """The step's `now` for the model: the implementation's own updated_at when it has one."""
            stamp = written.get("updated_at") if isinstance(written, dict) else None
            moment = dates.parse_date(stamp)
            if moment is not None and (self.last_now is None or moment >= self.last_now):
                self.last_now = moment
                return stamp
            moment = datetime.now(timezone.utc)
            if self.last_now is not None and moment <= self.last_now:
                moment = self.last_now + timedelta(milliseconds=1)
            self.last_now = moment
            return dates.format_timestamp(moment)

        def apply(self, op: str, args: dict) -> bool:
            """One op on both sides, then the comparison; False after a failure."""
            run.on_step()
            before_model = copy.deepcopy(self.model)
            first_step = not self.trace
            run.pacer.wait()
            result = subject.write(self.store, op, args)
            run.pacer.done()
            self.trace.append({"op": op, "args": dict(args)})
            data = read_bytes(self.store / SESSION_FILE)
            written = load_session_text(None if data is None else data.decode("utf-8", errors="replace"))
            raw = _raw_json(data)
            try:
                expected, _ = SESSION_OPS[op](self.model, stamp=Stamp(self._now(raw), MODEL_MACHINE), caps=caps, **args)
            except WriterError:
                # Ops the reference refuses are not generated on purpose; should one
                # slip through, follow the implementation rather than judge it.
                if written.status == "ok":
                    self.model = written.session
                return True
            self.model = expected
            problem = self._compare(op, args, result, data, raw, written, before_model)
            if problem is None:
                return True
            message, requirement, expected_view, actual_view, focus = problem
            before_text = self.initial_text if first_step else self._model_text(before_model)
            run.failures += 1
            run.failure = Counterexample(
                PROPERTY, requirement, _section_of(requirement), f"after step {len(self.trace)} ({op}): {message}",
                {"initial session.json": self.initial_text, "steps": list(self.trace)},
                expected=expected_view, actual=actual_view,
                expected_label="reference model", actual_label="implementation (session.json on disk)",
                case=WriteCase(before_text, ({"op": op, "args": dict(args)},), expected, focus),
            )
            raise AssertionError(run.failure.message)

        def _model_text(self, session: dict) -> str:
            return session_bytes(session).decode("utf-8")

        def _compare(self, op, args, result, data, raw, written, before_model):
            """None, or (message, requirement, expected, actual, focus)."""
            if isinstance(result, CallProblem):
                return (f"the implementation refused a valid op: {result}", _op_requirement(op, args, before_model),
                        "ok", str(result), ())
            if self.original_bytes is not None and not _kept_somewhere(self.store, self.original_bytes):
                return ("the unparseable session.json that the store held is gone, with no quarantine copy",
                        "S4.1-unparseable-not-discarded", "the original bytes, in session.json or a copy beside it",
                        sorted(p.name for p in self.store.iterdir()), ("quarantine",))
            if data is None or raw is None or written.status != "ok":
                return ("session.json is missing or not a readable session after the op",
                        "S6-session-version-required", "a session.json of version 1",
                        None if data is None else data.decode("utf-8", errors="replace")[:400], ())
            if isinstance(raw, dict) and (not isinstance(raw.get("version"), int) or isinstance(raw.get("version"), bool)):
                return ("session.json carries no integer `version`", "S6-session-version-required",
                        {"version": 1}, {"version": raw.get("version")}, ("version",))
            expected_view, actual_view = writer_view(self.model), writer_view(written.session)
            if expected_view != actual_view:
                differing = [key for key in expected_view if expected_view[key] != actual_view[key]]
                if set(differing) <= {"next_actions", "parked_actions"} and tie_explains(expected_view, actual_view, self.model):
                    pass
                else:
                    requirement = _view_requirement(differing, op, args, before_model)
                    return (f"the store differs from the reference model's in {', '.join(differing)}", requirement,
                            {k: expected_view[k] for k in differing}, {k: actual_view[k] for k in differing},
                            tuple(differing))
            return self._check_stamps(op, written.session) or self._check_item_fields(written.session) \
                or self._check_parked_added(written.session)

        def _check_stamps(self, op, session):
            """Items the model stamped carry parseable stamps in the file too (spec 8)."""
            for name, field in STAMPED_FIELDS.items():
                theirs = {item_key(i): i for i in session["current"][name]}
                for item in self.model["current"][name]:
                    copy_ = theirs.get(item_key(item))
                    if copy_ is None:
                        continue
                    if dates.parse_date(item.get(field)) is not None and dates.parse_date(copy_.get(field)) is None:
                        return (f"{name} item {normalize(item['text'])!r} has no valid {field!r} stamp",
                                _stamp_requirement(field), {field: "an ISO 8601 date-time"}, {field: copy_.get(field)},
                                (f"stamped/{name}",))
                    if isinstance(item.get("machine_id"), str) and not (
                            isinstance(copy_.get("machine_id"), str) and copy_["machine_id"].strip()):
                        return (f"{name} item {normalize(item['text'])!r} has no machine_id stamp",
                                "S8-writer-stamps-machine-id", {"machine_id": "a non-empty string"},
                                {"machine_id": copy_.get("machine_id")}, (f"stamped/{name}",))
            return None

        def _check_item_fields(self, session):
            """Fields of an item the writer does not know survive its rewrite (spec 3.2, 6)."""
            for name in ("next_actions", "parked_actions"):
                theirs = {item_key(i): i for i in session["current"]["next_actions"] + session["current"]["parked_actions"]}
                for item in self.model["current"][name]:
                    unknown = {k: v for k, v in item.items() if k.startswith("x_")}
                    copy_ = theirs.get(item_key(item))
                    if unknown and copy_ is not None and {k: copy_.get(k) for k in unknown} != unknown:
                        return (f"{name} item {normalize(item['text'])!r} lost fields the writer does not know",
                                "S6-unknown-fields-writers-preserve", unknown,
                                {k: copy_.get(k) for k in unknown}, ("item_fields",))
            return None

        def _check_parked_added(self, session):
            """Parking keeps `added` as it was (spec 4.1)."""
            current = session["current"]
            for action in current["parked_actions"]:
                key = item_key(action)
                if key in self.live_added and action.get("added") != self.live_added[key]:
                    was = self.live_added[key]
                    return (f"parked action {normalize(action['text'])!r} changed `added` from {was!r} to "
                            f"{action.get('added')!r}", "S4.1-parked-added-unchanged", {"added": was},
                            {"added": action.get("added")}, ("lists/parked_actions",))
            self.live_added = {item_key(a): a.get("added") for a in current["next_actions"]}
            return None

    return WriterOps


def _raw_json(data: bytes | None) -> object:
    if data is None:
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None


def _kept_somewhere(store: Path, original: bytes) -> bool:
    return any(path.is_file() and path.read_bytes() == original for path in store.rglob("*"))


def _stamp_requirement(field: str) -> str:
    return {"added": "S8-writer-stamps-added", "set_on": "S8-writer-stamps-set-on"}.get(field, "S8-writer-stamps-date")


def _op_requirement(op: str, args: dict, before: dict) -> str:
    """The requirement an op most directly exercises."""
    current = before["current"]
    key = item_key({"text": args.get("text", "")}) if isinstance(args.get("text"), str) else None
    parked = {item_key(a) for a in current["parked_actions"]}
    if op == "add_next_action":
        if key in parked:
            return "S4.1-parked-readd-returns-live"
        if key in {item_key(t) for t in current["completed_actions"]}:
            return "S5.3.2-readd-after-done-survives"
        return "S4.1-next-actions-rotate-to-parked" if len(current["next_actions"]) >= 1 else "S5.1-same-identity-same-item"
    if op == "complete_next_action":
        return "S4.1-parked-completable" if key in parked else "S5.3.2-complete-removes-and-records"
    if op == "complete_goal":
        return "S5.3.2-goals-completed-goals"
    if op == "hide_decision":
        return "S5.3.1-purged-form" if args.get("purge") else "S5.3.1-hidden-retained"
    if op == "record_session":
        return "S4.1-history-session-id-dedupe"
    return "S5.1-same-identity-same-item"


def _view_requirement(differing: list[str], op: str, args: dict, before: dict) -> str:
    if "unknown_top_level" in differing or "unknown_current" in differing:
        return "S6-unknown-fields-writers-preserve"
    if "history" in differing:
        return "S4.1-history-session-id-dedupe"
    if op == "add_next_action" and "parked_actions" in differing:
        key = item_key({"text": args["text"]})
        if key in {item_key(a) for a in before["current"]["parked_actions"]}:
            return "S4.1-parked-readd-returns-live"
        return "S4.1-next-actions-rotate-to-parked"
    return _op_requirement(op, args, before)


def _section_of(requirement: str) -> str:
    return requirement[1:].split("-", 1)[0]


WRITER_OPS_NEEDED = ("add_next_action", "complete_next_action", "add_goal", "complete_goal", "add_question",
                     "add_decision", "hide_decision", "record_session")
