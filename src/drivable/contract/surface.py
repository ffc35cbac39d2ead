"""The surface: how tools/list and server/discover show what a contract declares.

tools/list shows each tool compactly (`Surface.tool_wire`: the author's description with the
runtime's additions in `additions.SHOWN`, the listed schemas, annotations, lifecycle and error
codes); server/discover publishes what it leaves out (`tool_detail`: every addition, `more`, the
whole schemas), the one error catalog and the summary with the fingerprint. The listed schemas are
the whole ones abridged by `drivable.contract.listing`. Nothing here changes the declaration or
runs a call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from drivable.contract import additions
from drivable.contract.declare import example_sentence
from drivable.contract.durable import retry_sentence, two_step_sentence
from drivable.contract.listing import listed_input_schema, listed_output_schema

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

    def sentences(self, spec: ToolSpec) -> list[tuple[str, str]]:
        """The sentences the runtime adds to `spec`'s description, each with its addition id."""
        out: list[tuple[str, str]] = []
        if example := example_sentence(spec.description, spec.examples):
            out.append(("example-sentence", example))
        if spec.keyed:
            out.append(("retry-sentence", retry_sentence(self.runtime.receipt_window_s)))
        if spec.effects.destructive:
            out.append(("two-step-sentence", two_step_sentence(self.runtime.confirm_ttl_s)))
        if spec.task is not None:
            out.append(("task-duration", spec.task.duration_sentence()))
            out.append(("task-protocol", spec.task.protocol_sentence()))
        return out

    def description(self, spec: ToolSpec, shown: frozenset[str] = additions.SHOWN) -> str:
        """The author's description and the sentences of the additions in `shown`."""
        added = [text for addition, text in self.sentences(spec) if addition in shown]
        return " ".join([spec.description, *added])

    def tool_wire(self, spec: ToolSpec, shown: frozenset[str] = additions.SHOWN) -> dict[str, Any]:
        """The tool as tools/list shows it (camelCase, as on the wire), with the runtime's
        additions in `shown` (`drivable.contract.additions`)."""
        wire: dict[str, Any] = {
            "name": spec.name,
            "title": spec.title,
            "description": self.description(spec, shown),
            "inputSchema": listed_input_schema(spec.input_schema, shown),
        }
        if not spec.prose:  # prose has no structure to declare
            wire["outputSchema"] = listed_output_schema(spec.output_schema)
        # The title once, at the top: annotations.title only repeated it.
        wire["annotations"] = spec.effects.annotations()
        wire["_meta"] = self.tool_meta(spec)
        return wire

    def tool_detail(self) -> dict[str, Any]:
        """What the compact tools/list leaves out, per tool: the whole description (every
        addition, then `more`) and the whole input and output schemas (published in
        server/discover under `dev.drivable/tools`)."""
        out = {}
        for spec in self.listed_tools():
            whole = self.description(spec, additions.EVERY)
            out[spec.name] = {
                "description": f"{whole} {spec.more}" if spec.more else whole,
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
