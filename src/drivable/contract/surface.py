"""The surface: how tools/list and server/discover show what a contract declares.

tools/list shows each tool compactly (`Surface.tool_wire`: the listed description, the listed
schemas, annotations, lifecycle and error codes); server/discover publishes what it leaves out
(`tool_detail`), the one error catalog and the summary with the fingerprint. The listed schemas
are the whole ones rewritten by `listed_schema` and `listed_input_schema`. Nothing here changes
the declaration or runs a call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from drivable.contract.durable import effect_sentences

if TYPE_CHECKING:
    from drivable.contract.declaration import Declaration
    from drivable.contract.runtime import Runtime
    from drivable.contract.tool import ToolSpec

NAMESPACE = "dev.drivable"


def tool_codes(spec: ToolSpec, *, store_attached: bool = False) -> list[str]:
    """The codes one tool can emit: the ones every tool can, plus its declared domain codes.

    `store_attached`: an effect store was attached at declaration (the billing server's), so
    any tool reading through it answers `unavailable` when it is down."""
    common = ["invalid_arguments", "payload_too_large", "internal_error"]
    if spec.scopes:
        common.append("insufficient_scope")
    if spec.keyed:
        common += ["idempotency_mismatch", "in_progress", "unavailable", "change_undone"]
    if spec.effects.destructive:
        common += ["confirmation_required", "confirmation_invalid", "confirmation_declined"]
        common.append("unavailable")
    if store_attached:
        common.append("unavailable")
    if "cursor" in spec.input_model.model_fields:
        common += ["invalid_cursor", "cursor_expired"]
    if spec.task is not None:
        common += ["task_timeout", "task_expired", "worker_lost"]
    return sorted(set(common) | set(spec.errors))


class Surface:
    """What a client is shown of `declaration`, with the effect terms and the fingerprint of
    `runtime` (a receipt's window and a token's lifetime are stated in descriptions)."""

    def __init__(self, declaration: Declaration, runtime: Runtime) -> None:
        self.declaration = declaration
        self.runtime = runtime

    def tool_codes(self, spec: ToolSpec) -> list[str]:
        """The codes one tool can emit: the ones every tool can, plus its declared domain codes."""
        return tool_codes(spec, store_attached=self.runtime.durability is not None)

    def tool_meta(self, spec: ToolSpec) -> dict[str, Any]:
        lifecycle: dict[str, Any] = {"stability": spec.stability}
        if spec.deprecation is not None:
            lifecycle["deprecation"] = spec.deprecation.to_dict()
        # The codes only: their meanings are in the one catalog discover publishes, so the
        # catalog is not repeated on every tool of tools/list ([6.document-codes]).
        meta = {f"{NAMESPACE}/lifecycle": lifecycle, f"{NAMESPACE}/errors": self.tool_codes(spec)}
        if spec.task is not None:
            meta[f"{NAMESPACE}/task"] = spec.task.to_meta()
        return meta

    def error_catalog(self) -> list[dict[str, Any]]:
        """Every code the server's tools can emit, with its recovery class and meaning."""
        codes = self.declaration.codes
        used = sorted(
            {c for spec in self.declaration.tools.values() for c in self.tool_codes(spec)}
        )
        return [
            {
                "code": c,
                "recovery": codes[c].recovery.value,
                "temporary": codes[c].temporary,
                "description": codes[c].doc,
            }
            for c in used
        ]

    def tool_wire(self, spec: ToolSpec) -> dict[str, Any]:
        """The tool as tools/list shows it (camelCase, as on the wire)."""
        description = spec.description
        stated = effect_sentences(
            keyed=spec.keyed,
            destructive=spec.effects.destructive,
            window_s=self.runtime.receipt_window_s,
            ttl_s=self.runtime.confirm_ttl_s,
        )
        if stated:
            description = f"{description} {stated}"
        if spec.task is not None:
            description = f"{description} {spec.task.sentence()}"
        wire: dict[str, Any] = {
            "name": spec.name,
            "title": spec.title,
            "description": description,
            # What a first call needs (listed_schema); the whole schemas are in server/discover.
            "inputSchema": listed_input_schema(spec.input_schema),
        }
        if not spec.prose:  # prose has no structure to declare
            wire["outputSchema"] = listed_schema(spec.output_schema)
        # The title once, at the top: annotations.title only repeated it.
        wire["annotations"] = spec.effects.annotations()
        wire["_meta"] = self.tool_meta(spec)
        return wire

    def tool_detail(self) -> dict[str, Any]:
        """What the compact tools/list leaves out, per tool: the whole description (the listed
        one and `more`) and the whole input and output schemas (published in server/discover
        under `dev.drivable/tools`)."""
        out = {}
        for spec in self.listed_tools():
            listed = self.tool_wire(spec)["description"]
            out[spec.name] = {
                "description": f"{listed} {spec.more}" if spec.more else listed,
                "inputSchema": spec.input_schema,
                **({} if spec.prose else {"outputSchema": spec.output_schema}),
            }
        return out

    def listed_tools(self) -> list[ToolSpec]:
        """Deterministic order ([9.deterministic-order]): the order the tools were declared.

        A model reads the list top down, so the author's order (find, then read, then change) is
        part of the surface (docs/decisions/0023-what-a-model-is-shown.md, 1).
        """
        return list(self.declaration.tools.values())

    def summary_dict(self) -> dict[str, Any]:
        declaration = self.declaration
        out = declaration.summary.to_dict()
        out["server"] = {
            "name": declaration.name,
            "version": declaration.version,
            "fingerprint": self.runtime.fingerprint,
        }
        out["tools"] = [s.name for s in self.listed_tools()]
        return out


# What the listed schemas leave out ([2.compact-baseline]): every key here constrains nothing the
# server relies on a client to check, and each cost every preloading host tokens on every turn.
# - An outputSchema reaches no model (a chat template shows name, description and inputSchema), so
#   its prose and `additionalProperties: false` (the server never sends a key it does not declare)
#   are for readers: the whole schema is in server/discover (`dev.drivable/tools`).
# - An inputSchema keeps types, bounds, enums, required, and the examples of required
#   properties: what a first call needs. No `pattern` (the reader checks it), no `format` (it
#   states the form a reader writes, not the forms it reads), no optional property's example
#   (docs/decisions/0023-what-a-model-is-shown.md, 2).
OUTPUT_UNLISTED = frozenset(
    {"$schema", "description", "examples", "$comment", "additionalProperties"}
)
INPUT_UNLISTED = frozenset({"pattern", "format", "$comment"})


def listed_schema(node: Any, unlisted: frozenset[str] = OUTPUT_UNLISTED) -> Any:
    """`node` as tools/list shows it: without the `unlisted` keywords, at every level. Property
    names are never touched; `$ref` and `$defs` are kept, so the listed outputSchema still
    accepts exactly the results the whole one does (it may also accept extra keys)."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in unlisted:
                continue
            if key in ("properties", "$defs") and isinstance(value, dict):
                out[key] = {k: listed_schema(v, unlisted) for k, v in value.items()}
            elif key == "anyOf" and isinstance(value, list) and "description" in node:
                # an optional id says what it is once: the variant's own description (the id
                # kind's "An id as the server issues it") only repeated the property's
                out[key] = [_undescribed(listed_schema(v, unlisted)) for v in value]
            else:
                out[key] = listed_schema(value, unlisted)
        return out
    if isinstance(node, list):
        return [listed_schema(x, unlisted) for x in node]
    return node


def listed_input_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """An inputSchema as tools/list shows it: `listed_schema` with INPUT_UNLISTED, and without the
    examples of optional top-level properties (a model fills every property it is shown an
    example for)."""
    listed: dict[str, Any] = listed_schema(schema, INPUT_UNLISTED)
    required = set(listed.get("required") or ())
    properties = listed.get("properties")
    if isinstance(properties, dict):
        listed["properties"] = {
            name: node if name in required else _without_examples(node)
            for name, node in properties.items()
        }
    return listed


def _without_examples(node: Any) -> Any:
    """`node` without `examples`, also in its anyOf variants (an optional value is a union with
    null), never inside nested properties (those are a value's own shape)."""
    if not isinstance(node, dict):
        return node
    out = {k: v for k, v in node.items() if k != "examples"}
    if isinstance(out.get("anyOf"), list):
        out["anyOf"] = [_without_examples(v) for v in out["anyOf"]]
    return out


def _undescribed(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: v for k, v in node.items() if k != "description"}
    return node
