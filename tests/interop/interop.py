"""Run a plan through a real MCP client and judge whether each rejection reached the caller whole.

Clients (each a real SDK, never a stand-in):

- `ts1`: the TypeScript SDK 1.x (`@modelcontextprotocol/sdk`), handshake era;
- `ts2`, `ts2-2026`: the TypeScript SDK 2.x client (`@modelcontextprotocol/client`), handshake era
  and pinned to 2026-07-28;
- `py1`: the Python SDK 1.x (`mcp<2`) in a venv of its own under var/thirdparty, handshake era;
- `py2`, `py2-2026`: the Python SDK 2.x this project runs on, handshake era and modern era;
- `inspector`: the MCP Inspector CLI (`mcp-inspector --cli`), one process per call.

Node 22 and the npm packages come from `scripts/ensure-node.sh` (var/node).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drivable.contract.envelope import ENVELOPE_META_KEY, envelope_of
from drivable.target import Mode, Target, connect, wire
from tests.install_lock import install_lock
from tests.interop.clients.refs import payload_of, resolve
from tests.interop.plans import PLANS, Step
from tests.interop.serving import serve_http
from tests.venvs import VenvFailed, build_venv

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
ENSURE_NODE = ROOT / "scripts" / "ensure-node.sh"
THIRDPARTY = Path(os.environ.get("DRIVABLE_THIRDPARTY_CACHE", ROOT / "var" / "thirdparty"))
MCP1 = "mcp==1.30.0"

# client name -> (driver, era); the era is "legacy" (the initialize handshake) or a revision.
CLIENTS: dict[str, tuple[str, str]] = {
    "ts1": ("ts1", "legacy"),
    "ts2": ("ts2", "legacy"),
    "ts2-2026": ("ts2", "2026-07-28"),
    "py1": ("py1", "legacy"),
    "py2": ("py2", "legacy"),
    "py2-2026": ("py2", "2026-07-28"),
}
TRANSPORTS = ("stdio", "http")
SERVERS = ("caselaw", "billing")


class ToolMissing(RuntimeError):
    """Node, an npm package or the Python SDK 1.x could not be installed."""


def ensure_node() -> Path:
    """The bin dir holding node 22, `conformance` and `mcp-inspector` (installed on first use)."""
    given = os.environ.get("DRIVABLE_NODE_BIN")
    if given:
        return Path(given)
    proc = subprocess.run(
        ["bash", str(ENSURE_NODE)], capture_output=True, text=True, timeout=1200, check=False
    )
    if proc.returncode != 0 or not proc.stdout.strip():
        raise ToolMissing(f"{ENSURE_NODE.name} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    found = Path(proc.stdout.strip().splitlines()[-1])
    os.environ["DRIVABLE_NODE_BIN"] = str(found)  # later sessions of this process
    return found


def ensure_mcp1() -> Path:
    """The interpreter of a venv holding the Python SDK 1.x, installed on first use."""
    venv = THIRDPARTY / "py-mcp1"
    stamp = venv / ".installed"
    python = venv / "bin" / "python"
    with install_lock(venv):
        if stamp.exists() and stamp.read_text().strip() == MCP1:
            return python
        try:
            build_venv(venv, [MCP1])
        except VenvFailed as error:
            raise ToolMissing(str(error)) from error
        stamp.write_text(MCP1 + "\n")
    return python


@dataclass(frozen=True)
class Place:
    """Where the reference servers are for one session: their data, and their HTTP endpoints."""

    stdio_env: Mapping[str, Mapping[str, str]]  # per server: its database, its store
    urls: Mapping[str, str]
    node_bin: Path
    scratch: Path
    mcp1_python: Path | None = None

    def stdio_command(self, server: str) -> list[str]:
        return [sys.executable, "-m", f"drivable.servers.{server}"]


def stdio_env(data: Path, store: str) -> dict[str, dict[str, str]]:
    return {
        "caselaw": {"DRIVABLE_CASELAW_DB": str(data / "caselaw.sqlite")},  # read-only: shared
        "billing": {"DRIVABLE_STORE": f"sqlite:///{data / store}"},
    }


def prepare_data(env: Mapping[str, Mapping[str, str]]) -> None:
    """Build the caselaw database and seed the billing store before any server process opens
    them, so servers started side by side never race to create the same file."""
    import anyio

    from drivable.servers.billing.ledger import Ledger
    from drivable.servers.caselaw.store import Store

    Store.open(Path(env["caselaw"]["DRIVABLE_CASELAW_DB"])).count()
    ledger = Ledger(env["billing"]["DRIVABLE_STORE"])
    ledger.prepare_blocking()
    anyio.run(ledger.close)


@contextmanager
def open_place(root: Path, node_bin: Path, mcp1_python: Path | None) -> Iterator[Place]:
    """Both reference servers on HTTP (`drivable serve NAME --http`), data under `root`."""
    with ExitStack() as stack:
        prepare_data(stdio_env(root, "billing-stdio.sqlite"))
        http_env = stdio_env(root, "billing-http.sqlite")
        urls = {
            name: stack.enter_context(
                serve_http(name, root / f"{name}-http.log", env=http_env[name])
            )
            for name in SERVERS
        }
        yield Place(
            stdio_env=stdio_env(root, "billing-stdio.sqlite"),
            urls=urls,
            node_bin=node_bin,
            scratch=root,
            mcp1_python=mcp1_python,
        )


@dataclass
class Run:
    """What one client received for one plan: the driver's JSON output."""

    client: str
    transport: str
    server: str
    out: dict[str, Any]
    steps: list[Step] = field(default_factory=list)

    def entry(self, step_id: str) -> dict[str, Any]:
        return next(e for e in self.out["steps"] if e["id"] == step_id)


def _plan_json(
    place: Place, server: str, transport: str, era: str, steps: Sequence[Step]
) -> dict[str, Any]:
    if transport == "stdio":
        command = place.stdio_command(server)
        spec: dict[str, Any] = {
            "kind": "stdio",
            "command": command[0],
            "args": command[1:],
            "env": dict(place.stdio_env[server]),
        }
    else:
        spec = {"kind": "http", "url": place.urls[server]}
    return {
        "nodeModules": str(place.node_bin.parent),
        "era": era,
        "transport": spec,
        "steps": [s.wire() for s in steps],
    }


def _subprocess_json(command: list[str], plan: dict[str, Any], scratch: Path) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile(
        "w", suffix=".json", dir=scratch, delete=False, encoding="utf-8"
    ) as handle:
        json.dump(plan, handle)
    proc = subprocess.run(
        [*command, handle.name],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    if proc.returncode != 0 or not proc.stdout.strip():
        raise RuntimeError(f"{command[-1]} failed ({proc.returncode}): {proc.stderr[-3000:]}")
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


async def _drive_py2(
    place: Place, server: str, transport: str, era: str, steps: Sequence[Step]
) -> dict[str, Any]:
    if transport == "stdio":
        target = Target(command=tuple(place.stdio_command(server)), env=place.stdio_env[server])
    else:
        target = Target(url=place.urls[server])
    mode: Mode = "legacy" if era == "legacy" else "auto"
    out: dict[str, Any] = {"sdk": "py2", "era": era, "transport": transport, "steps": []}
    with open(os.devnull, "w") as errlog:
        async with connect(target, mode=mode, errlog=errlog, read_timeout_seconds=60) as client:
            out["protocolVersion"] = client.protocol_version
            out["connect"] = {"ok": True}
            out["tools"] = [t.name for t in (await client.list_tools()).tools]
            payloads: dict[str, Any] = {}
            for step in steps:
                entry: dict[str, Any] = {"id": step.id, "tool": step.tool, "threw": False}
                entry["error"] = entry["result"] = None
                try:
                    arguments = resolve(step.arguments, payloads)
                except (KeyError, IndexError, StopIteration) as error:
                    entry["unresolved"] = repr(error)
                    out["steps"].append(entry)
                    continue
                try:
                    result = await client.call_tool(step.tool, arguments)
                    entry["result"] = wire(result)
                    payloads[step.id] = payload_of(entry["result"])
                except Exception as error:  # what the client raised is the measurement
                    entry["threw"] = True
                    entry["error"] = {"name": type(error).__name__, "message": str(error)}
                out["steps"].append(entry)
    return out


async def drive(
    place: Place, client: str, transport: str, server: str, steps: Sequence[Step]
) -> Run:
    driver, era = CLIENTS[client]
    if driver == "py2":
        out = await _drive_py2(place, server, transport, era, steps)
    else:
        plan = _plan_json(place, server, transport, era, steps)
        if driver == "py1":
            if place.mcp1_python is None:
                raise ToolMissing("the Python SDK 1.x venv is not installed")
            command = [str(place.mcp1_python), str(HERE / "clients" / "drive_mcp1.py")]
        else:
            node = str(place.node_bin / "node")
            command = [node, str(HERE / "clients" / "drive.mjs"), driver]
        out = _subprocess_json(command, plan, place.scratch)
    return Run(client, transport, server, out, list(steps))


# The Inspector starts one process per call (a stdio server each time), so it gets the rejections
# whose arguments its key=value flags carry as strings, not the whole plan. It never sends a call
# of a tool tools/list did not list (it exits 5, `tool_not_found`), so unknown_tool is not among them.
INSPECTED = {
    "caselaw": ("ambiguous_date", "placeholder_id", "not_found"),
    "billing": ("ambiguous_date", "placeholder_id", "not_found"),
}


def inspector_call(place: Place, transport: str, server: str, step: Step | None) -> dict[str, Any]:
    """One `mcp-inspector --cli` call (tools/call of `step`, or tools/list without one): what it
    printed and how it exited."""
    # A stdio server on a loaded machine can take longer than the Inspector's 15 s default.
    command = [str(place.node_bin / "mcp-inspector"), "--cli", "--connect-timeout", "90000"]
    if transport == "http":
        command += [place.urls[server]]  # first: --tool-arg takes every word after it
    for key, value in place.stdio_env[server].items() if transport == "stdio" else ():
        command += ["-e", f"{key}={value}"]
    if step is None:
        command += ["--method", "tools/list"]
    else:
        command += ["--method", "tools/call", "--tool-name", step.tool]
        for key, value in step.arguments.items():
            command += ["--tool-arg", f"{key}={value}"]
    if transport == "stdio":
        command += ["--", *place.stdio_command(server)]
    home = place.scratch / "inspector-home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(home), "PATH": f"{place.node_bin}:{os.environ['PATH']}"}
    proc = subprocess.run(
        command, capture_output=True, text=True, timeout=120, check=False, env=env, cwd=ROOT
    )
    printed: Any
    try:
        printed = json.loads(proc.stdout)
    except ValueError:
        printed = None
    shown = (proc.stdout + proc.stderr)[-4000:]
    # An isError result is printed whole on stdout and reported by exit status 5 with
    # `tool_is_error` on stderr; any other failure status means the Inspector gave up on the call.
    returned = isinstance(printed, dict) and (
        proc.returncode == 0 or (proc.returncode == 5 and "tool_is_error" in proc.stderr)
    )
    return {"code": proc.returncode, "printed": printed, "returned": returned, "stdout": shown}


def model_view(result: Mapping[str, Any]) -> Any:
    """What a model is shown: the first text block, parsed (None when it is not JSON)."""
    try:
        text = result["content"][0]["text"]
        return json.loads(text)
    except (KeyError, IndexError, TypeError, ValueError):
        return None


def problems(step: Step, entry: Mapping[str, Any], tools: Sequence[str]) -> list[str]:
    """Why this step's result did not reach the caller whole (empty: it did)."""
    if entry.get("unresolved"):
        return [f"the plan did not resolve: {entry['unresolved']}"]
    if entry["threw"]:
        return [f"the client threw instead of returning the result: {entry['error']['message']}"]
    result = entry["result"]
    if not step.rejection:
        return [] if not result.get("isError") else [f"expected success, got {model_view(result)}"]
    found: list[str] = []
    if result.get("isError") is not True:
        found.append("isError is not true")
    if "structuredContent" in result:
        found.append("an error result carries structuredContent (clients validate it)")
    seen = model_view(result)
    if not isinstance(seen, dict):
        return [*found, "the text block is not the envelope's JSON"]
    meta = result.get("_meta") or {}
    if meta.get(ENVELOPE_META_KEY) != seen:
        found.append(f"_meta[{ENVELOPE_META_KEY!r}] is not the envelope the text shows")
    if envelope_of(result) != seen:
        found.append("envelope_of reads another envelope than the text shows")
    if seen.get("code") != step.expect:
        found.append(f"code {seen.get('code')!r}, expected {step.expect!r}")
    if not isinstance(seen.get("message"), str) or not seen["message"]:
        found.append("no message")
    hint = seen.get("hint")
    if not isinstance(hint, str) or not hint:
        found.append("no hint")
    elif step.names_tool and not any(tool in hint for tool in tools):
        found.append(f"the hint names no tool of the server: {hint!r}")
    issues = seen.get("issues")
    if not isinstance(issues, list):
        found.append("no issues list")
    elif step.issues and not issues:
        found.append("issues is empty")
    elif step.readings and not any(i.get("readings") for i in issues):
        found.append("no issue carries readings")
    if step.repair:
        repair = seen.get("repair")
        if not isinstance(repair, dict):
            found.append("no repair")
        elif repair.get("tool") not in tools or not isinstance(repair.get("arguments"), dict):
            found.append(f"the repair is not a call of a real tool: {repair!r}")
    return found


def inspector_tally(place: Place, transport: str, server: str, steps: Sequence[Step]) -> Run:
    """The Inspector's answers to the INSPECTED steps, as a run the judge reads like the others."""
    listed = inspector_call(place, transport, server, None)
    ok = listed["code"] == 0 and isinstance(listed["printed"], dict)
    out: dict[str, Any] = {"sdk": "inspector", "transport": transport, "steps": []}
    out["connect"] = {"ok": ok, "error": None if ok else listed["stdout"][-500:]}
    out["tools"] = [t["name"] for t in listed["printed"].get("tools", [])] if ok else []
    chosen = [s for s in steps if s.id in INSPECTED[server]]
    for step in chosen:
        shown = inspector_call(place, transport, server, step)
        entry: dict[str, Any] = {"id": step.id, "tool": step.tool, "threw": False, "error": None}
        if not shown["returned"]:
            entry["threw"] = True
            entry["error"] = {"message": f"exit {shown['code']}: {shown['stdout'][-300:]}"}
        entry["result"] = shown["printed"]
        out["steps"].append(entry)
    return Run("inspector", transport, server, out, chosen)


Key = tuple[str, str, str]  # (client, transport, server); client "inspector" included


def drive_all(place: Place, keys: Sequence[Key], workers: int = 4) -> dict[Key, Run | Exception]:
    """Every run side by side (each is mostly a client process waiting on a server process);
    a run that could not be made is kept as its exception, for the test that asks for it."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    def one(key: Key) -> Run | Exception:
        client, transport, server = key
        steps = PLANS[server](f"{client}-{transport}-{uuid.uuid4().hex[:8]}")
        try:
            if client == "inspector":
                return inspector_tally(place, transport, server, steps)
            return asyncio.run(drive(place, client, transport, server, steps))
        except Exception as error:  # reported by the test of this key
            return error

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return dict(zip(keys, pool.map(one, keys), strict=True))


def all_keys() -> list[Key]:
    clients = [*sorted(CLIENTS), "inspector"]
    return [(c, t, s) for c in clients for t in TRANSPORTS for s in SERVERS]


def tally(run: Run) -> tuple[int, int]:
    """(rejections received whole, rejections sent) for one run."""
    tools = run.out.get("tools", [])
    rejections = [s for s in run.steps if s.rejection]
    if not run.out.get("connect", {}).get("ok"):
        return 0, len(rejections)
    whole = sum(1 for s in rejections if not problems(s, run.entry(s.id), tools))
    return whole, len(rejections)
