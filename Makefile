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

.PHONY: lab test setup setup-test doctor test-go test-race test-notebooks test-browser lint bench clean

## lab: set up if needed, then start JupyterLab on 127.0.0.1 (token auth) in notebooks/; another port: make lab PORT=8890
lab: setup
	@if (exec 3<>/dev/tcp/127.0.0.1/$(PORT)) 2>/dev/null; then \
	  echo "make lab: port $(PORT) is taken (another JupyterLab?): JupyterLab takes the next free port; the URL below says which. To choose one: make lab PORT=8890"; \
	fi
	$(VENV)/bin/jupyter lab --ip=127.0.0.1 --port=$(PORT) --no-browser \
	  --ServerApp.root_dir=$(CURDIR)/notebooks --MultiKernelManager.default_kernel_name=whygpu \
	  $(if $(filter 0,$(shell id -u)),--allow-root)

## test: set up (with test tools) if needed, then run every test: Go, notebooks, lint, browser, classroom, image; ends with a timeline of the stages (build/test-timeline.tsv)
test:
	@scripts/stages.sh setup-test lint test-go test-race test-notebooks test-browser test-classroom test-image

setup:
	@scripts/setup.sh

setup-test:
	@scripts/setup.sh --browser

## test-go: Go unit tests and examples; a test that needs the XLA CPU plugin fails (not skips) without it
test-go:
	go vet ./...
	WHYGPU_REQUIRE_PLUGIN=1 go test -count=1 ./...

## test-race: pkg/ under the race detector (checkptr off in gomlx/compute only: its Go-backend matmul trips it; TestMain: internal/testmain)
test-race:
	WHYGPU_REQUIRE_PLUGIN=1 go test -race -gcflags=github.com/gomlx/compute/...=-d=checkptr=0 -count=1 ./pkg/...

## test-notebooks: execute every notebook headless through Jupyter with the real course kernel
test-notebooks:
	$(VENV)/bin/pytest -q tests

## doctor: print what is installed and, for each missing piece, the fix
doctor:
	@go run ./cmd/whygpu doctor

## bench: GoMLX xla:cpu vs JAX (and numpy, the Go backend), same shapes, interleaved (bench-only venv .venv/bench)
bench: setup $(VENV)/bench/.installed
	go run ./cmd/whygpu bench

# The bench's own venv (requirements-bench.txt: jax[cpu], numpy), so `make lab` never needs JAX.
$(VENV)/bench/.installed: requirements-bench.txt
	rm -rf $(VENV)/bench
	python3 -m venv $(VENV)/bench
	$(VENV)/bench/bin/pip install --quiet --disable-pip-version-check -r requirements-bench.txt
	touch $@

clean:
	rm -rf $(VENV) build tests/artifacts go.work go.work.sum

.PHONY: test-classroom
## test-classroom: the classroom (docker/): start hook, JupyterHub, parsers (the image itself: test-image)
test-classroom: setup
	cd docker/dockertest && GOWORK=off go vet ./... && GOWORK=off go test -count=1 ./...
	$(VENV)/bin/pytest -q docker/tests --ignore=docker/tests/image

.PHONY: test-cuda-setup
## test-cuda-setup: scripts/setup.sh --cuda in a scratch copy (downloads 2.1 GB of NVIDIA wheels; not part of make test)
test-cuda-setup: setup
	$(VENV)/bin/pytest -q docker/tests/cuda_setup_check.py

.PHONY: test-image
## test-image: build docker/Dockerfile for real (buildah, on a stand-in base; installs buildah) and run the course in it, offline
test-image: setup
	$(VENV)/bin/pytest -q -s docker/tests/image

# --- Authoring tools: cmd/whygpu check|run|new|record (lessons/AUTHORING.md) ---
.PHONY: run-notebooks new record whygpu-bin

## lint: notebook conventions (whygpu check): kernel, stripped outputs, objectives, recall checks, recap, gofmt, imports; gofmt of every Go file
lint:
	go run ./cmd/whygpu check -q
	@unformatted="$$(gofmt -l $$(git ls-files '*.go'))"; \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed (run gofmt -w on these):"; echo "$$unformatted"; exit 1; fi

## test-browser: the course in JupyterLab in Debian's headless Chromium (screenshots: tests/artifacts/browser/)
test-browser: setup-test
	go test -tags browser -count=1 -timeout 30m -v ./tests/browser/

## run-notebooks: execute every notebook (or NB=01-race) through the course kernel; executed copies + HTML in build/
run-notebooks: setup
	go run ./cmd/whygpu run $(NB)

## new: scaffold a lesson: make new LESSON=07-feeding TITLE="Feeding the device"
new:
	@test -n "$(LESSON)" -a -n "$(TITLE)" || { echo 'usage: make new LESSON=NN-topic TITLE="Title"' >&2; exit 2; }
	go run ./cmd/whygpu new $(LESSON) "$(TITLE)"

## record: run every experiment on a device into lessons/reference: make record DEVICE=xla:cuda [SCALE=gpu] [ONLY=01-race]
record: setup
	@test -n "$(DEVICE)" || { echo 'usage: make record DEVICE=xla:cuda [SCALE=gpu|laptop] [ONLY=lesson/name,...] [OUT=dir]' >&2; exit 2; }
	go run ./cmd/whygpu record -device $(DEVICE) $(if $(SCALE),-scale $(SCALE)) $(if $(ONLY),-only $(ONLY)) $(if $(OUT),-out $(OUT))

## whygpu-bin: build/whygpu, self-contained (-trimpath), to carry to a machine without Go (the GPU machine), and build/whygpu.version (the commit it was built from)
whygpu-bin:
	go build -trimpath -ldflags="-s -w" -o build/whygpu ./cmd/whygpu
	@echo "built $$(date -u +%Y-%m-%dT%H:%M:%SZ) from $$(git rev-parse --short HEAD 2>/dev/null || echo 'no git')$$(git status --porcelain 2>/dev/null | grep -q . && echo ' (with uncommitted changes)')" > build/whygpu.version
