"""The progress line of `run`, `mutants` and `fuzz`: on a terminal only, never with --quiet."""

from __future__ import annotations

import io

import pytest

from conformance import progress as progress_module
from conformance.progress import Progress, wanted


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def draw_every_time(monkeypatch):
    monkeypatch.setattr(progress_module, "REDRAW_SECONDS", 0)
    monkeypatch.delenv("TERM", raising=False)


def test_shown_on_a_terminal_only_and_never_when_quiet(monkeypatch):
    assert wanted(Terminal()) and not wanted(io.StringIO())
    assert not wanted(Terminal(), quiet=True)
    monkeypatch.setenv("TERM", "dumb")
    assert not wanted(Terminal())


def test_a_status_line_redrawn_in_place_with_lasting_notes_above_it():
    screen = Terminal()
    with Progress(3, "vectors", "[1/2] reference", stream=screen) as shown:
        shown.advance()
        shown.note("reference: earned Full")
        shown.advance(2)
    text = screen.getvalue()
    assert "\r[1/2] reference  1/3 vectors  0:00" in text
    assert "reference: earned Full\n" in text and "3/3 vectors" in text
    assert "\n" not in text.replace("reference: earned Full\n", "")   # the status line itself never scrolls
    assert text.endswith("\r")                                        # erased at the end


def test_past_the_total_only_the_count_is_shown():
    shown = Progress(20, "examples", stream=Terminal())
    shown.update(done=21)
    assert shown.line().startswith("21 examples")


@pytest.mark.parametrize("stream, quiet", [(io.StringIO(), False), (Terminal(), True)])
def test_nothing_is_written_off_a_terminal_or_when_quiet(stream, quiet):
    with Progress(2, "vectors", stream=stream, quiet=quiet) as shown:
        shown.advance()
        shown.note("a note")
    assert stream.getvalue() == ""


def test_run_writes_no_progress_when_stderr_is_not_a_terminal(capsys):
    from conformance.cli import main

    assert main(["run", "--model", "-k", "merge.hidden.sticky*"]) == 0
    assert capsys.readouterr().err == ""
