"""The merge invariants of spec 5.4, checked through an implementation's own merge.

Each property is a generated example (two replica texts, sometimes a chain
of stale replicas) and a check that calls `merge_sessions` on the
implementation under test and returns `None` or a `Counterexample`. The
checks read the implementation's merged session with the reference model's
reader (sanitize, render), never with the implementation's own.

- no-silent-loss: every identity of A and B is in merge(A, B), live or
  suppressed by a tombstone, up to cap rotation with the declared caps.
- convergence: merge(A, B) and merge(B, A) render identically.
- idempotence: merging a replica with itself renders as the replica does.
- monotone-suppression: hidden stays hidden and completed stays completed
  along a chain of merges with stale replicas.
- unknown-keys: unknown keys under `current` and at top level pass
  through, the local copy winning.
- degraded-replicas: a newer-version or unparseable replica contributes
  nothing (spec 6).
- differential: the merge agrees with the reference model's, same caps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from hypothesis import strategies as st

from conformance.fuzz import strategies
from conformance.fuzz.counterexample import Counterexample, MergeCase
from conformance.fuzz.subject import CallProblem, Subject, session_text
from conformance.fuzz.views import (
    first_difference,
    loaded,
    render_texts,
    session_view,
)
from conformance.model import dates
from conformance.model.identity import is_purged, item_key, normalize, text_hash
from conformance.model.merge import merge_session_texts
from conformance.model.session import (
    KNOWN_LISTS,
    KNOWN_TOP_LEVEL,
    is_suppressed,
    load_session_text,
    render,
    tombstone_index,
)

EMPTY_REPLICA = '{"version": 1}'


@dataclass(frozen=True)
class MergeExample:
    """Replica texts: `local` and `remote`, and for chains the stale replicas merged in after."""

    local: str
    remote: str
    stale: tuple[str, ...] = ()

    def inputs(self) -> dict[str, str]:
        named = {"local": self.local, "remote": self.remote}
        named.update({f"stale {index + 1}": text for index, text in enumerate(self.stale)})
        return named


@dataclass(frozen=True)
class MergeProperty:
    name: str
    title: str
    section: str
    requirement: str
    examples: Callable[[dict], st.SearchStrategy[MergeExample]]
    check: Callable[[Subject, MergeExample], Counterexample | None]
    differential: bool = False
    kind: str = "merge"
    needs: tuple[str, ...] = ("merge_sessions",)


# --- examples ---------------------------------------------------------------------

def pairs(caps: dict) -> st.SearchStrategy[MergeExample]:
    return strategies.colliding_pairs(caps).map(lambda texts: MergeExample(*texts))


@st.composite
def chains(draw, caps: dict) -> MergeExample:
    """Two colliding replicas, then one to three stale replicas of them (crowded now and then)."""
    a, b = draw(strategies.colliding_sessions(caps))
    crowd = strategies.crowding(strategies.default_caps(caps))
    stale = draw(st.lists(strategies.stale_replicas([a, b]).flatmap(crowd), min_size=1, max_size=3))
    return MergeExample(strategies.as_text(a), strategies.as_text(b), tuple(map(strategies.as_text, stale)))


def degraded_pairs(caps: dict) -> st.SearchStrategy[MergeExample]:
    return strategies.one_side_degraded(caps).map(lambda texts: MergeExample(*texts))


# --- shared helpers -----------------------------------------------------------------

def ok_sessions(*texts: str) -> list[dict]:
    """The replicas that take part in a merge: those the reference reads as ok (spec 6)."""
    return [loaded.session for loaded in map(load_session_text, texts) if loaded.status == "ok"]


def problem_counterexample(name: str, problem: CallProblem, example: MergeExample, requirement: str,
                           section: str) -> Counterexample:
    detail = f"{problem}" + (f"\nadapter stderr:\n{problem.stderr_tail.strip()}" if problem.stderr_tail.strip() else "")
    return Counterexample(
        name, requirement, section, f"the implementation did not merge the replicas: {problem}",
        example.inputs(), expected="a merged session", actual=detail,
        case=MergeCase(example.local, example.remote),
    )


def newest(items: list[dict], field: str) -> dict[str, object]:
    """identity -> the newest date (as sort key) over the copies."""
    found: dict[str, object] = {}
    for item in items:
        key = item_key(item)
        moment = dates.sort_key(item.get(field))
        if key not in found or moment > found[key]:
            found[key] = moment
    return found


def labels(items: list[dict]) -> dict[str, str]:
    shown = {}
    for item in items:
        key = item_key(item)
        text = item.get("text")
        shown.setdefault(key, normalize(text) if isinstance(text, str) and not item.get("text_hash") else f"sha256:{key}")
    return shown


# --- no silent loss (5.4) -------------------------------------------------------------

def _rotated(kept: list[dict], field: str, cap: int, moment) -> bool:
    """Cap rotation explains a missing item: the list is full of items no older than it (4.1)."""
    return len(kept) >= cap and all(dates.sort_key(item.get(field)) >= moment for item in kept)


def _suppressed(tombstones: list[dict], key: str, moment) -> bool:
    return any(item_key(t) == key and dates.sort_key(t.get("done_at")) >= moment for t in tombstones)


def lost_identities(sides: list[dict], merged: dict, caps: dict) -> dict[str, list[str]]:
    """Per list, the identities of the sides that the merge lost without a reason the spec gives."""
    current = merged["current"]
    lost: dict[str, list[str]] = {}

    def check(name: str, copies: list[dict], present: list[dict], field: str, kept: list[dict], cap: int,
              tombstones: list[dict] | None = None) -> None:
        there = {item_key(item) for item in present}
        shown = labels(copies)
        for key, moment in newest(copies, field).items():
            if key in there or _rotated(kept, field, cap, moment):
                continue
            if tombstones is not None and _suppressed(tombstones, key, moment):
                continue
            lost.setdefault(name, []).append(shown[key])

    def pooled(*names: str) -> list[dict]:
        return [item for side in sides for name in names for item in side["current"][name]]

    open_actions = current["next_actions"] + current["parked_actions"]
    check("next_actions + parked_actions", pooled("next_actions", "parked_actions"), open_actions, "added",
          open_actions, caps["next_actions"] + caps["parked_actions"], current["completed_actions"])
    check("goals", pooled("goals"), current["goals"], "set_on", current["goals"], caps["goals"],
          current["completed_goals"])
    check("open_questions", pooled("open_questions"), current["open_questions"], "asked",
          current["open_questions"], caps["open_questions"])
    visible = [d for d in current["decisions"] if d.get("hidden") is not True]
    check("decisions", pooled("decisions"), current["decisions"], "date", visible, caps["decisions"])
    for name in ("completed_actions", "completed_goals"):
        check(name, pooled(name), current[name], "done_at", current[name], caps[name])
    uuids = {uuid for side in sides for uuid in side["machines"]}
    missing = sorted(uuids - set(merged["machines"]))
    if missing:
        lost["machines"] = missing
    rows = [row for side in sides for row in side["history"]]
    kept_rows = merged["history"]

    def triple(row: dict) -> tuple:
        return row.get("date"), row.get("machine_id"), row.get("summary")

    for row in rows:
        same = [r for r in kept_rows
                if (row.get("session_id") and r.get("session_id") == row.get("session_id")) or triple(r) == triple(row)]
        if not same and not _rotated(kept_rows, "date", caps["history"], dates.sort_key(row.get("date"))):
            lost.setdefault("history", []).append(f"{row.get('summary')} ({row.get('date')}, {row.get('machine_id')})")
    return lost


def check_no_silent_loss(subject: Subject, example: MergeExample) -> Counterexample | None:
    name, requirement, section = "no-silent-loss", "S5.4-no-silent-loss", "5.4"
    merged = subject.merge(example.local, example.remote)
    if isinstance(merged, CallProblem):
        return problem_counterexample(name, merged, example, requirement, section)
    sides = ok_sessions(example.local, example.remote)
    lost = lost_identities(sides, loaded(merged), subject.caps)
    if not lost:
        return None
    where = ", ".join(f"{list_name}: {', '.join(map(repr, items))}" for list_name, items in lost.items())
    return Counterexample(
        name, requirement, section,
        f"merge(A, B) lost identities that neither a tombstone nor cap rotation explains ({where})",
        example.inputs(),
        expected={list_name: sorted(items) for list_name, items in lost.items()},
        actual={"live": render(loaded(merged)),
                "completed_actions": [t.get("text") for t in loaded(merged)["current"]["completed_actions"]]},
        expected_label="identities that must be in merge(A, B)", actual_label="merge(A, B)",
        case=MergeCase(example.local, example.remote, focus=tuple(f"lists/{n}" for n in _focus_lists(lost))),
        related=("S5.2-union-never-clobber", "S5.2-union-by-identity"),
    )


def _focus_lists(lost: dict) -> list[str]:
    names = []
    for key in lost:
        if key == "next_actions + parked_actions":
            names += ["next_actions", "parked_actions"]
        elif key in KNOWN_LISTS:
            names.append(key)
    return names


# --- convergence and idempotence (5.4) ----------------------------------------------

def check_convergence(subject: Subject, example: MergeExample) -> Counterexample | None:
    name, requirement, section = "convergence", "S5.4-convergence-commutative", "5.4"
    ab = subject.merge(example.local, example.remote)
    if isinstance(ab, CallProblem):
        return problem_counterexample(name, ab, example, requirement, section)
    ba = subject.merge(example.remote, example.local)
    if isinstance(ba, CallProblem):
        return problem_counterexample(name, ba, MergeExample(example.remote, example.local), requirement, section)
    if render_texts(ab) == render_texts(ba):
        return None
    reference = render_texts(merge_session_texts(example.local, example.remote, subject.caps))
    # Save the orientation whose render the reference model disagrees with.
    case = MergeCase(example.local, example.remote) if render_texts(ab) != reference else MergeCase(example.remote, example.local)
    return Counterexample(
        name, requirement, section, "merge(A, B) and merge(B, A) render differently",
        example.inputs(), expected=render_texts(ab), actual=render_texts(ba),
        expected_label="render of merge(A, B)", actual_label="render of merge(B, A)", case=case,
    )


def check_idempotence(subject: Subject, example: MergeExample) -> Counterexample | None:
    """A is a replica as the implementation writes it (its merge of two
    generated replicas): a generated replica is no fixed point when it holds
    duplicates or more items than the caps."""
    name, requirement, section = "idempotence", "S5.4-idempotent", "5.4"
    replica = subject.merge(example.local, example.remote)
    if isinstance(replica, CallProblem):
        return problem_counterexample(name, replica, example, requirement, section)
    text = session_text(replica)
    again = subject.merge(text, text)
    if isinstance(again, CallProblem):
        return problem_counterexample(name, again, MergeExample(text, text), requirement, section)
    inputs = {**example.inputs(), "A = merge(local, remote)": text}
    if render_texts(again) != render_texts(replica):
        return Counterexample(
            name, requirement, section, "merge(A, A) does not render as A does",
            inputs, expected=render_texts(replica), actual=render_texts(again),
            expected_label="render of A", actual_label="render of merge(A, A)", case=MergeCase(text, text),
        )
    before, after = session_view(replica), session_view(again)
    if before != after:
        where = first_difference(before, after)
        return Counterexample(
            name, requirement, section, f"merge(A, A) is not a no-op: it changes {where}",
            inputs, expected=before, actual=after, expected_label="A", actual_label="merge(A, A)",
            case=MergeCase(text, text, focus=(_component(where),)),
        )
    return None


def _component(path: str | None) -> str:
    """The `session_view` component a difference path lies in: "lists/goals", "history", ..."""
    parts = (path or "/").strip("/").split("/")
    if parts[0] in ("lists", "live") and len(parts) > 1:
        return f"lists/{parts[1]}"
    return parts[0]


# --- monotone suppression (5.4, 5.3) -------------------------------------------------------

def hidden_keys(session: dict) -> dict[str, str]:
    return {item_key(d): ("purged" if is_purged(d) else "hidden")
            for d in session["current"]["decisions"] if d.get("hidden") is True}


def resurrections(before: dict, after: dict, caps: dict) -> list[str]:
    """What `before` suppressed and `after` shows again (5.3.1, 5.3.2)."""
    found = []
    hidden_before, hidden_after = hidden_keys(before), hidden_keys(after)
    shown = labels(before["current"]["decisions"])
    for key, flag in hidden_before.items():
        if key not in hidden_after:
            found.append(f"decision {shown[key]!r} was {flag} and is not any more")
        elif flag == "purged" and hidden_after[key] != "purged":
            found.append(f"decision {shown[key]!r} was purged and its text is back")
    for list_names, tomb_list, field in ((("next_actions", "parked_actions"), "completed_actions", "added"),
                                        (("goals",), "completed_goals", "set_on")):
        kept_tombstones = {item_key(t) for t in after["current"][tomb_list]}
        rotated = len(after["current"][tomb_list]) >= caps[tomb_list]
        suppressing = tombstone_index(after["current"][tomb_list])
        for tombstone in before["current"][tomb_list]:
            key = item_key(tombstone)
            if key not in kept_tombstones and rotated:
                continue  # the tombstone rotated out at the cap (4.1, AMB-TOMBSTONE-CAPS)
            done = dates.sort_key(tombstone.get("done_at"))
            for name in list_names:
                for item in after["current"][name]:
                    stale = dates.sort_key(item.get(field)) <= done
                    # A stale copy that the merged tombstones no longer suppress is shown again.
                    if item_key(item) == key and stale and not is_suppressed(item, suppressing, field):
                        found.append(f"{name} item {normalize(item['text'])!r} was completed at "
                                     f"{tombstone.get('done_at')!r} and is open again with {field} {item.get(field)!r}")
    return found


def suppression_view(session: dict) -> dict:
    """Tombstones and what is shown, for the diff of a resurrection."""
    view = session_view(session)
    return {
        "decisions (visible, hidden or purged)": view["decisions"],
        "completed_actions": sorted(view["lists"]["completed_actions"]),
        "completed_goals": sorted(view["lists"]["completed_goals"]),
        "shown": {name: view["live"][name] for name in ("decisions", "next_actions", "parked_actions", "goals")},
    }


def check_monotone_suppression(subject: Subject, example: MergeExample) -> Counterexample | None:
    name, requirement, section = "monotone-suppression", "S5.4-monotone-suppression", "5.4"
    state = subject.merge(example.local, example.remote)
    if isinstance(state, CallProblem):
        return problem_counterexample(name, state, example, requirement, section)
    for index, stale in enumerate(example.stale):
        previous = session_text(state)
        local, remote = (stale, previous) if index % 2 == 0 else (previous, stale)
        merged = subject.merge(local, remote)
        if isinstance(merged, CallProblem):
            return problem_counterexample(name, merged, MergeExample(local, remote), requirement, section)
        back = resurrections(loaded(state), loaded(merged), subject.caps)
        if back:
            step = "merge(stale, M)" if index % 2 == 0 else "merge(M, stale)"
            return Counterexample(
                name, requirement, section,
                f"suppression is not monotone: {step} with stale replica {index + 1} resurrects: " + "; ".join(back),
                {**example.inputs(), "M (merged so far)": previous},
                expected=suppression_view(state), actual=suppression_view(merged),
                expected_label="M", actual_label=step,
                case=MergeCase(local, remote, focus=("decisions", "lists/completed_actions", "lists/completed_goals")),
                related=("S5.3-tombstones-sticky", "S5.3.1-hidden-sticky", "S5.3.2-suppress-not-later-than-done"),
            )
        state = merged
    return None


# --- unknown keys (5.4) --------------------------------------------------------------------

def check_unknown_keys(subject: Subject, example: MergeExample) -> Counterexample | None:
    name, section = "unknown-keys", "5.4"
    merged = subject.merge(example.local, example.remote)
    if isinstance(merged, CallProblem):
        return problem_counterexample(name, merged, example, "S5.4-unknown-top-level-keys-pass-through", section)
    local, remote = (load_session_text(text) for text in (example.local, example.remote))
    sides = [(side, label) for side, label in ((remote, "remote"), (local, "local")) if side.status == "ok"]
    def under_current(session: dict) -> dict:
        return session.get("current") if isinstance(session.get("current"), dict) else {}

    for where, container, known in (("current", under_current, KNOWN_LISTS), ("top level", lambda s: s, KNOWN_TOP_LEVEL)):
        expected = {}
        for side, _ in sides:   # remote first: the local copy wins (5.4)
            expected.update({k: v for k, v in container(side.session).items() if k not in known})
        actual_all = container(merged) if isinstance(container(merged), dict) else {}
        actual = {k: actual_all[k] for k in expected if k in actual_all}
        if actual != expected:
            missing = sorted(set(expected) - set(actual))
            local_keys = set(container(local.session)) if local.status == "ok" else set()
            wrong = sorted(k for k in expected if k in actual and actual[k] != expected[k])
            if missing:
                requirement = ("S5.4-unknown-current-keys-pass-through" if where == "current"
                               else "S5.4-unknown-top-level-keys-pass-through")
                message = f"unknown key(s) {missing} at {where} did not pass through the merge"
            else:
                requirement = "S5.4-unknown-keys-local-wins" if any(k in local_keys for k in wrong) else \
                    "S5.4-unknown-current-keys-pass-through"
                message = f"unknown key(s) {wrong} at {where} pass through with the wrong value (the local copy wins)"
            focus = "unknown_current" if where == "current" else "unknown_top_level"
            return Counterexample(
                name, requirement, section, message, example.inputs(), expected=expected, actual=actual,
                expected_label=f"unknown keys at {where}, local winning", actual_label="merge(local, remote)",
                case=MergeCase(example.local, example.remote, focus=(focus,)),
            )
    return None


# --- degraded replicas (6) ------------------------------------------------------------------

def check_degraded_replicas(subject: Subject, example: MergeExample) -> Counterexample | None:
    name, requirement, section = "degraded-replicas", "S6-degraded-contributes-nothing", "6"
    statuses = [load_session_text(text).status for text in (example.local, example.remote)]
    if statuses.count("degraded") != 1:
        return None
    merged = subject.merge(example.local, example.remote)
    if isinstance(merged, CallProblem):
        return problem_counterexample(name, merged, example, requirement, section)
    alone_local, alone_remote = ((example.local, EMPTY_REPLICA) if statuses[0] == "ok"
                                 else (EMPTY_REPLICA, example.remote))
    alone = subject.merge(alone_local, alone_remote)
    if isinstance(alone, CallProblem):
        return problem_counterexample(name, alone, MergeExample(alone_local, alone_remote), requirement, section)
    with_degraded, without = session_view(merged), session_view(alone)
    without["created_at"] = with_degraded["created_at"] = None  # the empty replica has none
    if with_degraded == without:
        return None
    side = "local" if statuses[0] == "degraded" else "remote"
    where = first_difference(without, with_degraded)
    return Counterexample(
        name, requirement, section,
        f"the {side} replica is degraded (newer version or unparseable) and still changed the merge at {where}",
        example.inputs(), expected=without, actual=with_degraded,
        expected_label="merge with an empty replica in its place", actual_label="merge(local, remote)",
        case=MergeCase(example.local, example.remote, focus=(_component(where),)),
        related=("S6-forward-no-interpret",),
    )


# --- differential ---------------------------------------------------------------------------

# Which requirement a difference in a component of the view most likely breaks.
COMPONENT_REQUIREMENTS = {
    "lists/next_actions": "S5.2-next-actions-pool-live-and-parked",
    "lists/parked_actions": "S5.2-resplit-newest-live",
    "lists/goals": "S5.3.2-goals-completed-goals",
    "lists/open_questions": "S5.2-union-by-identity",
    "lists/decisions": "S5.3.1-hidden-sticky",
    "lists/completed_actions": "S5.3.2-completed-union-newest-done-at",
    "lists/completed_goals": "S5.3.2-goals-completed-goals",
    "decisions": "S5.3.1-hidden-sticky",
    "machines": "S5.2-machines-newer-last-seen",
    "history": "S5.2-history-dedupe",
    "created_at": "S5.2-created-at-earlier",
    "updated_at": "S5.2-updated-at-later",
    "unknown_top_level": "S5.4-unknown-top-level-keys-pass-through",
    "unknown_current": "S5.4-unknown-current-keys-pass-through",
}


def requirement_for(path: str, expected: dict, actual: dict) -> str:
    component = _component(path)
    parts = path.strip("/").split("/")
    if parts[0] == "lists" and len(parts) > 1 and any(
            label.endswith(" (again)") for label in actual["lists"].get(parts[1], {})):
        return "S5.1-same-identity-same-item"   # one identity held twice: spellings not folded together
    purged = {label[len("sha256:"):] for label, flag in expected.get("decisions", {}).items() if flag == "purged"}
    if parts[-1] and text_hash(parts[-1]) in purged:
        return "S5.3.1-purged-matches-hash"     # a copy of a purged identity is still there
    if component == "decisions" and len(parts) > 1:
        flags = {expected.get("decisions", {}).get(parts[1]), actual.get("decisions", {}).get(parts[1])}
        if "purged" in flags:
            return "S5.3.1-purged-wins-merge"
    if parts[0] == "lists" and len(parts) > 2:
        want = expected["lists"].get(parts[1], {}).get(parts[2])
        got = actual["lists"].get(parts[1], {}).get(parts[2])
        if want is not None and got is not None:
            return "S5.2-missing-date-is-epoch" if "epoch" in f"{want}{got}" else "S5.2-newest-wins"
        if want is not None and got is None and not any(k.startswith(parts[2]) for k in actual["lists"].get(parts[1], {})):
            return "S5.2-union-by-identity"
    if parts[0] == "live":
        return COMPONENT_REQUIREMENTS.get(f"lists/{parts[1]}" if len(parts) > 1 else "", "S5-full-implements-section")
    return COMPONENT_REQUIREMENTS.get(component, "S5-full-implements-section")


def check_differential(subject: Subject, example: MergeExample) -> Counterexample | None:
    name = "differential"
    merged = subject.merge(example.local, example.remote)
    if isinstance(merged, CallProblem):
        return problem_counterexample(name, merged, example, "S5-full-implements-section", "5")
    reference = merge_session_texts(example.local, example.remote, subject.caps)
    expected, actual = session_view(reference), session_view(merged)
    if expected == actual:
        return None
    where = first_difference(expected, actual)
    requirement = requirement_for(where, expected, actual)
    return Counterexample(
        name, requirement, _section_of(requirement),
        f"the merge differs from the reference model's (same caps) at {where}",
        example.inputs(), expected=expected, actual=actual,
        expected_label="reference model: merge(local, remote)", actual_label="implementation: merge(local, remote)",
        case=MergeCase(example.local, example.remote, focus=_differing_components(expected, actual)),
        related=("S5-full-implements-section",),
    )


def _differing_components(expected: dict, actual: dict) -> tuple[str, ...]:
    found = []
    for key in expected:
        if key == "lists":
            found += [f"lists/{name}" for name in expected["lists"] if expected["lists"][name] != actual["lists"].get(name)]
        elif key == "live":
            found += [f"lists/{name}" for name in expected["live"] if expected["live"][name] != actual["live"].get(name)]
        elif expected[key] != actual.get(key):
            found.append(key)
    return tuple(dict.fromkeys(found))


def _section_of(requirement: str) -> str:
    return requirement[1:].split("-", 1)[0]


MERGE_PROPERTIES: tuple[MergeProperty, ...] = (
    MergeProperty("no-silent-loss", "every identity of A and B is in merge(A, B), live or suppressed, up to cap rotation",
                  "5.4", "S5.4-no-silent-loss", pairs, check_no_silent_loss),
    MergeProperty("convergence", "merge(A, B) and merge(B, A) render identically",
                  "5.4", "S5.4-convergence-commutative", pairs, check_convergence),
    MergeProperty("idempotence", "merging a replica with itself renders as the replica",
                  "5.4", "S5.4-idempotent", pairs, check_idempotence),
    MergeProperty("monotone-suppression", "hidden stays hidden and completed stays completed along chains of stale merges",
                  "5.4", "S5.4-monotone-suppression", chains, check_monotone_suppression),
    MergeProperty("unknown-keys", "unknown keys under current and at top level pass through, local winning",
                  "5.4", "S5.4-unknown-current-keys-pass-through", pairs, check_unknown_keys),
    MergeProperty("degraded-replicas", "a newer-version or unparseable replica contributes nothing",
                  "6", "S6-degraded-contributes-nothing", degraded_pairs, check_degraded_replicas),
    MergeProperty("differential", "the merge agrees with the reference model's, with the declared caps",
                  "5", "S5-full-implements-section", pairs, check_differential, differential=True),
)
