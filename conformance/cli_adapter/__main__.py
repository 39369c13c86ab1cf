"""`python -m conformance.cli_adapter CONFIG [--timeout=S]`, or this file run directly."""

import sys
from pathlib import Path

if not __package__:
    # Run as a file from the runner's scratch directory: find our own package.
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from conformance.cli_adapter.adapter import main  # noqa: E402

sys.exit(main())
