"""`doctor`'s smoke tests: every op the adapter declares, sent once, on a tiny store.

The hygiene checks talk to the adapter with `describe` only; a `console.log`
inside `read_store`, a crash on a real request or an answer that breaks the
result schema only shows on a real request. Each declared op is sent once
with valid args on a fresh copy of a tiny store (two entries and a
session), and its answer is checked: answered in time, one clean line, an
ok that fits the op's result schema, no stray line after it. An ok that
leaves the store untouched, or a `read_store` that does not list the
store's entries, is a warning: the real run says exactly what is wrong.
"""

from __future__ import annotations

import json
from pathlib import Path

from conformance.protocol.messages import OPS_FOR_LEVEL, AdapterFault, Describe, ErrorResponse, Request
from conformance.doctor.probe import FIX_STDOUT, Check, Probe, _reply_problem, _shown
from conformance.runner.adapter_files import UnsafeFile, read_tree, remove_tree

# Request ids of the smoke tests (distinct from the hygiene checks' ids).
FIRST_ID = 5001
# How long stdout must stay quiet after each answer (a stray line comes with
# the answer; the hygiene check already waited longer once).
STRAY_LINE_GRACE = 0.1
TINY_FILES = {
    "memory/fact_tiny.md": "---\ntype: fact\nname: Tiny fact\n---\nSee [[lesson_tiny]].\n",
    "memory/lesson_tiny.md": "---\ntype: lesson\nname: Tiny lesson\n---\nKeep stores small.\n",
    "session.json": json.dumps({"version": 1, "current": {
        "goals": [{"text": "Ship the tiny store", "set_on": "2026-01-01T00:00:00.000Z"}],
        "next_actions": [{"text": "Write the tiny test", "added": "2026-01-01T00:00:00.000Z"}],
        "decisions": [{"text": "Use a tiny store", "date": "2026-01-01T00:00:00.000Z"}],
    }}, indent=2) + "\n",
}
ENTRIES = ("fact_tiny", "lesson_tiny")
# Valid args of each op on the tiny store (`store` is added).
WRITER_ARGS = {
    "add_goal": {"text": "Try every op once"},
    "complete_goal": {"text": "Ship the tiny store"},
    "add_next_action": {"text": "Read the doctor's report"},
    "complete_next_action": {"text": "Write the tiny test"},
    "add_question": {"text": "Does every op answer?"},
    "add_decision": {"text": "Smoke-test before the run", "why": "cheap"},
    "hide_decision": {"text": "Use a tiny store", "purge": False},
    "record_session": {"summary": "doctor smoke test"},
    "write_entry": {"link": "fact_new", "frontmatter": {"type": "fact", "name": "New fact"}, "body": "New.\n"},
    "update_entry": {"link": "fact_tiny", "set": {"name": "Tiny fact, renamed"}, "unset": []},
}
SMOKE_OPS = tuple(dict.fromkeys(OPS_FOR_LEVEL["full"]))


def tiny_store(target: Path) -> Path:
    for relative, text in TINY_FILES.items():
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return target


def _request(op: str, scratch: Path) -> tuple[dict, Path | None]:
    """Valid args for `op`, and the directory whose change shows the op did something."""
    area = scratch / f"smoke-{op}"
    remove_tree(area)
    area.mkdir(parents=True)
    if op == "read_store":
        return {"store": str(tiny_store(area / "store"))}, None
    if op == "merge_sessions":
        text = TINY_FILES["session.json"]
        return {"local": text, "remote": text.replace("Write the tiny test", "Merge the tiny test")}, None
    if op == "merge_stores":
        out = area / "out"
        out.mkdir()
        return {"local": str(tiny_store(area / "local")), "remote": str(tiny_store(area / "remote")),
                "out": str(out)}, out
    store = tiny_store(area / "store")
    return {"store": str(store), **WRITER_ARGS[op]}, store


def smoke_checks(probe: Probe, described: Describe, protocol: int, scratch: Path) -> list[Check]:
    """One check per declared op, in the protocol's order."""
    checks = []
    for number, op in enumerate(op for op in SMOKE_OPS if op in described.ops):
        if probe.stalled:
            checks.append(Check(op, "SKIP", "not sent: the adapter stopped answering"))
            continue
        checks.append(_smoke(probe, Request(protocol, FIRST_ID + number, op, {}), scratch))
    return checks


def _smoke(probe: Probe, request: Request, scratch: Path) -> Check:
    op = request.op
    args, changed = _request(op, scratch)
    before = read_tree(changed) if changed is not None else {}
    reply = probe.roundtrip(Request(request.protocol, request.id, op, args))
    problem = _reply_problem(reply, f"a {op} request on a tiny store", probe.timeout, probe.oneshot)
    if problem is not None:
        return Check(op, "FAIL", problem.summary, problem.fix)
    outcome = reply.outcome
    if isinstance(outcome, AdapterFault):  # not reached: _reply_problem names every fault
        return Check(op, "FAIL", outcome.detail)
    if isinstance(outcome, ErrorResponse):
        # The message often carries a command's stderr: its line breaks (made printable when it was
        # read) are shown as lines again, each on a line of its own below the check.
        message = outcome.message.replace("\\u000a", "\n")
        if outcome.kind == "unsupported":
            return Check(op, "FAIL", f"declared in describe.ops but answered unsupported: {message}",
                         "implement it, or leave it out of ops (its vectors are then not applicable)")
        if outcome.kind == "internal":
            return Check(op, "FAIL", f"failed on a valid request (internal: {message})", "see its stderr below")
        return Check(op, "WARN", f"refused a valid request ({outcome.kind}: {message})",
                     "only refuse what the spec lets an implementation refuse")
    extra = reply.extra_line if probe.oneshot else probe.quiet(STRAY_LINE_GRACE)
    if extra is not None:
        probe.stop()
        return Check(op, "FAIL", f"an extra line followed the answer: {_shown(extra)}", FIX_STDOUT)
    if op == "read_store":
        links = sorted(entry.get("link") for entry in outcome.result.get("entries", []) if isinstance(entry, dict))
        if links != sorted(ENTRIES):
            return Check(op, "WARN", f"answered, but listed entries {links} of a store holding {list(ENTRIES)}",
                         "read the store directory given in args.store (an absolute path)")
        return Check(op, "PASS", "answered on a tiny store, listing its two entries")
    try:
        unchanged = changed is not None and read_tree(changed, shown=changed.name) == before
    except UnsafeFile as unsafe:
        return Check(op, "FAIL", str(unsafe), "leave only regular files and shallow directories in a store: no links, FIFOs or devices")
    if unchanged:
        return Check(op, "WARN", "answered ok but changed nothing in the store it was given",
                     "write to the directory given in args (an absolute path), not the working directory")
    return Check(op, "PASS", "answered on a tiny store" + ("" if changed is None else " and changed it"))
