"""memoir-conform: conformance suite and validator kit for the memoir format."""

__version__ = "0.1.0"
SPEC_VERSION = "0.1.2"
SPEC_VERSIONS = ("0.1", "0.1.1", "0.1.2")
