# gpufleet. `make help` lists the targets.
GO      ?= go
SHELL   := /bin/bash
BIN     := bin/gpufleet
FLEETS  := $(notdir $(wildcard fleets/*))

.DEFAULT_GOAL := help

.PHONY: help
help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: build
build: ## Build bin/gpufleet
	$(GO) build -o $(BIN) ./cmd/gpufleet

.PHONY: run
run: ## Compile every example fleet into out/<fleet>
	@for f in $(FLEETS); do $(GO) run ./cmd/gpufleet build fleets/$$f -o out/$$f || exit $$?; done

.PHONY: test
test: ## Run the test suite (what CI runs)
	$(GO) vet ./...
	$(GO) test ./...
	$(MAKE) golden-check

.PHONY: golden
golden: ## Regenerate golden/ from fleets/
	$(GO) test ./compiler/ -run TestGolden -update

.PHONY: golden-check
golden-check: ## Fail if regenerating golden/ would change it
	$(GO) test ./compiler/ -run TestGolden -update >/dev/null
	@git diff --exit-code --stat -- golden/ || { echo "golden/ is stale: run 'make golden' and commit"; exit 1; }
	@test -z "$$(git status --porcelain -- golden/)" || { git status --porcelain -- golden/; echo "golden/ has untracked files: run 'make golden' and commit"; exit 1; }

.PHONY: test-kubesched
test-kubesched: ## Differential test against kube-scheduler v1.35.4 (nested module; first build takes minutes)
	set -o pipefail; cd kubesched && $(GO) vet ./... && $(GO) test ./... -v -count=1 2>&1 | grep --line-buffered -vE '^\s*$$|^=== (PAUSE|CONT)' 

.PHONY: test-kueue
test-kueue: ## Differential test against Kueue v0.19.2's own flavor assigner (nested module; first build takes minutes)
	set -o pipefail; cd kueuediff && $(GO) vet ./... && $(GO) test ./... -v -count=1 2>&1 | grep --line-buffered -vE '^\s*$$|^=== (PAUSE|CONT)'

# karpenter-provider-aws v1.15.1 declares go 1.26.10: GOTOOLCHAIN=auto lets
# the go command fetch that toolchain from the module proxy when the
# installed Go is older (go.env may say local).
.PHONY: test-nodes
test-nodes: ## Hold the instance catalog to karpenter-provider-aws v1.15.1's EC2 data and instance-type computation (nested module; first build takes minutes)
	set -o pipefail; export GOTOOLCHAIN=auto; cd nodediff && $(GO) vet ./... && $(GO) test ./... -v -count=1 2>&1 | grep --line-buffered -vE '^\s*$$|^=== (RUN|PAUSE|CONT)'

# The test runs inside the NVIDIA device plugin's own main package: the
# script copies the pinned module (verified against third_party/upstream's
# go.sum) into devicediff/.upstream and overlays devicediff/testdata there.
DEVICE_PLUGIN   := github.com/NVIDIA/k8s-device-plugin
DEVICEDIFF_PKG  := cmd/nvidia-device-plugin

.PHONY: test-deviceplugin
test-deviceplugin: ## Hold the GPUs nodes advertise and DevicePluginAllocate to the NVIDIA device plugin v0.18.0's own code (nested module)
	scripts/upstream-overlay.sh devicediff $(DEVICE_PLUGIN) $(DEVICEDIFF_PKG)
	set -o pipefail; cd devicediff && $(GO) vet . && $(GO) test -overlay .upstream/overlay.json $(DEVICE_PLUGIN)/$(DEVICEDIFF_PKG) -v -count=1 -args -repo=$(CURDIR) 2>&1 | grep --line-buffered -vE '^\s*$$|^=== (RUN|PAUSE|CONT)'

# eksctl v0.230.0 declares go 1.26.5: GOTOOLCHAIN=auto fetches it.
.PHONY: test-eksctl
test-eksctl: ## Load, default and validate every fleet's eksctl file with eksctl v0.230.0's own code, and hold its managed node groups to the checker's (nested module)
	set -o pipefail; export GOTOOLCHAIN=auto; cd eksctldiff && $(GO) vet ./... && $(GO) test ./... -v -count=1 2>&1 | grep --line-buffered -vE '^\s*$$|^=== (RUN|PAUSE|CONT)'

# nodeadm writes the kubelet configuration of the EKS AL2023 AMI that
# managed node groups run; the test runs inside its internal/kubelet.
NODEADM     := github.com/awslabs/amazon-eks-ami/nodeadm
AMIDIFF_PKG := internal/kubelet

.PHONY: test-ami
test-ami: ## Hold the catalog's max pods, kube-reserved and eviction threshold to nodeadm's own kubelet configuration (EKS AL2023 AMI; nested module)
	scripts/upstream-overlay.sh amidiff $(NODEADM) $(AMIDIFF_PKG)
	set -o pipefail; cd amidiff && $(GO) vet . && $(GO) test -overlay .upstream/overlay.json $(NODEADM)/$(AMIDIFF_PKG) -run TestGpufleet -v -count=1 2>&1 | grep --line-buffered -vE '^\s*$$|^=== (RUN|PAUSE|CONT)'

E2E_BIN ?= e2e/.bin

.PHONY: e2e
e2e: ## End to end: real etcd, kube-apiserver, kube-scheduler and Kueue on loopback (first build ~15 min, cached in e2e/.bin)
	scripts/e2e-binaries.sh $(E2E_BIN)
	set -o pipefail; cd e2e && $(GO) vet ./... && E2E_BIN=$(abspath $(E2E_BIN)) $(GO) test ./... -v -count=1 -timeout 45m 2>&1 | grep --line-buffered -vE '^\s*$$'

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
bench: $(CUE) ## Stage benchmarks, then whole-process fresh build, rebuild and check vs the cue export floor (S, M, L, XL)
	$(GO) test ./compiler/ -run '^$$' -bench . -benchmem
	$(GO) build -o $(BIN) ./cmd/gpufleet
	$(GO) run ./internal/benchrun -gpufleet $(BIN) -cue $(CUE) -runs $(BENCH_RUNS) $(if $(BENCH_DIR),-dir $(BENCH_DIR)) $(if $(BENCH_DISK),-disk)

.PHONY: bench-kubesched
bench-kubesched: ## Benchmark kube-scheduler's own Filter plugins (nested module)
	cd kubesched && $(GO) test -run '^$$' -bench Filters .

.PHONY: lint
lint: ## gofmt and go vet
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet ./...
