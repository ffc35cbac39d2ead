"""Start-up time of the command line, as a ratio to `python -c pass` measured in the same run.

`drivable --help` and `drivable --version` import the dispatcher alone; `drivable read` imports the
kinds (and pydantic) and the one command module. Each command line runs RUNS times, alternating
with the baseline so drift hits both alike; the median wall time is reported. Targets, as ratios
so that a loaded machine slows both sides alike: `--help` and `--version` at most 3x the bare
interpreter, a command at most 15x (about 0.3 s on an idle machine, where `python -c pass` takes
about 20 ms).

    python -m benchmarks.bench_cli [runs]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

RUNS = 15
HELP_RATIO = 3.0
COMMAND_RATIO = 15.0
LINES: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "drivable --help": [sys.executable, "-m", "drivable", "--help"],
    "drivable --version": [sys.executable, "-m", "drivable", "--version"],
    "drivable read limit 500": [sys.executable, "-m", "drivable", "read", "limit", "500"],
    "drivable serve -h": [sys.executable, "-m", "drivable", "serve", "-h"],
}


def measure(runs: int) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in LINES}
    for _ in range(runs):
        for name, argv in LINES.items():
            start = time.perf_counter()
            subprocess.run(argv, capture_output=True, check=True)
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in samples.items()}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    runs = int(args[0]) if args else RUNS
    medians = measure(runs)
    base = medians["python -c pass"]
    status = 0
    print(f"command-line start-up, median of {runs} runs (ratio to `python -c pass`)")
    for name, seconds in medians.items():
        ratio = seconds / base
        target = HELP_RATIO if name.endswith(("--help", "--version")) else COMMAND_RATIO
        verdict = ""
        if name != "python -c pass" and ratio > target:
            verdict, status = f"  OVER the {target}x target", 1
        print(f"  {name:26} {seconds * 1000:7.1f} ms  {ratio:5.2f}x{verdict}")
    return status


if __name__ == "__main__":
    sys.exit(main())
