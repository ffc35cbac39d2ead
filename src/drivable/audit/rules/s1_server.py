"""§1 Server-level: identity, display metadata, stdout discipline (the probe lives in probes)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from drivable.audit.model import Finding
from drivable.audit.rules.base import RuleDoc, StaticContext, finding, tool_subject
from drivable.audit.rules.declare import Rules

GENERIC_NAMES = frozenset(
    [
        "api",
        "data",
        "tools",
        "tool",
        "server",
        "mcp",
        "mcp-server",
        "app",
        "service",
        "default",
        "test",
        "demo",
        "example",
        "main",
    ]
)
# A version: `v2`, `V2` after a word (`NotesV2`), `2.1`, a trailing `-2` or `_v3`.
VERSION_IN_NAME = re.compile(r"(\bv\d+\b|(?<=[a-z])V\d+\b|\d+\.\d+|[-_ ]v?\d+$)")
# A file or class name of the host language (`notes.py`, `py-notes`, `NotesServer`), or any
# upper-case letter: hosts join the server's name to its tools' (`MyServer_search`), and a name
# in mixed case is a class name, not the lower-case word the other servers' names are.
HOST_STYLE = re.compile(r"(\.py$|\.js$|\.ts$|^py[-_]|[-_]py$|[A-Z])")

RULES = Rules()


def _plain_name(name: str) -> str:
    """`MyNotes-v2.1` -> `my-notes`: the name without its version, file suffix or class case."""
    base = re.sub(r"\.(py|js|ts)$", "", name)
    base = re.sub(r"([-_ ]+v?\d+(\.\d+)*|(?<=[a-z])V\d+(\.\d+)*|\bv\d+(\.\d+)*)$", "", base)
    base = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "-", base).lower()
    return re.sub(r"[^a-z0-9]+", "-", base).strip("-") or "a-domain-name"


@RULES.static(
    "1.name",
    "Distinctive descriptive server name; no version numbers or host-language style.",
    "a+c",
    doc=RuleDoc(
        "nit",
        "static",
        "The server's `serverInfo.name` is present, has no version number (`v2`, `2.1`) and no "
        "host-language style (`.py`, mixed case as in `MyServer`).",
        "A model sees several servers at once; a name that carries a version or a file name "
        "changes on upgrade and says nothing about what the server is for.",
        "`billing-v2.py` or `MyServer`.",
        "Name the domain in lower case: `billing`, `caselaw`; carry the version in "
        "`serverInfo.version` and the display name in `serverInfo.title`.",
        levels=(
            (
                "minor",
                "the name holds a version number or a host-language style (a file name, "
                "mixed case)",
            ),
        ),
    ),
)
def _name(ctx: StaticContext) -> Iterator[Finding]:
    name = str(ctx.server.get("name") or "")
    if ctx.offline and not name:
        ctx.note(1, "offline dump carries no serverInfo: identity not checked")
    elif not name:
        yield finding(
            "1.name",
            "minor",
            "server",
            "The server publishes no name.",
            {"serverInfo": ctx.server},
            "Set `serverInfo.name` to a distinctive domain name.",
        )
    elif name.lower() in GENERIC_NAMES:
        pass  # 1.name-generic says it
    elif VERSION_IN_NAME.search(name) or HOST_STYLE.search(name):
        said = [
            what
            for what, pattern in (("a version", VERSION_IN_NAME), ("host style", HOST_STYLE))
            if pattern.search(name)
        ]
        yield finding(
            "1.name",
            "minor",
            "server",
            f"Server name `{name}` carries {' and '.join(said)}: it changes on upgrade or "
            "reads as a class name beside other servers' lower-case names.",
            {"serverInfo.name": name, "serverInfo.version": ctx.server.get("version")},
            f"Name the server `{_plain_name(name)}` and keep it stable; carry the version in "
            "`serverInfo.version` and a display name in `serverInfo.title`.",
        )
    else:
        ctx.note(1, f"server name `{name}`")
    for tool in ctx.tools:
        tool_name = str(tool.get("name", ""))
        if tool_name and tool_name == name:
            yield finding(
                "1.name",
                "nit",
                tool_subject(tool),
                "A tool has the same name as the server.",
                {"serverInfo.name": name, "tool": tool_name},
                "Give the tool a verb_noun name distinct from the server.",
            )


@RULES.static(
    "1.name-generic",
    "No generic names (`api`, `data`, `tools`) that collide across servers.",
    "a",
    doc=RuleDoc(
        "minor",
        "static",
        "The server name is not a generic word (`api`, `data`, `tools`, `server`, ...).",
        "Hosts prefix tools with the server name; `api_search` beside another server's "
        "`api_search` is a coin toss for the model.",
        '`serverInfo.name = "tools"`.',
        "Use a distinctive domain name, e.g. `acme-invoices`.",
    ),
)
def _generic_name(ctx: StaticContext) -> Iterator[Finding]:
    name = str(ctx.server.get("name") or "")
    if name and name.lower() in GENERIC_NAMES:
        yield finding(
            "1.name-generic",
            "minor",
            "server",
            f"Server name `{name}` is generic and collides across servers.",
            {"serverInfo.name": name},
            "Rename the server after its domain (e.g. `<company>-<domain>`).",
        )


RULES.declare(
    "1.stdout",
    "stdio servers never log to stdout.",
    "b",
    doc=RuleDoc(
        "critical",
        "probe",
        "A raw stdio probe reads every byte the server writes to stdout while it starts, lists "
        "its tools and answers: anything that is not a JSON-RPC message is a finding.",
        "On stdio, stdout *is* the protocol stream. A log line there corrupts the stream; clients "
        "drop the connection or the next message.",
        "`print('server ready')` before `server.run()`.",
        "Log to stderr (`logging.basicConfig(stream=sys.stderr)`), never `print` in a stdio server.",
    ),
)


@RULES.static(
    "1.metadata-contract",
    "Name, version, fingerprint, summary are contract; changes are versioned events.",
    "a+c",
    doc=RuleDoc(
        "minor",
        "static",
        "`serverInfo` carries a `version`.",
        "A client that caches the surface needs to know when it changed; without a version it "
        "cannot tell an upgrade from the same server.",
        '`serverInfo = {"name": "billing"}`.',
        "Publish `serverInfo.version` (and a fingerprint, see 9.fingerprint).",
    ),
)
def _version(ctx: StaticContext) -> Iterator[Finding]:
    if ctx.server.get("name") and not ctx.server.get("version"):
        yield finding(
            "1.metadata-contract",
            "minor",
            "server",
            "serverInfo has no version.",
            {"serverInfo": ctx.server},
            "Publish `serverInfo.version` and bump it on every surface change.",
        )


@RULES.static(
    "1.display-metadata",
    "Native `title`/`icons` on tools, resources, templates, prompts, implementation where humans pick.",
    "a",
    doc=RuleDoc(
        "nit",
        "static",
        "Tools, resources, templates and prompts carry a human `title` (top level or "
        "`annotations.title`).",
        "Hosts show titles where a human approves a call; the raw snake_case name is a poor label "
        "for the person approving a payment or a deletion.",
        '`{"name": "billing_refund_invoice"}` with no `title`.',
        'Add `title`: `"Refund an invoice"`.',
    ),
)
def _titles(ctx: StaticContext) -> Iterator[Finding]:
    untitled = [
        str(t.get("name"))
        for t in ctx.tools
        if not t.get("title") and not (t.get("annotations") or {}).get("title")
    ]
    if untitled:
        yield finding(
            "1.display-metadata",
            "nit",
            "server",
            f"{len(untitled)} of {len(ctx.tools)} tools have no title.",
            {"tools_without_title": untitled[:20]},
            f"Add a human `title` to each tool, e.g. `{untitled[0]}` -> "
            f"`{untitled[0].replace('_', ' ').capitalize()}`.",
        )


RULES.declare(
    "1.negotiated-caps",
    "Every request has `_meta` protocolVersion+clientCapabilities; server advertises via `server/discover`; design names the capability paths it needs and fallbacks; undeclared cap → -32021 `data.requiredCapabilities`.",
    "a+b+c",
    doc=RuleDoc(
        "minor",
        "probe",
        "The audit lists the tools as the least capable client (no client capabilities) and again "
        "as a client that declares sampling, elicitation, roots and (on stdio) tasks; when the "
        "lists differ, once per capability left out, and reports which tools need which "
        "capabilities. The extra tools are audited statically too (they are not called).",
        "A model on a client without the capability never learns the tool exists, nor what it "
        "lacks; a host that caches one catalog per server shows tools that then fail.",
        "A sampling tool registered only after a client declared `sampling` in `initialize`.",
        "List every tool to every client; a call that needs an undeclared capability answers "
        "JSON-RPC -32021 with `data.requiredCapabilities` and names a fallback.",
    ),
)

RULES.declare(
    "1.spec-revision",
    "Summary declares target revision(s) and each extension; version-independent rules always bind; legacy shapes on a declared-legacy server are not findings.",
    "a+c",
    doc=RuleDoc(
        "major",
        "probe",
        "The audit speaks both eras (2026-07-28 and the handshake) and compares the tool lists.",
        "Clients of both eras are in the field; a tool that exists in one era only is a tool a "
        "model cannot find.",
        "A tool registered only on the stateless path.",
        "Serve one catalog in every era; state the target revisions in the summary.",
    ),
)
