"""The tracker's values with the names people give them: projects, statuses, priorities, people.

Each is a `Vocabulary` (drivable.kinds.vocabulary): "Mobile App", "mob" and "mobile" are the
project MOB; "WIP" and "in progress" the status in_progress; "P1" and "critical" the priority
urgent; "Jana", "Nováková" and "jana.novakova@example.com" one person. Only spellings of one value
are aliases: a word that means something else in the data is never one.
"""

from __future__ import annotations

from drivable.eval.corpus.tickets.data import PEOPLE, PROJECTS
from drivable.kinds.vocabulary import Entry, Vocabulary

UNASSIGNED = "unassigned"

PROJECT_VOCABULARY = Vocabulary(
    [Entry(p.key, name=p.name, abbreviations=(p.key,), aliases=p.aliases) for p in PROJECTS],
    name="project",
    description="A project: its key or its name",
)

STATUS_VOCABULARY = Vocabulary(
    [
        # not "todo": the runtime reads it as a placeholder (no filter) before any vocabulary
        Entry("open", name="Open", aliases=("new", "to do", "not started", "backlog")),
        Entry(
            "in_progress",
            name="In progress",
            abbreviations=("WIP",),
            aliases=("in work", "doing", "started", "being worked on", "work in progress"),
        ),
        Entry("in_review", name="In review", aliases=("review", "code review", "under review")),
        Entry("closed", name="Closed", aliases=("done", "resolved", "fixed", "finished")),
    ],
    name="status",
    description="A ticket status",
)

PRIORITY_VOCABULARY = Vocabulary(
    [
        Entry(
            "urgent",
            name="Urgent",
            abbreviations=("P1",),
            aliases=("critical", "blocker", "highest"),
        ),
        Entry("high", name="High", abbreviations=("P2",), aliases=("important",)),
        Entry("normal", name="Normal", abbreviations=("P3",), aliases=("medium",)),
        Entry("low", name="Low", abbreviations=("P4",), aliases=("minor", "trivial", "lowest")),
    ],
    name="priority",
    description="A priority, urgent (P1) to low (P4)",
)

PERSON_VOCABULARY = Vocabulary(
    [
        *(Entry(p.email, name=p.name, aliases=(p.email.split("@")[0],)) for p in PEOPLE),
        Entry(UNASSIGNED, name="Unassigned", aliases=("nobody", "no assignee", "no one")),
    ],
    name="person",
    description="A person: e-mail, full name or first name ('unassigned' for nobody)",
)

__all__ = [
    "PERSON_VOCABULARY",
    "PRIORITY_VOCABULARY",
    "PROJECT_VOCABULARY",
    "STATUS_VOCABULARY",
    "UNASSIGNED",
]
