"""The upstream's resources, resource templates and prompts, served by the wrapper.

Each is declared on the contract as any drivable server declares one (`Contract.resource`,
`Contract.resource_template`, `Contract.prompt`), its reader or renderer forwarding the request
upstream; a URI no listed resource or simple template claims (a template with RFC 6570
operators, `{+path}`; a resource listed after the wrapper started) is forwarded too, through the
contract's `read_other`. Every upstream failure becomes the runtime's resource failure (a
JSON-RPC error carrying the envelope) with a closed code, and nothing of a trace or of the
server's own source paths.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any

from mcp import MCPError
from mcp_types import INTERNAL_ERROR

from drivable.contract import Contract
from drivable.contract.content import Audio, Embedded, Image, Message
from drivable.contract.resources import PromptArgumentSpec, ResourceBody, ResourceError
from drivable.wrap import failures
from drivable.wrap.upstream import Gone, TimedOut, Upstream

RESOURCE_NOT_FOUND = -32002  # the code servers of the 2025 era answer an unknown URI with
_VARIABLE = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


def declare_others(
    contract: Contract,
    resources: list[dict[str, Any]],
    templates: list[dict[str, Any]],
    prompts: list[dict[str, Any]],
    timeout_s: float,
) -> None:
    """Declare the upstream's resources, templates and prompts on `contract`."""
    for resource in resources:
        _resource(contract, resource, timeout_s)
    for template in templates:
        _template(contract, template, timeout_s)
    for prompt in prompts:
        _prompt(contract, prompt, timeout_s)
    if resources or templates:

        async def read_other(uri: str, upstream: Upstream) -> ResourceBody:
            return await read(upstream, uri, timeout_s)

        contract.read_other = read_other


def _resource(contract: Contract, item: Mapping[str, Any], timeout_s: float) -> None:
    uri = str(item["uri"])

    async def read_listed(upstream: Upstream) -> ResourceBody:
        return await read(upstream, uri, timeout_s)

    size = item.get("size") if isinstance(item.get("size"), int) else None
    contract.resource(uri, **_described(item, uri), size=size)(read_listed)


def _template(contract: Contract, item: Mapping[str, Any], timeout_s: float) -> None:
    pattern = str(item["uriTemplate"])

    async def read_matched(upstream: Upstream, **variables: str) -> ResourceBody:
        uri = _VARIABLE.sub(lambda m: variables[m.group(1)], pattern)
        return await read(upstream, uri, timeout_s)

    contract.resource_template(pattern, **_described(item, pattern))(read_matched)


def _described(item: Mapping[str, Any], fallback: str) -> dict[str, Any]:
    """How the upstream names and describes a resource or a template (its URI when it does not)."""
    name = str(item.get("name") or fallback)
    return {
        "name": name,
        "title": str(item.get("title") or name),
        "description": short(item.get("description"), name),
        "mime_type": str(item.get("mimeType") or "text/plain"),
    }


def _prompt(contract: Contract, item: Mapping[str, Any], timeout_s: float) -> None:
    name = str(item["name"])
    description = str(item.get("description") or f"The wrapped server's prompt {name}.")

    async def render(upstream: Upstream, **arguments: str) -> list[Message]:
        return await prompt_messages(upstream, name, arguments, timeout_s)

    contract.prompt(
        name=name,
        title=str(item.get("title") or name),
        description=description,
        when_to_use=description,
        arguments=[
            PromptArgumentSpec(
                str(a["name"]), str(a.get("description") or a["name"]), bool(a.get("required"))
            )
            for a in item.get("arguments") or ()
        ],
    )(render)


def short(text: Any, name: str) -> str:
    """A listing's description in at most three sentences (the runtime's rule for resources)."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", str(text or "").strip()) if s]
    return " ".join(sentences[:3]) or f"{name}, read from the wrapped server."


async def read(upstream: Upstream, uri: str, timeout_s: float) -> ResourceBody:
    """resources/read upstream, as the bodies it answered (the first; the others in `more`)."""
    try:
        answer = await upstream.read_resource(uri, timeout_s)
    except Exception as error:
        raise resource_failure(error, "resources/read", uri) from None
    bodies = [_body(c) for c in answer.contents]
    if not bodies:
        return ResourceBody(text="", mime_type="text/plain")
    first, *rest = bodies
    return ResourceBody(
        text=first.text,
        mime_type=first.mime_type,
        blob=first.blob,
        uri=first.uri if first.uri != uri else None,
        more=tuple(rest),
    )


def _body(contents: Any) -> ResourceBody:
    mime = getattr(contents, "mime_type", None)
    blob = getattr(contents, "blob", None)
    if blob is not None:
        return ResourceBody(
            blob=base64.b64decode(blob),
            mime_type=mime or "application/octet-stream",
            uri=str(contents.uri),
        )
    return ResourceBody(
        text=str(getattr(contents, "text", "")),
        mime_type=mime or "text/plain",
        uri=str(contents.uri),
    )


async def prompt_messages(
    upstream: Upstream, name: str, arguments: Mapping[str, str], timeout_s: float
) -> list[Message]:
    """prompts/get upstream, as drivable's prompt messages."""
    try:
        answer = await upstream.get_prompt(name, arguments, timeout_s)
    except Exception as error:
        raise resource_failure(error, "prompts/get", None) from None
    return [Message(_block(m.content), role=m.role) for m in answer.messages]


def _block(content: Any) -> Any:
    kind = getattr(content, "type", None)
    if kind == "image":
        return Image(base64.b64decode(content.data), str(content.mime_type))
    if kind == "audio":
        return Audio(base64.b64decode(content.data), str(content.mime_type))
    if kind == "resource":
        body = _body(content.resource)
        return Embedded(
            str(body.uri), body.mime_type, text=None if body.blob else body.text, blob=body.blob
        )
    if kind == "resource_link":
        # a prompt message carries no link: the link as the words that name it
        return f"{content.name}: {content.uri}"
    return str(getattr(content, "text", ""))


def resource_failure(error: Exception, what: str, uri: str | None) -> ResourceError:
    """An upstream failure of a resource read or a prompt as the runtime's resource failure."""
    subject = f"{what} of {uri}" if uri else what
    if isinstance(error, Gone):
        return ResourceError(
            "unavailable",
            f"The wrapped server stopped while answering {subject}; it is being restarted.",
            hint="Send the same request again in a moment.",
        )
    if isinstance(error, TimedOut):
        return ResourceError(
            "upstream_timeout",
            f"The wrapped server did not answer {subject} in time.",
            hint="Send the same request again.",
        )
    if not isinstance(error, MCPError):
        return ResourceError(
            "internal_error",
            f"The wrapped server's answer to {subject} could not be read; nothing of it is "
            "passed on.",
            hint="Tell the user the wrapped server failed.",
        )
    text = error.error.message
    said = failures.refusal(
        text, tool=what, lookups=[], internal=error.error.code == INTERNAL_ERROR
    )
    if error.error.code == RESOURCE_NOT_FOUND or said.code == "not_found":
        return ResourceError(
            "not_found",
            said.message if said.code == "not_found" else f"No resource has the URI {uri!r}.",
            hint="List the resources (resources/list) and templates (resources/templates/list) "
            "and read one of those.",
        )
    if said.code == "internal_error":
        return ResourceError(
            "internal_error",
            f"The wrapped server failed inside itself on {subject}; nothing of its failure is "
            "passed on.",
            hint="Send the request once more; if it fails again, tell the user.",
        )
    return ResourceError(
        "upstream_refused" if said.code != "invalid_arguments" else "invalid_arguments",
        said.message,
        hint="Fix what the message names and send the request again.",
    )
