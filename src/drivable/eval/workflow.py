"""The workflow file: what a task is, what an agent may know, and what counts as done per step.

A server author writes one in minutes:

```yaml
name: read-a-note
fixture: cold-start            # the Step-8 fixture type this workflow covers
goal: Find the notes from October 2026 and read the first one.
facts:                         # what the user told the agent (LLM agents see these as prose)
  words: budget
  since: {value: "2026-10-01", spelled: "1. 10. 2026"}   # `spelled`: how a user/training data writes it
budget: {tool_calls: 4, tokens: 4000}
steps:
  - name: searched
    ask: Search the notes for the words, from the day given.
    draft: {tool: search_notes, arguments: {query: "{words}", date_from: "{since}"}}
    done:
      call: {tool: search_notes, arguments: {date_from: "2026-10-01"}}
  - name: read
    ask: Read the first note the search returned.
    draft: {tool: get_note, arguments: {note_id: "$search_notes.results.0.id"}}
    done:
      result_contains: '"note"'
forced_errors:
  - step: read
    error: {code: temporarily_unavailable, message: "...", temporary: true, retry_after_ms: 0}
state:                          # checks of the server's state after the run
  - call: {tool: list_notes, arguments: {}}
    result_contains: new_1
```

`draft` is the call an agent would make for the step from the user's words alone, before reading
anything: the simulated personas start from it and change it only with what discovery and results
expose. Model agents never see it; they get the goal, the facts and the steps' `ask`.
`"{fact}"` in a draft takes the fact's value (its `spelled` form for personas that spell like their
training data); `"$tool.path.0.key"` takes a field of that tool's latest successful result.

A bundled set is a folder of `workflows/`: `set.yaml` names the set's drivable contract and its
naive twin, `tune/` holds the workflows a contract change may be studied and replayed on, and
`holdout/` the ones that only accept or reject a change (docs/eval.md, "Tuning and testing").
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

FIXTURES = (
    "cold-start",
    "wrong-tool",
    "invalid-argument",
    "pagination",
    "auth-failure",
    "destructive-two-step",
    "retry-after-timeout",
    "version-change",
    "other",
)
Fixture = Literal[
    "cold-start",
    "wrong-tool",
    "invalid-argument",
    "pagination",
    "auth-failure",
    "destructive-two-step",
    "retry-after-timeout",
    "version-change",
    "other",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Fact(_Strict):
    value: Any
    spelled: Any = None  # how training data (or the user) writes the same value

    def for_persona(self, spells: bool) -> Any:
        return self.spelled if spells and self.spelled is not None else self.value


class CallSpec(_Strict):
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class Done(_Strict):
    """What counts as done. Every given condition must hold on one successful call."""

    call: CallSpec | None = None  # tool equal; each named argument equal (others free)
    result_contains: str | None = None  # substring of the result's JSON text
    tool: str | None = None  # shorthand: any successful call of this tool

    @model_validator(mode="after")
    def _something(self) -> Done:
        if self.call is None and self.result_contains is None and self.tool is None:
            raise ValueError("done needs call, result_contains or tool")
        return self

    @property
    def tool_name(self) -> str | None:
        return self.call.tool if self.call is not None else self.tool


class Step(_Strict):
    name: str
    ask: str
    draft: CallSpec | None = None
    done: Done
    # calls the tool's own description prescribes before the one that completes the step (the
    # dry run of a two-step tool): made and answered, they are the path, not a failed first call
    via: list[CallSpec] = Field(default_factory=list)


class Budget(_Strict):
    tool_calls: int = 6
    tokens: int = 8000


class ForcedError(_Strict):
    """The server is made to fail the first call of this step (the harness answers for it)."""

    step: str
    times: int = 1
    error: dict[str, Any]  # the envelope a drivable server would send
    plain: str | None = None  # what a server without an envelope sends instead

    def envelope(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": "internal_error",
            "message": "The server failed.",
            "hint": "",
            "issues": [],
            "temporary": False,
            "retry_after_ms": None,
            "request_id": "forced",
        }
        out.update(self.error)
        return out

    def text(self) -> str:
        if self.plain is not None:
            return self.plain
        return str(self.error.get("message", "The server failed."))


class StateCheck(_Strict):
    """A call after the run; it passes when its answer is (or is not) an error, as `error` says,
    and contains `result_contains`."""

    call: CallSpec
    result_contains: str | None = None
    error: bool | None = None

    @model_validator(mode="after")
    def _something(self) -> StateCheck:
        if self.result_contains is None and self.error is None:
            raise ValueError("a state check needs result_contains or error")
        return self


Split = Literal["tune", "holdout"]
SPLITS: tuple[Split, ...] = ("tune", "holdout")


class Workflow(_Strict):
    name: str
    fixture: Fixture = "other"
    server: str | None = None  # which server it was written for (informational)
    goal: str
    facts: dict[str, Fact] = Field(default_factory=dict)
    budget: Budget = Budget()
    steps: list[Step]
    forced_errors: list[ForcedError] = Field(default_factory=list)
    state: list[StateCheck] = Field(default_factory=list)
    requires: list[str] = Field(default_factory=list)  # e.g. "http-auth": skipped without it
    # The host speaks the tasks extension (drivable.eval.tasks): declares it, and offers get_task
    # and cancel_task when the server does; a long-running tool then answers with a task handle.
    tasks: bool = False
    note: str | None = None
    # which split of a bundled set it belongs to: set by its folder (tune/ or holdout/), not written
    split: Split | None = None

    @model_validator(mode="before")
    @classmethod
    def _facts_shorthand(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("facts"), dict):
            data = dict(data)
            data["facts"] = {
                k: v if isinstance(v, dict) and "value" in v else {"value": v}
                for k, v in data["facts"].items()
            }
        return data

    @model_validator(mode="after")
    def _consistent(self) -> Workflow:
        names = [s.name for s in self.steps]
        if len(set(names)) != len(names):
            raise ValueError("step names must be unique")
        if not names:
            raise ValueError("a workflow has at least one step")
        for forced in self.forced_errors:
            if forced.step not in names:
                raise ValueError(f"forced error names an unknown step {forced.step!r}")
        return self

    def step(self, name: str) -> Step:
        return next(s for s in self.steps if s.name == name)

    def fact_values(self) -> dict[str, Any]:
        return {k: f.value for k, f in self.facts.items()}

    def prompt(self) -> str:
        """The task as a model agent reads it: goal, facts, steps in plain words."""
        lines = [self.goal, ""]
        if self.facts:
            lines.append("What you know:")
            lines += [
                f"- {k}: {f.spelled if f.spelled is not None else f.value}"
                for k, f in self.facts.items()
            ]
            lines.append("")
        lines.append("Steps:")
        lines += [f"{i}. {s.ask}" for i, s in enumerate(self.steps, 1)]
        lines += ["", "Use the tools. When every step is done, answer with a short summary."]
        return "\n".join(lines)


def load(path: str | Path) -> Workflow:
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    return Workflow.model_validate(data)


def loads(text: str) -> Workflow:
    return Workflow.model_validate(yaml.safe_load(text))


class CommandSide(_Strict):
    """A side served by its command line (a third-party server run as it is), with its fixture
    data made afresh in a scratch directory for every trial (`drivable.eval.commandsets`).

    In `command`, `args`, `env` and `setup`, `{trial}` is the trial's directory (also the
    server's working directory, so a relative path the user gives resolves in it), `{set}` the
    set's folder and `{python}` this interpreter."""

    command: list[str] = Field(default_factory=list)  # the command's words, as run
    # MODULE:FUNCTION NAME: a function of the project's own that installs a pinned server on first
    # use and returns the words that start it (tests.audit.audit_thirdparty:npm_server_command memory)
    installed: str | None = None
    args: list[str] = Field(default_factory=list)  # words after the command
    env: dict[str, str] = Field(default_factory=dict)  # handed to the server, nothing else of ours
    fixture: str | None = None  # a folder of the set, copied into each trial's directory
    setup: list[list[str]] = Field(default_factory=list)  # commands run there after the copy

    @model_validator(mode="after")
    def _one_command(self) -> CommandSide:
        if bool(self.command) == (self.installed is not None):
            raise ValueError("a command side has exactly one of: command, installed")
        return self


class WrapSide(_Strict):
    """The drivable side as the naive side's command under `drivable wrap`."""

    wrap: Literal["naive"]
    config: str | None = None  # a wrap config (TOML) in the set's folder


class WorkflowSet(_Strict):
    """A bundled set's `set.yaml`: what it serves, in both forms.

    Each side is an import path (the bundled servers and their naive twins) or a command line
    (`CommandSide`); the drivable side may be the naive command under `drivable wrap`."""

    name: str
    about: str
    # MODULE:ATTR of its drivable contract (or a function returning one), or a command
    drivable: str | WrapSide | CommandSide
    naive: str | CommandSide  # module of its naive twin (served with `python -m`), or a command
    # an environment variable naming the store: each side of a side by side gets a scratch one
    store_env: str | None = None

    @model_validator(mode="after")
    def _wraps_a_command(self) -> WorkflowSet:
        if isinstance(self.drivable, WrapSide) and not isinstance(self.naive, CommandSide):
            raise ValueError("drivable: {wrap: naive} needs a naive side given as a command")
        return self

    @property
    def by_command(self) -> bool:
        """Is a side served by its command line (so each trial needs a directory of its own)?"""
        return not (isinstance(self.naive, str) and isinstance(self.drivable, str))

    @property
    def twin_module(self) -> str | None:
        """The naive twin's module, when it is one (None when it is a command)."""
        return self.naive if isinstance(self.naive, str) else None

    def folder(self) -> Path:
        return Path(str(_root() / self.name))


def _root() -> Any:
    return resources.files("drivable.eval") / "workflows"


def bundled_sets() -> list[str]:
    return sorted(p.name for p in _root().iterdir() if p.is_dir() and (p / "set.yaml").is_file())


def workflow_set(name: str) -> WorkflowSet:
    folder = _root() / name
    if not (folder / "set.yaml").is_file():
        raise LookupError(f"no bundled workflow set {name!r}; have: {', '.join(bundled_sets())}")
    data = yaml.safe_load((folder / "set.yaml").read_text(encoding="utf-8")) or {}
    return WorkflowSet.model_validate({"name": name, **data})


def bundled(server: str, split: Split | None = None) -> list[Workflow]:
    """A bundled set's workflows (`example`, `caselaw`, ...): tune/ then holdout/, by file name;
    only one split when `split` names it."""
    workflow_set(server)  # refuses an unknown set, naming the ones there are
    found: list[Workflow] = []
    for part in SPLITS if split is None else (split,):
        folder = _root() / server / part
        if not folder.is_dir():
            continue
        files = sorted(
            (p for p in folder.iterdir() if p.name.endswith((".yaml", ".yml"))),
            key=lambda p: p.name,
        )
        for f in files:
            data = yaml.safe_load(f.read_text(encoding="utf-8"))
            found.append(Workflow.model_validate({**data, "split": part}))
    names = [w.name for w in found]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"{server}: workflow names used twice: {', '.join(twice)}")
    return found


def iter_paths(paths: list[str]) -> Iterator[Workflow]:
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for f in sorted([*p.glob("*.yaml"), *p.glob("*.yml")]):
                yield load(f)
        else:
            yield load(p)
