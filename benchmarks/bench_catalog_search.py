"""How well `find_tools` finds the tool a step needs, in a catalog of 100 tools (issue 40;
docs/decisions/0052-a-tool-shown-is-listed.md).

For every step of every bundled reference set's workflows, the query is the step as the user
asks it (`ask`), the catalog is the set's tools among other domains' (`drivable.eval.catalog`), and
the answer is where the step's tool ranks (`drivable.contract.catalog.search`). Reported per split,
so that a ranking change is tuned on `tune` and accepted on `holdout`, like any contract change:
recall at 1, 3 and 5 (the tool among the first k hits) and the mean reciprocal rank. No model,
no clock: the same tree gives the same numbers.

    python -m benchmarks.bench_catalog_search [--size N] [--misses]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SETS = ("billing", "bookings", "caselaw", "documents", "example", "tickets")


@dataclass(frozen=True)
class Found:
    """One step: its set, split, question, the tool it needs, and that tool's rank (0: missed)."""

    set: str
    split: str
    ask: str
    tool: str
    rank: int
    first: str


def ranks(size: int) -> list[Found]:
    from drivable.contract.catalog import search
    from drivable.eval.catalog import among
    from drivable.eval.surfaces import load
    from drivable.eval.workflow import bundled

    found = []
    for name in SETS:
        contract = among(load(name), size)
        for workflow in bundled(name):
            for step in workflow.steps:
                tool = step.done.tool_name
                if tool is None or tool not in contract.tools:
                    continue
                hits = [s.name for s in search(contract, step.ask, size)]
                rank = hits.index(tool) + 1 if tool in hits else 0
                first = hits[0] if hits else ""
                found.append(Found(name, str(workflow.split), step.ask, tool, rank, first))
    return found


def table(found: list[Found]) -> list[str]:
    rows = [f"{'split':8} {'steps':>5} {'@1':>6} {'@3':>6} {'@5':>6} {'MRR':>6}"]
    for split in ("tune", "holdout"):
        part = [f for f in found if f.split == split]
        if not part:
            continue

        def at(k: int, part: list[Found] = part) -> float:
            return sum(1 for f in part if 0 < f.rank <= k) / len(part)

        mrr = sum(1 / f.rank for f in part if f.rank) / len(part)
        rows.append(f"{split:8} {len(part):5} {at(1):6.2f} {at(3):6.2f} {at(5):6.2f} {mrr:6.3f}")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--misses", action="store_true", help="list the tune steps ranked past 5")
    args = parser.parse_args(argv)
    found = ranks(args.size)
    print(f"find_tools in a catalog of {args.size}: the step's tool among the hits for its ask")
    print("\n".join(table(found)))
    if args.misses:  # the tune split only: held-out questions are not read
        for f in found:
            if f.split == "tune" and not 0 < f.rank <= 5:
                print(f"{f.set:9} {f.tool:22} rank {f.rank or '-':>3} first {f.first:22} {f.ask}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
