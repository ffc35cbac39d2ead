"""The declaration: a server's identity and what its decorators register (tools, resources,
templates, prompts, codes, verbs), checked at import time.

`Contract` (`drivable.contract.facade`) is this declaration with a surface and a runtime: the
surface renders what is registered here (`drivable.contract.surface`), the runtime calls it
(`drivable.contract.runtime`). Nothing here runs a call or renders a list.
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import FrameType
from typing import Any, Literal, TypeVar, overload

from pydantic import ValidationError

from drivable.contract import boundary, declare
from drivable.contract.codes import ERROR_CODES, WARNING_CODES, Code, WarningCode
from drivable.contract.echo import NextCall
from drivable.contract.lifespan import Lifespan, resource_parameters, resource_type
from drivable.contract.long_running import TASK_CODES
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
from drivable.contract.summary import Summary
from drivable.contract.tool import (
    ContractError,
    Deprecation,
    Effects,
    Stability,
    ToolSpec,
    build_spec,
)
from drivable.kinds import validate
from drivable.verbs import leading

F = TypeVar("F", bound=Callable[..., Any])

MAX_INLINE_BYTES = 256 * 1024
"""One shared bound for inline content in tool arguments (`Contract(max_inline_bytes=...)`);
descriptions state it, transports enforce a bound of the same order on the request body."""
# Above this many tools, tools/list lists the entry tools (`drivable.contract.catalog`); None
# never: off unless the author sets it (docs/decisions/0042-a-large-catalog-is-entered.md).
CATALOG_LIMIT: int | None = None
# The tools a catalog larger than its limit is entered through (`drivable.contract.catalog`).
ENTRY_TOOLS: tuple[str, str, str] = ("find_tools", "describe_tool", "call_tool")


def entered(declaration: Declaration) -> bool:
    """Whether tools/list shows `declaration`'s entry tools rather than its tools."""
    limit = declaration.catalog_limit
    return limit is not None and len(declaration.tools) > limit


_UNKNOWN_URI = (
    "List the resources (resources/list) and templates (resources/templates/list), or find the "
    "record with a search tool first."
)


class Declaration:
    """What a server declares: identity, tools, resources, prompts, codes, warnings, verbs."""

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
        verbs: Sequence[str] = (),
        lifespan: Lifespan | None = None,
        catalog_limit: int | None = CATALOG_LIMIT,
    ) -> None:
        self.name = name
        self.catalog_limit = catalog_limit
        # what opens the handlers' resource, and its type (`drivable.contract.lifespan`)
        self.lifespan = lifespan
        self.resource_type = resource_type(lifespan) if lifespan is not None else None
        self._takes: dict[Any, tuple[str, ...]] = {}
        # the verbs a tool name may lead with: drivable's and the domain's own ("book", "triage")
        self.verbs = leading(verbs)
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
        # reads a URI no resource or template claims (a proxy's: `drivable.wrap`); None: not_found
        self.read_other: ResourceReader | None = None

    @property
    def write_scope(self) -> str:
        """The scope a mutating tool declared without scopes requires."""
        return f"{self.name}:write"

    def declared(self) -> None:
        """Called after a tool is registered: what was computed from the tools is stale."""

    def provided(self) -> Any:
        """The resource the open lifespan yielded (the runtime's; `Contract` answers it)."""
        raise LookupError(f"{self.name}: a declaration alone opens no lifespan")

    def inject(self, fn: Any) -> dict[str, Any]:
        """The arguments `fn` takes from the lifespan: each parameter annotated with the
        resource's type, by name (a resource reader, a completion, a prompt renderer)."""
        names = self._takes.get(fn)
        if names is None:
            names = self._takes[fn] = resource_parameters(fn, self.resource_type)
        return {name: self.provided() for name in names} if names else {}

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
        docstring, the title to the name in words; `examples` are argument objects, validated now;
        the first is written out after a description that has none (`Example: {...}.`). Effect presets (`CREATE`, `DELETE`) add their control
        fields. Without `effects`, the tool is refused: annotations are decided, never defaulted.
        `task=drivable.tasks.LongRunning(...)` declares long-running work (docs/tasks.md).
        `more` is what tools/list leaves out of the description (behaviour a first call does not
        need: lifetimes, what each detail adds, rarer errors): server/discover publishes it under
        `dev.drivable/tools`, and the errors it describes say it again when they happen."""
        declaring_scope = _declaring_scope()

        def decorate(handler: Any) -> Any:
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
            adapted, model = declare.adapt(
                tool_name, handler, effects, declaring_scope, self.resource_type
            )
            checked = []
            if examples and model is not None:
                intent: Literal["read", "write"] = "read" if effects.read_only else "write"
                checked = declare.check_examples(tool_name, model, examples, intent)
            for example in [*checked, *declare.examples_in(text)]:
                declare.check_copyable(tool_name, example)
            spec = build_spec(
                adapted,
                name=tool_name,
                title=title or declare.title_of(tool_name),
                description=text,
                example=declare.example_sentence(text, checked),
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
            spec.examples = tuple(checked)
            # JSON Schema's examples are instances: an example with placeholders stays in the text.
            if instances := [e for e in checked if not declare.has_placeholder(e)]:
                spec.input_schema["examples"] = instances
            boundary.advertise_bounds(spec.input_schema)
            self.tools[tool_name] = spec
            self.declared()
            return handler

        return decorate(fn) if fn is not None else decorate

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
        complete: Callable[..., Awaitable[list[str]]] | None = None,
    ) -> Callable[[ResourceReader], ResourceReader]:
        """Register `async def read(**variables) -> ResourceBody` behind a URI template;
        `complete(argument, value)` suggests a variable's values."""

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

    async def read_resource(self, uri: str) -> ResourceBody:
        """Read a resource or a templated one; failures raise ResourceError with a registered code."""
        spec = self.resources.get(uri)
        if spec is not None:
            return await spec.reader(**self.inject(spec.reader))
        for template in self.templates.values():
            variables = template.match(uri)
            if variables is not None:
                return await template.reader(**variables, **self.inject(template.reader))
        if self.read_other is not None:
            return await self.read_other(uri, **self.inject(self.read_other))
        raise ResourceError("not_found", f"No resource has the URI {uri!r}.", hint=_UNKNOWN_URI)


def _check_short(subject: str, description: str) -> None:
    """Resource summaries are at most three sentences ([4.short-summaries])."""
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
