"""The bundled reference adapter as a real subprocess, from a checkout and from a wheel layout."""

from __future__ import annotations

import io
import shutil
import sys
from pathlib import Path

import pytest

import conformance
from conformance.protocol.client import AdapterClient
from conformance.protocol.messages import Describe, ErrorResponse, OkResponse
from conformance.resources import runners_dir, schema_dir
from conformance.doctor import command as doctor

pytest.importorskip("conformance.reference", reason="the reference model is not built yet")

REFERENCE_ADAPTER = runners_dir() / "reference" / "adapter.py"


def test_the_reference_adapter_passes_the_doctor():
    out = io.StringIO()
    code = doctor.run_doctor(f"{sys.executable} {REFERENCE_ADAPTER}", timeout=10, out=out)
    assert code == 0, out.getvalue()
    assert "claims reader, writer, full with the ops they need" in out.getvalue()


def test_the_reference_adapter_answers_read_store_and_refuses_bad_input(tmp_path):
    store = tmp_path / "store"
    (store / "memory").mkdir(parents=True)
    with AdapterClient([sys.executable, str(REFERENCE_ADAPTER)], workdir=tmp_path / "work") as adapter:
        described = adapter.describe()
        read = adapter.request("read_store", {"store": str(store)})
        refused = adapter.request("read_store", {"store": "relative/path"})
    assert isinstance(described, Describe) and described.claims == ("reader", "writer", "full")
    assert isinstance(read, OkResponse)  # its result also passed the read_store.result schema
    assert read.result["entries"] == [] and read.result["session"]["status"] == "absent"
    assert isinstance(refused, ErrorResponse) and refused.kind == "invalid_input"
    assert adapter.stats.faults == 0 and adapter.last_exit_code == 0


def test_the_reference_adapter_runs_from_an_installed_wheel_layout(tmp_path):
    # The wheel copies runners/ and schema/ under conformance/_data/; the
    # adapter must find the package it ships in, with no help from sys.path.
    site = tmp_path / "site-packages"
    package = site / "conformance"
    shutil.copytree(Path(conformance.__file__).parent, package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(runners_dir(), package / "_data" / "runners", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(schema_dir(), package / "_data" / "schema")
    installed_adapter = package / "_data" / "runners" / "reference" / "adapter.py"
    with AdapterClient([sys.executable, str(installed_adapter)], workdir=tmp_path / "work") as adapter:
        described = adapter.describe()
        unknown = adapter.request("no_such_op", {})
    assert isinstance(described, Describe), described
    assert isinstance(unknown, ErrorResponse) and unknown.kind == "unsupported"
