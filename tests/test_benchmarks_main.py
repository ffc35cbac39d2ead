"""`python -m benchmarks NAME...` runs the benchmarks named, and only those; a name that is not a
benchmark is refused with the names that are (it used to run every benchmark whatever was asked)."""

import re
from pathlib import Path

import benchmarks
import pytest
from benchmarks import __main__ as run_benchmarks


def test_the_names_are_the_bench_modules_on_disk() -> None:
    on_disk = sorted(p.stem for p in Path(benchmarks.__path__[0]).glob("bench_*.py"))
    assert run_benchmarks.names() == on_disk


def test_a_name_that_is_no_benchmark_is_refused_with_the_names(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_benchmarks.main(["bench_listing", "bench_nope"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "bench_nope" in captured.err and "bench_listing" in captured.err


def test_a_benchmark_named_is_the_only_one_run(capsys: pytest.CaptureFixture[str]) -> None:
    run_benchmarks.main(["bench_surface"])
    headers = re.findall(r"^== (\w+)$", capsys.readouterr().out, re.M)
    assert headers == ["bench_surface"]
