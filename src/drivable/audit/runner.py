"""Run an audit: connect, collect the surface, apply the static rules, probe, and fill coverage."""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from drivable.audit import capabilities as cap
from drivable.audit import heuristics as h
from drivable.audit import probes as pr
from drivable.audit.coverage import coverage
from drivable.audit.ecosystem import adapt, detect
from drivable.audit.model import Finding, Report
from drivable.audit.reconcile import reconcile
from drivable.audit.rules import StaticContext, run_static
from drivable.audit.stdio_probe import StdoutReport
from drivable.audit.tokens import ENCODING, count_json, count_text
from drivable.target import Target, collect_surface, connect, load_surface_file


class AuditCannotRun(Exception):
    """The audit could not reach or read its target (exit code 2)."""


@dataclass
class AuditOptions:
    allow_writes: bool = False
    allow_network: bool = False
    timeout: float = 10.0
    connect_timeout: float = 45.0
    max_probe_tools: int = 50
    probes: bool = True
    other_era: bool = True
    # list the tools again as a client declaring client capabilities (audit.capabilities)
    other_capabilities: bool = True


Progress = Callable[[str], None]


def _tokens(surface: dict[str, Any]) -> int:
    pages = surface.get("list_results", {}).get("tools/list", [])
    return sum(count_json(p) for p in pages)


def audit_surface(surface: dict[str, Any], *, offline: bool) -> tuple[StaticContext, list[Finding]]:
    ctx = StaticContext(surface, tokens=_tokens(surface), offline=offline)
    return ctx, list(run_static(ctx))


def audit_file(path: str | Path) -> Report:
    try:
        surface = load_surface_file(path)
    except (OSError, ValueError) as exc:
        raise AuditCannotRun(f"cannot read {path}: {exc}") from None
    ctx, findings = audit_surface(surface, offline=True)
    findings = reconcile(findings, None, surface)
    target = {
        "transport": "file",
        "path": str(path),
        "era": "offline",
        "surface": _surface_summary(surface, ctx),
    }
    report = Report(target, findings, surface=surface, artifact=str(path))
    report.coverage = coverage(report.findings, ctx, probed=False, offline=True, extra={})
    return report


def _surface_summary(surface: dict[str, Any], ctx: StaticContext) -> dict[str, Any]:
    return {
        "server": surface.get("server") or {},
        "tools": len(surface.get("tools") or []),
        "resources": len(surface.get("resources") or []),
        "resource_templates": len(surface.get("resource_templates") or []),
        "prompts": len(surface.get("prompts") or []),
        "tools_list_bytes": int(surface.get("tools_list_bytes") or 0),
        "tools_list_tokens": ctx.tokens,
        "tokenizer": ENCODING,
    }


async def audit_target(
    target: Target, options: AuditOptions | None = None, progress: Progress | None = None
) -> Report:
    """Audit a live server. The raw stdout probe and the second era run beside the main session."""
    opts = options or AuditOptions()
    say = progress or (lambda _msg: None)
    findings: list[Finding] = []
    extra: dict[str, list[str]] = {}
    described = target.describe()
    results: dict[str, Any] = {}

    async def keep(key: str, job: Callable[[], Any]) -> None:
        try:
            results[key] = await job()
        except Exception as exc:  # each job reports its own failure; none may cancel the others
            results[key] = exc

    # A stdio server: the raw stdout handshake also lists the tools as a capable client of the
    # handshake era, so the other era and the capabilities usually cost no start of their own
    # (`_handshake_views`). Any other target: an SDK session per view, beside the main one, which
    # hands over its tool list as soon as it has it.
    listed = cap.Listed()
    async with anyio.create_task_group() as tg:
        if target.command:
            tg.start_soon(keep, "stdout", lambda: _stdout_check(target, opts))
        else:
            if opts.other_era and target.mode != "legacy":
                tg.start_soon(keep, "legacy", lambda: _legacy_surface(target, opts))
            if opts.other_capabilities:
                tg.start_soon(
                    keep,
                    "capable",
                    lambda: cap.view_when_listed(target, listed, opts.connect_timeout),
                )
        tg.start_soon(keep, "main", lambda: _main_session(target, opts, say, listed))

    stdout = results.get("stdout")
    if isinstance(stdout, StdoutReport) and stdout.error and not stdout.lines:
        raise AuditCannotRun(f"cannot start `{target.command[0]}`: {stdout.error}")
    main = results["main"]
    if isinstance(main, AuditCannotRun) and isinstance(stdout, StdoutReport) and stdout.noise:
        raise AuditCannotRun(
            f"{main}\nthe command wrote this to stdout, which is not MCP: {stdout.noise[0][:120]!r}"
        )
    if isinstance(main, AuditCannotRun):
        raise main
    if isinstance(main, Exception):
        raise AuditCannotRun(f"audit failed: {_describe(main)}")
    surface, ctx, session_findings, state = main
    if isinstance(stdout, StdoutReport):
        findings.extend(_stdout_findings(stdout, extra))
        results.update(await _handshake_views(target, opts, surface, stdout))
    view = results.get("capable")
    if isinstance(view, cap.CapabilityView):
        findings.extend(cap.findings_of(view))
        session_findings.extend(_capability_tools(view, surface, state))
    findings.extend(reconcile(session_findings, state, surface))

    eras: dict[str, Any] = {
        "spoken": surface["era"],
        "protocol_version": surface["protocol_version"],
    }
    if surface["era"] == "2026-07-28" and "legacy" in results:
        eras["handshake"] = _compare_eras(surface, results["legacy"], findings)
    described.update(
        {"era": surface["era"], "eras": eras, "surface": _surface_summary(surface, ctx)}
    )
    if isinstance(view, cap.CapabilityView):
        described["client_capabilities"] = view.summary()
    if state is not None:
        findings.extend(state.findings)
        described["probes"] = _probe_summary(state, surface, ctx, findings)
    ecosystem = detect(described)
    described["ecosystem"] = ecosystem
    report = Report(described, adapt(findings, ecosystem), surface=surface)
    report.coverage = coverage(
        report.findings, ctx, probed=state is not None, offline=False, extra=extra, state=state
    )
    return report


def _capability_tools(
    view: cap.CapabilityView, surface: dict[str, Any], state: pr.ProbeState | None
) -> list[Finding]:
    """The static rules on tools only a capable client sees; they are not called."""
    if not view.extra:
        return []
    names = {f"tool:{t.get('name')}" for t in view.extra}
    if state is not None:
        for name, needed in view.needs.items():
            state.skipped[name] = (
                f"listed only to a client that declares {', '.join(needed)}: not called"
            )
    capable = {**surface, "tools": [*(surface.get("tools") or []), *view.extra]}
    _, static = audit_surface(capable, offline=False)
    return [f for f in static if f.subject in names]


def _handshake_declares(opts: AuditOptions) -> tuple[str, ...]:
    """What the stdout check's handshake declares: every capability, unless none is compared."""
    return cap.HANDSHAKE_CAPABILITIES if opts.other_capabilities else ()


async def _stdout_check(target: Target, opts: AuditOptions) -> StdoutReport:
    return await cap.handshake(target, _handshake_declares(opts), opts.connect_timeout)


async def _handshake_views(
    target: Target, opts: AuditOptions, surface: dict[str, Any], stdout: StdoutReport
) -> dict[str, Any]:
    """The other era's surface and the capable client's view of a stdio server, from the raw
    handshake the stdout check ran (handshake era, declaring every capability).

    When it listed the same tools as the main session, both views follow from it: the other era
    lists the same tools, and no capability changes the list. (A capability that added exactly
    the tools the other era lacks would hide both; no server is known to.) Only when the lists
    differ is the server started again, bare in the handshake era, to tell era from capability.
    """
    out: dict[str, Any] = {}
    main_tools = list(surface.get("tools") or [])
    modern = surface["era"] == "2026-07-28"
    want_era = opts.other_era and target.mode != "legacy" and modern
    if not (want_era or opts.other_capabilities):
        return out
    capable = stdout.tools
    declared = _handshake_declares(opts)
    same = capable is not None and sorted(cap.names(capable)) == sorted(cap.names(main_tools))
    handshake_era: StdoutReport | BaseException = stdout
    if declared and not same and modern:
        try:
            handshake_era = await cap.handshake(target, (), opts.connect_timeout)
        except Exception as exc:  # this view fails alone; the audit goes on
            handshake_era = exc
    if want_era:
        if isinstance(handshake_era, StdoutReport) and handshake_era.tools is not None:
            out["legacy"] = {
                "protocol_version": handshake_era.protocol_version,
                "tools": handshake_era.tools,
            }
        else:
            out["legacy"] = RuntimeError("the handshake era listed no complete tool list")
    if declared:
        bare = main_tools
        if modern and isinstance(handshake_era, StdoutReport) and handshake_era.tools is not None:
            bare = handshake_era.tools
        declaring: list[dict[str, Any]] | BaseException = (
            capable if capable is not None else RuntimeError("no complete tool list")
        )
        out["capable"] = await cap.compare(
            bare, declaring, declared, cap.lister_of(target, opts.connect_timeout)
        )
    return out


def _stdout_findings(stdout: StdoutReport, extra: dict[str, list[str]]) -> list[Finding]:
    if not stdout.noise:
        extra.setdefault("1", []).append(
            f"stdout probe: {stdout.lines} lines, all JSON-RPC"
            + ("" if stdout.answered else " (tools/list not answered in time)")
        )
        return []
    return [
        Finding(
            "1.stdout",
            "critical",
            "server",
            f"The server wrote {len(stdout.noise)} non-protocol line(s) to stdout.",
            {
                "non_protocol_lines": stdout.noise[:5],
                "protocol_lines": stdout.lines - len(stdout.noise),
            },
            "Send logs to stderr (`logging.basicConfig(stream=sys.stderr)`); never print "
            "to stdout in a stdio server.",
        )
    ]


async def _main_session(
    target: Target, opts: AuditOptions, say: Progress, listed: cap.Listed | None = None
) -> tuple[dict[str, Any], StaticContext, list[Finding], pr.ProbeState | None]:
    listed = listed or cap.Listed()
    try:
        return await _main_session_inner(target, opts, say, listed)
    finally:
        listed.give(None)  # no-op once the list was given


async def _main_session_inner(
    target: Target, opts: AuditOptions, say: Progress, listed: cap.Listed
) -> tuple[dict[str, Any], StaticContext, list[Finding], pr.ProbeState | None]:
    findings: list[Finding] = []
    state = None
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as errlog:
        try:
            with anyio.fail_after(opts.connect_timeout) as deadline:
                async with connect(
                    target, errlog=errlog, read_timeout_seconds=opts.connect_timeout
                ) as client:
                    say("collecting the surface")
                    surface = await collect_surface(client)
                    listed.give(list(surface.get("tools") or []))
                    # Probes carry their own per-call timeouts; only connecting has a deadline.
                    deadline.deadline = math.inf
                    ctx, static = audit_surface(surface, offline=False)
                    findings.extend(static)
                    if opts.probes:
                        say("probing lists")
                        findings.extend(await pr.probe_lists(client, surface, opts.timeout))
                        findings.extend(await pr.probe_resources(client, surface, opts.timeout))
                        state = await pr.probe_tools(
                            client,
                            surface.get("tools") or [],
                            allow_writes=opts.allow_writes,
                            allow_network=opts.allow_network,
                            timeout=opts.timeout,
                            max_tools=opts.max_probe_tools,
                            progress=lambda name: say(f"probing {name}"),
                            known=tuple(target.command[1:]),
                        )
        except TimeoutError:
            raise AuditCannotRun(
                f"no answer from the server within {opts.connect_timeout:.0f} s" + _tail(errlog)
            ) from None
        except Exception as exc:
            hint = await _http_hint(target) if target.url else ""
            raise AuditCannotRun(
                f"cannot connect: {_describe(exc)}" + hint + _tail(errlog)
            ) from None
    return surface, ctx, findings, state


async def _http_hint(target: Target) -> str:
    """Say what the HTTP endpoint answers to a bare POST: the status explains most failures."""
    import httpx2

    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if target.bearer_token:
        headers["Authorization"] = f"Bearer {target.bearer_token}"
    body = {"jsonrpc": "2.0", "id": 0, "method": "ping"}
    try:
        async with httpx2.AsyncClient(timeout=10) as http:
            answer = await http.post(str(target.url), json=body, headers=headers)
    except Exception as exc:
        return f" ({type(exc).__name__}: is anything listening at {target.url}?)"
    status = answer.status_code
    if status in (401, 403):
        given = "the token given was refused" if target.bearer_token else "no token was given"
        return (
            f" (HTTP {status}: the server wants credentials and {given}; pass --bearer-token "
            "or set DRIVABLE_BEARER_TOKEN)"
        )
    if status == 404:
        return f" (HTTP 404: no MCP endpoint at {target.url}; check the path, often /mcp)"
    return f" (HTTP {status} to a plain POST)"


async def _legacy_surface(target: Target, opts: AuditOptions) -> dict[str, Any]:
    """Speak the handshake era too: the same server must show the same tools to older clients."""
    with (
        tempfile.TemporaryFile(mode="w+", encoding="utf-8") as errlog,
        anyio.fail_after(opts.connect_timeout),
    ):
        async with connect(
            target, errlog=errlog, mode="legacy", read_timeout_seconds=opts.connect_timeout
        ) as client:
            return await collect_surface(client)


def _compare_eras(modern: dict[str, Any], legacy: Any, findings: list[Finding]) -> dict[str, Any]:
    if isinstance(legacy, BaseException):
        return {"status": "failed", "reason": _describe(legacy)}
    a = [t.get("name") for t in modern.get("tools", [])]
    b = [t.get("name") for t in legacy.get("tools", [])]
    if sorted(map(str, a)) != sorted(map(str, b)):
        findings.append(
            Finding(
                "1.spec-revision",
                "major",
                "server",
                "The 2026-07-28 and handshake eras list different tools.",
                {"2026-07-28": a, legacy["protocol_version"]: b},
                "Serve one catalog in every era the server supports.",
            )
        )
    return {"status": "ok", "protocol_version": legacy["protocol_version"], "tools": len(b)}


def _probe_summary(
    state: pr.ProbeState, surface: dict[str, Any], ctx: StaticContext, findings: list[Finding]
) -> dict[str, Any]:
    instructions_tokens = count_text(ctx.instructions) if ctx.instructions else 0
    first_tool = pr.first_safe_tool(state)
    cold: dict[str, Any] = {
        "tokens_before_first_call": instructions_tokens + ctx.tokens,
        "first_call_tool": first_tool,
    }
    if first_tool:
        baseline = next(
            (c for c in state.calls if c.tool == first_tool and c.probe == "baseline"), None
        )
        outcome = "not called"
        if baseline:
            outcome = "error-as-success" if baseline.error_as_success else baseline.outcome
        cold["first_call_outcome"] = outcome
        if baseline:
            cold["evidence"] = baseline.evidence()
        if baseline and not baseline.succeeded and baseline.outcome != "timeout":
            findings.append(
                Finding(
                    "dv.cold-start",
                    "minor",
                    f"tool:{first_tool}",
                    f"A cold-start first call of `{first_tool}` with the schema's own values failed "
                    f"({outcome}).",
                    baseline.evidence(schema=h.input_schema(state.tools[first_tool])),
                    f"Give `{first_tool}` defaults or `examples` in its schema that make a first call "
                    "succeed.",
                )
            )
    repair: dict[str, Any]
    if state.first_repair is None:
        repair = {"status": "not-run", "reason": "no rejection offered a callable repair"}
    else:
        repair = {
            "status": "resolved in one hop"
            if state.first_repair.get("outcome") == "success"
            else "failed",
            "tool": state.first_repair["tool"],
            "evidence": state.first_repair.get("evidence"),
        }
    by_probe: dict[str, int] = {}
    for c in state.calls:
        by_probe[c.probe] = by_probe.get(c.probe, 0) + 1
    return {
        "calls": len(state.calls),
        "by_probe": by_probe,
        "called_tools": sorted(set(state.called)),
        "skipped_tools": state.skipped,
        "cold_start": cold,
        "first_repair": repair,
    }


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in exc.exceptions[:3])
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}"[:300] if text else type(exc).__name__


def _tail(errlog: Any) -> str:
    try:
        errlog.seek(0)
        lines = [ln for ln in errlog.read().splitlines() if ln.strip()][-5:]
    except Exception:
        return ""
    return ("\nserver stderr (last lines):\n  " + "\n  ".join(lines)) if lines else ""
