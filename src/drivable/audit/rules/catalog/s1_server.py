"""§1 Server-Level: 15 rule ids, one line of requirement each."""

from __future__ import annotations

ROWS: tuple[tuple[str, str, str], ...] = (
    (
        "1.name",
        "Distinctive descriptive server name; no version numbers or host-language style.",
        "a+c",
    ),
    (
        "1.name-generic",
        "No generic names (`api`, `data`, `tools`) that collide across servers.",
        "a",
    ),
    (
        "1.transport",
        "Explicit, documented stdio vs streamable HTTP; HTTP routing headers required (see part 4 of this note), mismatch → -32020; design for header-routing gateways.",
        "b+c",
    ),
    ("1.stdout", "stdio servers never log to stdout.", "b"),
    (
        "1.auth-model",
        "Declare scopes/permission boundaries that change availability, shape, or repair; no plumbing in first read.",
        "c",
    ),
    (
        "1.cred-modes",
        "Missing vs wrong credential vs insufficient scope are distinct failures.",
        "b+c",
    ),
    (
        "1.implicit-state",
        "Declare workspace/defaults/caches/config only when they affect choice, results, perms, repair.",
        "c",
    ),
    (
        "1.state-handles",
        "Handles opaque, optionally labelled, declared lifetime/expiry, auth each use, bounded retention; passed as args.",
        "b+c",
    ),
    (
        "1.observability",
        "Rate limits, timeouts, retry hints, deprecations, fingerprint go in response payloads.",
        "b+c",
    ),
    (
        "1.metadata-contract",
        "Name, version, fingerprint, summary are contract; changes are versioned events.",
        "a+c",
    ),
    (
        "1.display-metadata",
        "Native `title`/`icons` on tools, resources, templates, prompts, implementation where humans pick.",
        "a",
    ),
    (
        "1.negotiated-caps",
        "Every request has `_meta` protocolVersion+clientCapabilities; server advertises via `server/discover`; design names the capability paths it needs and fallbacks; undeclared cap → -32021 `data.requiredCapabilities`.",
        "a+b+c",
    ),
    (
        "1.spec-revision",
        "Summary declares target revision(s) and each extension; version-independent rules always bind; legacy shapes on a declared-legacy server are not findings.",
        "a+c",
    ),
    (
        "1.roots",
        "Workspace scope as ordinary args/URIs/config; roots deprecated, only via MRTR `ListRootsRequest`; not access control.",
        "b+c",
    ),
    (
        "1.auth-repair",
        "HTTP: document canonical URI + resource indicator, no token passthrough, step-up as structured repair (`required_scopes`, `resource`, `authorization_url`); prefer CIMD over deprecated DCR.",
        "b+c",
    ),
)
