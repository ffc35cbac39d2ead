"""The billing benchmark runs through every step it times: a tool's contract changed under it
(a refund without `dry_run` became a refusal asking for confirmation) and `python -m benchmarks`
stopped at it, unnoticed, since nothing ran it."""

import re

import pytest
from benchmarks import bench_billing


def test_the_billing_benchmark_times_every_step(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_billing.main(["--calls", "3"]) == 0
    out = capsys.readouterr().out
    for step in (
        "find_invoices",
        "get_invoice",
        "refund dry run",
        "refund confirmed",
        "refund replay",
    ):
        assert re.search(rf"^sqlite\s+{step}\s+median\s+[\d.]+ ms", out, re.M), out
