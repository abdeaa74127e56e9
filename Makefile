# gpufleet. `make help` lists the targets.
GO      ?= go
SHELL   := /bin/bash
BIN     := bin/gpufleet
FLEETS  := $(notdir $(wildcard fleets/*))

.DEFAULT_GOAL := help

.PHONY: help
help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-10s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

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
	set -o pipefail; cd kubesched && $(GO) vet ./... && $(GO) test ./... -v -count=1 2>&1 | grep -vE '^\s*$$|^=== (PAUSE|CONT)' 

.PHONY: fuzz
fuzz: ## Run each fuzz target for FUZZTIME (default 30s)
	FUZZTIME=$${FUZZTIME:-30s} scripts/fuzz.sh

.PHONY: bench
bench: ## Run the benchmarks
	$(GO) test ./compiler/ -run '^$$' -bench . -benchmem
	cd kubesched && $(GO) test -run '^$$' -bench Filters .

.PHONY: lint
lint: ## gofmt and go vet
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet ./...
