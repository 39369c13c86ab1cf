"""Helpers of the CLI adapter tests: where toymemo lives, and a protocol client for a configuration."""

from __future__ import annotations

from pathlib import Path

from conformance.cli_adapter import adapter_command
from conformance.protocol.client import AdapterClient

TOYMEMO_DIR = Path(__file__).resolve().parent / "toymemo"
TOYMEMO_CONFIG = TOYMEMO_DIR / "toymemo.toml"


def cli_client(config: Path, workdir: Path, timeout: float = 10.0) -> AdapterClient:
    """The CLI adapter for `config`, started the way `memoir-conform run --cli` starts it."""
    return AdapterClient(adapter_command(config, timeout), timeout=timeout, workdir=workdir)
