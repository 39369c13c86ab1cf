"""What an adapter wrote to stderr before an answer is in what the runner shows with that answer: the reader
thread never holds bytes read from the pipe but not yet kept (a failure's stderr_tail was once empty in CI)."""

from __future__ import annotations

import sys
from pathlib import Path

from conformance.protocol.process import AdapterProcess, adapter_environment

# Writes a stderr line, then answers it on stdout, for every stdin line.
ECHO = ("import sys\n"
        "for line in sys.stdin:\n"
        "    sys.stderr.write('log ' + line); sys.stderr.flush()\n"
        "    sys.stdout.write(line); sys.stdout.flush()\n")


def test_every_stderr_line_written_before_an_answer_is_there_when_the_answer_is(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    process = AdapterProcess([sys.executable, "-c", ECHO], cwd=tmp_path, env=adapter_environment(home))
    missing = []
    try:
        for n in range(300):
            mark = process.stderr_mark()
            assert process.send(f"{n}\n", timeout=10)
            assert process.read_line(timeout=10) == f"{n}\n".encode()
            if process.stderr_since(mark) != f"log {n}\n":
                missing.append(n)
    finally:
        process.kill()
    assert not missing, f"stderr written before {len(missing)} of 300 answers was not there: {missing[:10]}"
