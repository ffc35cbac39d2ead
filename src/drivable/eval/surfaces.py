"""The drivable side of each bundled workflow set, as a model sees it: no test tools.

The example notes server (tests/contract/example_server.py) is the runtime's test server and
carries `check_failure`, a tool that fails on purpose to prove no exception text leaks. A model
shown it reads it as part of the product, so the eval serves the example contract without the
tools named in TEST_TOOLS. `python -m drivable.eval.surfaces example` serves that over stdio
(from the repository root, where `tests/` is importable); `--catalog N` serves a set's tools among
other domains', N in all.
"""

from __future__ import annotations

import copy
import importlib
import os
import sys

from drivable.contract import Contract
from drivable.eval.workflow import workflow_set

TEST_TOOLS = frozenset({"check_failure"})


def without_test_tools(contract: Contract) -> Contract:
    """A shallow copy of `contract` that lists no test tool (the original is left as it is)."""
    if not TEST_TOOLS & set(contract.tools):
        return contract
    trimmed = copy.copy(contract)
    trimmed.tools = {k: v for k, v in contract.tools.items() if k not in TEST_TOOLS}
    trimmed._fingerprint = None
    return trimmed


def load(name: str) -> Contract:
    """The drivable contract of a bundled set (its set.yaml names it), without test tools."""
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    path = workflow_set(name).drivable
    if not isinstance(path, str):  # a command line (a wrapped server): no contract in process
        raise TypeError(f"{name}: its drivable side is a command, not an import path")
    module, _, attr = path.partition(":")
    found = getattr(importlib.import_module(module), attr)
    contract = found() if callable(found) and not isinstance(found, Contract) else found
    if not isinstance(contract, Contract):
        raise TypeError(f"{path} is not a Contract")
    return without_test_tools(contract)


if __name__ == "__main__":
    from drivable.eval.catalog import among
    from drivable.serve import run_stdio

    # NAME [--catalog N]: the set's contract, or the set's tools among N (`drivable.eval.catalog`)
    served = load(sys.argv[1] if len(sys.argv) > 1 else "example")
    if "--catalog" in sys.argv:
        served = among(served, int(sys.argv[sys.argv.index("--catalog") + 1]))
    run_stdio(served)
