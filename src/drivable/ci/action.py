"""The repository's GitHub Action (action.yml) as `drivable ci` options: `python -m drivable.ci.action`.

A composite action's step sees its inputs only as the environment its YAML gives it; action.yml
passes each input `x-y` as `INPUT_X_Y` (the names JavaScript actions get) and never writes an
input into the script itself. Here they become options: `command` and `audit-args` are split as a
shell would split them, `env` takes one KEY=VALUE a line, `eval-workflows` and `eval-personas` one
or more a line or separated by spaces or commas. The step always passes `--no-fail`, so the SARIF
is uploaded before the action's last step fails the job on the gate.
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Mapping

from drivable import settings
from drivable.kinds import read


def _flag(value: str, name: str) -> bool:
    """An input read as the boolean kind reads it (empty is false)."""
    reading = read("boolean", value)
    if reading.outcome == "absent":
        return False
    if reading.outcome != "value":
        raise ValueError(f"input {name} takes true or false, not {value!r}")
    return bool(reading.value)


def _words(value: str) -> list[str]:
    return [w for w in re.split(r"[\s,]+", value.strip()) if w]


def options(inputs: Mapping[str, str]) -> list[str]:
    """The `drivable ci` command line of the action's inputs (`INPUT_*` variables)."""

    def get(name: str) -> str:
        return inputs.get("INPUT_" + name.upper().replace("-", "_"), "").strip()

    argv: list[str] = ["ci", "--no-fail"]
    for name in ("url", "contract", "fail-on", "audit-args", "eval-set", "name", "out-dir"):
        if get(name):
            argv += [f"--{name}", get(name)]
    for line in get("env").splitlines():
        if line.strip():
            argv += ["--env", line.strip()]
    for workflow in shlex.split(get("eval-workflows")):
        argv += ["--eval-workflow", workflow]
    for persona in _words(get("eval-personas")):
        argv += ["--persona", persona]
    if get("eval-trials"):
        argv += ["--trials", get("eval-trials")]
    if get("eval-min-completion"):
        argv += ["--min-completion", get("eval-min-completion")]
    argv.append("--comment" if _flag(get("comment"), "comment") else "--no-comment")
    if get("command"):
        argv += ["--", *shlex.split(get("command"))]
    return argv


def main() -> None:
    from drivable.cli import fail, run

    try:
        argv = options(settings.environment())
    except ValueError as error:
        sys.exit(fail(str(error), command="ci"))
    sys.exit(run(argv))


if __name__ == "__main__":
    main()
