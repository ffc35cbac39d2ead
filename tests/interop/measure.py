"""How many rejections each real client receives whole, per transport and server.

    python -m tests.interop.measure [--json FILE] [--clients ts1 inspector ...]

Prints one line per client, transport and server (`whole/sent`), from real runs of the plans in
tests/interop/plans.py (the runs the tests judge, made the same way), and the first failure.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from tests.interop.interop import (
    ToolMissing,
    all_keys,
    drive_all,
    ensure_mcp1,
    ensure_node,
    open_place,
    problems,
    tally,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the table as JSON here")
    parser.add_argument("--clients", nargs="*", help="only these (default: all and inspector)")
    args = parser.parse_args()
    try:
        mcp1: Path | None = ensure_mcp1()
    except ToolMissing:
        mcp1 = None
    keys = [k for k in all_keys() if not args.clients or k[0] in args.clients]
    rows = []
    with tempfile.TemporaryDirectory() as tmp, open_place(Path(tmp), ensure_node(), mcp1) as place:
        for (client, transport, server), run in drive_all(place, keys).items():
            row: dict[str, Any] = {"client": client, "transport": transport, "server": server}
            if isinstance(run, Exception):
                row.update(whole=0, sent=0, first_failure=f"no run: {run!r}"[:200])
            else:
                whole, sent = tally(run)
                tools = run.out.get("tools", [])
                first = next(
                    (
                        f"{s.id}: {found[0]}"
                        for s in run.steps
                        if (found := problems(s, run.entry(s.id), tools))
                    ),
                    "",
                )
                row.update(whole=whole, sent=sent, first_failure=first[:200])
            rows.append(row)
            print(
                f"{client:9} {transport:5} {server:8} {row['whole']:2}/{row['sent']:<2} "
                f"{str(row['first_failure'])[:110]}"
            )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
