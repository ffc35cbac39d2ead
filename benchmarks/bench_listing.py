"""What tools/list costs, per bundled server: the drivable server against its naive twin, in bytes and
o200k tokens, in the same run (issue 40; docs/decisions/0033-a-compact-baseline.md).

- whole: the compact JSON of the listed tools, as the SDK's client receives them;
- shown: the compact JSON of each tool's name, description and inputSchema (what a chat template
  renders for a model).

Four listings of the same tools: the drivable server as served (the runtime's additions in
`drivable.contract.additions.SHOWN`), the same with every addition (what server/discover's detail
says) and with none (the author's text and schema alone), and the naive twin on the SDK's
MCPServer. Targets, drivable / naive: shown <= 1.2x, whole <= 2x; the exit status is 1 when one
is missed. `--per-tool` adds o200k tokens per tool, with the twin's functions on standalone
FastMCP beside (`FASTMCP_PYTHON`, default `var/thirdparty/py-fastmcp/bin/python`).

A large catalog (a set's tools among other domains', `--catalog N` in all,
`drivable.eval.catalog`) lists its entry tools (`drivable.contract.catalog`): the last table
weighs that listing against the whole catalog's, same run.

    python -m benchmarks.bench_listing [--per-tool] [--catalog N]
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SHOWN_TARGET = 1.2
WHOLE_TARGET = 2.0


@dataclass(frozen=True)
class Weight:
    """Bytes and o200k tokens of one listing, whole and as shown to a model."""

    whole_bytes: int
    whole_tokens: int
    shown_bytes: int
    shown_tokens: int


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def shown(tool: dict[str, Any]) -> dict[str, Any]:
    """What a chat template renders: name, description, input schema."""
    return {k: tool[k] for k in ("name", "description", "inputSchema") if k in tool}


def weigh(tools: list[dict[str, Any]]) -> Weight:
    from drivable.eval.tokens import count_text

    whole, seen = compact(tools), compact([shown(t) for t in tools])
    return Weight(len(whole.encode()), count_text(whole), len(seen.encode()), count_text(seen))


async def _served(server: Any, meta: Any = None) -> list[dict[str, Any]]:
    from drivable.target import Target, connect, wire

    async with connect(Target(server=server, mode="legacy"), mode="legacy") as client:
        return [wire(t) for t in (await client.list_tools(meta=meta)).tools]


def catalog_rows(names: list[str], size: int) -> list[str]:
    """Each set's tools among other domains', `size` in all: the entry listing a client gets
    against the whole catalog's (bytes, o200k tokens)."""
    from drivable.eval.catalog import among
    from drivable.eval.surfaces import load
    from drivable.serve.mount import build_server
    from drivable.target import WHOLE_CATALOG

    rows = [
        f"a catalog of {size} tools: the entry listing against the whole (bytes, o200k tokens)",
        f"{'set':10} {'listing':8} {'tools':>5} {'whole B':>8} {'tok':>6} {'shown B':>8} "
        f"{'tok':>6} {'shown x B/tok':>14}",
    ]
    for name in names:
        server = build_server(among(load(name), size))
        entry = anyio.run(_served, server)
        whole = anyio.run(_served, server, WHOLE_CATALOG)
        base = weigh(whole)
        for label, tools in (("entry", entry), ("whole", whole)):
            w = weigh(tools)
            ratio = (
                f"{w.shown_bytes / base.shown_bytes:.3f}/{w.shown_tokens / base.shown_tokens:.3f}x"
            )
            rows.append(
                f"{name:10} {label:8} {len(tools):5} {w.whole_bytes:8} {w.whole_tokens:6} "
                f"{w.shown_bytes:8} {w.shown_tokens:6} {ratio:>14}"
            )
    return rows


def listings(name: str) -> dict[str, list[dict[str, Any]]]:
    """The four listings of bundled set `name`, each as a client receives it."""
    from mcp import types

    from drivable.contract.additions import EVERY
    from drivable.eval.surfaces import load
    from drivable.eval.workflow import workflow_set
    from drivable.serve.mount import build_server
    from drivable.target import wire

    contract = load(name)

    def variant(shown_set: frozenset[str]) -> list[dict[str, Any]]:
        return [
            wire(types.Tool.model_validate(contract.tool_wire(spec, shown_set)))
            for spec in contract.listed_tools()
        ]

    served = anyio.run(_served, build_server(contract))
    twin = importlib.import_module(str(workflow_set(name).twin_module)).server
    return {
        "drivable": served,
        "every addition": variant(EVERY),
        "author only": variant(frozenset()),
        "naive twin": anyio.run(_served, twin),
    }


def server_rows(names: list[str]) -> tuple[list[str], bool]:
    """The per-server table, and whether every server meets both targets."""
    rows = [
        "tools/list per bundled server, compact JSON: whole = every listed field, shown = name, "
        "description, inputSchema; x = / naive twin (bytes, o200k tokens)",
        f"{'server':10} {'listing':15} {'whole B':>8} {'tok':>6} {'shown B':>8} {'tok':>6} "
        f"{'whole x B/tok':>14} {'shown x B/tok':>14}",
    ]
    met = True
    for name in names:
        weights = {label: weigh(tools) for label, tools in listings(name).items()}
        naive = weights["naive twin"]
        for label, w in weights.items():
            ratios = (
                f"{w.whole_bytes / naive.whole_bytes:6.2f}/{w.whole_tokens / naive.whole_tokens:.2f}x",
                f"{w.shown_bytes / naive.shown_bytes:6.2f}/{w.shown_tokens / naive.shown_tokens:.2f}x",
            )
            rows.append(
                f"{name:10} {label:15} {w.whole_bytes:8} {w.whole_tokens:6} {w.shown_bytes:8} "
                f"{w.shown_tokens:6} {ratios[0]:>14} {ratios[1]:>14}"
            )
        served = weights["drivable"]
        met = (
            met
            and max(
                served.shown_bytes / naive.shown_bytes, served.shown_tokens / naive.shown_tokens
            )
            <= SHOWN_TARGET
        )
        met = (
            met
            and max(
                served.whole_bytes / naive.whole_bytes, served.whole_tokens / naive.whole_tokens
            )
            <= WHOLE_TARGET
        )
    rows.append(
        f"targets, drivable / naive twin: shown <= {SHOWN_TARGET}x, whole <= {WHOLE_TARGET}x: "
        + ("met" if met else "MISSED")
    )
    return rows, met


def tool_rows(names: list[str]) -> list[str]:
    """o200k tokens per tool: whole / shown, drivable, naive twin, the twin on FastMCP."""
    from drivable.eval.tokens import count_text
    from drivable.eval.workflow import workflow_set

    python = os.environ.get("FASTMCP_PYTHON", str(ROOT / "var/thirdparty/py-fastmcp/bin/python"))
    rows = [
        "tools/list o200k tokens per tool, compact JSON: whole / shown",
        f"{'set':9} {'tool':20} {'drivable':>8} {'shown':>6} {'naive':>6} {'shown':>6} "
        f"{'fastmcp':>8} {'shown':>6} {'shown x':>8}",
    ]
    if not os.path.exists(python):
        rows.append(f"(no FastMCP at {python}: set FASTMCP_PYTHON; its columns are 0)")
    for name in names:
        found = listings(name)
        drivable = {t["name"]: t for t in found["drivable"]}
        naive = {t["name"]: t for t in found["naive twin"]}
        fast = {t["name"]: t for t in _fastmcp_listing(python, str(workflow_set(name).twin_module))}
        totals = [0] * 6
        for tool, d in drivable.items():
            cells = [0] * 6
            for i, listed in enumerate((d, naive.get(tool), fast.get(tool))):
                if listed:
                    cells[2 * i] = count_text(compact(listed))
                    cells[2 * i + 1] = count_text(compact(shown(listed)))
            totals = [a + b for a, b in zip(totals, cells, strict=True)]
            rows.append(_tool_row(name, tool, cells))
        rows.append(_tool_row(name, "(all)", totals))
    return rows


def _tool_row(name: str, tool: str, cells: list[int]) -> str:
    ratio = f"{cells[1] / cells[3]:.1f}x" if cells[3] else "-"
    return (
        f"{name:9} {tool:20} {cells[0]:8} {cells[1]:6} {cells[2]:6} {cells[3]:6} "
        f"{cells[4]:8} {cells[5]:6} {ratio:>8}"
    )


def _fastmcp_listing(python: str, module: str) -> list[dict[str, Any]]:
    """The twin's functions on standalone FastMCP, listed in FastMCP's own environment."""
    if not os.path.exists(python):
        return []
    out = subprocess.run(
        [
            python,
            str(ROOT / "benchmarks" / "fastmcp_listing.py"),
            module,
            sysconfig.get_paths()["purelib"],
        ],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    listed: list[dict[str, Any]] = json.loads(out.stdout)
    return listed


def bundled_with_twins() -> list[str]:
    from drivable.eval.workflow import bundled_sets, workflow_set

    for extra in (ROOT / "tests" / "contract", ROOT / "tests" / "eval"):
        if str(extra) not in sys.path:
            sys.path.insert(0, str(extra))
    # each side lists from a scratch store of its own (billing opens its ledger to list)
    os.environ.setdefault(
        "DRIVABLE_BILLING_STORE", f"sqlite:///{tempfile.mkdtemp()}/bench-billing.sqlite"
    )
    # a set served by its command line (a wrapped third-party server) has no twin module
    return [name for name in bundled_sets() if workflow_set(name).twin_module]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-tool", action="store_true", help="also tokens per tool")
    parser.add_argument("--catalog", type=int, default=100, help="tools of the large catalog")
    args = parser.parse_args(argv if argv is not None else [])
    logging.getLogger("drivable").setLevel(logging.CRITICAL)
    logging.getLogger("mcp").setLevel(logging.CRITICAL)
    names = bundled_with_twins()
    rows, met = server_rows(names)
    print("\n".join(rows))
    if args.per_tool:
        print("\n".join(tool_rows(names)))
    print("\n".join(catalog_rows(["caselaw", "billing"], args.catalog)))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
