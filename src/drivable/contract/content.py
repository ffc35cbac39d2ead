"""Content blocks: what a tool result, a prompt message or a resource read carries besides JSON.

A tool's result is its structured content and that content's JSON text; a handler may attach
more blocks after it (`call.attach(...)`): an image, audio, an embedded resource (a decision's
text, a generated file) or a link to a resource the client can read later. Prompts return
`Message`s built from the same blocks. Binary data is given as bytes and base64-encoded here,
once, so no handler writes its own encoding.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

Role = Literal["user", "assistant"]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


@dataclass(frozen=True)
class Text:
    """Plain text for the model to read."""

    text: str

    def wire(self) -> dict[str, Any]:
        return {"type": "text", "text": self.text}


@dataclass(frozen=True)
class Image:
    """An image (PNG, JPEG, ...), given as its bytes."""

    data: bytes
    mime_type: str = "image/png"

    def wire(self) -> dict[str, Any]:
        return {"type": "image", "data": _b64(self.data), "mimeType": self.mime_type}


@dataclass(frozen=True)
class Audio:
    """A sound clip (WAV, MP3, ...), given as its bytes."""

    data: bytes
    mime_type: str = "audio/wav"

    def wire(self) -> dict[str, Any]:
        return {"type": "audio", "data": _b64(self.data), "mimeType": self.mime_type}


@dataclass(frozen=True)
class Embedded:
    """A resource's body carried inline: text (`text`) or binary (`blob`), never both."""

    uri: str
    mime_type: str
    text: str | None = None
    blob: bytes | None = None

    def __post_init__(self) -> None:
        if (self.text is None) == (self.blob is None):
            raise ValueError("an embedded resource carries exactly one of text or blob")

    def contents(self) -> dict[str, Any]:
        """The resource contents object (as resources/read returns it)."""
        out: dict[str, Any] = {"uri": self.uri, "mimeType": self.mime_type}
        if self.text is not None:
            out["text"] = self.text
        else:
            assert self.blob is not None
            out["blob"] = _b64(self.blob)
        return out

    def wire(self) -> dict[str, Any]:
        return {"type": "resource", "resource": self.contents()}


@dataclass(frozen=True)
class ResourceLink:
    """A pointer to a resource the client may read with resources/read, instead of its body."""

    uri: str
    name: str
    description: str | None = None
    mime_type: str | None = None

    def wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "resource_link", "uri": self.uri, "name": self.name}
        if self.description is not None:
            out["description"] = self.description
        if self.mime_type is not None:
            out["mimeType"] = self.mime_type
        return out


Block = Text | Image | Audio | Embedded | ResourceLink
BLOCKS = (Text, Image, Audio, Embedded, ResourceLink)


@dataclass(frozen=True)
class Message:
    """One prompt message: a role and one content block (a str is read as text)."""

    content: Block | str
    role: Role = "user"

    def wire(self) -> dict[str, Any]:
        block = Text(self.content) if isinstance(self.content, str) else self.content
        if isinstance(block, ResourceLink) or not isinstance(block, BLOCKS):
            raise TypeError(
                "a prompt message carries text, an image, audio or an embedded resource"
            )
        return {"role": self.role, "content": block.wire()}


def wire_blocks(blocks: Sequence[object]) -> list[dict[str, Any]]:
    """Blocks as wire dicts; refuses anything that is not a block (a handler's mistake)."""
    out = []
    for block in blocks:
        if not isinstance(block, BLOCKS):
            raise TypeError(f"not a content block: {type(block).__name__}")
        out.append(block.wire())
    return out


def wire_messages(rendered: object) -> list[dict[str, Any]]:
    """What a prompt renderer returned, as prompt messages: a str is one user text message."""
    if isinstance(rendered, str):
        return [Message(rendered).wire()]
    if isinstance(rendered, Message):
        return [rendered.wire()]
    if isinstance(rendered, (list, tuple)):
        return [m.wire() if isinstance(m, Message) else Message(m).wire() for m in rendered]
    raise TypeError(f"a prompt renders to text or messages, not {type(rendered).__name__}")
