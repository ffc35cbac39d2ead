"""Why a target did not answer: it could not be started or reached, died, said nothing a client
reads in time, or an HTTP server refused the first request (its status, WWW-Authenticate and
envelope). The eval says so instead of scoring a run that never started (exit 2)."""

from __future__ import annotations

import tempfile
from typing import IO, TYPE_CHECKING, Any

import anyio

from drivable.target import Target, connect

if TYPE_CHECKING:
    from drivable.eval.solver import EvalTarget


async def unanswered(target: EvalTarget, timeout: float) -> str | None:
    """Why the target never answered (it could not be started or reached, died, or said nothing
    a client reads within `timeout` seconds), with its stderr's last lines; None when it answered.
    An HTTP refusal (401 and its envelope) is an answer: the trials record it."""
    if target.target.kind == "in-process":
        return None
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as errlog:
        try:
            with anyio.fail_after(timeout):
                async with connect(
                    target.target, mode=target.mode, errlog=errlog, read_timeout_seconds=timeout
                ) as client:
                    await client.list_tools(cache_mode="bypass")
            return None
        except TimeoutError:
            why = f"no answer within {timeout:g} s"
        except Exception as error:
            if target.target.url is not None:
                refusal = await http_refusal(target.target)
                if refusal is not None and refusal.get("status"):
                    return None
            why = describe_error(error)
        return f"the target never answered ({why})" + stderr_tail(errlog)


def stderr_tail(errlog: IO[str], lines: int = 10) -> str:
    """The last lines a server wrote to its stderr, said as such (nothing when it wrote none)."""
    try:
        errlog.seek(0)
        tail = [line for line in errlog.read().splitlines() if line.strip()][-lines:]
    except (OSError, ValueError):
        return ""
    return ("\nserver stderr (last lines):\n  " + "\n  ".join(tail)) if tail else ""


def describe_error(error: BaseException) -> str:
    """The first real error inside (nested) exception groups, bounded."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error}"[:500]


async def http_refusal(target: Target) -> dict[str, Any] | None:
    """What an HTTP server answers a first request with: status, WWW-Authenticate, the envelope."""
    import httpx2

    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if target.bearer_token:
        headers["Authorization"] = f"Bearer {target.bearer_token}"
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "drivable-eval", "version": "0"},
        },
    }
    try:
        async with httpx2.AsyncClient(timeout=10.0) as http:
            response = await http.post(str(target.url), json=body, headers=headers)
    except Exception as error:
        return {"error": describe_error(error)}
    if response.status_code < 400:
        return None
    try:
        data = response.json()
    except ValueError:
        data = None
    return {
        "status": response.status_code,
        "www_authenticate": response.headers.get("www-authenticate"),
        "envelope": data if isinstance(data, dict) and "code" in data else None,
    }
