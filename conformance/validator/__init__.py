"""The validator: checks stores and files against the spec and reports diagnostics."""
