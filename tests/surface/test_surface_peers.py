"""Real third-party servers in two released versions, and `mcp-contract` on the same pairs.

Our diff must include every change mcp-contract 0.6.0 reports (same subject, same place), and catch
what it does not: a rename as one entry, bounds, defaults, formats, closed inputs, idempotency
regressions, error catalogs, lifecycle, resource templates, instructions, capabilities.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from drivable.surface import snapshot
from drivable.surface.diff import Change, diff
from tests.surface.surface_cases import specs
from tests.surface.surface_helpers import server_cmd, take
from tests.surface.surface_thirdparty import ensure

HINTS = {
    "read_only": "readOnlyHint",
    "destructive": "destructiveHint",
    "idempotent": "idempotentHint",
    "open_world": "openWorldHint",
}


@pytest.fixture(scope="module")
def thirdparty() -> dict[str, list[str]]:
    return ensure()


@pytest.fixture(scope="module")
def pairs(thirdparty: dict[str, list[str]]) -> Any:
    v1, v2 = specs()
    with tempfile.TemporaryDirectory() as tmp:
        p1, p2 = Path(tmp) / "v1.json", Path(tmp) / "v2.json"
        p1.write_text(json.dumps(v1))
        p2.write_text(json.dumps(v2))
        yield {
            "notes": (server_cmd("notes_server.py"), server_cmd("notes_server.py", "--v2")),
            "refunds": (server_cmd("refunds_server.py"), server_cmd("refunds_server.py", "--v2")),
            "cases": (
                server_cmd("spec_server.py", str(p1)),
                server_cmd("spec_server.py", str(p2)),
            ),
            "time": (thirdparty["time-0.6.2"], thirdparty["time-2026.10.19"]),
            "fetch": (thirdparty["fetch-0.6.2"], thirdparty["fetch-2026.10.24"]),
        }


@pytest.fixture(scope="module")
def results(pairs: Any, thirdparty: dict[str, list[str]]) -> dict[str, Any]:
    """For each pair: (mcp-contract's changes, our old snapshot, our new snapshot), run in parallel."""
    from concurrent.futures import ThreadPoolExecutor

    def one(name: str) -> tuple[str, Any]:
        old, new = pairs[name]
        theirs = mcp_contract(thirdparty["mcp-contract"], old, new)
        return name, (theirs, take(old), take(new))

    with ThreadPoolExecutor(max_workers=len(pairs)) as pool:
        return dict(pool.map(one, sorted(pairs)))


def mcp_contract(tool: list[str], old: Sequence[str], new: Sequence[str]) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        contract = str(Path(tmp) / "mcp-contract.json")
        subprocess.run(
            [*tool, "snapshot", "-f", contract, "--", *old],
            check=True,
            capture_output=True,
            timeout=120,
        )
        proc = subprocess.run(
            [*tool, "check", "--json", "-f", contract, "--", *new],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert proc.returncode in (0, 1), proc.stderr
    changes: list[dict[str, Any]] = json.loads(proc.stdout)["changes"]
    return changes


def _relative(path: str) -> str | None:
    for root in (".inputSchema.", ".outputSchema."):
        if root in path:
            return path.split(root, 1)[1]
    return None


def _matches(theirs: dict[str, Any], ours: Change) -> bool:
    """Whether one of our entries describes the same change at the same place."""
    tool, kind, arg = theirs["tool"], theirs["kind"], theirs["argument"]
    if tool == "(server)":
        return (
            ours.subject == "server"
            and kind == "server-version-changed"
            and ours.path == "server.version"
        )
    renamed_to = (
        ours.summary.split("renamed to `", 1)[1].split("`", 1)[0]
        if "renamed to `" in ours.summary
        else None
    )
    if kind in ("tool-added", "resource-added", "prompt-added") and renamed_to == tool:
        return True  # the added half of a rename we report once
    if kind.startswith("resource-"):
        return ours.subject == f"resource:{tool}"
    if kind.startswith("prompt-"):
        return ours.subject == f"prompt:{tool}" and (arg is None or f"arguments.{arg}" in ours.path)
    if ours.subject != f"tool:{tool}":
        return False
    if kind.startswith("behaviour-"):
        return ours.path.endswith(f"annotations.{HINTS[arg]}")
    if arg is None:
        if kind == "tool-description-changed":
            return ours.path == f"tools.{tool}.description"
        if kind == "tool-title-changed":
            return ours.path == f"tools.{tool}.title"
        return ours.path == f"tools.{tool}"
    rel = _relative(ours.path)
    if rel is None:
        return False
    if renamed_to is not None and kind.endswith("-added"):
        return bool(
            arg.rsplit(".", 1)[-1] == renamed_to and rel.rsplit(".", 1)[0] == arg.rsplit(".", 1)[0]
            if "." in arg
            else arg == renamed_to
        )
    return rel == arg or rel.startswith((f"{arg}.", f"{arg}|")) or arg.startswith(f"{rel}.")


def compare(
    theirs: list[dict[str, Any]], ours: list[Change]
) -> tuple[list[Any], list[Any], list[Change]]:
    """(their changes we miss, class disagreements, our changes they do not report)."""
    missed: list[Any] = []
    disagreements: list[Any] = []
    used: set[int] = set()
    for t in theirs:
        hits = [i for i, c in enumerate(ours) if _matches(t, c)]
        if not hits:
            missed.append(t)
            continue
        used.update(hits)
        if not any(ours[i].klass == t["severity"] for i in hits):
            disagreements.append(
                (t["tool"], t["kind"], t["argument"], t["severity"], ours[hits[0]].klass)
            )
    extra = [c for i, c in enumerate(ours) if i not in used]
    return missed, disagreements, extra


# Where we classify differently, on purpose:
JUSTIFIED = {
    # the added half of a rename: we report the rename once, as breaking
    ("get_refund", "output-field-added", "refundId", "additive", "breaking"),
    ("refund_invoice", "output-field-added", "refundId", "additive", "breaking"),
    ("list_refunds", "output-field-added", "items[].refundId", "additive", "breaking"),
    ("out_renamed", "output-field-added", "order.orderId", "additive", "breaking"),
    ("lookupOrder", "tool-added", None, "additive", "breaking"),
    ("cases://guide", "resource-added", None, "additive", "breaking"),
    ("summarizeTicket", "prompt-added", None, "additive", "breaking"),
    ("in_renamed", "argument-added", "refundId", "additive", "breaking"),
    # a value an output no longer returns: an agent that waits for it or branches on it (polls until
    # `void`) now misbehaves; the issue counts every enum value removed as breaking
    ("out_enum_narrowed", "output-enum-value-removed", "state", "additive", "breaking"),
    # string -> integer is a retyping, not a narrowing: a reader expecting a string breaks
    ("out_retyped", "output-type-narrowed", "total", "additive", "breaking"),
}


@pytest.mark.parametrize("pair", ["notes", "refunds", "cases", "time", "fetch"])
def test_we_include_every_change_mcp_contract_reports(pair: str, results: dict[str, Any]) -> None:
    theirs, old, new = results[pair]
    ours = diff(old, new)
    missed, disagreements, _ = compare(theirs, ours)
    assert missed == []
    assert set(disagreements) <= JUSTIFIED, set(disagreements) - JUSTIFIED


def test_we_catch_what_mcp_contract_does_not(results: dict[str, Any]) -> None:
    theirs, old, new = results["cases"]
    ours = diff(old, new)
    _, _, extra = compare(theirs, ours)
    only_ours = {(c.subject, c.klass) for c in extra}
    for subject in (
        "tool:bound_tightened",
        "tool:length_tightened",
        "tool:closed_input",
        "tool:default_changed",
        "tool:format_removed",
        "tool:idem_lost",
        "tool:tool_codes",
    ):
        assert (subject, "breaking") in only_ours, subject
    assert ("tool:deprecated", "routing") in only_ours
    assert ("resource:cases://orders/{id}", "breaking") in only_ours
    assert ("server", "breaking") in only_ours  # an error code removed from the catalog
    # a rename is one entry, where mcp-contract says "removed" and "added"
    assert next(c.summary for c in ours if c.subject == "tool:lookup_order").startswith(
        "tool renamed to `lookupOrder`"
    )
    assert not [c for c in ours if c.subject == "tool:lookupOrder"]
    assert [t["kind"] for t in theirs if t["tool"] in ("lookup_order", "lookupOrder")] == [
        "tool-removed",
        "tool-added",
    ]


def test_refunds_output_rename_is_one_entry_per_tool(results: dict[str, Any]) -> None:
    _, old, new = results["refunds"]
    changes = diff(old, new)
    renames = sorted((c.subject, c.path) for c in changes if "renamed to `refundId`" in c.summary)
    assert renames == [
        ("tool:get_refund", "tools.get_refund.outputSchema.refund_id"),
        ("tool:list_refunds", "tools.list_refunds.outputSchema.items[].refund_id"),
        ("tool:refund_invoice", "tools.refund_invoice.outputSchema.refund_id"),
    ]
    assert all(c.klass == "breaking" for c in changes if "renamed" in c.summary)
    breaking = {(c.subject, c.path.rsplit(".", 1)[-1]) for c in changes if c.klass == "breaking"}
    assert ("tool:refund_invoice", "enum") in breaking
    assert ("tool:get_refund", "readOnlyHint") in breaking
    assert ("tool:void_invoice", "destructiveHint") in breaking
    assert ("tool:list_refunds", "maximum") in breaking
    assert ("tool:refund_invoice", "REFUND_EXCEEDS_BALANCE") in breaking
    assert ("tool:refund_invoice", "UPSTREAM_TIMEOUT") in breaking


def test_time_server_releases(results: dict[str, Any]) -> None:
    _, old, new = results["time"]
    changes = diff(old, new)
    by_class = {k: [c for c in changes if c.klass == k] for k in ("breaking", "routing")}
    assert by_class["breaking"] == []
    assert {c.path for c in by_class["routing"]} == {
        "tools.get_current_time.description",
        "tools.get_current_time.inputSchema.timezone.description",
        "tools.convert_time.inputSchema.source_timezone.description",
        "tools.convert_time.inputSchema.target_timezone.description",
    }
    safer = {c.path for c in changes if c.klass == "additive" and "safer" in c.summary}
    assert "tools.get_current_time.annotations.readOnlyHint" in safer
    added = {c.path for c in changes if "output field" in c.summary}
    assert "tools.convert_time.outputSchema.source" in added
    assert old["fingerprint"]["value"].startswith("mcp-time@1.30.0+")
    assert new["fingerprint"]["value"].startswith("mcp-time@2026.10.19+")


def test_fetch_server_releases_restated_bounds_are_cosmetic(results: dict[str, Any]) -> None:
    _, old, new = results["fetch"]
    changes = diff(old, new)
    assert [c for c in changes if c.klass == "breaking"] == []
    bounds = [c for c in changes if c.path.startswith("tools.fetch.inputSchema.max_length")]
    # exclusiveMaximum 1000000 became maximum 999999 on an integer: the same bound, restated
    assert {(c.klass, c.path) for c in bounds} == {
        ("cosmetic", "tools.fetch.inputSchema.max_length.maximum"),
        ("cosmetic", "tools.fetch.inputSchema.max_length.minimum"),
    }
    assert ("routing", "tools.fetch.inputSchema.raw.description") in {
        (c.klass, c.path) for c in changes
    }


def test_third_party_snapshot_is_byte_stable(thirdparty: dict[str, list[str]]) -> None:
    cmd = thirdparty["time-2026.10.19"]
    first = snapshot.dumps(take(cmd))
    assert first == snapshot.dumps(take(cmd))
    assert first == snapshot.dumps(take(cmd, mode="legacy"))
