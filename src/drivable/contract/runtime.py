"""The contract: a server's tools, codes and summary, and the one call pipeline every transport uses.

`Contract.call(name, arguments)` is transport-free: it bounds the payload, checks scopes, validates
through the tool's input model (lenient kinds, notes), runs the handler, turns every failure into
the envelope, and checks the result against the output model. `drivable.serve` mounts it on the
SDK's low-level Server for stdio and streamable HTTP.
"""

from __future__ import annotations

import difflib
import json
import logging
import os
import re
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, Literal

from opentelemetry import trace
from pydantic import ValidationError

from drivable.contract import telemetry
from drivable.contract.codes import ERROR_CODES, WARNING_CODES, Code, Recovery, WarningCode
from drivable.contract.collections import REJECTED_KEY
from drivable.contract.durable import (
    CONFIRM_TTL_S,
    RECEIPT_WINDOW_S,
    Durability,
    Rejected,
    effect_sentences,
    issue_token,
    run_keyed,
    spend_token,
    unavailable_envelope,
)
from drivable.contract.echo import NextCall
from drivable.contract.envelope import Envelope, Issue, Repair, ToolError
from drivable.contract.resources import (
    PromptArgumentSpec,
    PromptRenderer,
    PromptSpec,
    ResourceBody,
    ResourceError,
    ResourceReader,
    ResourceSpec,
    TemplateSpec,
)
from drivable.contract.tool import (
    Deprecation,
    Effects,
    Handler,
    Stability,
    ToolSpec,
    build_spec,
)
from drivable.contract.validation import issues_from, rejected_entries, repaired_arguments
from drivable.effects import ConfirmTokens, EffectStore, StoreUnavailableError
from drivable.kinds import validate

log = logging.getLogger("drivable.contract")

# One shared bound for inline content in tool arguments; descriptions state it, transports
# enforce a bound of the same order on the request body before parsing.
MAX_INLINE_BYTES = 256 * 1024
NAMESPACE = "dev.drivable"

ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]


@dataclass(frozen=True)
class Principal:
    """Who calls: an id and the scopes their credential grants (stdio: the local user, all scopes)."""

    id: str = "local"
    scopes: frozenset[str] | None = None  # None: every scope (a local, trusted transport)


@dataclass(frozen=True)
class Summary:
    """The capability summary ([2.summary]): what the server does, does not, and needs."""

    text: str
    does: Sequence[str]
    does_not: Sequence[str]
    prerequisites: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.text,
            "does": list(self.does),
            "does_not": list(self.does_not),
            "prerequisites": dict(self.prerequisites),
            "error_carriers": {
                "tool_errors": "tools/call result with isError: true; the envelope's JSON "
                "text in content[0] and the object in _meta['dev.drivable/envelope']",
                "non_tool_rpc_errors": "JSON-RPC error with the envelope in error.data "
                "(machine_code, human_message)",
            },
        }


@dataclass
class Call:
    """What a handler gets besides its arguments."""

    tool: str
    principal: Principal
    request_id: str
    contract: Contract
    notes: list[str] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)
    progress: ProgressFn | None = None
    rejected: list[dict[str, Any]] = field(default_factory=list)
    # The effect store's transaction a mutating handler writes through, so its effect commits
    # together with the receipt (and the spent confirm token); None for read-only tools.
    transaction: Any = None

    def note(self, text: str) -> None:
        self.notes.append(text)

    def warn(self, code: str, message: str, path: str | None = None) -> None:
        if code not in self.contract.warning_codes:
            raise ValueError(f"unregistered warning code {code!r}")
        entry = {"code": code, "message": message}
        if path:
            entry["path"] = path
        self.warnings.append(entry)

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        if self.progress is not None:
            await self.progress(progress, total, message)


@dataclass(frozen=True)
class Outcome:
    """The result of one call: the structured result or the envelope, and whether it is an error."""

    structured: dict[str, Any]
    is_error: bool
    meta: dict[str, Any] | None = None

    def text(self) -> str:
        return _WIRE_ENCODER.encode(self.structured)


class Contract:
    """A server's agent-facing contract: tools, codes, warnings, summary, identity."""

    def __init__(
        self,
        name: str,
        *,
        version: str,
        summary: Summary,
        title: str | None = None,
        settings_url: str | None = None,
        domain_codes: Sequence[Code] = (),
        warning_codes: Sequence[WarningCode] = (),
        max_inline_bytes: int = MAX_INLINE_BYTES,
    ) -> None:
        self.name = name
        self.version = version
        self.title = title or name
        self.summary = summary
        self.settings_url = settings_url
        self.max_inline_bytes = max_inline_bytes
        self.codes: dict[str, Code] = dict(ERROR_CODES)
        for code in domain_codes:
            if code.id in self.codes:
                raise ValueError(f"domain code {code.id!r} collides with a registered code")
            self.codes[code.id] = code
        self.warning_codes: dict[str, WarningCode] = dict(WARNING_CODES)
        for warning in warning_codes:
            self.warning_codes[warning.id] = warning
        self.tools: dict[str, ToolSpec] = {}
        self.resources: dict[str, ResourceSpec] = {}
        self.templates: dict[str, TemplateSpec] = {}
        self.prompts: dict[str, PromptSpec] = {}
        self.durability: Durability | None = None
        self.receipt_window_s: float = RECEIPT_WINDOW_S
        self.confirm_ttl_s: float = CONFIRM_TTL_S
        self._fingerprint: str | None = None

    # -- declaring -----------------------------------------------------------------------------

    def tool(
        self,
        *,
        name: str,
        title: str,
        description: str,
        effects: Effects,
        errors: Sequence[str] = (),
        stability: Stability = "stable",
        deprecation: Deprecation | None = None,
        scopes: Sequence[str] = (),
        task: Any = None,
    ) -> Callable[[Handler], Handler]:
        """Register `async def handler(args: InputModel, call: Call) -> OutputModel`.

        `task=drivable.tasks.LongRunning(...)` declares long-running work (docs/tasks.md).
        """
        declaring_scope = _declaring_scope()

        def decorate(handler: Handler) -> Handler:
            if name in self.tools:
                from drivable.contract.tool import ContractError

                raise ContractError(f"tool {name!r} is declared twice")
            self.tools[name] = build_spec(
                handler,
                name=name,
                title=title,
                description=description,
                effects=effects,
                errors=errors,
                known_codes=self.codes,
                stability=stability,
                deprecation=deprecation,
                scopes=scopes,
                localns=declaring_scope,
                task=task,
            )
            if task is not None:
                from drivable.tasks.errors import TASK_CODES

                self.codes.update({c.id: c for c in TASK_CODES if c.id not in self.codes})
            self._fingerprint = None
            return handler

        return decorate

    def use_effects(
        self,
        store: EffectStore,
        secret: bytes,
        *,
        receipt_window_s: float = RECEIPT_WINDOW_S,
        confirm_ttl_s: float = CONFIRM_TTL_S,
    ) -> None:
        """Attach the store for receipts and confirm tokens (shared by every worker process).

        `secret` signs confirm tokens: give every process that serves this contract the same one.
        """
        self.receipt_window_s = receipt_window_s
        self.confirm_ttl_s = confirm_ttl_s
        self.durability = Durability(
            store, ConfirmTokens(secret, store=store, ttl_s=confirm_ttl_s), receipt_window_s
        )
        self._fingerprint = None

    def _durable(self) -> Durability:
        """The attached store, or an embedded SQLite file for a server nobody configured."""
        if self.durability is None:
            import os
            import secrets as _secrets
            from pathlib import Path

            from drivable.effects import open_store

            path = os.environ.get("DRIVABLE_EFFECTS_DB") or str(
                Path.home() / ".cache" / "drivable" / f"{self.name}-effects.sqlite"
            )
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            secret = os.environ.get("DRIVABLE_SECRET", "").encode() or _secrets.token_bytes(32)
            self.use_effects(
                open_store(path),
                secret,
                receipt_window_s=self.receipt_window_s,
                confirm_ttl_s=self.confirm_ttl_s,
            )
        assert self.durability is not None
        return self.durability

    def resource(
        self,
        uri: str,
        *,
        name: str,
        title: str,
        description: str,
        mime_type: str = "application/json",
        size: int | None = None,
    ) -> Callable[[ResourceReader], ResourceReader]:
        """Register `async def read() -> ResourceBody` behind a fixed URI."""

        def decorate(reader: ResourceReader) -> ResourceReader:
            _check_short(uri, description)
            self.resources[uri] = ResourceSpec(
                uri, name, title, description, mime_type, reader, size
            )
            return reader

        return decorate

    def resource_template(
        self,
        uri_template: str,
        *,
        name: str,
        title: str,
        description: str,
        mime_type: str = "application/json",
        complete: Callable[[str, str], Awaitable[list[str]]] | None = None,
    ) -> Callable[[ResourceReader], ResourceReader]:
        """Register `async def read(**variables) -> ResourceBody` behind a URI template."""

        def decorate(reader: ResourceReader) -> ResourceReader:
            _check_short(uri_template, description)
            self.templates[uri_template] = TemplateSpec(
                uri_template, name, title, description, mime_type, reader, complete
            )
            return reader

        return decorate

    def prompt(
        self,
        *,
        name: str,
        title: str,
        description: str,
        when_to_use: str,
        arguments: Sequence[PromptArgumentSpec] = (),
        prerequisites: Mapping[str, Any] | None = None,
        followups: Sequence[str] = (),
    ) -> Callable[[PromptRenderer], PromptRenderer]:
        """Register advisory scaffolding: `async def render(**arguments) -> str`.

        `followups` name the tools the prompt leads to; they must exist when the server starts.
        """

        def decorate(renderer: PromptRenderer) -> PromptRenderer:
            self.prompts[name] = PromptSpec(
                name,
                title,
                description,
                tuple(arguments),
                renderer,
                when_to_use,
                dict(prerequisites or {}),
                tuple(followups),
            )
            return renderer

        return decorate

    def check(self) -> None:
        """Cross-references a declaration alone cannot check: prompts name real tools."""
        from drivable.contract.tool import ContractError

        for prompt in self.prompts.values():
            missing = [t for t in prompt.followups if t not in self.tools]
            missing += [t for t in prompt.prerequisites.get("tools", []) if t not in self.tools]
            if missing:
                raise ContractError(f"prompt {prompt.name!r} names unknown tools {missing}")

    def next_call(self, tool: str, arguments: Mapping[str, Any]) -> NextCall:
        """An echoed next call, checked: the tool exists and its input model accepts the arguments.

        Raises ValueError on a mistake in the server's own code (never at a client's input).
        """
        spec = self.tools.get(tool)
        if spec is None:
            raise ValueError(f"next_call names unknown tool {tool!r}")
        try:
            validated = validate(spec.input_model, arguments, intent=spec.intent)
        except ValidationError as error:
            raise ValueError(f"next_call arguments do not validate for {tool!r}") from error
        if validated.notes:
            raise ValueError(
                f"next_call arguments for {tool!r} are not canonical: {validated.notes}"
            )
        return NextCall(tool=tool, arguments=dict(arguments))

    async def read_resource(self, uri: str) -> ResourceBody:
        """Read a resource or a templated one; failures raise ResourceError with a registered code."""
        spec = self.resources.get(uri)
        if spec is not None:
            return await spec.reader()
        for template in self.templates.values():
            variables = template.match(uri)
            if variables is not None:
                return await template.reader(**variables)
        raise ResourceError(
            "not_found",
            f"No resource has the URI {uri!r}.",
            hint="List the resources (resources/list) and templates (resources/templates/list), "
            "or find the record with a search tool first.",
        )

    # -- the surface ---------------------------------------------------------------------------

    def tool_codes(self, spec: ToolSpec) -> list[str]:
        """The codes one tool can emit: the ones every tool can, plus its declared domain codes."""
        common = ["invalid_arguments", "payload_too_large", "internal_error"]
        if spec.scopes:
            common.append("insufficient_scope")
        if spec.keyed:
            common += ["idempotency_mismatch", "in_progress", "unavailable"]
        if spec.effects.destructive:
            common += ["confirmation_required", "confirmation_invalid", "unavailable"]
        if spec.task is not None:
            common += ["task_timeout", "task_expired", "worker_lost"]
        return sorted(set(common) | set(spec.errors))

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
        used = sorted({c for spec in self.tools.values() for c in self.tool_codes(spec)})
        return [
            {
                "code": c,
                "recovery": self.codes[c].recovery.value,
                "temporary": self.codes[c].temporary,
                "description": self.codes[c].doc,
            }
            for c in used
        ]

    def tool_wire(self, spec: ToolSpec) -> dict[str, Any]:
        """The tool as tools/list shows it (camelCase, as on the wire)."""
        description = spec.description
        stated = effect_sentences(
            keyed=spec.keyed,
            destructive=spec.effects.destructive,
            window_s=self.receipt_window_s,
            ttl_s=self.confirm_ttl_s,
        )
        if stated:
            description = f"{description} {stated}"
        if spec.task is not None:
            description = f"{description} {spec.task.sentence()}"
        return {
            "name": spec.name,
            "title": spec.title,
            "description": description,
            "inputSchema": spec.input_schema,
            "outputSchema": spec.output_schema,
            "annotations": {"title": spec.title, **spec.effects.annotations()},
            "_meta": self.tool_meta(spec),
        }

    def listed_tools(self) -> list[ToolSpec]:
        """Deterministic order ([9.deterministic-order]): by name."""
        return [self.tools[n] for n in sorted(self.tools)]

    def summary_dict(self) -> dict[str, Any]:
        out = self.summary.to_dict()
        out["server"] = {
            "name": self.name,
            "version": self.version,
            "fingerprint": self.fingerprint,
        }
        out["tools"] = [s.name for s in self.listed_tools()]
        return out

    @property
    def fingerprint(self) -> str | None:
        """`<server>@<version>+<hash>` of the agent-visible surface ([9.fingerprint]).

        Computed by `drivable.serve` when the server starts, from the surface a client collects,
        exactly as `drivable snapshot` computes it; None before that.
        """
        return self._fingerprint

    def set_fingerprint(self, value: str) -> None:
        self._fingerprint = value

    # -- calling -------------------------------------------------------------------------------

    def validate(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        intent: Literal["read", "write"] | None = None,
    ) -> Any:
        """Validate arguments exactly as a call does (tests and the eval use this)."""
        spec = self.tools[tool]
        return validate(spec.input_model, arguments, intent=intent or spec.intent)

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        *,
        principal: Principal | None = None,
        request_id: str | None = None,
        progress: ProgressFn | None = None,
    ) -> Outcome:
        rid = request_id or os.urandom(8).hex()
        who = principal or Principal()
        raw: Mapping[str, Any] = arguments if arguments is not None else {}
        if not _tracing():
            # No tracer provider installed: a no-op span still costs about a third of a call.
            outcome = await self._call(name, raw, who, rid, progress)
            _record(trace.INVALID_SPAN, name, outcome)
            return outcome
        with telemetry.call_span(name) as span:
            outcome = await self._call(name, raw, who, rid, progress)
            _record(span, name, outcome)
            return outcome

    async def _call(
        self,
        name: str,
        raw: Mapping[str, Any],
        principal: Principal,
        rid: str,
        progress: ProgressFn | None,
    ) -> Outcome:
        spec = self.tools.get(name)
        if spec is None:
            return self._unknown_tool(name, raw, rid)
        if not isinstance(raw, Mapping):
            return self._error(
                Envelope(
                    "invalid_arguments",
                    f"The arguments of {name} must be a JSON object.",
                    hint=f"Call {name} with an object of named arguments, as its inputSchema shows.",
                ),
                rid,
            )
        size = _size(raw)
        if size > self.max_inline_bytes:
            return self._error(
                Envelope(
                    "payload_too_large",
                    f"The arguments of {name} are {size} bytes; the inline limit is "
                    f"{self.max_inline_bytes} bytes.",
                    hint=(
                        "Pass a reference instead of inline content: the id or URI of something "
                        "already stored, as the tool's description says."
                    ),
                    details={"limit_bytes": self.max_inline_bytes, "received_bytes": size},
                ),
                rid,
            )
        missing = self._missing_scopes(spec, principal)
        if missing:
            where = f" A person can grant them at {self.settings_url}." if self.settings_url else ""
            return self._error(
                Envelope(
                    "insufficient_scope",
                    f"{name} needs the scopes {', '.join(missing)}, which this credential lacks.",
                    hint=f"Ask the user for a credential with the scopes {', '.join(missing)}.{where}",
                    details={"required_scopes": list(missing)},
                ),
                rid,
            )
        try:
            validated = validate(spec.input_model, raw, intent=spec.intent)
        except ValidationError as error:
            return self._invalid(spec, raw, error, rid)
        call = Call(
            tool=name,
            principal=principal,
            request_id=rid,
            contract=self,
            notes=list(validated.notes),
            warnings=list(validated.warnings),
            progress=progress,
        )
        set_aside = validated.context.get(REJECTED_KEY, [])
        if set_aside:
            entries = rejected_entries(spec.input_schema, set_aside)
            emptied = [f for f in spec.best_effort if not getattr(validated.value, f, None)]
            if emptied:
                issues = [i for entry in entries for i in entry["issue_objects"]]
                return self._error(
                    Envelope(
                        "invalid_arguments",
                        f"No entry of {', '.join(emptied)} in {name} validated; nothing was applied.",
                        hint=f"Fix the entries named in `issues` and call {name} again.",
                        issues=issues,
                    ),
                    rid,
                )
            call.rejected = [
                {
                    "path": e["path"],
                    "index": e["index"],
                    "issues": [i.to_dict() for i in e["issue_objects"]],
                }
                for e in entries
            ]
            call.warn(
                "partial_success",
                f"{len(entries)} entr{'y was' if len(entries) == 1 else 'ies were'} not applied; "
                f"`rejected` lists them with their issues. Fix those and send only them to {name}.",
            )
        try:
            if spec.keyed or spec.effects.destructive:
                return await self._call_durable(spec, validated.value, call, rid)
            result = await spec.handler(validated.value, call)
        except ToolError as failure:
            return self._domain_error(spec, failure, rid)
        except StoreUnavailableError as down:
            return self._error(unavailable_envelope(name, down.outcome), rid)
        except Exception:
            log.exception("tool %s failed (request_id=%s)", name, rid)
            return self._internal(name, rid)
        return self._success(spec, result, call, rid)

    async def _call_durable(self, spec: ToolSpec, args: Any, call: Call, rid: str) -> Outcome:
        """Dry run, keyed mutation, or confirmed destructive action (see `durable`)."""
        durability = self._durable()
        principal = call.principal.id
        if spec.effects.destructive and args.dry_run:
            # A preview changes nothing, so it records no receipt (a key reused for the real run
            # must not replay the preview).
            preview = self._success(spec, await spec.handler(args, call), call, rid)
            if not preview.is_error:
                preview.structured["confirm_token"] = issue_token(
                    durability, tool=spec.name, principal=principal, args=args
                )
            return preview

        async def effect(tx: Any) -> dict[str, Any]:
            call.transaction = tx
            if spec.effects.destructive:
                await spend_token(
                    durability, tool=spec.name, principal=principal, args=args, transaction=tx
                )
            shaped = self._success(spec, await spec.handler(args, call), call, rid)
            if shaped.is_error:
                raise Rejected(_envelope_of(shaped))
            return shaped.structured

        if spec.keyed:
            result, envelope, receipt = await run_keyed(
                durability,
                tool=spec.name,
                principal=principal,
                key=args.idempotency_key,
                args=args,
                effect=effect,
            )
            if envelope is not None:
                return self._error(envelope, rid)
            assert result is not None
            meta = {f"{NAMESPACE}/receipt": dict(receipt or {})}
            if receipt and receipt.get("replayed"):
                result = dict(result)
                result["notes"] = [
                    *result.get("notes", []),
                    "Replayed the result of the first call with this idempotency_key; nothing ran again.",
                ]
            return Outcome(result, is_error=False, meta=meta)
        try:
            async with durability.store.transaction() as tx:
                return Outcome(await effect(tx), is_error=False)
        except Rejected as rejected:
            return self._error(rejected.envelope, rid)

    # -- shaping results -----------------------------------------------------------------------

    def _success(self, spec: ToolSpec, result: Any, call: Call, rid: str) -> Outcome:
        try:
            if not isinstance(result, spec.output_model):
                result = spec.output_model.model_validate(result)
            structured = result.model_dump(mode="json", by_alias=True)
        except Exception:
            log.exception("tool %s returned a result outside its outputSchema (%s)", spec.name, rid)
            return self._internal(spec.name, rid)
        if call.notes:
            structured["notes"] = call.notes
        if call.warnings:
            structured["warnings"] = call.warnings
        if call.rejected:
            structured["rejected"] = call.rejected
        return Outcome(structured, is_error=False)

    def _error(self, envelope: Envelope, rid: str) -> Outcome:
        code = self.codes.get(envelope.code)
        if code is None:
            log.error("unregistered error code %r (request_id=%s)", envelope.code, rid)
            return self._internal("", rid)
        envelope.temporary = code.temporary
        if not code.temporary:
            envelope.retry_after_ms = None
        elif envelope.retry_after_ms is None:
            envelope.retry_after_ms = 1000
        envelope.request_id = rid
        envelope.fingerprint = self.fingerprint
        return Outcome(envelope.to_dict(), is_error=True)

    def _internal(self, name: str, rid: str) -> Outcome:
        subject = f"{name} failed" if name else "The call failed"
        return self._error(
            Envelope(
                "internal_error",
                f"{subject} unexpectedly on the server.",
                hint=(
                    f"Call {name or 'the tool'} once more with the same arguments; if it fails "
                    f"again, stop and tell the user, quoting request_id {rid} for the operator."
                ),
            ),
            rid,
        )

    def _unknown_tool(self, name: str, raw: Mapping[str, Any], rid: str) -> Outcome:
        names = sorted(self.tools)
        near = nearest_tool(name, names)
        repair = None
        if near and isinstance(raw, Mapping):
            try:
                validate(self.tools[near[0]].input_model, raw, intent=self.tools[near[0]].intent)
                repair = Repair(near[0], dict(raw), "call_nearest_tool")
            except ValidationError:
                repair = None
        hint = (
            f"Did you mean {near[0]}? Tools: {', '.join(names)}."
            if near
            else f"Call one of: {', '.join(names)} (tools/list describes them)."
        )
        envelope = Envelope("unknown_tool", f"No tool is named {name!r}.", hint=hint, repair=repair)
        return self._error(envelope, rid)

    def _invalid(
        self, spec: ToolSpec, raw: Mapping[str, Any], error: ValidationError, rid: str
    ) -> Outcome:
        issues = issues_from(error, raw, spec.input_schema)
        fixed = repaired_arguments(raw, issues, spec.input_schema)
        repair = None
        if fixed is not None:
            try:
                validate(spec.input_model, fixed, intent=spec.intent)
                repair = Repair(spec.name, fixed, "resend_with_corrected_property_names")
            except ValidationError:
                repair = None
        first = issues[0] if issues else None
        count = len(issues)
        if first is None:
            hint = f"Check the arguments against {spec.name}'s inputSchema and call it again."
        elif first.code == "placeholder_value":
            hint = (
                f"Omit {first.path} to leave it unset, or send its real value, and call "
                f"{spec.name} again."
            )
        elif first.readings:
            choices = " or ".join(json.dumps(r, ensure_ascii=False) for r in first.readings)
            hint = f"Resend {spec.name} with {first.path} as {choices}, whichever was meant."
        elif repair is not None:
            hint = (
                f"Call {spec.name} again with the corrected property names (the call in `repair`)."
            )
        else:
            hint = f"Fix {first.path} ({first.message.rstrip('.')}) and call {spec.name} again."
        envelope = Envelope(
            "invalid_arguments",
            f"{count} argument{'s' if count != 1 else ''} of {spec.name} did not validate.",
            hint=hint,
            issues=issues,
            repair=repair,
        )
        return self._error(envelope, rid)

    def _domain_error(self, spec: ToolSpec, failure: ToolError, rid: str) -> Outcome:
        if failure.code not in self.codes:
            log.error("tool %s raised unregistered code %r (%s)", spec.name, failure.code, rid)
            return self._internal(spec.name, rid)
        repair = failure.repair
        if repair is not None and not self._callable(repair):
            log.error("tool %s offered a repair that does not validate (%s)", spec.name, rid)
            repair = None
        hint = failure.hint
        code = self.codes[failure.code]
        if (
            code.recovery is Recovery.ASK_USER
            and self.settings_url
            and self.settings_url not in hint
        ):
            hint = f"{hint} A person can change this at {self.settings_url}."
        envelope = Envelope(
            failure.code,
            failure.message,
            hint=hint,
            issues=list(failure.issues),
            repair=repair,
            retry_after_ms=failure.retry_after_ms,
            details=failure.details,
        )
        return self._error(envelope, rid)

    def _callable(self, repair: Repair) -> bool:
        """A repair is sent only when its arguments validate against the named tool."""
        target = self.tools.get(repair.tool)
        if target is None:
            return False
        try:
            validate(target.input_model, repair.arguments, intent=target.intent)
        except ValidationError:
            return False
        return True

    def _missing_scopes(self, spec: ToolSpec, principal: Principal) -> list[str]:
        if principal.scopes is None:
            return []
        return [s for s in spec.scopes if s not in principal.scopes]


# Verbs models use for the fixed verbs of [3.verbs]; the first of each list is the likeliest.
VERB_SYNONYMS: dict[str, tuple[str, ...]] = {
    "find": ("search", "list", "get"),
    "query": ("search", "list"),
    "lookup": ("get", "search"),
    "fetch": ("get", "read"),
    "show": ("get", "list"),
    "retrieve": ("get",),
    "add": ("create",),
    "new": ("create",),
    "make": ("create",),
    "remove": ("delete",),
    "edit": ("update",),
    "modify": ("update",),
}


def nearest_tool(name: str, names: Sequence[str]) -> list[str]:
    """The tool an unknown name most likely meant: by spelling, and by verb synonyms
    ("find_notes" -> search_notes), as a list of at most one name."""
    spellings = [name]
    head, _, rest = name.partition("_")
    for verb in VERB_SYNONYMS.get(head.casefold(), ()):
        spellings.append(f"{verb}_{rest}" if rest else verb)
    best: tuple[float, str] | None = None
    for rank, spelling in enumerate(spellings):
        for candidate in names:
            score = difflib.SequenceMatcher(None, spelling, candidate).ratio() - rank * 0.01
            if score >= 0.5 and (best is None or score > best[0]):
                best = (score, candidate)
    return [best[1]] if best else []


def _envelope_of(outcome: Outcome) -> Envelope:
    """An error outcome back as an envelope (to roll an effect back and answer with it)."""
    body = outcome.structured
    return Envelope(body["code"], body["message"], hint=body["hint"])


def _check_short(subject: str, description: str) -> None:
    """Resource summaries are at most three sentences ([4.short-summaries])."""
    from drivable.contract.tool import ContractError

    sentences = [x for x in re.split(r"(?<=[.!?])\s+", description.strip()) if x]
    if not sentences:
        raise ContractError(f"resource {subject!r} needs a description")
    if len(sentences) > 3:
        raise ContractError(f"resource {subject!r}: keep the description to three sentences")


def _declaring_scope(depth: int = 4) -> dict[str, Any]:
    """Locals of the frames that declared a tool, nearest first, so models declared inside a
    function (tests, factories) resolve like module-level ones."""
    scope: dict[str, Any] = {}
    frame: FrameType | None = sys._getframe(2)
    for _ in range(depth):
        if frame is None:
            break
        for key, value in frame.f_locals.items():
            scope.setdefault(key, value)
        frame = frame.f_back
    return scope


def _tracing() -> bool:
    """Whether an OpenTelemetry tracer provider is installed (checked per call: it may come later)."""
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def _record(span: trace.Span, name: str, outcome: Outcome) -> None:
    if outcome.is_error:
        telemetry.record_rejection(span, name, outcome.structured)
    else:
        telemetry.record_success(span, name)


# Built once: `json.dumps` with options builds a new encoder on every call (a third of its cost).
_SIZE_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)
_WIRE_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _size(raw: Mapping[str, Any]) -> int:
    try:
        return len(_SIZE_ENCODER.encode(raw).encode())
    except (TypeError, ValueError):
        return 0


def issue(path: str, code: str, message: str, **kw: Any) -> Issue:
    """A convenience for handlers building issues for a ToolError."""
    return Issue(path, code, message, has_received="received" in kw, **kw)
