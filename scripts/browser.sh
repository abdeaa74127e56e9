#!/usr/bin/env bash
# browser.sh: runs the browser rung, ladder/browser: headless Chromium
# renders each example fleet's report/placement.html, and its DOM and
# screenshot are held to the tree's report/placement.json.
#
# Chromium is Debian's package, installed (as root, or with sudo) only
# when no Chromium is found: `apt-get install --no-install-recommends
# chromium`, after `apt-get update` if apt knows no candidate. $CHROMIUM
# names another binary. Then scripts/rung.sh runs the Go test, which fails
# (never skips) without Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
have() {
	[[ -n ${CHROMIUM:-} && -x ${CHROMIUM} ]] && return 0
	command -v chromium >/dev/null || command -v chromium-browser >/dev/null ||
		command -v google-chrome >/dev/null || command -v google-chrome-stable >/dev/null
}
if ! have; then
	command -v apt-get >/dev/null || { echo "browser.sh: no Chromium and no apt-get: install Chromium and set \$CHROMIUM to its binary" >&2; exit 2; }
	sudo=()
	if [[ $(id -u) != 0 ]]; then
		command -v sudo >/dev/null || { echo "browser.sh: no Chromium, and installing it needs root (apt-get install chromium)" >&2; exit 2; }
		sudo=(sudo)
	fi
	start=$SECONDS
	if ! apt-cache policy chromium 2>/dev/null | grep -q 'Candidate: [0-9]'; then
		"${sudo[@]}" apt-get update -qq
	fi
	# noninteractive: no debconf prompt stops a CI run.
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
	echo "browser.sh: installed $(chromium --version) in $((SECONDS - start)) s"
fi
exec scripts/rung.sh browser
