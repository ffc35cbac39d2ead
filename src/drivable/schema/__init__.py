"""JSON Schema as tools publish it: resolve local `$ref`s, walk every node, build sample values.

Pure functions of plain dicts (the wire shape), with no validator behind them: the audit reads
schemas a server wrote, which may be partial, open or odd, and must never raise on them. The audit,
reliability, the surface diff, the eval and the runtime's own validation all read schemas through
this package, so that they agree on what a schema says.
"""

from drivable.schema.resolve import follow, merge_all_of, resolve, resolve_pointer
from drivable.schema.sample import MISSING, Hint, sample, sample_arguments
from drivable.schema.walk import (
    Node,
    declared_types,
    enum_values,
    is_closed,
    is_open_map,
    json_type,
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
    "declared_types",
    "enum_values",
    "follow",
    "is_closed",
    "is_open_map",
    "json_type",
    "merge_all_of",
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
