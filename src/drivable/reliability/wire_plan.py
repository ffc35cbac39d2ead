"""What the raw wire sends: the bodies of every prompt argument and template variable with each
of the boundary's value classes, in both eras, and the whole-message damage (`ENVELOPE_DAMAGE`)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from drivable.reliability.fuzz import MODERN, MODERN_META, RAW_VALUES

LEGACY = "2025-11-25"


@dataclass(frozen=True)
class Surface:
    """What the server offers besides tools: prompts (with their argument names) and templates."""

    prompts: tuple[tuple[str, tuple[str, ...]], ...] = ()
    templates: tuple[str, ...] = ()


def request_bytes(method: str, params: bytes, modern: bool, rid: int) -> bytes:
    """A request with `params` (raw JSON object text, without the closing brace's `_meta`)."""
    if modern:
        meta = b'"_meta":' + json.dumps(MODERN_META).encode() + b"}"
        params = params[:-1] + (meta if params.strip() == b"{}" else b"," + meta)
    return (
        b'{"jsonrpc":"2.0","id":'
        + str(rid).encode()
        + b',"method":'
        + json.dumps(method).encode()
        + b',"params":'
        + params
        + b"}"
    )


def _uri_value(template: str, value: bytes) -> bytes:
    """The template's URI as a JSON string with the raw value text in place of each variable."""
    # The value is JSON text; inside the URI string only its string content fits.
    inner = value[1:-1] if value.startswith(b'"') and value.endswith(b'"') else value
    pieces = [json.dumps(p).encode()[1:-1] for p in re.split(r"\{[^}]+\}", template)]
    return b'"' + inner.join(pieces) + b'"'


def method_bodies(surface: Surface) -> list[tuple[str, str, bytes]]:
    """(label, method, raw params object) for every prompt argument and template variable."""
    out: list[tuple[str, str, bytes]] = []
    for name, arguments in surface.prompts:
        ref = b'{"type":"ref/prompt","name":' + json.dumps(name).encode() + b"}"
        for argument in arguments[:3] or ("x",):
            key = json.dumps(argument).encode()
            for label, value in RAW_VALUES:
                out.append(
                    (
                        f"prompt {name}.{argument}: {label}",
                        "prompts/get",
                        b'{"name":'
                        + json.dumps(name).encode()
                        + b',"arguments":{'
                        + key
                        + b":"
                        + value
                        + b"}}",
                    )
                )
                out.append(
                    (
                        f"complete {name}.{argument}: {label}",
                        "completion/complete",
                        b'{"ref":'
                        + ref
                        + b',"argument":{"name":'
                        + key
                        + b',"value":'
                        + value
                        + b"}}",
                    )
                )
    for template in surface.templates:
        ref = b'{"type":"ref/resource","uri":' + json.dumps(template).encode() + b"}"
        for label, value in RAW_VALUES:
            out.append(
                (
                    f"read {template}: {label}",
                    "resources/read",
                    b'{"uri":' + _uri_value(template, value) + b"}",
                )
            )
            out.append(
                (
                    f"complete {template}: {label}",
                    "completion/complete",
                    b'{"ref":' + ref + b',"argument":{"name":"x","value":' + value + b"}}",
                )
            )
    return out


# Whole-message damage: the label, the message bytes, and whether an answer is owed (a
# notification is owed none; everything else, even a request with an unusable id, gets one).
ENVELOPE_DAMAGE: tuple[tuple[str, bytes], ...] = (
    ("broken JSON", b'{"jsonrpc":"2.0","id":1,"method":"tools/list"'),
    ("invalid UTF-8", b'{"jsonrpc":"2.0","id":1,"method":"tools/list\xff\xfe"}'),
    ("lone surrogate in the method", b'{"jsonrpc":"2.0","id":1,"method":"tools/\\ud800"}'),
    ("NUL in the method", b'{"jsonrpc":"2.0","id":1,"method":"tools/list\\u0000"}'),
    (
        "deep nesting",
        b'{"jsonrpc":"2.0","id":1,"method":"x","params":' + b"[" * 50_000 + b"]" * 50_000 + b"}",
    ),
    ("id an object", b'{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}'),
    ("id an array", b'{"jsonrpc":"2.0","id":[1],"method":"tools/list"}'),
    ("id null", b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}'),
    ("id a fraction", b'{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}'),
    ("id a boolean", b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}'),
    ("id past 64 bits", b'{"jsonrpc":"2.0","id":99999999999999999999999,"method":"tools/list"}'),
    ("id with a lone surrogate", b'{"jsonrpc":"2.0","id":"a\\ud800","method":"tools/list"}'),
    ("no jsonrpc", b'{"id":1,"method":"tools/list"}'),
    ("jsonrpc 1.0", b'{"jsonrpc":"1.0","id":1,"method":"tools/list"}'),
    ("method a number", b'{"jsonrpc":"2.0","id":1,"method":7}'),
    ("params an array", b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1]}'),
    ("a batch", b'[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]'),
    ("not an object", b'"tools/list"'),
    ("unknown method", b'{"jsonrpc":"2.0","id":1,"method":"tools/explode","params":{}}'),
    ("tools/call without a name", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}'),
)


def plan_wire(surface: Surface, eras: Sequence[bool] = (False, True)) -> list[tuple[str, bytes]]:
    """Every raw message this module sends, in each era (True: 2026-07-28 `_meta`)."""
    plans: list[tuple[str, bytes]] = []
    rid = 1000
    for label, method, params in method_bodies(surface):
        for modern in eras:
            rid += 1
            era = MODERN if modern else LEGACY
            plans.append((f"{era}: {label}", request_bytes(method, params, modern, rid)))
    plans += [(f"envelope: {label}", body) for label, body in ENVELOPE_DAMAGE]
    return plans
