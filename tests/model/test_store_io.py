"""The store on disk: locked read-mutate-write, atomic replace, quarantine (spec 4.1, 6)."""

from __future__ import annotations

import json
import multiprocessing
import threading

import pytest

from conformance.model import store
from conformance.model.writer import Stamp, WriterError


def stamp(minute: int = 0) -> Stamp:
    return Stamp(f"2026-05-01T10:{minute:02d}:00.000Z", "machine-a", "laptop")


def session_of(path):
    return json.loads((path / "session.json").read_text(encoding="utf-8"))


def test_reading_never_writes(tmp_path):
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "fact_a.md").write_text("---\ntype: fact\nname: A\n---\nbody\n", encoding="utf-8")
    (tmp_path / "session.json").write_text("{broken", encoding="utf-8")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    result = store.read_store(tmp_path)
    assert result["session"]["status"] == "degraded"
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_a_writer_quarantines_unparseable_json_before_replacing_it(tmp_path):
    (tmp_path / "session.json").write_bytes(b"{broken")
    log = store.apply_session_op(tmp_path, "add_goal", stamp(), text="g")
    copies = list(tmp_path.glob("session.json.quarantine-*"))
    assert len(copies) == 1 and copies[0].read_bytes() == b"{broken"
    assert "quarantined" in log[0]
    assert [g["text"] for g in session_of(tmp_path)["current"]["goals"]] == ["g"]


def test_a_writer_never_writes_over_a_newer_version(tmp_path):
    original = b'{"version": 2, "current": {}}'
    (tmp_path / "session.json").write_bytes(original)
    with pytest.raises(WriterError, match="newer"):
        store.apply_session_op(tmp_path, "add_goal", stamp(), text="g")
    assert (tmp_path / "session.json").read_bytes() == original


def _add_many(directory: str, worker: int, count: int) -> None:
    for n in range(count):
        store.apply_session_op(directory, "add_next_action", Stamp(f"2026-05-01T10:00:00.{worker}{n:02d}Z", f"m{worker}"),
                               caps={"next_actions": 8, "parked_actions": 1000, "completed_actions": 50}, text=f"w{worker} n{n}")


def test_concurrent_writers_lose_no_update(tmp_path):
    workers = [multiprocessing.Process(target=_add_many, args=(str(tmp_path), w, 15)) for w in range(4)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(60)
    current = session_of(tmp_path)["current"]
    texts = {a["text"] for a in current["next_actions"] + current["parked_actions"]}
    assert texts == {f"w{w} n{n}" for w in range(4) for n in range(15)}


def test_a_concurrent_reader_never_sees_a_partial_file(tmp_path):
    store.apply_session_op(tmp_path, "add_goal", stamp(), text="first")
    stop = threading.Event()
    partial: list[str] = []

    def read_continuously():
        while not stop.is_set():
            text = (tmp_path / "session.json").read_text(encoding="utf-8")
            try:
                json.loads(text)
            except ValueError:
                partial.append(text)

    reader = threading.Thread(target=read_continuously)
    reader.start()
    for n in range(150):
        store.apply_session_op(tmp_path, "record_session", stamp(n % 60), summary=f"row {n}" * 40)
    stop.set()
    reader.join()
    assert partial == []


ENTRY = "---\ntype: lesson\nname: L\nx_custom: keep me   # odd\ntags:\n  - a\n  - b\ntrigger: t\n---\n**How to apply:** x\n"


def test_update_entry_changes_only_the_asked_keys(tmp_path):
    (tmp_path / "memory").mkdir()
    path = tmp_path / "memory" / "lesson_l.md"
    path.write_text(ENTRY, encoding="utf-8")
    other = tmp_path / "memory" / "fact_other.md"
    other.write_bytes(b"no frontmatter at all\r\n")
    store.update_entry(tmp_path, "lesson_l", {"trigger": "new trigger", "how_to_apply": "do y"}, ["tags"], stamp())
    text = path.read_text(encoding="utf-8")
    assert "x_custom: keep me   # odd\n" in text
    assert "trigger: new trigger\n" in text and "how_to_apply: do y\n" in text
    assert "tags" not in text and "  - a" not in text
    assert text.endswith("---\n**How to apply:** x\n")
    assert other.read_bytes() == b"no frontmatter at all\r\n"


def test_write_entry_stamps_and_refuses_legacy_and_escapes(tmp_path):
    store.write_entry(tmp_path, "next_action_x", {"type": "next_action", "name": "X"}, "body\n", stamp(3))
    from conformance.model.entry import read_entry

    reading = read_entry("next_action_x", (tmp_path / "memory" / "next_action_x.md").read_text(encoding="utf-8"))
    assert reading["fields"]["added"] == "2026-05-01T10:03:00.000Z"
    assert reading["fields"]["machine_id"] == "machine-a"
    for link, fields in (("a", {"type": "feedback", "name": "n"}), ("../escape", {"type": "fact", "name": "n"})):
        with pytest.raises(WriterError):
            store.write_entry(tmp_path, link, fields, "", stamp())
    assert not (tmp_path / "escape.md").exists()


@pytest.mark.parametrize("preamble", ["", "<!-- note -->\n\n"])
def test_update_entry_replaces_the_first_key_in_place(tmp_path, preamble):
    (tmp_path / "memory").mkdir()
    path = tmp_path / "memory" / "fact_a.md"
    path.write_bytes((preamble + "---\r\nname: old\r\ntype: fact\r\n---\r\nbody\r\n").encode())
    store.update_entry(tmp_path, "fact_a", {"name": "new"}, [], stamp())
    assert path.read_bytes().decode() == (
        preamble + "---\r\nname: new\r\ntype: fact\r\nupdated: \"2026-05-01T10:00:00.000Z\"\r\n---\r\nbody\r\n"
    )


NEWER_ENTRY = b"---\ntype: fact\nname: A\nschema_version: 2\nupdated: 2026-01-01\n---\nnewer\n"
OLDER_ENTRY = b"---\ntype: fact\nname: A\nupdated: 2026-06-01\n---\nolder, but dated later\n"


def test_update_entry_refuses_a_newer_schema_and_leaves_the_bytes(tmp_path):
    (tmp_path / "memory").mkdir()
    path = tmp_path / "memory" / "fact_a.md"
    path.write_bytes(NEWER_ENTRY)
    with pytest.raises(WriterError, match="newer"):
        store.update_entry(tmp_path, "fact_a", {"name": "B"}, [], stamp())
    assert path.read_bytes() == NEWER_ENTRY


def _store(root, name, files):
    for relative, data in files.items():
        (root / name / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / name / relative).write_bytes(data)
    return root / name


def _files(directory):
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in directory.rglob("*") if p.is_file()}


@pytest.mark.parametrize("newer_side", ["local", "remote"])
def test_merge_stores_keeps_a_newer_schema_copy_in_place(tmp_path, newer_side):
    sides = {"local": OLDER_ENTRY, "remote": OLDER_ENTRY, newer_side: NEWER_ENTRY}
    local = _store(tmp_path, "local", {"memory/fact_a.md": sides["local"]})
    remote = _store(tmp_path, "remote", {"memory/fact_a.md": sides["remote"]})
    store.merge_stores(local, remote, tmp_path / "out")
    assert _files(tmp_path / "out") == {"memory/fact_a.md": NEWER_ENTRY}


def test_merge_stores_keeps_two_newer_copies_and_each_degraded_session(tmp_path):
    other = NEWER_ENTRY.replace(b"schema_version: 2", b"schema_version: 3")
    newer_session = b'{"version": 2, "current": {}}'
    local = _store(tmp_path, "local", {"memory/fact_a.md": NEWER_ENTRY, "session.json": newer_session})
    remote = _store(tmp_path, "remote", {"memory/fact_a.md": other, "session.json": b"{broken"})
    store.merge_stores(local, remote, tmp_path / "out")
    store.merge_stores(local, remote, tmp_path / "out")  # a second merge keeps one copy of each
    files = _files(tmp_path / "out")
    assert files["memory/fact_a.md"] == max(NEWER_ENTRY, other)
    copies = {name: data for name, data in files.items() if ".quarantine-" in name}
    assert sorted(copies.values()) == sorted([min(NEWER_ENTRY, other), newer_session, b"{broken"])
    assert json.loads(files["session.json"])["version"] == 1
