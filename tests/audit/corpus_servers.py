"""How to start each server of the labelled field corpus, with the fixtures it needs.

The servers are real packages pinned in `audit_thirdparty` (PyPI and npm, none written here).
Fixtures are made fresh per run in a temporary folder: a git repository with one commit, a
directory with one file for the filesystem server, an empty memory file.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from tests.audit.audit_thirdparty import npm_server_command, python_server_command


@dataclass
class Started:
    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    extra: tuple[str, ...] = ()


def _git_repo(tmp: Path) -> Path:
    repo = tmp / "repo"
    repo.mkdir(parents=True, exist_ok=True)
    run = ["git", "-C", str(repo)]
    subprocess.run([*run, "init", "-q", "-b", "main"], check=True)
    (repo / "README.md").write_text("corpus fixture\n")
    subprocess.run([*run, "add", "README.md"], check=True)
    subprocess.run(
        [
            *run,
            "-c",
            "user.name=corpus",
            "-c",
            "user.email=corpus@example.com",
            "commit",
            "-qm",
            "first",
        ],
        check=True,
    )
    return repo


def start(name: str, tmp: Path) -> Started:
    if name == "time":
        return Started(python_server_command("time"))
    if name == "git":
        return Started([*python_server_command("git"), "--repository", str(_git_repo(tmp))])
    if name == "fetch":
        return Started(python_server_command("fetch"))
    if name == "everything":
        return Started(npm_server_command("everything"), extra=("--timeout", "5"))
    if name == "filesystem":
        root = tmp / "files"
        root.mkdir(parents=True, exist_ok=True)
        (root / "notes.txt").write_text("hello\n")
        return Started([*npm_server_command("filesystem"), str(root)])
    if name == "memory":
        return Started(
            npm_server_command("memory"), env={"MEMORY_FILE_PATH": str(tmp / "memory.jsonl")}
        )
    if name == "sequential-thinking":
        return Started(npm_server_command("sequential-thinking"))
    raise KeyError(name)


CORPUS = ("time", "git", "fetch", "everything", "filesystem", "memory", "sequential-thinking")
