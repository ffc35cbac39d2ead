"""JSON Schema as tools publish it: resolve local `$ref`s, walk every node, build sample values.

Pure functions of plain dicts (the wire shape), with no validator behind them: the audit reads
schemas a server wrote, which may be partial, open or odd, and must never raise on them.
"""

from drivable.schema.resolve import resolve, resolve_pointer
from drivable.schema.sample import MISSING, Hint, sample, sample_arguments
from drivable.schema.walk import (
    Node,
    is_closed,
    is_open_map,
    object_nodes,
    properties,
    required,
    types_of,
    walk,
)

__all__ = [
    "MISSING",
    "Hint",
    "Node",
    "is_closed",
    "is_open_map",
    "object_nodes",
    "properties",
    "required",
    "resolve",
    "resolve_pointer",
    "sample",
    "sample_arguments",
    "types_of",
    "walk",
]
