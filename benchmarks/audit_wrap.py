"""The auditor on each server unwrapped and behind `drivable wrap`, in one run: critical and major
findings, and the findings only the wrapped server has (what the wrap added).

    python -m benchmarks.audit_wrap            # the third-party servers and the audit corpus

The third-party servers are the suite's pinned installs (tests/audit/audit_thirdparty.py); the
corpus is tests/audit/servers. Each audit runs with its defaults (no --allow-writes).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DRIVABLE = (sys.executable, "-c", "from drivable.cli import main; main()")


def servers(scratch: Path) -> dict[str, list[str]]:
    sys.path.insert(0, str(ROOT))
    from tests.audit.audit_thirdparty import (
        npm_server_command,
        python_server,
        python_server_command,
    )

    files = scratch / "files"
    files.mkdir(exist_ok=True)
    (files / "a.txt").write_text("alpha\n", encoding="utf-8")
    corpus = ROOT / "tests" / "audit" / "servers"
    # the git set's repository (five commits, a branch, a staged and an unstaged change)
    make_repo = ROOT / "src" / "drivable" / "eval" / "workflows" / "git" / "make_repo.sh"
    subprocess.run(["sh", str(make_repo)], cwd=scratch, check=True, capture_output=True)
    found = {
        "npm memory": npm_server_command("memory"),
        "npm filesystem": [*npm_server_command("filesystem"), str(files)],
        "npm everything": npm_server_command("everything"),
        "pypi git": [*python_server_command("git"), "--repository", str(scratch / "shop")],
        "pypi time": python_server_command("time"),
        "fastmcp notes": [
            str(python_server("fastmcp") / "bin" / "python"),
            str(corpus / "fastmcp_notes.py"),
        ],
    }
    for name in ("defects", "blindspots", "clean"):
        found[f"corpus {name}"] = [sys.executable, str(corpus / f"{name}.py")]
    return found


def audit(command: list[str]) -> list[dict[str, Any]]:
    run = subprocess.run(
        [*DRIVABLE, "audit", "--format", "json", "--timeout", "10", "--", *command],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    if run.returncode not in (0, 1):
        raise SystemExit(f"the audit of {command} could not run: {run.stderr[-800:]}")
    findings: list[dict[str, Any]] = json.loads(run.stdout)["findings"]
    return findings


def serious(findings: list[dict[str, Any]]) -> Counter[tuple[str, str]]:
    return Counter(
        (f["rule"], f["subject"]) for f in findings if f["severity"] in ("critical", "major")
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        store = f"sqlite:///{Path(scratch) / 'effects.sqlite'}"
        rows = []
        print("| server | critical+major unwrapped | wrapped | rules only the wrapped has | left |")
        print("| --- | --- | --- | --- | --- |", flush=True)
        for name, command in servers(Path(scratch)).items():
            raw = serious(audit(command))
            wrapped = serious(audit([*DRIVABLE, "wrap", "--store", store, "--", *command]))
            added = sorted({rule for rule, _ in wrapped} - {rule for rule, _ in raw})
            rows.append((name, sum(raw.values()), sum(wrapped.values())))
            left = ", ".join(f"{r} {s}" for r, s in sorted(wrapped)) or "none"
            print(
                f"| {name} | {sum(raw.values())} | {sum(wrapped.values())} | "
                f"{', '.join(added) or 'none'} | {left} |",
                flush=True,
            )
    total_raw = sum(r[1] for r in rows)
    total_wrapped = sum(r[2] for r in rows)
    fall = 100 * (total_raw - total_wrapped) / total_raw if total_raw else 0.0
    print(f"\nall: {total_raw} -> {total_wrapped} ({fall:.0f} % fewer)")


if __name__ == "__main__":
    main()
