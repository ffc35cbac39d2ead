"""Report writers: json (pinned shape), text (rich), markdown (review workflow), sarif 2.1.0,
html (one self-contained page)."""

from __future__ import annotations

import json
from typing import Literal

from drivable.audit.model import Report
from drivable.audit.report.html import render_html
from drivable.audit.report.markdown import render_markdown
from drivable.audit.report.sarif import render_sarif
from drivable.audit.report.text import render_text

Format = Literal["text", "json", "markdown", "sarif", "html"]
FORMATS: tuple[str, ...] = ("text", "json", "markdown", "sarif", "html")


def render(report: Report, fmt: str, *, color: bool = False, width: int = 120) -> str:
    if fmt == "json":
        return json.dumps(report.to_dict(), indent=2, ensure_ascii=False, default=str)
    if fmt == "markdown":
        return render_markdown(report)
    if fmt == "sarif":
        return json.dumps(render_sarif(report), indent=2, ensure_ascii=False, default=str)
    if fmt == "text":
        return render_text(report, color=color, width=width)
    if fmt == "html":
        return render_html(report)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


__all__ = ["FORMATS", "Format", "render"]
