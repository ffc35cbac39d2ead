"""Start-up time of the command line, as a ratio to `python -c pass` measured in the same run.

`drivable --help` and `drivable --version` import the dispatcher alone; `drivable read` imports the
one command module and the one kind it reads (`limit`: the integer reader), never pydantic's seam
or the locale and country data of the other kinds. Each command line runs RUNS times, alternating
with the baseline so drift hits both alike; the median wall time is reported. Targets, as ratios
so that a loaded machine slows both sides alike: `import drivable` (the authors' namespace, each
name imported on first use), `--help` and `--version` at most 2x the bare interpreter, through
`python -m drivable` and through the `drivable` console script alike.

A command's floor is Typer's: running any Typer command (0.2x and later) coerces its parameters
through pydantic, which costs more than the rest of a start-up. `typer, one command` measures that
floor (a bare Typer app reading two strings), and a command is judged by its ratio to it: what
drivable itself adds, at most COMMAND_OVER_TYPER.

    python -m benchmarks.bench_cli [runs]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

RUNS = 15
HELP_RATIO = 2.0
COMMAND_OVER_TYPER = 1.5
TYPER_FLOOR = "typer, one command"
_BARE_TYPER = (
    "import typer\n"
    "app = typer.Typer()\n"
    "@app.command()\n"
    "def read(kind: str, value: str) -> None:\n"
    "    print(kind, value)\n"
    "app(['limit', '500'])\n"
)
LINES: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    TYPER_FLOOR: [sys.executable, "-c", _BARE_TYPER],
    "import drivable": [sys.executable, "-c", "import drivable"],
    "drivable --help": [sys.executable, "-m", "drivable", "--help"],
    "drivable --version": [sys.executable, "-m", "drivable", "--version"],
    "drivable read limit 500": [sys.executable, "-m", "drivable", "read", "limit", "500"],
    "drivable serve -h": [sys.executable, "-m", "drivable", "serve", "-h"],
}
# The console script an installed `drivable` runs (no runpy): beside the interpreter, if installed.
_SCRIPT = Path(sys.executable).with_name("drivable")
if _SCRIPT.exists():
    LINES["drivable --help (script)"] = [str(_SCRIPT), "--help"]
# What no command's module is imported for: held to HELP_RATIO.
HELD_TO_HELP_RATIO = frozenset(
    {"import drivable", "drivable --help", "drivable --version", "drivable --help (script)"}
)


def measure(runs: int) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in LINES}
    for _ in range(runs):
        for name, argv in LINES.items():
            start = time.perf_counter()
            # A bare Typer app exits through SystemExit(0) like any Typer command.
            subprocess.run(argv, capture_output=True, check=True)
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in samples.items()}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    runs = int(args[0]) if args else RUNS
    medians = measure(runs)
    base = medians["python -c pass"]
    floor = medians[TYPER_FLOOR]
    status = 0
    print(
        f"command-line start-up, median of {runs} runs "
        f"(ratio to `python -c pass`; a command's also to `{TYPER_FLOOR}`)"
    )
    for name, seconds in medians.items():
        ratio = seconds / base
        verdict = ""
        if name in HELD_TO_HELP_RATIO and ratio > HELP_RATIO:
            verdict, status = f"  OVER the {HELP_RATIO}x target", 1
        over_typer = ""
        if name.startswith("drivable ") and name not in HELD_TO_HELP_RATIO | {"drivable serve -h"}:
            over_typer = f"  {seconds / floor:5.2f}x typer"
            if seconds / floor > COMMAND_OVER_TYPER:
                verdict, status = f"  OVER the {COMMAND_OVER_TYPER}x-typer target", 1
        print(f"  {name:26} {seconds * 1000:7.1f} ms  {ratio:5.2f}x{over_typer}{verdict}")
    return status


if __name__ == "__main__":
    sys.exit(main())
