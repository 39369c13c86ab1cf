"""Property-based conformance: generated replicas and operation sequences."""
