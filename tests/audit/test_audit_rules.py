"""The rule registry, the offline tokenizer and the `drivable rules` command."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from drivable.audit.rules import REGISTRY, all_rules, get
from drivable.audit.rules.catalog import CHECKLIST
from tests.audit.conftest import drivable

REFERENCE = (
    Path(__file__).resolve().parents[3] / "shared" / "reference" / "agent-friendly-mcp-checklist.md"
)
COUNTS = {1: 15, 2: 20, 3: 48, 4: 18, 5: 8, 6: 22, 7: 11, 8: 16, 9: 15}


def test_registry_holds_the_173_checklist_ids_per_section() -> None:
    ids = [rule_id for rule_id, _, _ in CHECKLIST]
    assert len(ids) == len(set(ids)) == 173
    for section, count in COUNTS.items():
        assert sum(1 for i in ids if i.startswith(f"{section}.")) == count
    assert set(ids) <= set(REGISTRY)
    assert all(r.id.startswith("dv.") for r in all_rules() if r.id not in set(ids))


def test_registry_is_in_step_with_the_reference_when_it_is_present() -> None:
    if not REFERENCE.exists():  # the reference lives beside the repo, not in it
        return
    declared = set(re.findall(r"^\| `\[(\d\.[a-z0-9-]+)\]`", REFERENCE.read_text(), re.M))
    assert declared == {rule_id for rule_id, _, _ in CHECKLIST}


def test_every_documented_rule_has_a_full_doc() -> None:
    documented = [r for r in all_rules() if r.doc]
    assert len(documented) >= 60
    for rule in documented:
        assert rule.doc is not None
        for part in (rule.doc.what, rule.doc.why, rule.doc.example, rule.doc.fix):
            assert len(part) > 10, rule.id
        assert rule.severity in ("critical", "major", "minor", "nit")


def test_get_accepts_bracketed_ids() -> None:
    rule = get("[3.closed-schemas]")
    assert rule is not None and rule.id == "3.closed-schemas"
    assert get("9.nope") is None


def test_rules_command_lists_and_explains() -> None:
    listing = drivable("rules", "--format", "json")
    assert listing.code == 0
    assert len(listing.report) == len(REGISTRY)
    one = drivable("rules", "3.honest-annotations")
    assert one.code == 0
    for label in ("What drivable checks:", "Why it matters to a model:", "Example:", "Fix:"):
        assert label in one.stdout
    judgement = drivable("rules", "3.task-completing")
    assert "human judgement" in judgement.stdout
    missing = drivable("rules", "9.does-not-exist")
    assert missing.code == 2


def test_tokenizer_counts_with_the_network_shut() -> None:
    # Any attempt to open a socket fails in this child: the vocabulary must be inside the package.
    code = (
        "import socket\n"
        "def refuse(*a, **k):\n"
        "    raise OSError('network disabled for this test')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "from drivable.audit.tokens import count_json, count_text\n"
        "print(count_text('hello world'), count_json({'name': 'search_notes'}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    text_tokens, json_tokens = map(int, out.stdout.split())
    assert text_tokens == 2
    assert 4 <= json_tokens <= 12


def test_rules_doc_is_generated_from_the_registry() -> None:
    from drivable.audit.rules.docs import render_rules_markdown

    doc = Path(__file__).resolve().parents[2] / "docs" / "audit-rules.md"
    assert doc.read_text(encoding="utf-8") == render_rules_markdown(), (
        "docs/audit-rules.md is stale: run `drivable rules --format markdown > docs/audit-rules.md`"
    )


def test_tokenizer_counts_past_the_encoders_single_input_limit() -> None:
    from drivable.audit.tokens import count_json, count_text

    big = [{"name": f"tool_{i}", "description": "word " * 60} for i in range(5000)]
    whole = count_json(big)
    assert whole > 200_000  # one encode call would refuse this
    halves = count_json(big[:2500]) + count_json(big[2500:])
    assert abs(whole - halves) <= 5
    assert count_text("<|endoftext|> is text here") > 3


def _severity_sites() -> list[tuple[str, int, str, list[object]]]:
    """Every place a finding is made with a literal rule id, and the severities it can give."""
    import ast

    root = Path(__file__).resolve().parents[2] / "src" / "drivable" / "audit"
    sites = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or len(node.args) < 2:
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            first = node.args[0]
            if name not in ("finding", "add", "Finding") or not (
                isinstance(first, ast.Constant) and isinstance(first.value, str)
            ):
                continue
            values: list[object] = []

            def collect(expr: ast.expr, values: list[object] = values) -> None:
                if isinstance(expr, ast.Constant):
                    values.append(expr.value)
                elif isinstance(expr, ast.IfExp):
                    collect(expr.body)
                    collect(expr.orelse)
                else:
                    values.append(None)  # computed: checked below by its source

            collect(node.args[1])
            sites.append((path.name, node.lineno, first.value, values))
    return sites


def test_the_registry_owns_every_severity_a_check_reports() -> None:
    from drivable.audit.probes.leaks import leaks_in  # noqa: F401  (its severities are below)

    sites = _severity_sites()
    assert len(sites) > 80
    wrong = []
    for module, line, rule_id, values in sites:
        rule = REGISTRY.get(rule_id)
        assert rule is not None and rule.doc is not None, f"{module}:{line} {rule_id} unregistered"
        for value in values:
            if value is None:
                continue
            if not rule.doc.allows(str(value)):
                wrong.append(f"{module}:{line} {rule_id} {value}")
    assert wrong == []
    # The computed severities: the leak categories, and the caps of the reconciliation.
    leak = REGISTRY["dv.substrate-leak"].doc
    assert leak is not None
    for severity in ("critical", "major", "minor"):
        assert leak.allows(severity)
    for rule_id in ("3.closed-schemas", "3.output-schema", "3.idempotency-key"):
        doc = REGISTRY[rule_id].doc
        assert doc is not None and doc.allows("minor"), rule_id


def test_every_rule_is_automated_or_carries_a_reviewers_question() -> None:
    from drivable.audit.rules.questions import QUESTIONS

    for rule in all_rules():
        if rule.doc is None:
            assert rule.question and rule.question.endswith("?"), rule.id
        else:
            assert rule.id not in QUESTIONS, f"{rule.id} is automated; drop its question"
    assert set(QUESTIONS) <= set(REGISTRY)


def test_the_auditor_knows_every_verb_the_runtime_lets_a_tool_start_with() -> None:
    """A runtime tool named with one of its fixed verbs never gets `3.naming`'s "no verb"."""
    from drivable.audit import heuristics as h
    from drivable.verbs import LEADING

    for verb in LEADING:
        assert h.verb_of(f"{verb}_invoice") == verb


def test_the_rust_tokenizer_loaded_alone_counts_as_the_wrapper_does() -> None:
    """tokens.py loads the Rust binding without the package's Python wrapper (seconds faster);
    both must give the same count, special-token spellings included."""
    import warnings

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from drivable.audit import tokens

    fast = tokens._counter()
    assert not isinstance(fast, tokens._Wrapped)
    with warnings.catch_warnings():  # the wrapper's loader uses a deprecated importlib call
        warnings.simplefilter("ignore", DeprecationWarning)
        import bpe_openai  # type: ignore[import-untyped]

        wrapped = tokens._Wrapped(bpe_openai.get_encoding(tokens.ENCODING))

    @settings(max_examples=200, deadline=None)
    @given(st.text(max_size=300) | st.sampled_from(["<|endoftext|> x", "Přehled ☃ 𝔘", "\n\n  a"]))
    def agree(text: str) -> None:
        assert fast.count(text) == wrapped.count(text)

    agree()


def test_a_dry_runs_token_may_come_back_at_the_top_or_inside_next_call() -> None:
    """Most servers hand a dry run's token back as a field of the preview; drivable's runtime
    only inside `next_call.arguments`. [3.sec-confirmation] accepts either: it reads the inputs."""
    from drivable.audit.rules import s3_effects
    from drivable.audit.rules.base import StaticContext

    inputs = {
        "type": "object",
        "properties": {
            "note_id": {"type": "string"},
            "dry_run": {"type": "boolean", "default": True},
            "confirm_token": {"type": "string"},
        },
        "required": ["note_id"],
        "additionalProperties": False,
    }
    next_call = {
        "type": "object",
        "properties": {"tool": {"type": "string"}, "arguments": {}},
        "required": ["tool", "arguments"],
        "additionalProperties": False,
    }
    at_the_top: dict[str, object] = {
        "deleted": {"type": "boolean"},
        "confirm_token": {"type": "string"},
    }
    in_next_call = {"deleted": {"type": "boolean"}, "next_call": next_call}
    annotations = {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": True,
        "openWorldHint": False,
    }

    def confirmation_findings(input_schema: dict[str, object], output: dict[str, object]) -> int:
        tool = {
            "name": "delete_note",
            "description": "Delete one note in two steps.",
            "inputSchema": input_schema,
            "outputSchema": {"type": "object", "properties": output},
            "annotations": annotations,
        }
        found = s3_effects.check(StaticContext({"tools": [tool]}))
        return sum(1 for f in found if f.rule == "3.sec-confirmation")

    assert confirmation_findings(inputs, at_the_top) == 0
    assert confirmation_findings(inputs, in_next_call) == 0
    one_step = {**inputs, "properties": {"note_id": {"type": "string"}}}
    assert confirmation_findings(one_step, {"deleted": {"type": "boolean"}}) == 1
