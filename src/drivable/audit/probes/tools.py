"""Probing tools: decide which may be called (drivable.audit.safety), call them, hand each answer
to its judge (`successes`, `rejections`, `leaks`); a call that brought no answer (a crash, a
timeout, a JSON-RPC error for bad arguments) is judged here.

Listing and search tools go first, so the ids they return can fill the baseline calls of the
tools that take ids. Every `tools/call` goes through `_send`, the one place that records what was
called, so a test can prove nothing unsafe was.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

import anyio
from mcp import Client

from drivable import schema as sch
from drivable.audit import heuristics as h
from drivable.audit.probes import rejections, successes
from drivable.audit.probes.call import ProbeCall, answer_text, call_raw, text_blocks
from drivable.audit.probes.envelope import envelope_of, mentions_field
from drivable.audit.probes.leaks import check_leaks
from drivable.audit.probes.plan import ProbePlan, plan_for
from drivable.audit.probes.state import ProbeState
from drivable.audit.probes.values import Knowledge
from drivable.audit.safety import judge
from drivable.verbs import READ_VERBS

COLD_START_VERBS = ("search", "list", "find", "get")
# A `read_*` answer holds ids too (a record names its relatives), after the listings; then every
# other read (`get_room` shows the day and the free times a create needs), then the writes.
LEARNING_ORDER = (*h.LISTING_VERBS, "read")
# Probes that set the idempotency key: a transport's refusal of the megabyte is a bound too.
KEY_PROBES = frozenset({"placeholder-key", "long-key"})


def first_safe_tool(state: ProbeState) -> str | None:
    """The call a model most likely makes first: a search or list tool the audit may call."""
    reads = [n for n, t in state.tools.items() if _verdict(state, t).callable]
    for verb in COLD_START_VERBS:
        for name in reads:
            if h.verb_of(name) == verb:
                return name
    return reads[0] if reads else None


def _verdict(state: ProbeState, tool: dict[str, Any]) -> Any:
    return judge(tool, allow_writes=state.allow_writes, allow_network=state.allow_network)


def _first_files(dirs: tuple[str, ...]) -> tuple[str, ...]:
    """One regular file per configured directory (read-only listing of what the user gave)."""
    found = []
    for folder in dirs:
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for entry in names:
            path = os.path.join(folder, entry)
            if not entry.startswith(".") and os.path.isfile(path):
                found.append(path)
                break
    return tuple(found)


def _listing_first(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    def rank(tool: dict[str, Any]) -> int:
        verb = h.verb_of(str(tool.get("name") or ""))
        if verb in LEARNING_ORDER:
            return LEARNING_ORDER.index(verb)
        return len(LEARNING_ORDER) + (verb not in READ_VERBS)

    return sorted(tools, key=rank)


async def probe_tools(
    client: Client,
    tools: list[dict[str, Any]],
    *,
    allow_writes: bool,
    timeout: float,
    max_tools: int,
    allow_network: bool = False,
    progress: Callable[[str], None] | None = None,
    known: tuple[str, ...] = (),
) -> ProbeState:
    """Probe each tool. `known`: the server's own command-line values (paths there are config)."""
    state = ProbeState({str(t.get("name")): t for t in tools}, allow_writes, allow_network)
    state.known = tuple(k for k in known if len(k) > 3)
    dirs = tuple(k for k in state.known if os.path.isdir(k))
    state.know = Knowledge(dirs=dirs, files=_first_files(dirs))
    for tool in _listing_first(tools[:max_tools]):
        name = str(tool.get("name"))
        verdict = _verdict(state, tool)
        if not verdict.callable:
            flag = "--allow-writes" if verdict.needs == "writes" else "--allow-network"
            state.skipped[name] = f"not called without {flag}: {verdict.reason}"
            continue
        if progress:
            progress(name)
        alive = await _probe_one(client, tool, state, timeout, repeat=verdict.mutating)
        if not alive:
            break
    for name in [str(t.get("name")) for t in tools[max_tools:]]:
        state.skipped[name] = f"beyond --max-probe-tools {max_tools}"
    await _first_repair(client, state, timeout)
    rejections.summarise_gaps(state)
    rejections.compare_field_feedback(state)
    return state


# JSON-RPC errors that judge the request, not its arguments (checklist 6.tool-errors: JSON-RPC is
# for admissibility): -32020 header mismatch, -32021 missing client capability, -32022.
ADMISSIBILITY_CODES = frozenset({-32020, -32021, -32022})


def _admissibility(call: ProbeCall) -> str | None:
    """Why the server refused the request itself, or None (an answer about the tool)."""
    error = call.error if call.outcome == "jsonrpc-error" else None
    if not error or error.get("code") not in ADMISSIBILITY_CODES:
        return None
    data = error.get("data")
    needed = data.get("requiredCapabilities") if isinstance(data, dict) else None
    if isinstance(needed, dict) and needed:
        names = ", ".join(sorted(str(k) for k in needed))
        return (
            f"needs the client capability {names}, which the audit's client does not declare "
            f"(JSON-RPC {error['code']}): not probed"
        )
    return f"refused the request itself (JSON-RPC {error['code']}): not probed"


def _check_timeout(
    call: ProbeCall, tool: dict[str, Any], state: ProbeState, subject: str, timeout: float
) -> None:
    """No answer within the timeout: major unless the tool says it is long or offers a task."""
    from drivable.audit.rules.s7_long_running import DURATION_CUES, task_support

    name = str(tool.get("name"))
    if task_support(tool) or DURATION_CUES.search(str(tool.get("description") or "")):
        return  # declared long: the probe's timeout is shorter than the tool's own
    state.add(
        "7.declare-duration",
        "major",
        subject,
        f"The `{call.probe}` probe got no answer within {timeout:g} s, and nothing in "
        f"`{name}`'s description says it may take long.",
        {**call.evidence(), "timeout_s": timeout},
        f"Bound the work `{name}` does (a time or size limit) and answer a structured error "
        "past it; if it is long by nature, say its usual duration in the description and offer "
        "a task.",
        key=f"{subject}:timeout",
    )


async def _send(
    client: Client, state: ProbeState, tool: str, arguments: dict[str, Any], timeout: float
) -> ProbeCall:
    state.called.append(tool)
    call = await call_raw(client, tool, arguments, timeout)
    state.calls.append(call)
    return call


async def _probe_one(
    client: Client, tool: dict[str, Any], state: ProbeState, timeout: float, *, repeat: bool
) -> bool:
    name = str(tool.get("name"))
    subject = f"tool:{name}"
    baseline: ProbeCall | None = None
    listed: ProbeCall | None = None
    keys: list[ProbeCall] = []
    for plan in plan_for(tool, state.know):
        if plan.probe == "all-optionals" and repeat:
            continue  # a write with every option set is not a call to make twice for a check
        call = await _send(client, state, name, plan.arguments, timeout)
        call.probe, call.field, call.listed = plan.probe, plan.field, plan.listed
        if plan.probe in KEY_PROBES and await _bounded_by_transport(client, call, timeout):
            keys.append(call)
            continue
        if call.outcome == "crash":
            state.add(
                "dv.probe-crash",
                "major",
                subject,
                f"The connection failed during the `{plan.probe}` probe.",
                call.evidence(),
                f"Make `{name}` reject bad input without failing the server process.",
            )
            return False
        if call.outcome == "timeout":
            # A call that never returns stalls a model's turn: a finding unless the tool says it
            # is long (_check_timeout). No more calls to it: the server may still be busy.
            state.observe(name, f"timeout:{plan.probe}", "timeout")
            if plan.probe == "baseline":
                state.baseline_ok[name] = False
            _check_timeout(call, tool, state, subject, timeout)
            return True
        refusal = _admissibility(call)
        if refusal is not None:
            # Refused before the tool ran, for the request rather than its arguments (a client
            # capability the audit does not declare): the answer says nothing about the tool.
            state.skipped[name] = refusal
            return True
        if call.outcome == "success":
            successes.check_error_as_success(call, state, subject)
        if plan.probe == "unknown-id":
            continue  # asks one thing only: is a failed lookup told as a failure
        if plan.probe == "baseline":
            baseline = call
            state.baseline_ok[name] = call.succeeded
        check_leaks(call, tool, state, subject)
        if call.succeeded:
            successes.check_success(call, tool, state, subject, baseline)
        elif call.outcome == "jsonrpc-error" and plan.probe != "baseline":
            state.add(
                "6.tool-errors",
                "major",
                subject,
                f"Bad arguments (`{plan.probe}`) come back as a JSON-RPC error, not isError.",
                call.evidence(),
                f"Return `isError: true` with a structured envelope from `{name}` for argument "
                "problems; keep JSON-RPC errors for protocol-level failures.",
            )
        elif call.outcome == "error-result":
            rejections.check_envelope(call, tool, state, subject)
        if plan.probe == "wrong-type" and not call.succeeded and call.field:
            envelope, _ = envelope_of(call)
            said = mentions_field(call.field, envelope, answer_text(call))
            state.observe(name, "wrong-type", "named" if said else "unnamed")
        if plan.together and not call.succeeded:
            rejections.check_exclusive(call, plan.together, tool, state, subject)
        if plan.probe == "listed-value":
            listed = call
        elif plan.probe == "typo-value":
            successes.check_typo(listed, call, tool, state, subject)
        elif plan.probe in KEY_PROBES:
            keys.append(call)
        if plan.probe == "baseline" and call.succeeded:
            _learn(state, name, call)
            if repeat:
                state.mutated.add(name)
                await _repeat(client, state, tool, plan, call, timeout)
            await _damaged_cursor(client, state, tool, plan, call, baseline, timeout)
    if keys:
        successes.check_keys(keys, tool, state, subject)
    return True


async def _bounded_by_transport(client: Client, call: ProbeCall, timeout: float) -> bool:
    """A key probe refused before the tool ran: a JSON-RPC error (drivable's stdio refuses a
    line over its frame) or an HTTP 413 the client raised, after which the server still answers."""
    if call.outcome == "jsonrpc-error":
        return True
    if call.outcome != "crash":
        return False
    try:
        with anyio.fail_after(timeout):
            await client.send_ping()
    except Exception:
        return False
    call.outcome = "error-result"  # refused, and the server is well: the bound held
    return True


def _learn(state: ProbeState, name: str, call: ProbeCall) -> None:
    """Ids in a listing's answer become arguments for the tools that take them."""
    sc = (call.result or {}).get("structuredContent")
    if sc is None:
        import json

        for text in text_blocks(call)[:1]:
            try:
                sc = json.loads(text)
            except ValueError:
                return
    state.know.learn(name, sc)


async def _repeat(
    client: Client,
    state: ProbeState,
    tool: dict[str, Any],
    plan: ProbePlan,
    first: ProbeCall,
    timeout: float,
) -> None:
    """The retry a model makes after a timeout: same call again (only with --allow-writes)."""
    name = str(tool.get("name"))
    again = await _send(client, state, name, plan.arguments, timeout)
    again.probe = "repeat-baseline"
    if again.outcome == "error-result" or not again.succeeded:
        state.observe(name, "repeat", "refused")
    elif _same(first, again) or _nothing_new(again):
        state.observe(name, "repeat", "same")
    else:
        state.observe(name, "repeat", "different")
        state.observed[name]["repeat_evidence"] = str(
            {"first": first.evidence(), "again": again.evidence()}
        )[:1500]


def _same(first: ProbeCall, again: ProbeCall) -> bool:
    a, b = first.result or {}, again.result or {}
    return text_blocks(first) == text_blocks(again) and a.get("structuredContent") == b.get(
        "structuredContent"
    )


EMPTY_ANSWERS = ("", "[]", "{}", "null")
ALREADY = re.compile(r"already (exists?|present|created|there)|no changes?|nothing (to|was)", re.I)


def _nothing_new(again: ProbeCall) -> bool:
    """A retry that reports nothing created (an empty list, 'already exists') did not duplicate."""
    sc = (again.result or {}).get("structuredContent")
    if isinstance(sc, (list, dict)) and not any(sc.values() if isinstance(sc, dict) else sc):
        return True
    texts = [t.strip() for t in text_blocks(again)]
    return all(t in EMPTY_ANSWERS for t in texts) or any(ALREADY.search(t) for t in texts)


async def _damaged_cursor(
    client: Client,
    state: ProbeState,
    tool: dict[str, Any],
    plan: ProbePlan,
    call: ProbeCall,
    baseline: ProbeCall | None,
    timeout: float,
) -> None:
    name = str(tool.get("name"))
    subject = f"tool:{name}"
    cursor = _next_cursor(call)
    cursor_field = next(
        (p for p, n in sch.properties(h.input_schema(tool)).items() if h.is_cursor_property(p, n)),
        None,
    )
    if not (cursor and cursor_field):
        return
    damaged = cursor[:-4] + ("AAAA" if not cursor.endswith("AAAA") else "BBBB")
    extra = await _send(client, state, name, {**plan.arguments, cursor_field: damaged}, timeout)
    extra.probe, extra.field = "damaged-cursor", cursor_field
    check_leaks(extra, tool, state, subject)
    if extra.outcome == "success" and not successes.check_error_as_success(extra, state, subject):
        successes.check_success(extra, tool, state, subject, baseline)
    elif extra.outcome == "error-result":
        rejections.check_envelope(extra, tool, state, subject)


def _next_cursor(call: ProbeCall) -> str | None:
    sc = (call.result or {}).get("structuredContent")
    if isinstance(sc, dict):
        for key in ("next_cursor", "nextCursor", "cursor"):
            if isinstance(sc.get(key), str) and len(sc[key]) >= 6:
                return str(sc[key])
    return None


async def _first_repair(client: Client, state: ProbeState, timeout: float) -> None:
    plan = state.first_repair
    if plan is None:
        return
    call = await _send(client, state, plan["tool"], plan["arguments"], timeout)
    call.probe = "first-repair"
    origin: ProbeCall = plan["from"]
    successes.check_error_as_success(call, state, f"tool:{plan['tool']}")
    plan["outcome"] = "success" if call.succeeded else call.outcome
    plan["evidence"] = {"rejected": origin.evidence(), "repair_call": call.evidence()}
    if not call.succeeded:
        state.add(
            "6.repair-callable",
            "major",
            f"tool:{origin.tool}",
            f"Following the first repair (`{plan['tool']}`) did not succeed ({plan['outcome']}).",
            plan["evidence"],
            f"Make the repair of `{origin.tool}` a call that succeeds as given.",
        )
