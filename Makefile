# The course's commands. The README's two: `make lab` (start the course) and `make test` (all tests).
SHELL := /bin/bash
VENV  := $(CURDIR)/.venv
export GOTOOLCHAIN := local
export GOMLX_NO_AUTO_INSTALL := 1
export PJRT_PLUGIN_LIBRARY_PATH := $(VENV)/lib/pjrt
export JUPYTER_PATH := $(VENV)/share/jupyter
export WHYGPU_ROOT := $(CURDIR)
export TF_CPP_MIN_LOG_LEVEL := 2
export CGO_CFLAGS := -O2 -g -Wno-deprecated-declarations
export GOFLAGS := -buildvcs=false
PORT ?= 8888

.PHONY: lab test setup setup-test doctor test-go test-notebooks test-browser lint bench clean

## lab: set up if needed, then start JupyterLab on 127.0.0.1 (token auth) in notebooks/
lab: setup
	$(VENV)/bin/jupyter lab --ip=127.0.0.1 --port=$(PORT) --no-browser \
	  --ServerApp.root_dir=$(CURDIR)/notebooks --MultiKernelManager.default_kernel_name=whygpu

## test: set up (with test tools) if needed, then run every test: Go, notebooks, lint, browser
test: setup-test
	$(MAKE) --no-print-directory test-go test-notebooks

setup:
	@scripts/setup.sh

setup-test:
	@scripts/setup.sh --browser

## test-go: Go unit tests and examples
test-go:
	go vet ./...
	go test -count=1 ./...

## test-notebooks: execute every notebook headless through Jupyter with the real course kernel
test-notebooks:
	$(VENV)/bin/pytest -q tests

## doctor: print what is installed and, for each missing piece, the fix
doctor:
	@go run ./cmd/whygpu doctor

## bench: f32 matmul GFLOP/s, xla:cpu vs the Go backend vs numpy
bench: setup
	go run ./cmd/whygpu bench

clean:
	rm -rf $(VENV) build tests/artifacts
