#!/usr/bin/env bash
# Builds the static site into OUT: OUT/index.html (the reference of every variable of both
# editions) and OUT/playground.html (svcgen compiled to WebAssembly, embedded: it checks and
# renders a profile as you type). Both open from file:// with no server and no network.
#
#   scripts/site.sh OUT
#
# Needs: rustup (it adds the wasm32-unknown-unknown target, once) and cargo; nothing else.
set -euo pipefail
if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: scripts/site.sh OUT" >&2
  exit 2
fi
out=$1
case "$out" in
  /*) ;;
  *) out="$PWD/$out" ;;
esac
cd "$(dirname "$0")/.."

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  echo "== adding the wasm32-unknown-unknown target (rustup)" >&2
  if ! rustup target add wasm32-unknown-unknown; then
    echo "error: rustup could not add the wasm32-unknown-unknown target; the playground needs it" >&2
    exit 1
  fi
fi

target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
echo "== building the WebAssembly module (profile wasm: size-optimized release)" >&2
cargo build --quiet --profile wasm --locked -p svcgen-web --lib --target wasm32-unknown-unknown
wasm="$target_dir/wasm32-unknown-unknown/wasm/svcgen_web.wasm"

echo "== writing the pages into $out" >&2
cargo run --quiet --locked -p svcgen-web --features site --bin svcgen-site -- "$out" "$wasm" examples
