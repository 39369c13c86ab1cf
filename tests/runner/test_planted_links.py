"""The runner never writes through a link an adapter left in its scratch area.

The runner writes into the scratch area between requests (a `put_files`
step, the stores of a derived vector). An adapter, sandboxed or not, can
replace a file or folder there with a link; written through, it would let
the adapter choose what the runner, outside any sandbox, overwrites.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance.runner.execute import ERROR, run_vector
from conformance.runner.implementations import ModelImplementation
from conformance.runner.run import run_vectors
from conformance.runner.vectors import PlantedLink, materialise_store

STORE = {"files": {"session.json": {"version": 1}, "memory/fact_a.md": "---\ntype: fact\nname: A\n---\n"}}


@pytest.fixture
def victim(tmp_path):
    folder = tmp_path / "victim"
    folder.mkdir()
    (folder / "session.json").write_text("precious\n", encoding="utf-8")
    return folder


def _untouched(victim: Path) -> bool:
    return sorted(os.listdir(victim)) == ["session.json"] and (victim / "session.json").read_text() == "precious\n"


@pytest.mark.parametrize("planted", ["store", "store/session.json", "store/memory"])
def test_a_store_is_never_written_through_a_link(tmp_path, victim, planted):
    scratch = tmp_path / "scratch"
    (scratch / "store").mkdir(parents=True)
    link = scratch / planted
    if link.exists():
        link.rmdir() if link.is_dir() else link.unlink()
    link.symlink_to(victim / "session.json" if planted.endswith(".json") else victim)
    with pytest.raises(PlantedLink, match=planted):
        materialise_store(STORE, tmp_path, scratch / "store")
    assert _untouched(victim)


class PlantsALinkAfterItsWrite(ModelImplementation):
    """Answers its first write, then leaves session.json as a link to a file outside its scratch area."""

    def __init__(self, victim: Path):
        super().__init__()
        self.victim = victim

    def call(self, op, args):
        outcome = super().call(op, args)
        if op != "read_store":
            session = Path(args["store"]) / "session.json"
            session.unlink(missing_ok=True)
            session.symlink_to(self.victim / "session.json")
        return outcome


def test_a_link_planted_before_a_put_files_step_is_an_error_of_the_vector(corpus, tmp_path, victim):
    vector = next(vector for vector in corpus if vector.id == "write.repeated-fault.session-corrupted-twice")
    implementation = PlantsALinkAfterItsWrite(victim)
    result = run_vector(vector, implementation, implementation.describe(), tmp_path / "work")
    assert result.outcome == ERROR and not result.runner_error
    assert "session.json is a link" in result.detail
    assert _untouched(victim)


class ReplacesItsWorkAreaWithALoop(ModelImplementation):
    """On its first write, replaces the worker's whole area (the folder around its scratch directories)
    with a link to itself."""

    def call(self, op, args):
        outcome = super().call(op, args)
        area = Path(args["store"]).parents[1] if "store" in args else None
        if area is not None and not area.is_symlink():
            area.rename(area.with_name(area.name + ".moved"))
            area.symlink_to(area.name)
        return outcome


def test_a_work_area_replaced_by_a_link_loop_is_an_error_per_vector_not_the_end_of_the_run(corpus, tmp_path):
    vectors = [vector for vector in corpus if vector.op == "write"][:3]
    implementation = ReplacesItsWorkAreaWithALoop()
    results = run_vectors(vectors, implementation, implementation.describe(), tmp_path / "work")
    assert [result.id for result in results] == [vector.id for vector in vectors]
    assert all("work area" in result.detail for result in results[1:]), [r.detail for r in results]
