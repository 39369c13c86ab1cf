"""Proof that `--sandbox` holds here: a probe program run inside it tries what a hostile adapter would.

`probe_sandbox()` starts the probe in the same bubblewrap sandbox an adapter
gets (`process.sandbox_command`), with a listening unix socket of the host
for it to find, and returns one `ProbeResult` per promise:

- capabilities: the probe's effective capability set (CapEff) is empty,
  whatever the runner's uid (as root too);
- remount: remounting `/` read-write is refused, and a write outside the
  scratch directory fails;
- unix sockets: a socket the host listens on cannot be connected to;
- network: only a loopback interface exists, and a connection out fails.

`doctor --sandbox` shows them; the tests run them as root.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from conformance.protocol.process import sandbox_command

PROBE_TIMEOUT = 30.0

# Run inside the sandbox by the runner's own Python: argv[1] is the host socket to try.
PROBE = r"""
import ctypes, json, os, socket, sys
seen = {}
libc = ctypes.CDLL(None, use_errno=True)
MS_REMOUNT, MS_BIND = 32, 4096
if libc.mount(b"none", b"/", None, MS_REMOUNT | MS_BIND, None) == 0:
    seen["remount"] = "succeeded"
else:
    seen["remount"] = "refused: " + os.strerror(ctypes.get_errno())
try:
    with open("/memoir-conform-sandbox-probe", "w") as handle:
        handle.write("escaped")
    seen["write"] = "succeeded"
except OSError as error:
    seen["write"] = "refused: " + error.strerror
with open("/proc/self/status") as status:
    seen["capeff"] = next(line.split()[1] for line in status if line.startswith("CapEff:"))
client = socket.socket(socket.AF_UNIX)
try:
    client.connect(sys.argv[1])
    seen["socket"] = "connected"
except OSError as error:
    seen["socket"] = "refused: " + (error.strerror or str(error))
with open("/proc/net/dev") as devices:
    seen["interfaces"] = sorted(line.split(":")[0].strip() for line in devices.read().splitlines()[2:])
try:
    socket.create_connection(("192.0.2.1", 9), timeout=2).close()
    seen["connect"] = "connected"
except OSError as error:
    seen["connect"] = "refused: " + (error.strerror or str(error))
print(json.dumps(seen))
"""


@dataclass(frozen=True)
class ProbeResult:
    name: str
    held: bool
    summary: str


def run_probe(host_socket: Path, scratch: Path) -> dict | str:
    """What the probe saw inside the sandbox, or why it could not run."""
    command = sandbox_command([sys.executable, "-c", PROBE, str(host_socket)], scratch)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=PROBE_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"the probe did not run: {error}"
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return f"the probe did not report (exit code {done.returncode}): {done.stderr.strip()[-300:]}"


def probe_sandbox() -> list[ProbeResult]:
    """Every promise of the sandbox, tried from inside it."""
    with tempfile.TemporaryDirectory(prefix="memoir-conform-probe-") as name:
        home = Path(name)
        scratch = home / "scratch"
        scratch.mkdir()
        host_socket = home / "host.sock"
        listener = socket.socket(socket.AF_UNIX)
        try:
            listener.bind(str(host_socket))
            listener.listen()
            seen = run_probe(host_socket, scratch)
        finally:
            listener.close()
    if isinstance(seen, str):
        return [ProbeResult("sandbox-probe", False, seen)]
    return [
        ProbeResult("no-capabilities", int(seen["capeff"], 16) == 0,
                    f"effective capabilities inside: {seen['capeff']}"),
        ProbeResult("no-remount", seen["remount"] != "succeeded" and seen["write"] != "succeeded",
                    f"remounting / read-write: {seen['remount']}; writing outside the scratch directory: "
                    f"{seen['write']}"),
        ProbeResult("no-host-sockets", seen["socket"] != "connected",
                    f"connecting to a unix socket the host listens on: {seen['socket']}"),
        ProbeResult("no-network", seen["interfaces"] == ["lo"] and seen["connect"] != "connected",
                    f"interfaces: {', '.join(seen['interfaces'])} (a loopback of its own); "
                    f"a connection out: {seen['connect']}"),
    ]
