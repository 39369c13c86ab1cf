"""How deeply JSON data nests, found without recursion.

The kit walks JSON it did not write (an adapter's answers, vector files)
with code that recurses: schema checks, copies, comparisons, reports. A
document nested thousands of levels deep would exhaust Python's stack in
any of them, so each place that takes such JSON asks `nesting_depth` first
and refuses what is deeper than MAX_DEPTH with a clear message.
"""

from __future__ import annotations

# The deepest nesting of arrays and objects the kit takes: far more than any
# answer or vector needs (the bundled vectors nest 11 levels), and little
# enough that every later step stays far from Python's recursion limit.
MAX_DEPTH = 64


def nesting_depth(value: object) -> int:
    """How deeply arrays and objects nest in `value` (0 for a scalar); it stops counting past MAX_DEPTH."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            return deepest
        pending.extend((child, depth + 1) for child in children)
    return deepest
