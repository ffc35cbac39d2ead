"""The contract: a server's tools, codes and summary, and the one call pipeline every transport uses.

(Over 500 lines for a reason: `Contract` is the one object an author meets, so its declaring
methods, the surface it lists and the call entry stay together; each job of a call lives in its own
module under `drivable.contract.stages`, the envelope's finish in `finish`.)

`Contract.call(name, arguments)` is transport-free: it bounds the payload, checks scopes, validates
through the tool's input model (lenient kinds, notes), runs the handler, turns every failure into
the envelope, and checks the result against the output model. `drivable.serve` mounts it on the
SDK's low-level Server for stdio and streamable HTTP.
"""

from __future__ import annotations

import inspect
import logging
import re
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from types import FrameType
from typing import Any, Literal, TypeVar, overload

from opentelemetry import trace
from pydantic import ValidationError

from drivable import settings
from drivable.contract import boundary, telemetry
from drivable.contract import strict as strict_mode
from drivable.contract.call import Call, Outcome, Principal, ProgressFn
from drivable.contract.changes import Changes
from drivable.contract.client import NO_CLIENT, ClientSide
from drivable.contract.codes import ERROR_CODES, WARNING_CODES, Code, WarningCode
from drivable.contract.durable import (
    CONFIRM_TTL_S,
    RECEIPT_WINDOW_S,
    Durability,
    effect_sentences,
)
from drivable.contract.echo import NextCall
from drivable.contract.envelope import Envelope
from drivable.contract.finish import finish
from drivable.contract.finish import request_id as new_request_id
from drivable.contract.long_running import TASK_CODES
from drivable.contract.pipeline import run
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
from drivable.contract.stages.base import Attempt
from drivable.contract.stages.handler import internal_error
from drivable.contract.summary import Summary
from drivable.contract.tool import (
    Deprecation,
    Effects,
    Stability,
    ToolSpec,
    build_spec,
    listed_input_schema,
    listed_schema,
)
from drivable.effects import ConfirmTokens, EffectStore
from drivable.kinds import validate
from drivable.verbs import LEADING

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["Call", "Contract", "Outcome", "Principal", "ProgressFn", "Summary"]

log = logging.getLogger("drivable.contract")

# One shared bound for inline content in tool arguments; descriptions state it, transports
# enforce a bound of the same order on the request body before parsing.
MAX_INLINE_BYTES = 256 * 1024
NAMESPACE = "dev.drivable"


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
        strict: bool | None = None,
        verbs: Sequence[str] = (),
    ) -> None:
        self.name = name
        # the verbs a tool name may lead with: drivable's and the domain's own ("book", "triage")
        for verb in verbs:
            if not verb.isascii() or not verb.isalpha() or not verb.islower():
                raise ValueError(f"verb {verb!r}: one lowercase word, as it leads a tool name")
        self.verbs = LEADING | frozenset(verbs)
        self._strict = strict
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
        self.changes = Changes()  # tell clients the lists or a resource changed

    @property
    def write_scope(self) -> str:
        """The scope a mutating tool declared without scopes requires."""
        return f"{self.name}:write"

    # -- declaring -----------------------------------------------------------------------------

    @overload
    def tool(self, fn: F, /) -> F: ...

    @overload
    def tool(
        self,
        fn: None = None,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        effects: Effects | None = None,
        errors: Sequence[str] = (),
        examples: Sequence[Mapping[str, Any]] = (),
        stability: Stability = "stable",
        deprecation: Deprecation | None = None,
        scopes: Sequence[str] = (),
        allow_name: str | None = None,
        task: Any = None,
        more: str | None = None,
    ) -> Callable[[F], F]: ...

    def tool(
        self,
        fn: Any = None,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        effects: Effects | None = None,
        errors: Sequence[str] = (),
        examples: Sequence[Mapping[str, Any]] = (),
        stability: Stability = "stable",
        deprecation: Deprecation | None = None,
        scopes: Sequence[str] = (),
        allow_name: str | None = None,
        task: Any = None,
        more: str | None = None,
    ) -> Any:
        """Register a tool: `@contract.tool(effects=READ_ONLY)` over
        `async def search_notes(args: SearchInput) -> SearchOutput` (or `(args, call: Call)`,
        or a plain function). The name defaults to the function's, the description to its
        docstring, the title to the name in words; `examples` are argument objects, validated now
        and published in the inputSchema. Effect presets (`CREATE`, `DELETE`) add their control
        fields. Without `effects`, the tool is refused: annotations are decided, never defaulted.
        `task=drivable.tasks.LongRunning(...)` declares long-running work (docs/tasks.md).
        `more` is what tools/list leaves out of the description (behaviour a first call does not
        need: lifetimes, what each detail adds, rarer errors): server/discover publishes it under
        `dev.drivable/tools`, and the errors it describes say it again when they happen."""
        declaring_scope = _declaring_scope()

        def decorate(handler: Any) -> Any:
            from drivable.contract import declare
            from drivable.contract.tool import ContractError

            tool_name: str = name or str(getattr(handler, "__name__", ""))
            if tool_name in self.tools:
                raise ContractError(f"tool {tool_name!r} is declared twice; rename one of them")
            text = description or inspect.getdoc(handler)
            if not text:
                raise ContractError(
                    f"tool {tool_name!r} has no description: write a docstring (when to use it, "
                    "its edge cases, an example call) or pass description="
                )
            if effects is None:
                raise ContractError(
                    f"tool {tool_name!r}: declare effects= (READ_ONLY, CREATE, UPDATE, DELETE from "
                    "drivable.contract, or Effects(read_only=, destructive=, idempotent=, "
                    "open_world=)); annotations are decided, never defaulted"
                )
            adapted, model = declare.adapt(tool_name, handler, effects, declaring_scope)
            checked = []
            if examples and model is not None:
                intent: Literal["read", "write"] = "read" if effects.read_only else "write"
                checked = declare.check_examples(tool_name, model, examples, intent)
                if "example" not in text.lower():
                    text = f"{text} {declare.example_sentence(checked)}"
            for example in [*checked, *declare.examples_in(text)]:
                declare.check_copyable(tool_name, example)
            spec = build_spec(
                adapted,
                name=tool_name,
                title=title or declare.title_of(tool_name),
                description=text,
                effects=effects,
                errors=errors,
                known_codes=self.codes,
                stability=stability,
                deprecation=deprecation,
                # Access by default: a tool that changes anything needs a scope, the contract's
                # write scope unless it names its own (stdio's local user holds every scope).
                scopes=tuple(scopes) or (() if effects.read_only else (self.write_scope,)),
                localns=declaring_scope,
                allow_name=allow_name,  # verb_noun exemption, with the reason the name is fixed
                task=task,
                verbs=self.verbs,
            )
            if task is not None:
                self.codes.update({c.id: c for c in TASK_CODES if c.id not in self.codes})
            spec.more = (more or "").strip()
            # JSON Schema's examples are instances: an example with placeholders stays in the text.
            if instances := [e for e in checked if not declare.has_placeholder(e)]:
                spec.input_schema["examples"] = instances
            boundary.advertise_bounds(spec.input_schema)
            self.tools[tool_name] = spec
            self._fingerprint = None
            return handler

        return decorate(fn) if fn is not None else decorate

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

    async def durable(self) -> Durability:
        """The attached store, or the one the settings name (`store`, default a SQLite file in
        the cache directory), with the settings' secret or one derived in and shared through the
        store: every process that shares the store accepts the others' confirm tokens."""
        if self.durability is None:
            from drivable import settings
            from drivable.effects import open_store

            configured = settings.current()
            url = configured.store_url(self.name)
            if url.startswith("sqlite:///"):
                Path(url[len("sqlite:///") :]).parent.mkdir(parents=True, exist_ok=True)
            store = open_store(url)
            secret = configured.secret or await settings.shared_secret(store, "tokens")
            if self.durability is None:  # another call may have attached one meanwhile
                self.use_effects(
                    store,
                    secret,
                    receipt_window_s=self.receipt_window_s,
                    confirm_ttl_s=self.confirm_ttl_s,
                )
                settings.install_secret(secret)
        assert self.durability is not None
        return self.durability

    async def prepare(self) -> None:
        """Settle the store and the token secret before the first call (serve does this at
        startup): when a tool keeps receipts, a store is configured, or several workers serve
        the contract, so that cursors and confirm tokens hold across processes from the start."""
        from drivable import settings

        configured = settings.current()
        durable = any(s.keyed or s.effects.destructive for s in self.tools.values())
        if durable or configured.store or configured.workers > 1:
            await self.durable()

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
            common += ["idempotency_mismatch", "in_progress", "unavailable", "change_undone"]
        if spec.effects.destructive:
            common += ["confirmation_required", "confirmation_invalid", "confirmation_declined"]
            common.append("unavailable")
        if self.durability is not None:
            # A store attached at declaration (the billing server's): any tool reading through
            # it answers `unavailable` when it is down.
            common.append("unavailable")
        if "cursor" in spec.input_model.model_fields:
            common += ["invalid_cursor", "cursor_expired"]
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
        return list(self.tools.values())

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
        client: ClientSide = NO_CLIENT,
    ) -> Outcome:
        rid = request_id or new_request_id()
        who = principal or Principal()
        raw: Mapping[str, Any] = arguments if arguments is not None else {}
        # A name the caller made up is not recorded (nor does it grow the metrics' label set).
        recorded = name if name in self.tools else "(unknown)"
        if not _tracing():
            # No tracer provider installed: a no-op span still costs about a third of a call.
            outcome = await run(Attempt(self, name, raw, who, rid, progress, client))
            _record(trace.INVALID_SPAN, recorded, outcome)
            return outcome
        with telemetry.call_span(recorded) as span:
            outcome = await run(Attempt(self, name, raw, who, rid, progress, client))
            _record(span, recorded, outcome)
            return outcome

    @property
    def strict(self) -> bool:
        """Whether slips against the contract raise `StrictError` (see `drivable.contract.strict`)."""
        return strict_mode.enabled() if self._strict is None else self._strict

    def finish(self, envelope: Envelope, rid: str, tool: ToolSpec | None = None) -> Outcome:
        """The one finalizer of a tool call's envelope: its code registered (else internal_error),
        temporary and retry_after_ms from the code, the request id, the fingerprint."""
        if tool is not None and self.strict and envelope.code not in self.tool_codes(tool):
            raise strict_mode.StrictError(
                f"{tool.name} answered {envelope.code!r}, which it does not declare: add it to "
                f"errors=[...] of {tool.name}, or raise a code it declares"
            )
        if envelope.code not in self.codes:
            log.error("unregistered error code %r (request_id=%s)", envelope.code, rid)
            envelope = internal_error(tool.name if tool else "", rid)
        finish(envelope, request_id=rid, codes=self.codes, fingerprint=self.fingerprint)
        return Outcome(envelope.to_dict(), is_error=True)


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
    function (tests, factories) resolve like module-level ones. The walk stops at the first
    module-level frame: a module's names are the handler's own globals already, or, when a
    function of one module declares tools on a contract of another, names of the wrong module
    (whose `Said` would shadow the handler's own)."""
    scope: dict[str, Any] = {}
    frame: FrameType | None = sys._getframe(2)
    for _ in range(depth):
        if frame is None or frame.f_locals is frame.f_globals:
            break
        for key, value in frame.f_locals.items():
            scope.setdefault(key, value)
        frame = frame.f_back
    return scope


def _tracing() -> bool:
    """Whether an OpenTelemetry tracer provider is installed (checked per call: it may come later).

    `get_tracer_provider()` searches the environment on every call until a provider is set, a
    tenth of a call's overhead; the API's own global says the same at the cost of a load. The
    environment variable that names a provider is looked up once (`_PROVIDER_IN_ENVIRONMENT`).
    """
    installed = getattr(trace, "_TRACER_PROVIDER", _UNKNOWN)
    if installed is None and not _PROVIDER_IN_ENVIRONMENT:
        return False
    if installed is not None and installed is not _UNKNOWN:
        return not isinstance(installed, trace.ProxyTracerProvider)
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


_UNKNOWN = object()
_PROVIDER_IN_ENVIRONMENT = settings.OTEL_TRACER_PROVIDER.is_set()


def _record(span: trace.Span, name: str, outcome: Outcome) -> None:
    if outcome.is_error:
        telemetry.record_rejection(span, name, outcome.structured)
    else:
        telemetry.record_success(span, name)
