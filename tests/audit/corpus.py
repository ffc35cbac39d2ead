"""The labelled field corpus: what a maintainer of each real server would agree with, and what not.

Labels come from each server's behaviour (its source and what it answers), not from what the
auditor reports: a `severe` label is a finding worth a critical or major, `minor` one worth at most
a minor, `none` a known non-finding (reporting it at all is a false finding). Precision of
critical+major counts every reported critical or major finding: labelled `severe` is a true
positive, anything else (labelled lower, `none`, or not labelled) is a false positive.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Expect = Literal["severe", "minor", "none"]


@dataclass(frozen=True)
class Label:
    rule: str
    subject: str
    expect: Expect
    why: str


def _each(rule: str, tools: list[str], expect: Expect, why: str) -> list[Label]:
    return [Label(rule, f"tool:{t}", expect, why) for t in tools]


GIT_READS = [
    "git_status",
    "git_diff_unstaged",
    "git_diff_staged",
    "git_diff",
    "git_log",
    "git_show",
    "git_branch",
]
FS_READS = [
    "directory_tree",
    "get_file_info",
    "list_allowed_directories",
    "list_directory",
    "list_directory_with_sizes",
    "read_file",
    "read_media_file",
    "read_multiple_files",
    "read_text_file",
    "search_files",
]
EVERYTHING_READS = [
    "echo",
    "get-annotated-message",
    "get-env",
    "get-resource-links",
    "get-resource-reference",
    "get-structured-content",
    "get-sum",
    "get-tiny-image",
]
PYDANTIC_OPEN = (
    "pydantic argument models ignore unknown keys: a misspelled option is dropped silently"
)
ZOD_OPEN = "zod objects strip unknown keys by default: a misspelled option is dropped silently"
VALIDATION_TEXT = "the framework's validation message names the field the model got wrong"
PROSE_ERRORS = (
    "errors are prose that say what went wrong; a model recovers, it cannot branch on them"
)

LABELS: dict[str, list[Label]] = {
    "time": [
        *_each("3.closed-schemas", ["get_current_time", "convert_time"], "severe", PYDANTIC_OPEN),
        Label("2.summary", "server", "minor", "two tools: the list is the summary"),
        *_each("dv.substrate-leak", ["get_current_time", "convert_time"], "minor", VALIDATION_TEXT),
        *_each("6.symbolic-codes", ["get_current_time", "convert_time"], "minor", PROSE_ERRORS),
        *_each(
            "3.descriptions",
            ["get_current_time", "convert_time"],
            "minor",
            "one purpose line, no when-to-use or example",
        ),
    ],
    "git": [
        *_each("3.closed-schemas", GIT_READS, "severe", PYDANTIC_OPEN),
        Label(
            "dv.ambiguous-date",
            "tool:git_log",
            "severe",
            "git reads 01/02/2026 as January 2 and says nothing",
        ),
        Label("2.summary", "server", "severe", "twelve tools and no instructions"),
        *_each(
            "3.output-schema",
            [
                "git_status",
                "git_diff",
                "git_diff_staged",
                "git_diff_unstaged",
                "git_log",
                "git_show",
                "git_branch",
            ],
            "none",
            "git's own text (a diff, a log) is the answer; there is no structure to declare",
        ),
        *_each("dv.substrate-leak", GIT_READS, "minor", VALIDATION_TEXT),
        *_each("6.symbolic-codes", GIT_READS, "minor", PROSE_ERRORS),
        Label(
            "3.idempotency-key",
            "tool:git_create_branch",
            "none",
            "a second create_branch with the same name fails: a retry does not duplicate",
        ),
        Label("3.honest-annotations", "tool:git_add", "none", "git add is idempotent"),
        Label(
            "3.strict-types",
            "tool:git_branch",
            "minor",
            "`branch_type` is free text whose description lists 'local', 'remote' and 'all'; "
            "the server raises on any other value",
        ),
        Label(
            "3.sec-confirmation",
            "tool:git_reset",
            "minor",
            "declared destructive, so hosts confirm; it only unstages",
        ),
    ],
    "fetch": [
        Label("2.summary", "server", "minor", "one tool"),
        Label(
            "dv.instruction-text",
            "tool:fetch",
            "severe",
            "the description tells the model it now has internet access and should no longer "
            "refuse: an instruction that overrides the host's",
        ),
        Label("3.output-schema", "tool:fetch", "none", "the answer is a page as markdown"),
        Label(
            "3.closed-schemas", "tool:fetch", "minor", PYDANTIC_OPEN + " (not probed: open-world)"
        ),
    ],
    "everything": [
        *_each("3.closed-schemas", EVERYTHING_READS, "severe", ZOD_OPEN),
        Label("3.output-schema", "tool:get-env", "severe", "answers a JSON object with no schema"),
        Label(
            "6.tool-errors",
            "tool:get-annotated-message",
            "none",
            "asked for an error-type message, it shows one: a demo, not a failure",
        ),
        Label(
            "3.honest-annotations",
            "tool:trigger-long-running-operation",
            "none",
            "it only sends progress notifications",
        ),
        Label("3.naming", "tool:echo", "minor", "a one-word name: fine to import, says no noun"),
        Label(
            "1.negotiated-caps",
            "server",
            "minor",
            "registerConditionalTools adds get-roots-list, trigger-elicitation-request, "
            "trigger-url-elicitation and trigger-sampling-request only for a client that declared "
            "roots, elicitation (url mode) or sampling; a client without them is never told",
        ),
    ],
    "filesystem": [
        *_each("3.closed-schemas", FS_READS, "severe", ZOD_OPEN),
        Label("2.summary", "server", "severe", "fourteen tools and no instructions"),
        Label(
            "3.honest-annotations",
            "tool:create_directory",
            "none",
            "mkdir -p: creating an existing directory succeeds and changes nothing",
        ),
        Label("3.idempotency-key", "tool:create_directory", "none", "mkdir -p is idempotent"),
        *_each(
            "3.required-optional",
            ["read_text_file", "read_file"],
            "minor",
            "`head` and `tail` may not be given together (the handler throws 'Cannot specify "
            "both head and tail parameters simultaneously'); the schema allows both",
        ),
        *_each(
            "3.sec-confirmation",
            ["write_file", "move_file"],
            "minor",
            "declared destructive, so hosts confirm first",
        ),
        *_each(
            "6.symbolic-codes",
            [t for t in FS_READS if t != "list_allowed_directories"],
            "minor",
            PROSE_ERRORS,
        ),
    ],
    "memory": [
        *_each(
            "3.closed-schemas", ["open_nodes", "read_graph", "search_nodes"], "severe", ZOD_OPEN
        ),
        Label("2.summary", "server", "severe", "nine tools and no instructions"),
        *_each(
            "3.idempotency-key",
            ["create_entities", "create_relations", "add_observations"],
            "none",
            "existing names and observations are skipped: a retry adds nothing",
        ),
        *_each(
            "3.sec-confirmation",
            ["delete_entities", "delete_observations", "delete_relations"],
            "minor",
            "declared destructive, so hosts confirm first",
        ),
        *_each(
            "3.descriptions",
            ["open_nodes", "read_graph", "search_nodes"],
            "minor",
            "one purpose line, no when-to-use or example",
        ),
    ],
    "sequential-thinking": [
        Label("3.closed-schemas", "tool:sequentialthinking", "severe", ZOD_OPEN),
        Label("2.summary", "server", "minor", "one tool with a long description"),
    ],
}
# The same fixtures audited with --allow-writes (disposable): the repeat probe decides idempotency,
# and the writing tools are probed too, so their open schemas are seen.
WRITES_RUNS: dict[str, list[Label]] = {
    "memory": _each(
        "3.closed-schemas",
        [
            "create_entities",
            "create_relations",
            "add_observations",
            "delete_entities",
            "delete_observations",
            "delete_relations",
        ],
        "severe",
        ZOD_OPEN,
    ),
    "filesystem": _each(
        "3.closed-schemas",
        ["create_directory", "edit_file", "write_file", "move_file"],
        "severe",
        ZOD_OPEN,
    ),
    "git": _each(
        "3.closed-schemas",
        ["git_checkout", "git_reset", "git_commit", "git_add", "git_create_branch"],
        "severe",
        PYDANTIC_OPEN,
    ),
}


@dataclass
class Score:
    severe_reported: int = 0
    severe_true: int = 0
    false_critical: list[str] | None = None
    false_severe: list[str] | None = None
    false_any: list[str] | None = None
    labelled_true: int = 0
    found_true: int = 0
    missed: list[str] | None = None

    @property
    def precision(self) -> float:
        return self.severe_true / self.severe_reported if self.severe_reported else 1.0

    @property
    def recall(self) -> float:
        return self.found_true / self.labelled_true if self.labelled_true else 1.0


def score(
    reports: dict[str, list[dict[str, str]]],
    labels: dict[str, list[Label]],
    writes: dict[str, list[Label]] | None = None,
) -> Score:
    """Findings per server (rule, subject, severity dicts) against the labels; a run named
    `<server>+writes` (audited with --allow-writes) adds `writes[<server>]`, which wins."""
    writes = WRITES_RUNS if writes is None else writes
    s = Score(false_critical=[], false_severe=[], false_any=[], missed=[])
    assert s.false_critical is not None and s.false_severe is not None
    assert s.false_any is not None and s.missed is not None
    for server, findings in reports.items():
        base, _, mode = server.partition("+")
        extra = writes.get(base, []) if mode == "writes" else []
        by_key = {(lab.rule, lab.subject): lab for lab in [*labels.get(base, []), *extra]}
        seen: dict[tuple[str, str], str] = {}
        for f in findings:
            key = (f["rule"], f["subject"])
            rank = ("critical", "major", "minor", "nit").index(f["severity"])
            if key not in seen or rank < ("critical", "major", "minor", "nit").index(seen[key]):
                seen[key] = f["severity"]
        for key, severity in seen.items():
            label = by_key.get(key)
            where = f"{server}: {key[0]} {key[1]} ({severity})"
            if label is not None and label.expect == "none":
                s.false_any.append(where)
            if severity in ("critical", "major"):
                s.severe_reported += 1
                if label is not None and label.expect == "severe":
                    s.severe_true += 1
                else:
                    s.false_severe.append(where)
                    if severity == "critical":
                        s.false_critical.append(where)
        for key, label in by_key.items():
            if label.expect == "none":
                continue
            s.labelled_true += 1
            got = seen.get(key)
            ok = got is not None and (label.expect == "minor" or got in ("critical", "major"))
            if ok:
                s.found_true += 1
            else:
                s.missed.append(f"{server}: {key[0]} {key[1]} (want {label.expect}, got {got})")
    return s
