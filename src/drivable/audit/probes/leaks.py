"""Substrate in an answer: tracebacks, driver errors, exception names, paths, framework dumps.

What is *not* a leak is as important, or the rule is noise: a validation message that names the
field the model got wrong is feedback, however a framework phrased it; a SQL parser message from a
tool whose input is SQL is the answer to the question asked; values the user configured (the
repository on the server's command line) and values the probe itself sent are echoes.
"""

from __future__ import annotations

import json
import re
from typing import Any

from drivable import schema as sch
from drivable.audit import heuristics as h
from drivable.audit.model import Severity
from drivable.audit.probes.call import ProbeCall, answer_text
from drivable.audit.probes.state import ProbeState

TRACEBACK = re.compile(
    r"Traceback \(most recent call last\)|\bFile \"[^\"]+\", line \d+|"
    r"\n\s+at [\w.$<>]+ \(?[^)\s]+:\d+:\d+\)?"
)
SQL = re.compile(
    r"(sqlite3?\.\w*Error|psycopg\d?\.|OperationalError|IntegrityError|ProgrammingError|"
    r"syntax error at or near|near \"[^\"]*\": syntax error|SQLSTATE|\bORA-\d{5}|"
    r"no such (table|column)|UNIQUE constraint failed|duplicate key value violates|"
    r"SELECT .+ FROM |INSERT INTO |mysql_\w+\(|pymongo\.errors)",
    re.I,
)
# What a language runtime says when code fails on input it never checked: the decoder, the cast,
# the index, the attribute of nothing. Raw, it tells the model nothing it can act on and tells
# everyone the stack: a cursor decoded without a check answers "Incorrect padding". (Every
# alternative starts with a literal: an answer may echo a megabyte, and `\w+ is` would be
# quadratic in it.)
EXCEPTION_MESSAGE = re.compile(
    r"(Incorrect padding|Invalid base64-encoded string|invalid literal for int\(\) with base \d+|"
    r"could not convert string to float|\b(list|string|tuple) index out of range|"
    r"'\w+' object (has no attribute|is not (subscriptable|iterable|callable))|"
    r"can only concatenate \w+|unsupported operand type\(s\)|unhashable type|"
    r"(not enough|too many) values to unpack|non-hexadecimal number found|"
    r"codec can't (de|en)code byte|string argument should contain only ASCII characters|"
    r"(Expecting (value|property name[\w ]*|'[,:]' delimiter)|Extra data|Unterminated string "
    r"starting at|Invalid control character at|Invalid \\(escape|uXXXX escape)): line \d+ "
    r"column \d+|Unexpected UTF-8 BOM|"
    r"Cannot read propert(y|ies) of (undefined|null)|undefined is not an object|"
    r"Unexpected token .{1,12} in JSON at position \d+|Unexpected end of JSON input|"
    r"Maximum call stack size exceeded|\bis not a function\b)"
)
FRAMEWORK_DUMP = re.compile(
    r"(errors\.pydantic\.dev|validation errors? for \w+|input_value=|input_type=)"
)
EXCEPTION_NAME = re.compile(r"\b(?:[A-Z][a-z0-9]+){1,4}(?:Error|Exception)\b(?!\w)")
INTERNAL_PATH = re.compile(r"(site-packages|node_modules/|dist-packages)[^\s'\"]*")
FILE_PATH = re.compile(
    r"(?<![\w./:])(/(?:home|usr|var|etc|opt|srv|root|Users|private|proc|app|tmp)/[^\s'\"),]+|"
    r"[A-Za-z]:\\\\[^\s'\"]+)"
)
# Exception-ish words that are ordinary English in error messages, not class names.
BENIGN_EXCEPTION_WORDS = {"Error", "McpError", "ValidationError", "TypeError"}
SQL_PROPERTY = re.compile(r"^(sql|query|statement|sql_query|sql_statement|command)$", re.I)


def takes_sql(tool: dict[str, Any]) -> bool:
    """Whether the tool's input is SQL: a query-like string whose tool or field speaks of SQL."""
    schema = h.input_schema(tool)
    context = f"{tool.get('name', '')} {tool.get('description', '')}".lower()
    for name, node in sch.properties(schema).items():
        if not SQL_PROPERTY.match(name):
            continue
        text = f"{context} {node.get('description', '')}".lower()
        if name.lower().startswith("sql") or "sql" in text or "select " in text:
            return True
    return False


def leaks_in(
    call: ProbeCall, tool: dict[str, Any] | None = None, known: tuple[str, ...] = ()
) -> list[tuple[str, Severity, str]]:
    """(category, severity, snippet) per leak in the answer to `call`."""
    text = answer_text(call)
    if not text:
        return []
    sent = json.dumps(call.arguments)
    is_error = call.outcome in ("error-result", "jsonrpc-error") or call.error_as_success
    names_field = any(
        re.search(rf"(?<![A-Za-z0-9_]){re.escape(a)}(?![A-Za-z0-9_])", text) for a in call.arguments
    )
    checks: list[tuple[str, Severity, re.Pattern[str], bool]] = [
        ("traceback", "critical", TRACEBACK, True),
        ("internal path", "major", INTERNAL_PATH, is_error),
    ]
    sql_tool = tool is not None and takes_sql(tool)
    if not sql_tool:
        checks.append(("sql/driver error", "critical", SQL, True))
    checks.append(("raw exception message", "major", EXCEPTION_MESSAGE, is_error))
    if is_error and not names_field:
        checks.append(("framework validation dump", "minor", FRAMEWORK_DUMP, True))
    if is_error:
        checks.append(("exception class name", "minor", EXCEPTION_NAME, True))
        checks.append(("file path", "minor", FILE_PATH, True))
    found: list[tuple[str, Severity, str]] = []
    for category, severity, pattern, applies in checks:
        if not applies:
            continue
        for m in pattern.finditer(text):
            snippet = m.group(0)
            if snippet in sent or snippet in BENIGN_EXCEPTION_WORDS:
                continue
            if sql_tool and SQL.search(snippet):
                continue  # the driver's error class is part of the SQL tool's own answer
            if any(snippet in earlier or earlier in snippet for _, _, earlier in found):
                continue  # one piece of text, one finding: the worst category already has it
            if any(k and (snippet.startswith(k) or k.startswith(snippet)) for k in known):
                continue
            found.append((category, severity, snippet[:120]))
            break
    return found


def check_leaks(call: ProbeCall, tool: dict[str, Any], state: ProbeState, subject: str) -> None:
    for category, severity, snippet in leaks_in(call, tool, state.known):
        state.add(
            "dv.substrate-leak",
            severity,
            subject,
            f"The answer to the `{call.probe}` probe leaks a {category}: `{snippet}`.",
            call.evidence(),
            "Catch the failure at the tool boundary and answer with the closed envelope "
            "(code, message, hint); log the internals to stderr under a request id.",
            key=f"{subject}:{category}",
        )
