# gpufleet. `make help` lists the targets.
GO      ?= go
SHELL   := /bin/bash
# One Go toolchain for every module, so that one build cache serves them
# all: the newest any module needs (karpenter-provider-aws v1.15.1 declares
# go 1.26.10). The go command fetches it from the module proxy once.
export GOTOOLCHAIN := go1.26.10
BIN     := bin/gpufleet
FLEETS  := $(notdir $(wildcard fleets/*))

.DEFAULT_GOAL := help

.PHONY: help
help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  %-22s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@for r in $(filter-out $(NPM_RUNGS),$(RUNGS)); do printf "  %-22s %s\n" "test-$$r" "$$(sed -n '1s/^# //p' ladder/$$r/README.md)"; done

.PHONY: build
build: ## Build bin/gpufleet
	$(GO) build -o $(BIN) ./cmd/gpufleet

.PHONY: run
run: ## Compile every example fleet into out/<fleet>
	@for f in $(FLEETS); do $(GO) run ./cmd/gpufleet build fleets/$$f -o out/$$f || exit $$?; done

.PHONY: test
# go vet runs once, first: go test's own vet pass would analyse every
# dependency again under another cache key (measured: 100 CPU-seconds in
# the kube-scheduler rung, as much as vet itself), so it is off there.
test: ## Run the test suite (what CI runs)
	$(GO) vet ./...
	$(GO) test -vet=off ./...
	$(MAKE) golden-check

.PHONY: golden
golden: ## Regenerate golden/ from fleets/
	$(GO) test ./compiler/ -run TestGolden -update

.PHONY: golden-check
golden-check: ## Fail if regenerating golden/ would change it
	$(GO) test -vet=off ./compiler/ -run TestGolden -update >/dev/null
	@git diff --exit-code --stat -- golden/ || { echo "golden/ is stale: run 'make golden' and commit"; exit 1; }
	@test -z "$$(git status --porcelain -- golden/)" || { git status --porcelain -- golden/; echo "golden/ has untracked files: run 'make golden' and commit"; exit 1; }

# The verification ladder (docs/architecture.md): each rung is a nested
# module under ladder/, named after the upstream component that judges the
# checker, and `make test-NAME` runs ladder/NAME (scripts/rung.sh). The first
# line of its README says what it judges; `make help` lists it from there.
RUNGS := $(notdir $(patsubst %/go.mod,%,$(wildcard ladder/*/go.mod)))

.PHONY: ladder
ladder: $(addprefix test-,$(RUNGS)) test-composed ## Run every rung of the verification ladder

# A rung whose test also needs packages from npm or Debian has a script of
# its own that installs them first, then runs scripts/rung.sh NAME.
NPM_RUNGS := workflow browser

.PHONY: $(addprefix test-,$(RUNGS))
$(addprefix test-,$(filter-out $(NPM_RUNGS),$(RUNGS))): test-%:
	scripts/rung.sh $*

test-browser: ## Chromium, headless, renders report/placement.html: its DOM and screenshot held to report/placement.json (scripts/browser.sh: installs Debian's chromium if missing, then the rung)
	scripts/browser.sh

test-workflow: ## actionlint v1.7.12 and GitHub's own workflow parser judge docs/github-actions/gpufleet.yml (scripts/workflow.sh: npm ci, then the rung)
	scripts/workflow.sh

# The composed rung has no module of its own: it runs a half in the Kueue
# rung's module and a half in the kube-scheduler rung's, handing over a file.
.PHONY: test-composed
test-composed: ## Kueue v0.19.2 admits and pins every queued unit, then kube-scheduler v1.36.5 places its pods: the composed differential (scripts/composed.sh)
	scripts/composed.sh

E2E_BIN ?= e2e/.bin

.PHONY: e2e
e2e: ## End to end: real etcd, kube-apiserver, kube-controller-manager, kube-scheduler, Kueue and the JobSet, LWS and Kubeflow Trainer controllers on loopback, E2E_SHARDS (3) at once (binaries cached in e2e/.bin)
	scripts/e2e.sh $(E2E_BIN)

.PHONY: fuzz
fuzz: ## Run each fuzz target for FUZZTIME (default 30s)
	FUZZTIME=$${FUZZTIME:-30s} scripts/fuzz.sh

# cue, whose export of the same spec is the floor 'make bench' compares
# against, is built once into a git-ignored directory.
CUE_VERSION := v0.17.1
CUE         := .cache/cue-$(CUE_VERSION)/cue
BENCH_RUNS  ?= 5
# Where benchrun writes specs and trees; BENCH_DIR=/dev/shm leaves out the
# disk's cost of creating thousands of files. BENCH_DISK=1 also times
# extracting each tree with tar, the floor of a fresh build on disk.
BENCH_DIR   ?=
BENCH_DISK  ?=

$(CUE):
	GOBIN=$(abspath $(dir $(CUE))) $(GO) install cuelang.org/go/cmd/cue@$(CUE_VERSION)

.PHONY: bench
bench: $(CUE) ## Stage benchmarks, then whole-process fresh build, rebuild and check vs the cue export floor (S, M, L, XL), the live paths vs their decode, and dense fleets at and past the bound
	$(GO) test ./compiler/ -run '^$$' -bench . -benchmem
	$(GO) build -o $(BIN) ./cmd/gpufleet
	$(GO) run ./internal/benchrun -gpufleet $(BIN) -cue $(CUE) -runs $(BENCH_RUNS) $(if $(BENCH_DIR),-dir $(BENCH_DIR)) $(if $(BENCH_DISK),-disk)

.PHONY: bench-kube-scheduler
bench-kube-scheduler: ## Benchmark kube-scheduler's own Filter plugins (ladder/kube-scheduler)
	cd ladder/kube-scheduler && $(GO) test -run '^$$' -bench Filters .

.PHONY: lint-ladder
# Not in CI: vetting a rung type-checks every dependency for facts (64 to 80
# CPU-seconds each for the Kueue, kube-scheduler and Karpenter rungs), more
# than CI's 30-minute budget leaves; gofmt in `lint` covers the rungs' files.
lint-ladder: ## go vet every rung of the ladder (its own code; not in CI)
	@for r in $(RUNGS); do echo "== vet ladder/$$r"; RUNG_VET=1 scripts/rung.sh $$r || exit $$?; done

.PHONY: align-pins
align-pins: ## Raise every module's lower pin of a shared dependency to the highest, so all build one set (scripts/align-pins.sh)
	scripts/align-pins.sh

# goreleaser through the Go module proxy, as .github/workflows/release.yml
# runs it. Not in CI: its cold install took 16.5 min here (docs/install.md).
GORELEASER := $(GO) run github.com/goreleaser/goreleaser/v2@v2.17.0

.PHONY: release-check release-snapshot
release-check: ## goreleaser check on .goreleaser.yaml
	$(GORELEASER) check

release-snapshot: ## goreleaser's snapshot release into dist/ (the four binaries, archives, checksums), publishing nothing
	$(GORELEASER) release --snapshot --clean --skip=publish

.PHONY: lint
lint: ## gofmt and go vet
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet ./...
