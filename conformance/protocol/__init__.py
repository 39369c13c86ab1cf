"""The adapter protocol: messages, the runner's client, the adapters' server loop.

See docs/adapter-protocol.md for the protocol itself.
"""

from conformance.protocol.messages import (
    SUPPORTED_PROTOCOLS,
    AdapterFault,
    Describe,
    ErrorResponse,
    OkResponse,
    Request,
)

__all__ = ["SUPPORTED_PROTOCOLS", "AdapterFault", "Describe", "ErrorResponse", "OkResponse", "Request"]
