"""email: one email address, read without the network; sent back with its domain in lowercase.

Read, each with a note: surrounding space and width forms ("ｊａｎａ＠ｅｘａｍｐｌｅ．ｃｚ"), spaces around
the @, a display name ("Jana Nováková <jana@firma.cz>", "<jana@firma.cz>", "jana@firma.cz (Jana)"),
"mailto:", a capitalised domain ("jana@Firma.CZ" is jana@firma.cz) and the root's trailing dot
("jana@firma.cz."). The local part is never changed: its case is the mailbox's own (RFC 5321).

Refused, with what is wrong: no @ or two, several addresses, spaces inside, a local part or a
domain no address has (a leading or doubled dot, a label over 63 characters, a domain without a
dot or with a numeric top-level label), and more than 254 characters. Internationalised
addresses (RFC 6531: "jiří@příklad.cz") are read as written. Nothing is looked up: no DNS.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, Any

from drivable.kinds import absence
from drivable.kinds._kind import Kind
from drivable.kinds._reading import Reading, shown
from drivable.kinds._registry import NOT_CANONICAL, Options, kind
from drivable.kinds.text_folding import nfkc

EXPECTED = "an email address, local-part@domain"

_NAMED = re.compile(r"^(?P<name>[^<>]*?)\s*<\s*(?P<address>[^<>]*?)\s*>$")
_COMMENTED = re.compile(r"^(?P<address>[^\s()]+)\s*\((?P<name>[^()]*)\)$")
_MAILTO = re.compile(r"^mailto:", re.IGNORECASE)
# RFC 5322's atext, with the letters of every script (RFC 6531).
_ATOM = re.compile(r"^[\w!#$%&'*+/=?^`{|}~-]+$")
_QUOTED = re.compile(r'^"[^"\\\r\n]+"$')
_LABEL = re.compile(r"^(?!-)[^\W_](?:[\w-]{0,61}[^\W_])?$")
_AROUND_AT = re.compile(r"\s*@\s*")
_SEVERAL = re.compile(r"[\s,;]")
# The common address, valid as it stands: dot-atoms of ASCII, a lowercase domain of LDH labels
# and a top-level label of letters. One match decides it; everything else goes to the reader.
_FAST = re.compile(
    r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
    r"@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}\Z"
)


def _schema(options: Options) -> dict[str, Any]:
    # No example address: a model copies one as the user's.
    return {
        "type": "string",
        "format": "email",
        "maxLength": 254,
        "description": "One email address, as local-part@domain.",
    }


def _canonical(value: Any, options: Options) -> Any:
    if type(value) is str and len(value) <= 254 and _FAST.match(value) and value.index("@") <= 64:
        return value
    return NOT_CANONICAL


@kind("email", schema=_schema, expected=EXPECTED, handles_placeholders=True, canonical=_canonical)
def read_email(value: Any, options: Options) -> Reading:
    if _canonical(value, options) is not NOT_CANONICAL:
        return Reading.of(value)
    if not isinstance(value, str):
        shown_value = value if isinstance(value, int | float | bool) else type(value).__name__
        return _invalid(shown_value, "Send the address as a JSON string, local-part@domain.")
    text = nfkc(value).strip()
    # Placeholders are checked here, not before the reader: "<jana@firma.cz>" is an address.
    if "@" not in text and absence.placeholder_of(value) is not None:
        return absence.reading_for(value, options.intent, EXPECTED)
    why: list[str] = []
    if _MAILTO.match(text):
        text = _MAILTO.sub("", text).strip()
        why.append("without mailto:")
    if (m := _NAMED.match(text)) or (m := _COMMENTED.match(text)):
        name = m["name"].strip().strip('"').strip()
        if "@" in name and name.casefold() != m["address"].casefold():
            return _invalid(value, f"{shown(value)} holds more than one address. Send one address.")
        text = m["address"]
        if name and "@" not in name:
            why.append(f"the address of {name}")

    if text.count("@") == 0:
        return _invalid(value, f"{shown(value)} has no @. Send the address as local-part@domain.")
    text = _AROUND_AT.sub("@", text)
    local, _, domain = text.rpartition("@")
    if "@" in local and not _QUOTED.match(local):
        several = _SEVERAL.search(text) is not None
        what = "holds more than one address" if several else "has more than one @"
        return _invalid(value, f"{shown(value)} {what}. Send one address, local-part@domain.")
    if _SEVERAL.search(domain):
        return _invalid(value, f"{shown(value)} holds more than one address. Send one address.")
    if domain.endswith(".") and not domain.endswith(".."):
        domain = domain[:-1]
    address = f"{local}@{domain.lower()}"
    problem = _address_problem(address)
    if problem is not None:
        return _invalid(
            value,
            f"{shown(value)} is no email address: {problem}. Send the address as local-part@domain.",
        )
    if address == value:
        return Reading.of(address)
    reasons = f" ({'; '.join(why)})" if why else ""
    return Reading.of(address, f"Read {shown(value)} as {address}{reasons}.")


def _address_problem(address: str) -> str | None:
    """What makes `address` no address, or None."""
    if len(address) > 254:
        return "it is longer than 254 characters"
    local, _, domain = address.rpartition("@")
    if not local:
        return "nothing comes before the @"
    if not domain:
        return "no domain comes after the @"
    if any(c.isspace() for c in domain) or (
        not _QUOTED.match(local) and any(c.isspace() for c in local)
    ):
        return "it has a space inside"
    if len(local.encode()) > 64:
        return "the part before the @ is longer than 64 bytes"
    if not _QUOTED.match(local) and not all(_ATOM.match(atom) for atom in local.split(".")):
        return "the part before the @ has a character or a dot no address has there"
    if domain.startswith("[") and domain.endswith("]"):
        try:
            ipaddress.ip_address(domain[1:-1].removeprefix("ipv6:"))
        except ValueError:
            return "the address literal after the @ is no IP address"
        return None
    labels = domain.split(".")
    if len(labels) < 2:
        return f"the domain {domain!r} has no dot"
    if not all(_LABEL.match(label) for label in labels):
        return f"the domain {domain!r} has an empty label or a character no domain has"
    if labels[-1].isdigit():
        return f"the domain {domain!r} ends in a number"
    return None


def _invalid(received: Any, hint: str) -> Reading:
    return Reading.invalid(received, expected=EXPECTED, hint=hint, code="invalid_email")


Email = Annotated[str, Kind("email")]
"""One email address, read without the network; sent back with its domain in lowercase."""

__all__ = ["EXPECTED", "Email", "read_email"]
