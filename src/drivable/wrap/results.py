"""An upstream success as a drivable result: its data, its text, and every other block attached.

`result` is what the upstream answered as data (its structuredContent, else the JSON its one text
block holds); `text` is its prose when it answered prose, and a model reads it as the upstream sent
it: the answer's first text block, the rest of the result as JSON after it (`Output.prose_field`;
docs/decisions/0065-prose-answered-as-prose.md). Images, audio, embedded resources and
links ride after the result's JSON text as attachments, so nothing the upstream sent is lost (a
keyed replay returns the recorded fields, as for any drivable tool). A destructive tool's dry run
answers `would_send`: the arguments the confirmed call sends upstream. A tool whose answers are
paged (`drivable.wrap.paging`) answers `has_more` and `next_cursor` besides.
"""

from __future__ import annotations

import base64
import json
from typing import Any, ClassVar

from mcp_types import CallToolResult
from pydantic import Field

from drivable.contract.content import Audio, Embedded, Image, ResourceLink
from drivable.contract.output import Output
from drivable.wrap.pages import Piece


class Forwarded(Output):
    """What a wrapped tool answers."""

    prose_field: ClassVar[str | None] = "text"

    result: Any = None
    text: str | None = None
    would_send: Any = None


class ForwardedPage(Forwarded):
    """What a wrapped tool whose answers are paged answers (`drivable.wrap.paging`)."""

    has_more: bool | None = Field(
        None, description="True when another page follows; its call is this result's next_call."
    )
    next_cursor: str | None = Field(
        None, description="Pass as `cursor` to get the next page; absent on the last page."
    )


def forwarded(answer: CallToolResult) -> Piece:
    """The result, the text and the attachments of an upstream success."""
    texts: list[str] = []
    attachments: list[Any] = []
    for block in answer.content:
        kind = getattr(block, "type", None)
        if kind == "text":
            texts.append(block.text)  # type: ignore[union-attr]
        elif kind == "image":
            attachments.append(Image(_bytes(block.data), str(block.mime_type)))  # type: ignore[union-attr]
        elif kind == "audio":
            attachments.append(Audio(_bytes(block.data), str(block.mime_type)))  # type: ignore[union-attr]
        elif kind == "resource_link":
            attachments.append(
                ResourceLink(
                    str(block.uri),  # type: ignore[union-attr]
                    block.name,  # type: ignore[union-attr]
                    getattr(block, "description", None),
                    getattr(block, "mime_type", None),
                )
            )
        elif kind == "resource":
            body = block.resource  # type: ignore[union-attr]
            blob = getattr(body, "blob", None)
            attachments.append(
                Embedded(
                    str(body.uri),
                    body.mime_type or ("application/octet-stream" if blob else "text/plain"),
                    text=getattr(body, "text", None),
                    blob=_bytes(blob) if blob is not None else None,
                )
            )
    structured = answer.structured_content
    if structured is not None:
        return Piece(structured, _unless_same(texts, structured), attachments)
    if len(texts) == 1:
        try:
            data = json.loads(texts[0])
        except ValueError:
            data = None
        if isinstance(data, (dict, list)):
            return Piece(data, None, attachments)
    return Piece(None, "\n".join(texts) if texts else None, attachments)


def _unless_same(texts: list[str], structured: Any) -> str | None:
    """The text blocks, unless they only repeat the structured content as JSON."""
    if not texts:
        return None
    if len(texts) == 1:
        try:
            if json.loads(texts[0]) == structured:
                return None
        except ValueError:
            pass
    return "\n".join(texts)


def _bytes(data: Any) -> bytes:
    return base64.b64decode(data) if isinstance(data, str) else bytes(data)
