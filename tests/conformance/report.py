"""Run the conformance suite against every target and revision and write docs/conformance.md.

    python -m tests.conformance.report [--out docs/conformance.md] [--json FILE] [--from-json FILE]
                                       [--grow-expected]

Each failure is listed with its cause: the curated one in causes.json when the failure has been
looked into (`suite_wrong` marks a failure the suite itself gets wrong), else the failing checks'
own messages as evidence. `--from-json` rewrites the page from a saved run without running again.
`--grow-expected` adds every scenario that passed to expected_pass.json (it never removes one).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import asdict
from pathlib import Path

from tests.conformance.causes import LABEL, applies, curated, suite_wrong
from tests.conformance.suite import (
    FIXTURE,
    REVISIONS,
    TARGETS,
    Check,
    Scenario,
    SuiteRun,
    fixture_available,
    package_dir,
    run_suite,
)
from tests.interop.interop import ensure_node

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = Path(__file__).with_name("expected_pass.json")


def load_runs(path: Path) -> list[SuiteRun]:
    runs = []
    for item in json.loads(path.read_text()):
        scenarios = {
            name: Scenario(
                **{
                    **s,
                    "failed_checks": [Check(**c) for c in s["failed_checks"]],
                    "warnings": [Check(**c) for c in s["warnings"]],
                }
            )
            for name, s in item["scenarios"].items()
        }
        runs.append(SuiteRun(item["target"], item["revision"], scenarios, item["exit_code"],
                             item.get("seconds", 0.0)))  # fmt: skip
    return runs


def cause_of(scenario: Scenario, target: str) -> tuple[str, bool]:
    """(the cause in one paragraph, whether the suite gets it wrong)."""
    found = curated(scenario, target)
    if found and not found.get("false_pass"):
        return str(found["cause"]), bool(found.get("suite_wrong", False))
    evidence = "; ".join(f"`{c.id}`: {c.message.strip()[:240]}" for c in scenario.failed_checks[:3])
    return f"Not yet looked into. The suite reports {evidence}", False


def false_pass(scenario: Scenario, target: str) -> str | None:
    found = curated(scenario, target)
    return str(found["cause"]) if found and found.get("false_pass") else None


def wrong_note(run: SuiteRun, scenarios: list[Scenario]) -> str:
    wrong = sum(1 for s in scenarios if not s.passed and suite_wrong(s, run.target))
    return f" ({wrong} the suite gets wrong)" if wrong else ""


def escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(runs: list[SuiteRun], version: str) -> str:
    lines = [
        "# Conformance",
        "",
        "What the official MCP conformance suite "
        f"(`@modelcontextprotocol/conformance@{version}`) reports for drivable's reference servers "
        "and the conformance fixture (`tests/conformance/fixture.py`), for both requirement sets. "
        "Generated from a real run by `python -m tests.conformance.report`; CI runs the same suite "
        "(`tests/conformance/test_suite.py`) and fails when a scenario listed in "
        "`tests/conformance/expected_pass.json` stops passing.",
        "",
        "Each target is served with `drivable serve TARGET --http` (with `--sessions` for "
        "2025-11-25, whose handshake era keeps sessions) and checked with `conformance server "
        "--url http://127.0.0.1:PORT/mcp --requirements REVISION`. A scenario passes when it has a "
        "successful check and no failed one. Scored scenarios are the revision's frozen "
        "requirement set; not-scored ones are run and reported only (extensions, pending).",
        "",
        "The reference servers serve tools, resources and prompts of their domain, not the "
        "suite's fixed fixtures (`test_simple_text`, `test_image_content`, ...), so the "
        "scenarios that call those by name fail there by construction; the fixture serves them.",
        "",
        "## Summary",
        "",
        *(
            []
            if any(r.target == FIXTURE for r in runs)
            else ["The fixture was not in the tree this page was generated from: not run.", ""]
        ),
        "A scenario that does not apply to a target drives a fixture tool, prompt or resource by "
        "name, or an optional feature the target does not offer; each is named below with its "
        "cause. CI fails when a scored scenario that applies fails for a reason the suite does not "
        "get wrong.",
        "",
        "| Target | Revision | Scored passed | Scored that apply: passed | Not scored passed |",
        "| --- | --- | --- | --- | --- |",
    ]
    for run in runs:
        passed, total = run.counts()
        apply = [s for s in run.scored() if applies(s, run.target)]
        extra = [s for s in run.scenarios.values() if not s.scored]
        lines.append(
            f"| {LABEL[run.target]} | {run.revision} | {passed}/{total} | "
            f"{sum(1 for s in apply if s.passed)}/{len(apply)}{wrong_note(run, apply)} | "
            f"{sum(1 for s in extra if s.passed)}/{len(extra)} |"
        )
    wrong = []
    for run in runs:
        lines += [
            "",
            f"## {LABEL[run.target]}, {run.revision}",
            "",
            "| Scenario | Scored | Applies | Result | Cause (of a failure, or why a pass means nothing) |",
            "| --- | --- | --- | --- | --- |",
        ]
        ordered = sorted(run.scenarios.values(), key=lambda s: (not s.scored, s.name))
        for s in ordered:
            if s.passed:
                cause = ""
                vacuous = false_pass(s, run.target)
                if vacuous:
                    wrong.append(f"- `{s.name}` ({LABEL[run.target]}, {run.revision}): {vacuous}")
                    cause = f"**A pass that tests nothing.** {vacuous}"
            else:
                cause, suite_wrong = cause_of(s, run.target)
                if suite_wrong:
                    wrong.append(f"- `{s.name}` ({LABEL[run.target]}, {run.revision}): {cause}")
                    cause = f"**The suite is wrong here.** {cause}"
            scored = "yes" if s.scored else f"no ({s.note or 'not in the set'})"
            lines.append(
                f"| `{s.name}` | {scored} | {'yes' if applies(s, run.target) else 'no'} | "
                f"{'pass' if s.passed else 'FAIL'} | {escape(cause)} |"
            )
    lines += ["", "## Verdicts the suite itself gets wrong", ""]
    lines += wrong or ["None found in this run."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "conformance.md")
    parser.add_argument("--json", type=Path, help="also save the runs here")
    parser.add_argument("--from-json", type=Path, help="render saved runs instead of running")
    parser.add_argument("--grow-expected", action="store_true", help="add passes to the list")
    args = parser.parse_args()
    node_bin = ensure_node()
    version = json.loads((package_dir(node_bin) / "package.json").read_text())["version"]
    if args.from_json:
        runs = load_runs(args.from_json)
    else:
        runs = []
        with tempfile.TemporaryDirectory() as tmp:
            for target in TARGETS:
                if target == FIXTURE and not fixture_available():
                    print(f"skipping {target}: not in this tree")
                    continue
                for revision in REVISIONS:
                    run = run_suite(node_bin, target, revision, Path(tmp))
                    passed, total = run.counts()
                    print(f"{LABEL[target]:8} {revision} {passed}/{total} ({run.seconds:.0f} s)")
                    runs.append(run)
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in runs], indent=1) + "\n")
    args.out.write_text(render(runs, version))
    if args.grow_expected:
        grow_expected(runs)


def grow_expected(runs: list[SuiteRun]) -> None:
    expected: dict[str, dict[str, list[str]]] = json.loads(EXPECTED.read_text())
    for run in runs:
        listed = expected.setdefault(run.target, {}).setdefault(run.revision, [])
        passing = {s.name for s in run.scenarios.values() if s.passed}
        listed[:] = sorted(set(listed) | passing)
    EXPECTED.write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    main()
