"""Resources and prompts: declared beside the tools, listed in a stable order, read through one path.

Resources are read-only bodies behind stable hierarchical URIs ([4.uri-stable]); a template's
variables are matched from the URI and read through the kinds like tool arguments. A resource
failure is a JSON-RPC error whose `data` carries the envelope with `code` renamed `machine_code`
and `message` renamed `human_message` ([6.resource-errors], [6.rename]). Prompts are advisory
scaffolding ([5.scaffolding-only]): they name the tools they lead to; nothing essential lives there.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from drivable.contract.content import Embedded, Message
from drivable.contract.envelope import Repair

ResourceReader = Callable[..., Awaitable["ResourceBody"]]
# A prompt renders to one user text (a str) or to several messages (text, images, resources).
PromptRenderer = Callable[..., Awaitable["str | Sequence[Message]"]]

_VARIABLE = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


@dataclass(frozen=True)
class ResourceBody:
    """What a read returns: text (JSON or prose) or binary `blob`, its mime type, optional `_meta`."""

    text: str = ""
    mime_type: str = "application/json"
    meta: Mapping[str, Any] | None = None
    blob: bytes | None = None  # a binary body (an image, a PDF): sent base64-encoded
    # the body's own URI when it is not the one read, and further bodies of the same read (a
    # directory's files), each under its own URI
    uri: str | None = None
    more: Sequence[ResourceBody] = ()

    def __post_init__(self) -> None:
        if self.blob is not None and self.text:
            raise ValueError("a resource body is text or a blob, not both")

    def contents(self, uri: str) -> dict[str, Any]:
        """The body as one resources/read contents object."""
        uri = self.uri or uri
        if self.blob is not None:
            out = Embedded(uri, self.mime_type, blob=self.blob).contents()
        else:
            out = Embedded(uri, self.mime_type, text=self.text).contents()
        if self.meta:
            out["_meta"] = dict(self.meta)
        return out


class ResourceError(Exception):
    """A resource failure with a registered code; becomes a JSON-RPC error with the envelope."""

    def __init__(self, code: str, message: str, *, hint: str, repair: Repair | None = None) -> None:
        super().__init__(code)
        self.code = code
        self.message = message
        self.hint = hint
        self.repair = repair


@dataclass(frozen=True)
class ResourceSpec:
    uri: str
    name: str
    title: str
    description: str
    mime_type: str
    reader: ResourceReader
    size: int | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)

    def wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "uri": self.uri,
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "mimeType": self.mime_type,
        }
        if self.size is not None:
            out["size"] = self.size
        if self.meta:
            out["_meta"] = dict(self.meta)
        return out


@dataclass(frozen=True)
class TemplateSpec:
    uri_template: str
    name: str
    title: str
    description: str
    mime_type: str
    reader: ResourceReader
    # (argument, value) -> values; it may also take the contract's resource (`Declaration.inject`)
    complete: Callable[..., Awaitable[list[str]]] | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def variables(self) -> list[str]:
        return _VARIABLE.findall(self.uri_template)

    def match(self, uri: str) -> dict[str, str] | None:
        """The variables of `uri` when it fits this template (a variable never spans a '/')."""
        pattern = (
            "^"
            + "".join(
                f"(?P<{part[1:-1]}>[^/]+)" if _VARIABLE.fullmatch(part) else re.escape(part)
                for part in re.split(r"(\{[a-z_][a-z0-9_]*\})", self.uri_template)
                if part
            )
            + "$"
        )
        found = re.match(pattern, uri)
        return dict(found.groupdict()) if found else None

    def wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "uriTemplate": self.uri_template,
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "mimeType": self.mime_type,
        }
        if self.meta:
            out["_meta"] = dict(self.meta)
        return out


@dataclass(frozen=True)
class PromptArgumentSpec:
    """One prompt argument. `choices` are what completion/complete suggests for it, by prefix."""

    name: str
    description: str
    required: bool = False
    choices: Sequence[str] = ()

    def complete(self, prefix: str) -> list[str]:
        folded = prefix.casefold()
        return [c for c in self.choices if c.casefold().startswith(folded)]


@dataclass(frozen=True)
class PromptSpec:
    name: str
    title: str
    description: str
    arguments: Sequence[PromptArgumentSpec]
    renderer: PromptRenderer
    when_to_use: str
    prerequisites: Mapping[str, Any]
    followups: Sequence[str]

    @property
    def asks(self) -> bool:
        """Whether the renderer takes `client` (a ClientSide: it may ask the user or the model)."""
        return "client" in inspect.signature(self.renderer).parameters

    def wire(self, namespace: str) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "arguments": [
                {"name": a.name, "description": a.description, "required": a.required}
                for a in self.arguments
            ],
            "_meta": {
                f"{namespace}/when-to-use": self.when_to_use,
                f"{namespace}/prerequisites": dict(self.prerequisites),
                f"{namespace}/expected-followups": list(self.followups),
            },
        }
