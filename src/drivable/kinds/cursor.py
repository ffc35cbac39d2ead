"""cursor: the opaque paging token a server issues, and the one encoder and decoder of it.

The class of tokens: `encode_cursor` emits "c1." + base64url(JSON body) + "." + base64url(MAC), the
MAC (`drivable.signing`, purpose `cursor`) over the prefix, the body and a scope (the tool and a hash
of its query, see `cursor_scope`), so a cursor is good for the query that issued it and no other. The body carries an
issue time, so a lifetime can expire it.

The kind reads a first-page invention as no cursor: a client filling every declared property
invents one on its first call, and the first page is what it asked for. A first-page invention is
null, a placeholder, an empty value, "0", or words that name the first page ("start", "first",
"page 1", "page=1", "p1"). An empty one (null, "", blanks, [] or {}) is no value written and reads
silently, as if omitted; the others with a note (decision 0068: a small model sent the note about
its "" back as its next cursor). Anything else a caller made up ("2", "page2", "next", "1",
which is page one or the second page counted from 0) is a later page it has no token for: it
reaches the decoder like a damaged token and is refused (`invalid_cursor`) naming the restart,
never silently read as page one, which would repeat a page the caller already read. With
`extra={"secret": ..., "scope": ...}` (and optionally `lifetime` in seconds and `now`) the kind
decodes and refuses itself; without a secret the token passes through as a string for the
server's own decoder (`drivable.contract.paging.Pager`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from drivable.canonical import binding_digest, canonical_json
from drivable.kinds import absence
from drivable.kinds._kind import Kind
from drivable.kinds._reading import Reading, shown
from drivable.kinds._registry import MAX_SCALAR_CHARS, Options, kind
from drivable.kinds.text_folding import name_words
from drivable.signing import CURSOR, Signer, b64decode, b64encode

PREFIX = CURSOR.label.decode("ascii")  # "c1.": the token's text begins with its purpose's label
EXPECTED = "the next_cursor value a previous page returned, or no cursor for the first page"
RESTART = "omit cursor to start again from the first page"
NEXT_PAGE = "a next page comes only from the previous page's next_call (its next_cursor, unchanged)"

# The words of a first-page invention, folded (`name_words`): "Page 1", "page=1", "p1", "start".
FIRST_PAGE: frozenset[tuple[str, ...]] = frozenset(
    {
        (),
        ("0",),
        *((word,) for word in ("start", "first", "begin", "beginning", "initial", "top")),
        ("first", "page"),
        *((page, number) for page in ("page", "p", "pg") for number in ("0", "1")),
        ("offset", "0"),
    }
)

Status = Literal["ok", "malformed", "forged", "expired"]


@dataclass(frozen=True)
class CursorCheck:
    """What the decoder made of a token: `ok` with its payload, or why not."""

    status: Status
    payload: dict[str, Any] | None = None
    issued_at: int | None = None


def _message(scope: str, signed: str) -> bytes:
    # With the purpose's label (PREFIX) in front: the token's text, then the scope it is good for.
    return signed[len(PREFIX) :].encode("ascii") + b"\x00" + scope.encode("utf-8")


def cursor_scope(tool: str, query: Mapping[str, Any]) -> str:
    """The scope a cursor is bound to: the tool and a hash of its query (the cursor itself left out)."""
    canonical = {k: v for k, v in query.items() if k not in ("cursor", "page_token")}
    return f"{tool}:{binding_digest(canonical)}"


def encode_cursor(
    payload: Mapping[str, Any], *, secret: bytes, scope: str, issued_at: float | None = None
) -> str:
    """A signed token carrying `payload` (JSON-serialisable), good only for `scope`.

    Raises ValueError for an empty secret or a token longer than the kinds accept (keep payloads
    small: an offset or the last key seen, not the page).
    """
    if not secret:
        raise ValueError("a cursor needs a non-empty secret")
    moment = int(time.time() if issued_at is None else issued_at)
    signed = PREFIX + b64encode(canonical_json({"p": dict(payload), "t": moment}))
    token = f"{signed}.{b64encode(Signer(secret).mac(CURSOR, _message(scope, signed)))}"
    if len(token) > MAX_SCALAR_CHARS:
        raise ValueError(f"cursor of {len(token)} characters; at most {MAX_SCALAR_CHARS}")
    return token


def check_cursor(
    token: str,
    *,
    secret: bytes,
    scope: str,
    lifetime: float | None = None,
    now: float | None = None,
) -> CursorCheck:
    """Verify `token` for `scope`: its shape, its signature, then its age. Never raises."""
    if not isinstance(token, str) or not token.startswith(PREFIX) or not token.isascii():
        return CursorCheck("malformed")
    signed, _, signature = token.rpartition(".")
    if len(signed) <= len(PREFIX) or not signed.startswith(PREFIX) or not signature:
        return CursorCheck("malformed")
    mac = b64decode(signature)
    if (
        not secret
        or mac is None
        or not Signer(secret).matches(CURSOR, _message(scope, signed), mac)
    ):
        return CursorCheck("forged")
    encoded = b64decode(signed[len(PREFIX) :])
    try:
        body = json.loads(encoded) if encoded is not None else None
    except ValueError:
        return CursorCheck("malformed")
    if not isinstance(body, dict) or not isinstance(body.get("p"), dict):
        return CursorCheck("malformed")
    issued = body.get("t")
    if not isinstance(issued, int) or isinstance(issued, bool):
        return CursorCheck("malformed")
    if lifetime is not None:
        moment = time.time() if now is None else now
        if moment - issued > lifetime:
            return CursorCheck("expired", issued_at=issued)
    return CursorCheck("ok", payload=body["p"], issued_at=issued)


def decode_cursor(
    token: str,
    *,
    secret: bytes,
    scope: str,
    lifetime: float | None = None,
    now: float | None = None,
) -> dict[str, Any] | None:
    """The payload of a token issued by `encode_cursor` for `scope`, or None (never raises)."""
    return check_cursor(token, secret=secret, scope=scope, lifetime=lifetime, now=now).payload


def _schema(options: Options) -> dict[str, Any]:
    # No `pattern`: a pattern such as ^c1\..+ teaches a model the token's shape, and a small model
    # then forges "c1.0", which fails as a damaged token instead of reading as no cursor.
    return {
        "type": "string",
        "description": "Omit on the first call; then send the next_cursor a previous page returned.",
    }


def _no_cursor(value: Any) -> Reading:
    return Reading.absent(f"Read {shown(value)} as no cursor: the first page.")


def first_page(value: Any) -> bool:
    """`value` is a first-page invention (see the module's docstring), read as no cursor."""
    if value is None or value is False or value in ([], {}):
        return True
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value == 0
    if not isinstance(value, str):
        return False
    return absence.placeholder_of(value) is not None or name_words(value) in FIRST_PAGE


def _empty(value: Any) -> bool:
    """No value written: an empty string or one of blanks, an empty list or object."""
    return value in ([], {}) or (isinstance(value, str) and not value.strip())


def _refused(value: Any, hint: str, code: str = "invalid_cursor") -> Reading:
    return Reading.invalid(value, expected=EXPECTED, hint=hint, code=code)


@kind("cursor", schema=_schema, expected=EXPECTED, handles_placeholders=True)
def read_cursor(value: Any, options: Options) -> Reading:
    if value is None:
        return Reading.absent()
    if first_page(value):
        return Reading.absent() if _empty(value) else _no_cursor(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)  # "2" as a number: a later page, refused like its string
    if not isinstance(value, str):
        return _refused(value, f"This is no cursor: {RESTART}; {NEXT_PAGE}.")
    prefix = str(options.extra.get("prefix", PREFIX))
    token = value.strip().strip("\"'`")
    secret, scope = options.extra.get("secret"), options.extra.get("scope")
    if not isinstance(secret, bytes) or not isinstance(scope, str):
        return Reading.of(token) if token == value else Reading.repaired(value, token)
    if not token.startswith(prefix):
        # outside the class the encoder emits, and no first-page invention: a made-up later page
        return _refused(
            value, f"{shown(value)} is not a cursor this server issued: {RESTART}; {NEXT_PAGE}."
        )
    lifetime = options.extra.get("lifetime")
    now = options.extra.get("now")
    check = check_cursor(
        token,
        secret=secret,
        scope=scope,
        lifetime=float(lifetime) if isinstance(lifetime, int | float) else None,
        now=float(now) if isinstance(now, int | float) else None,
    )
    if check.status == "ok":
        return Reading.of(check.payload)
    if check.status == "expired":
        return _refused(value, f"This cursor has expired; {RESTART}.", "cursor_expired")
    return _refused(
        value,
        "This cursor was not issued for this query, or it was changed on the way; "
        f"{RESTART}, or send the next_cursor the previous page returned, unchanged.",
    )


Cursor = Annotated[str, Kind("cursor")]
"""An opaque cursor passed through as a string; first-page inventions read as no cursor."""

__all__ = [
    "FIRST_PAGE",
    "NEXT_PAGE",
    "PREFIX",
    "RESTART",
    "Cursor",
    "CursorCheck",
    "check_cursor",
    "cursor_scope",
    "decode_cursor",
    "encode_cursor",
    "first_page",
    "read_cursor",
]
