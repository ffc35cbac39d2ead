"""The two sides of a bundled set as the side by side drives them: the naive twin and the
drivable server (or the unwrapped and the wrapped upstream), each over stdio in a fresh process a
trial, with the same distractors beside them, and, with `user`, a client that can ask its user
(`drivable.eval.user`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from drivable.eval.distractors import Distractor
from drivable.eval.solver import EvalTarget
from drivable.eval.workflow import WorkflowSet, WrapSide, bundled_sets, workflow_set
from drivable.target import Target

# the sets whose naive twin is a module: they can stand beside another set as distractors
TWINS = tuple(name for name in bundled_sets() if workflow_set(name).twin_module is not None)


def targets(
    name: str,
    scratch: Path,
    distractors: Sequence[str] = (),
    catalog: int | None = None,
    user: bool = False,
) -> dict[str, EvalTarget]:
    """naive and drivable targets of a set, both over stdio, judged through the contract; each
    side with the same distractors beside it (other sets' naive twins, `drivable.eval.distractors`);
    with `catalog`, the drivable side serves the set's tools among other domains' on one server,
    `catalog` tools in all (`drivable.eval.catalog`); with `user`, each side's client declares
    elicitation and the workflow's user answers (`drivable.eval.user`)."""
    spec = workflow_set(name)
    others = tuple(
        Distractor(
            other,
            Target.from_cli(
                [sys.executable, "-m", twin_of(other)],
                url=None,
                env_pairs=store_pairs(other, f"distractor-{other}", scratch),
                pass_env=PASS_ENV,
            ),
        )
        for other in distractors
        if other != name
    )
    if catalog is not None and not isinstance(spec.drivable, str):
        raise ValueError(f"{name}: --catalog serves an import-path drivable side only")
    return {
        side: replace(
            imported(name, side, scratch, catalog)
            if isinstance(getattr(spec, side), str)
            else by_command(spec, side),
            distractors=others,
            user=user,
        )
        for side in ("naive", "drivable")
    }


def imported(name: str, side: str, scratch: Path, catalog: int | None) -> EvalTarget:
    """A side named by its import path, over stdio (a fresh process a trial): the naive twin's
    module, or the drivable contract (judged through it), alone or among a large catalog."""
    from drivable.eval.catalog import among
    from drivable.eval.surfaces import load

    pairs = store_pairs(name, side, scratch)
    if side == "naive":
        naive = [sys.executable, "-m", twin_of(name)]
        command = Target.from_cli(naive, url=None, env_pairs=pairs, pass_env=PASS_ENV)
        # the twin's tools are the set's: those the drivable side declares destructive change
        changing = frozenset(t.name for t in load(name).tools.values() if t.effects.destructive)
        return EvalTarget(command, label=f"naive {name} (stdio)", destructive=changing)
    contract = load(name) if catalog is None else among(load(name), catalog)
    wide = [] if catalog is None else ["--catalog", str(catalog)]
    served = [sys.executable, "-m", "drivable.eval.surfaces", name, *wide]
    command = Target.from_cli(served, url=None, env_pairs=pairs, pass_env=PASS_ENV)
    return EvalTarget(command, contract=contract, label=f"drivable {name} (stdio)")


PASS_ENV = ("PYTHONPATH", "HOME", "XDG_CACHE_HOME", "DRIVABLE_CASELAW_DB")


def twin_of(name: str) -> str:
    """The module of an import-path set's naive twin (a distractor, or the naive side)."""
    twin = workflow_set(name).twin_module
    if twin is None:
        raise ValueError(f"{name}: its naive side is a command, not a module")
    return twin


def store_pairs(name: str, side: str, scratch: Path) -> list[str]:
    # each side its own scratch store: what one side changes never shows on the other
    env = workflow_set(name).store_env
    return [] if env is None else [f"{env}=sqlite:///{scratch / f'{name}-{side}.sqlite'}"]


def by_command(spec: WorkflowSet, side: str) -> EvalTarget:
    """A side given as a command line (`drivable.eval.commandsets`): every trial in a directory
    of its own, with the set's fixture data. A wrapped side has no contract in this process (the
    wrapper builds it from the upstream's listing), so it is judged as any server over the wire
    is: the arguments as sent, or as the result's notes say they were read."""
    from drivable.eval.commandsets import PerTrial

    made = PerTrial(spec, side)
    how = (
        "wrapped, stdio" if isinstance(spec.drivable, WrapSide) and side == "drivable" else "stdio"
    )
    return EvalTarget(made.described(), label=f"{side} {spec.name} ({how})", per_trial=made)
