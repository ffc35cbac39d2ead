"""person: who works on a ticket, as people name them, a kind this domain owns.

An address ("jana.novakova@example.com", "mailto:…", "Jana Nováková <jana.novakova@example.com>",
capitals in the domain) is read by the email kind; a name ("Jana", "Nováková", "Jana Nováková")
or "unassigned" by the people's vocabulary (vocab.py), which also finds the person an address
names. This kind only routes a value to the reader that owns it: a value with an "@" that the
email kind reads goes to the vocabulary as the address it is, anything else as written.
"""

from __future__ import annotations

from typing import Annotated, Any

from drivable.eval.corpus.tickets.vocab import PERSON_VOCABULARY
from drivable.kinds import Kind, Options, Reading, kind, read, resolve

EXPECTED = "a person's e-mail or name, or 'unassigned'"


def _schema(options: Options) -> dict[str, Any]:
    # the vocabulary's own: the people's addresses (and "unassigned") as an enum
    vocabulary, _ = resolve("vocabulary")
    return vocabulary.schema(options.with_(vocabulary=PERSON_VOCABULARY))


@kind("person", schema=_schema, expected=EXPECTED)
def read_person(value: Any, options: Options) -> Reading:
    people = {"intent": options.intent, "vocabulary": PERSON_VOCABULARY, **options.extra}
    if isinstance(value, str) and "@" in value:
        address = read("email", value)
        if address.outcome == "value":
            found = read("vocabulary", address.value, **people)
            return Reading.repaired(value, found.value) if found.outcome == "value" else found
    return read("vocabulary", value, **people)


Person = Annotated[str, Kind("person")]
"""An assignee: the person's e-mail as the tracker stores it, or "unassigned"."""

__all__ = ["EXPECTED", "Person", "read_person"]
