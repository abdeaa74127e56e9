// Nested module for the workflow rung (scripts/workflow.sh): actionlint
// v1.7.12 and GitHub's own workflow parser (@actions/workflow-parser,
// npm, package.json) judge docs/github-actions/gpufleet.yml, the workflow
// users copy. A module of its own so that the root module stays free of
// actionlint and its dependencies.
module github.com/gpufleet/gpufleet/ladder/workflow

go 1.26.0

// npm ci puts GitHub's parser here; no Go package is in it.
ignore ./node_modules

require github.com/rhysd/actionlint v1.7.12

require (
	github.com/bmatcuk/doublestar/v4 v4.10.0 // indirect
	github.com/clipperhouse/uax29/v2 v2.7.0 // indirect
	github.com/fatih/color v1.19.0 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/mattn/go-runewidth v0.0.21 // indirect
	github.com/mattn/go-shellwords v1.0.12 // indirect
	github.com/robfig/cron/v3 v3.0.1 // indirect
	go.yaml.in/yaml/v4 v4.0.0-rc.3 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)
