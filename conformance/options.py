"""Argument types and defaults shared by the commands that drive an adapter."""

from __future__ import annotations

import argparse
import sys

from conformance import resources


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def default_adapter() -> list[str]:
    """The bundled reference adapter, run by this Python."""
    return [sys.executable, str(resources.runners_dir() / "reference" / "adapter.py")]
