"""The memoir format: stores, entry files and session files."""

from conformance.validator.memoir.pipeline import RULES, Report, check_source, detect, validate, validate_paths  # noqa: F401
