"""The GitHub side of a CI run: step outputs, the job summary, and one pull-request comment.

The runner names two files (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY) that a step appends to. The comment
goes through the REST API at GITHUB_API_URL with the job's token: the pull request's comments are
read page by page, the one that starts with this server's marker is edited in place, else one is
created, so a pull request carries one comment per server however many times it is pushed.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import httpx2

PAGE = 100
API_VERSION = "2022-11-28"


class CommentFailed(RuntimeError):
    """The API refused or could not be reached; the message names the request, never the token."""


def write_outputs(path: Path, values: Mapping[str, str]) -> None:
    """Append `key=value` lines; a value with a newline goes between delimiter lines instead."""
    with path.open("a", encoding="utf-8") as out:
        for key, value in values.items():
            if "\n" in value:
                end = f"ghadelimiter_{uuid.uuid4().hex}"
                out.write(f"{key}<<{end}\n{value}\n{end}\n")
            else:
                out.write(f"{key}={value}\n")


def append_summary(path: Path, markdown: str) -> None:
    with path.open("a", encoding="utf-8") as out:
        out.write(markdown.rstrip("\n") + "\n")


def pull_request_number(event_path: str | None) -> int | None:
    """The pull request the workflow runs for (pull_request and pull_request_target events)."""
    if not event_path:
        return None
    try:
        event = json.loads(Path(event_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    pr = event.get("pull_request") if isinstance(event, dict) else None
    number = pr.get("number") if isinstance(pr, dict) else None
    return number if isinstance(number, int) and not isinstance(number, bool) else None


def upsert_comment(
    *, api: str, repository: str, number: int, token: str, body: str, marker: str
) -> Literal["created", "updated"]:
    """Edit the pull request's comment that starts with `marker` to `body`, or create it."""
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": API_VERSION,
    }
    listing = f"/repos/{repository}/issues/{number}/comments"
    with httpx2.Client(base_url=api.rstrip("/"), headers=headers, timeout=30.0) as http:

        def send(method: str, path: str, **kwargs: object) -> httpx2.Response:
            try:
                response = http.request(method, path, **kwargs)  # type: ignore[arg-type]
            except httpx2.HTTPError as error:
                raise CommentFailed(f"{method} {path}: {type(error).__name__}") from None
            if response.status_code >= 400:
                raise CommentFailed(f"{method} {path}: HTTP {response.status_code}")
            return response

        page = 1
        while True:
            found = send("GET", listing, params={"per_page": PAGE, "page": page}).json()
            for comment in found if isinstance(found, list) else []:
                if str(comment.get("body") or "").startswith(marker):
                    send(
                        "PATCH",
                        f"/repos/{repository}/issues/comments/{comment['id']}",
                        json={"body": body},
                    )
                    return "updated"
            if not isinstance(found, list) or len(found) < PAGE:
                break
            page += 1
        send("POST", listing, json={"body": body})
        return "created"
