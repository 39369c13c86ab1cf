"""`--sandbox` holds whatever the runner's uid (issue 24, items 1 and 2): no capability, no remount,
no host unix socket, no network, and `doctor --sandbox` proves each from inside. CI runs these as root."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.protocol.process import sandbox_command
from conformance.protocol.sandbox_probes import probe_sandbox
from conformance.resources import runners_dir

pytestmark = pytest.mark.usefixtures("sandbox")

CONNECT = r"""
import json, os, socket
seen = {}
for path in os.environ["SOCKETS"].split(":"):
    client = socket.socket(socket.AF_UNIX)
    try:
        client.connect(path)
        seen[path] = "connected"
    except OSError as error:
        seen[path] = error.strerror
print(json.dumps(seen))
"""


def test_every_probe_holds_and_as_root_the_adapter_has_no_capability():
    results = {result.name: result for result in probe_sandbox()}
    assert set(results) == {"no-capabilities", "no-remount", "no-host-sockets", "no-network"}, results
    for result in results.values():
        assert result.held, result.summary
    assert "0000000000000000" in results["no-capabilities"].summary
    assert "remounting / read-write: refused" in results["no-remount"].summary


def test_host_unix_sockets_are_out_of_reach_wherever_they_are(tmp_path):
    visible = Path(tempfile.mkdtemp(prefix="sock-", dir=Path(__file__).parent))  # outside every hidden directory
    listeners = []
    try:
        paths = [tmp_path / "in-tmp.sock", visible / "visible.sock"]
        for path in paths:
            listener = socket.socket(socket.AF_UNIX)
            listener.bind(str(path))
            listener.listen()
            listeners.append(listener)
        scratch = tmp_path / "scratch"
        scratch.mkdir()
        done = subprocess.run(sandbox_command([sys.executable, "-c", CONNECT], scratch), capture_output=True,
                              text=True, timeout=60, env={**os.environ, "SOCKETS": ":".join(map(str, paths))})
        seen = json.loads(done.stdout)
        assert all(outcome != "connected" for outcome in seen.values()), seen
    finally:
        for listener in listeners:
            listener.close()
        for leftover in visible.iterdir():
            leftover.unlink()
        visible.rmdir()


def test_tmp_run_and_home_are_empty_and_read_only_inside(tmp_path):
    (tmp_path / "host-file").write_text("host")
    probe = ("import os, json; print(json.dumps({d: [os.listdir(d), os.access(d, os.W_OK)] "
             "for d in ('/tmp', '/run', '/root', '/home') if os.path.isdir(d)}))")
    scratch = Path(tempfile.mkdtemp(prefix="scratch-", dir=tmp_path))
    done = subprocess.run(sandbox_command([sys.executable, "-c", probe], scratch), capture_output=True, text=True,
                          timeout=60)
    seen = json.loads(done.stdout)
    assert not seen["/tmp"][1] and not seen["/run"][1]
    assert "host-file" not in json.dumps(seen)
    assert all(not os.path.exists(os.path.join(directory, "host-file")) for directory in seen)
    assert seen["/run"][0] == []


def test_doctor_sandbox_shows_every_probe_passing(capsys):
    adapter = f"{sys.executable} {runners_dir() / 'fake' / 'adapter.py'}"
    code = main(["doctor", "--sandbox", "--adapter", adapter])
    out = capsys.readouterr().out
    assert code == 0, out
    for name in ("no-capabilities", "no-remount", "no-host-sockets", "no-network"):
        assert any(line.startswith("PASS") and f" {name} " in line for line in out.splitlines()), out
