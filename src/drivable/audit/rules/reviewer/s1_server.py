"""§1 Server-Level: the rules a reviewer decides (8), each with the question they answer."""

from __future__ import annotations

from drivable.audit.rules.declare import Rules

RULES = Rules()

RULES.declare(
    "1.transport",
    "Explicit, documented stdio vs streamable HTTP; HTTP routing headers required (see part 4 of this note), mismatch → -32020; design for header-routing gateways.",
    "b+c",
    question="Does the documentation say which transport to use (stdio or streamable HTTP) and does the HTTP side refuse a routing-header mismatch with -32020?",
)
RULES.declare(
    "1.auth-model",
    "Declare scopes/permission boundaries that change availability, shape, or repair; no plumbing in first read.",
    "c",
    question="Are the scopes or permissions that change what a caller sees declared up front, without plumbing detail in the first read?",
)
RULES.declare(
    "1.cred-modes",
    "Missing vs wrong credential vs insufficient scope are distinct failures.",
    "b+c",
    question="Does a missing credential fail differently from a wrong one and from one with too little scope?",
)
RULES.declare(
    "1.implicit-state",
    "Declare workspace/defaults/caches/config only when they affect choice, results, perms, repair.",
    "c",
    question="Is every workspace, default, cache or config value that changes results or permissions declared, and nothing that does not?",
)
RULES.declare(
    "1.state-handles",
    "Handles opaque, optionally labelled, declared lifetime/expiry, auth each use, bounded retention; passed as args.",
    "b+c",
    question="Are handles opaque, with a declared lifetime, checked for authorisation on each use and passed as arguments?",
)
RULES.declare(
    "1.observability",
    "Rate limits, timeouts, retry hints, deprecations, fingerprint go in response payloads.",
    "b+c",
    question="Do rate limits, timeouts, retry hints and deprecations reach the model in response payloads rather than logs?",
)
RULES.declare(
    "1.roots",
    "Workspace scope as ordinary args/URIs/config; roots deprecated, only via MRTR `ListRootsRequest`; not access control.",
    "b+c",
    question="Is workspace scope given as ordinary arguments or configuration, and never used as access control?",
)
RULES.declare(
    "1.auth-repair",
    "HTTP: document canonical URI + resource indicator, no token passthrough, step-up as structured repair (`required_scopes`, `resource`, `authorization_url`); prefer CIMD over deprecated DCR.",
    "b+c",
    question="For HTTP: is the canonical URI documented, are tokens never passed through, and is step-up answered with a structured repair?",
)
