# One-command targets: each installs into .venv first when needed.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: install test lint bench demo proto clean

# constraints.txt: the exact versions tested (pip's resolver alone took 30+ minutes without
# them on a fresh machine, backtracking over botocore's pins).
$(STAMP): pyproject.toml setup.py constraints.txt $(wildcard reader/_native/*.c reader/_native/*.h)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[tf,dev]'
	touch $(STAMP)

install: $(STAMP)

# Three workers on CI's two cores (with two, tests/tui kept the cores 77% busy: tests wait on
# subprocesses, servers and the TUI's workers; with three the whole suite took 13m54s on a quiet
# machine, CPU 96% busy), a test file per worker at a time: files with their own TensorFlow
# fixtures build them once; shared fixtures are built once per run (tests/support/shared.py).
# pytest exits 5 when it collected no tests; that is not a failure of the suite.
# A worker that crashes is not replaced: the run stops, red, naming the test. A replaced one
# can leave the loadfile scheduler waiting forever (pytest-dev/pytest-xdist#1378).
test: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider -n 3 --dist loadfile --max-worker-restart=0 tests; rc=$$?; if [ $$rc -eq 5 ]; then echo "no tests collected"; exit 0; fi; exit $$rc

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

bench: $(STAMP)
	$(PY) -m benchmarks.run

demo: $(STAMP)
	$(VENV)/bin/tfdbg-tui demo

# Regenerates reader/proto/tfdbg_events_pb2.py. protoc 31.1 (grpcio-tools 1.74) emits gencode 6.31.1,
# the oldest protobuf runtime we support, in a separate tool venv so .venv's protobuf is untouched.
proto:
	test -x .venv-proto/bin/python || $(PYTHON) -m venv .venv-proto
	.venv-proto/bin/pip install --quiet "grpcio-tools==1.74.0"
	cd reader/proto && ../../.venv-proto/bin/python -m grpc_tools.protoc -I. --python_out=. --pyi_out=. tfdbg_events.proto tfdbg_lite.proto

clean:
	rm -rf $(VENV) .venv-proto build *.egg-info
