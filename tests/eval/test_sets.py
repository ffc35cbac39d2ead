"""Every bundled set says what it serves in both forms, and splits its workflows into tune and holdout."""

from __future__ import annotations

import importlib

import pytest

from drivable.eval.surfaces import load
from drivable.eval.workflow import SPLITS, bundled, bundled_sets, workflow_set

IMPORTED = [name for name in bundled_sets() if not workflow_set(name).by_command]


@pytest.mark.parametrize("name", IMPORTED)
def test_a_set_names_a_loadable_contract_and_a_naive_twin(name: str) -> None:
    spec = workflow_set(name)
    assert load(name).tools  # the drivable side, as the eval serves it
    assert importlib.import_module(str(spec.twin_module)).server is not None


@pytest.mark.parametrize("name", bundled_sets())
def test_every_workflow_knows_its_split_and_the_splits_partition_the_set(name: str) -> None:
    every = bundled(name)
    assert every and all(w.split in SPLITS for w in every)
    by_split = [w.name for part in SPLITS for w in bundled(name, part)]
    assert by_split == [w.name for w in every]
    assert len(set(by_split)) == len(by_split)


def test_an_unknown_set_is_refused_naming_the_sets_there_are() -> None:
    with pytest.raises(LookupError) as refused:
        bundled("no-such-set")
    assert all(name in str(refused.value) for name in bundled_sets())
