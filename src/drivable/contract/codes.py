"""The closed, append-only registry of error codes, issue codes and warning codes.

Every code a drivable server can emit is registered here (or by a server through its contract,
for its domain) with one recovery class and a one-screen doc. Codes are surface: once published a
code is never renamed or removed, and its meaning never changes (`[6.code-changes-breaking]`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar


class Recovery(StrEnum):
    """The one action an agent takes on a code (seed 002's taxonomy)."""

    FIX_INPUT = "fix_input"  # fix the named field, retry once
    REREAD_STATE = "reread_state"  # re-read state, re-plan, do not blind-retry
    RETRY_LATER = "retry_later"  # retry with backoff, same idempotency key
    ASK_USER = "ask_user"  # stop and surface to the user
    LOOKUP_ID = "lookup_id"  # verify the identifier with a read tool first


@dataclass(frozen=True)
class Code:
    """One error code: its id, recovery class, whether it is temporary, and its doc."""

    id: str
    recovery: Recovery
    doc: str
    temporary: bool = False


@dataclass(frozen=True)
class IssueCode:
    """A field-level issue code (inside `issues[]`)."""

    id: str
    doc: str


@dataclass(frozen=True)
class WarningCode:
    """A warning code on a successful result: a known trap the caller probably fell into."""

    id: str
    doc: str


def _index(items: Iterable[_T]) -> dict[str, _T]:
    out: dict[str, _T] = {}
    for item in items:
        if item.id in out:
            raise ValueError(f"code {item.id!r} registered twice")
        out[item.id] = item
    return out


@dataclass(frozen=True)
class TransportRefusal:
    """A refusal the HTTP transport gives before any tool runs: its HTTP status, the envelope
    code it carries, and what its hint names (`about`: the header, path, method or part of the
    request the failure was about)."""

    id: str
    status: int
    code: str
    about: str
    doc: str


_T = TypeVar("_T", Code, IssueCode, WarningCode, TransportRefusal)


# Append only. Never rename, never remove, never change a meaning.
ERROR_CODES: Mapping[str, Code] = _index(
    [
        Code("invalid_arguments", Recovery.FIX_INPUT, "The arguments did not validate against the tool's input schema. `issues` names each field, what was received and what is expected."),
        Code("unknown_tool", Recovery.FIX_INPUT, "No tool has this name. `hint` names the tool whose name it spells another way, if one does; `tools/list` lists them all, or, in a catalog entered through find_tools, `repair` is the search that finds it."),
        Code("payload_too_large", Recovery.FIX_INPUT, "The arguments are larger than the inline limit the description states. Pass a reference (an id or a URI of something already stored) instead of the content."),
        Code("not_found", Recovery.LOOKUP_ID, "No record has this identifier. Look it up with the search or list tool named in `repair` first."),
        Code("conflict", Recovery.REREAD_STATE, "The record changed since it was read (`expected_version` is stale). Re-read it with the tool in `repair`, then reapply."),
        Code("state_conflict", Recovery.REREAD_STATE, "The request conflicts with the current state of a record. Re-read it with the tool in `repair` and re-plan."),
        Code("idempotency_mismatch", Recovery.FIX_INPUT, "This idempotency_key was already used with different arguments; `issues` names the fields that differ, `repair` is this call with a new key of its own (derived from the arguments, so a retry of it replays). To retry the first change instead, resend its original arguments."),
        Code("in_progress", Recovery.RETRY_LATER, "A call with this idempotency_key is still running. Retry after `retry_after_ms` with the same key and arguments.", temporary=True),
        Code("confirmation_required", Recovery.FIX_INPUT, "A destructive action runs only with the confirm_token of the same call. Nothing was changed; `details.preview` shows what it would do and `repair` is the call with its token: send it as it is."),
        Code("confirmation_invalid", Recovery.FIX_INPUT, "The confirm_token is forged, expired, already used by another call, or was issued for other arguments (the same confirmed call sent again replays its answer instead). Make the dry-run call in `repair` for a fresh token."),
        Code("invalid_cursor", Recovery.FIX_INPUT, "The cursor was not issued for this query or is damaged. Omit `cursor` to start again from the first page (the call in `repair`)."),
        Code("cursor_expired", Recovery.FIX_INPUT, "The cursor is older than its declared lifetime. Omit `cursor` to start again from the first page (the call in `repair`)."),
        Code("unauthenticated", Recovery.ASK_USER, "No credential was sent. The user must configure a token for this server."),
        Code("invalid_credentials", Recovery.ASK_USER, "The credential sent is not valid (unknown or expired). The user must renew it."),
        Code("insufficient_scope", Recovery.ASK_USER, "The credential lacks a scope this tool needs; `hint` names the required scopes and where to grant them."),
        Code("feature_disabled", Recovery.ASK_USER, "The capability is switched off in this deployment. `hint` says where a person enables it."),
        Code("rate_limited", Recovery.RETRY_LATER, "Too many calls. Retry after `retry_after_ms`.", temporary=True),
        Code("unavailable", Recovery.RETRY_LATER, "A dependency of the server is unavailable right now. Retry after `retry_after_ms` with the same arguments (and the same idempotency_key).", temporary=True),
        Code("upstream_timeout", Recovery.RETRY_LATER, "A dependency did not answer in time; the effect may or may not have been applied. Retry with the same idempotency_key: a duplicate will not run twice.", temporary=True),
        Code("internal_error", Recovery.RETRY_LATER, "The server failed unexpectedly. Nothing of the failure is disclosed; quote `request_id` to the operator. Retrying once is safe for read-only tools.", temporary=True),
        Code("invalid_request", Recovery.FIX_INPUT, "The transport refused the request before any tool saw it (not JSON, not one JSON-RPC request, a header or protocol version it does not accept). `hint` names what to change."),
        Code("confirmation_declined", Recovery.ASK_USER, "The user was asked to confirm the destructive action (the client asked them) and said no or dismissed it; nothing was done. It names no next call: do not send the change or its dry run again unless the user asks for it."),
        Code("change_undone", Recovery.REREAD_STATE, "The record the first call with this idempotency_key made (a booking, an invoice) was undone since by another call (a cancel, a delete, a void); nothing ran now. `details` names the record, what undid it and the first result; `repair` makes it again: the same call under a new key of its own (a retry of it replays). If the user did not ask for it again, tell them it was undone."),
    ]
)  # fmt: skip

ISSUE_CODES: Mapping[str, IssueCode] = _index(
    [
        IssueCode("missing_property", "A required property is absent (or was sent as a placeholder, which reads as no value)."),
        IssueCode("unknown_property", "The property is not in the schema; the message names the allowed ones and the property it means (its name spelled another way, or the one name holding its words), or says none does."),
        IssueCode("invalid_type", "The value has the wrong JSON type."),
        IssueCode("invalid_value", "The value does not satisfy the schema (pattern, length, enum, bounds)."),
        IssueCode("out_of_range", "The number or date is outside the declared bounds."),
        IssueCode("value_too_long", "A scalar was longer than any value of its kind."),
        IssueCode("placeholder_value", "The value looks like a placeholder ('string', 'n/a', '<value>'); on a write it is asked about rather than read as absence."),
        IssueCode("ambiguous_number", "A spelling such as '1,234' reads as two numbers; `readings` names both."),
        IssueCode("ambiguous_date", "A spelling such as '01/02/2026' reads as two dates; `readings` names both."),
        IssueCode("ambiguous_choice", "A spelling folds to several allowed values; `readings` names them."),
        IssueCode("invalid_number", "Not a number in any spelling drivable reads."),
        IssueCode("invalid_integer", "Not a whole number in any spelling drivable reads."),
        IssueCode("invalid_boolean", "Not true or false in any spelling drivable reads."),
        IssueCode("invalid_date", "Not a date (or an impossible one)."),
        IssueCode("invalid_id", "Not an identifier of the declared form."),
        IssueCode("invalid_key", "Not an idempotency key (a placeholder, or characters outside letters, digits and _ . : -); the hint carries a fresh key to use."),
        IssueCode("invalid_choice", "Not one of the allowed values (nor one spelled another way); the message names them and guesses none."),
        IssueCode("invalid_eli", "Not a European Legislation Identifier."),
        IssueCode("invalid_country", "Not an ISO 3166-1 country in any spelling drivable reads."),
        IssueCode("invalid_locale", "Not a BCP 47 locale tag (such as cs-CZ) in any spelling drivable reads."),
        IssueCode("invalid_text", "Not a string where free text is expected."),
        IssueCode("invalid_cursor", "The cursor was not issued for this query or is damaged."),
        IssueCode("cursor_expired", "The cursor is older than its declared lifetime."),
        IssueCode("not_integer", "A number with a fractional part where a whole number is expected."),
        IssueCode("date_out_of_range", "The date is outside the bounds the property declares."),
        IssueCode("too_many_items", "The list has more items than the property allows."),
        IssueCode("invalid_string_list", "Not a list of strings (nor a lone string, which reads as a one-item list)."),
        IssueCode("invalid_filter", "Not a filter value: send a string, or omit the property to not filter."),
        IssueCode("invalid_vocabulary", "Not a value of the data-owned vocabulary; the list tool names the stored values."),
        IssueCode("unknown_value", "The value names no stored value of the vocabulary; the message names the stored ones."),
        IssueCode("ambiguous_value", "The value names several stored values of the vocabulary; `readings` names them."),
        IssueCode("ambiguous_locale", "The spelling names several locales; `readings` names them."),
        IssueCode("ambiguous_country", "The spelling names several countries; `readings` names them."),
        IssueCode("ambiguous_eli", "The citation names several legislation identifiers; `readings` names them."),
        IssueCode("invalid_character", "Text holds a NUL character or an unpaired surrogate, which no store can keep; send the text without it."),
        IssueCode("nesting_too_deep", "Arrays and objects are nested deeper than the server reads; send flat values as the schema shows."),
        IssueCode("differs_from_original", "This field differs from the first call made with the same idempotency_key."),
        IssueCode("invalid_money", "Not an amount in any spelling drivable reads (or one with more decimals than its currency has)."),
        IssueCode("ambiguous_amount", "A spelling such as '42.00' in a minor-unit field reads as two amounts (4200 or 42); `readings` names both, in minor units."),
        IssueCode("currency_mismatch", "The amount names a currency other than the one the field or its record is in; the message names both."),
        IssueCode("invalid_case_number", "Not a court's case number (it has no digits, or is far too long); search_decisions finds a decision by its words."),
        IssueCode("invalid_time", "Not a time of day in any spelling drivable reads (send HH:MM on the 24-hour clock)."),
        IssueCode("ambiguous_time", "A time whose zone has two offsets (summer and winter: '9:00 CET', '9:00 Europe/Prague'); `readings` names both."),
        IssueCode("invalid_time_range", "Not a range of times within one day (send HH:MM/HH:MM, the end after the start)."),
        IssueCode("ambiguous_time_range", "A range that ends before it starts on the 24-hour clock but runs forward on the 12-hour one ('from 9 to 5'), or whose zone has two offsets; `readings` names the ranges."),
        IssueCode("invalid_datetime", "Not a moment in any spelling drivable reads (send RFC 3339 with an offset)."),
        IssueCode("ambiguous_datetime", "A moment with no zone, a wall time the clocks show twice, or a zone abbreviation that names two offsets that day; `readings` names the moments (none when the zone is missing)."),
        IssueCode("invalid_email", "Not one email address (no @, several addresses, or a part no address has); the hint says which."),
        IssueCode("refused_value", "A wrapped server refused the call and its message quotes this property's value (a path that does not exist, a name it does not know); the envelope's `message` is its words."),
        IssueCode("invalid_timezone", "Not a time zone in any spelling drivable reads (send the IANA name, Area/City, or the place's city); an abbreviation such as PST names no one zone."),
        IssueCode("ambiguous_timezone", "A country or a city with several time zones; `readings` names them (at most eight)."),
    ]
)  # fmt: skip

WARNING_CODES: Mapping[str, WarningCode] = _index(
    [
        WarningCode("filter_value_dropped", "A filter value named no stored value (or several) and was dropped rather than emptying the result; the message names the stored values."),
        WarningCode("page_size_clamped", "The requested page size was outside its bounds and was clamped."),
        WarningCode("no_hits_filtered", "The page is empty because of a filter (path names it); the warning or the result's message says what would match."),
        WarningCode("value_repaired", "A value was read from a spelling other than its canonical one; see `notes`."),
        WarningCode("deprecated_tool", "The tool is deprecated; the message names its replacement and the removal date."),
        WarningCode("partial_success", "Some entries of a collection were applied and others were not; `rejected` lists the others with their issues."),
        WarningCode("no_hits", "Nothing has every word of the query; the message ends with the next call to make, literally."),
    ]
)  # fmt: skip

# Append only, as the codes above. Each hint names `about` (tests/serve/test_transport_hints.py).
TRANSPORT_REFUSALS: Mapping[str, TransportRefusal] = _index(
    [
        TransportRefusal("unknown_path", 404, "invalid_request", "path", "Nothing is served at this path; the hint names the path that serves MCP (`/mcp` by default)."),
        TransportRefusal("method_not_allowed", 405, "invalid_request", "method", "The endpoint does not answer this HTTP method (POST; with sessions also GET and DELETE); the hint and `Allow` name the ones it answers."),
        TransportRefusal("not_acceptable", 406, "invalid_request", "Accept", "The Accept header lacks a media type the answer comes in; the hint names the header to send (`application/json, text/event-stream`)."),
        TransportRefusal("unsupported_media_type", 415, "invalid_request", "Content-Type", "The body is not declared as JSON; the hint names the header to send (`Content-Type: application/json`)."),
        TransportRefusal("unsupported_protocol_version", 400, "invalid_request", "MCP-Protocol-Version", "The MCP-Protocol-Version header names a version this server does not speak; `error.data.supported` and the hint list those it does."),
        TransportRefusal("routing_header_mismatch", 400, "invalid_request", "header", "A 2026-07-28 routing header (Mcp-Method, Mcp-Name, MCP-Protocol-Version) is missing, repeated or disagrees with the body; the hint names that header and what it must equal."),
        TransportRefusal("unknown_session", 404, "invalid_request", "Mcp-Session-Id", "The Mcp-Session-Id header names no session of this server (ended, expired, or another server's); the hint says to start a new one."),
        TransportRefusal("session_required", 400, "invalid_request", "Mcp-Session-Id", "A server with sessions needs the Mcp-Session-Id header its initialize answer gave."),
        TransportRefusal("misdirected_host", 421, "invalid_request", "Host", "The Host header names another host than the one the server is bound to (DNS-rebinding protection)."),
        TransportRefusal("forbidden_origin", 403, "invalid_request", "Origin", "The Origin header names a site the server does not allow (DNS-rebinding protection)."),
        TransportRefusal("not_json", 400, "invalid_request", "body", "The body is not UTF-8 JSON the server can read (JSON-RPC -32700)."),
        TransportRefusal("not_one_request", 400, "invalid_request", "body", "The body is JSON but not one JSON-RPC request (JSON-RPC -32600)."),
        TransportRefusal("body_too_large", 413, "payload_too_large", "body", "The body is over the server's bound (`max_body_bytes`); the hint says to pass a reference instead."),
        TransportRefusal("header_timeout", 408, "invalid_request", "headers", "The request's headers did not arrive within `header_timeout_s`; the connection was closed."),
        TransportRefusal("body_timeout", 408, "invalid_request", "body", "The request's body did not arrive within `body_timeout_s`; the connection was closed."),
        TransportRefusal("too_many_connections", 503, "rate_limited", "connections", "The worker holds `max_connections` connections; retry after `retry_after_ms` (and `Retry-After`)."),
        TransportRefusal("too_many_streams", 429, "rate_limited", "event streams", "Too many GET event streams are open (in all or for this caller); retry after `retry_after_ms`."),
        TransportRefusal("no_credential", 401, "unauthenticated", "Authorization", "No `Authorization: Bearer` header was sent to a server that checks tokens."),
        TransportRefusal("bad_credential", 401, "invalid_credentials", "token", "The bearer token is unknown, malformed or expired."),
    ]
)  # fmt: skip
