#!/usr/bin/env bash
# Builds the svcgen image: a static svcgen (musl) in an OCI image FROM scratch (Containerfile),
# written as an OCI archive, with buildah and no daemon.
#
#   scripts/image.sh OUT.tar      # then: podman load -i OUT.tar   (or skopeo copy oci-archive:OUT.tar ...)
#
# Needs: Rust with rustup (it adds the x86_64-unknown-linux-musl target), a C compiler (musl-gcc
# from Debian's musl-tools, else gcc) and buildah (Debian: apt-get install buildah). buildah
# runs with `--isolation chroot` and its own storage in a temporary folder, removed afterwards:
# nothing is left in the user's image store, and no base image is pulled. OUT.tar is replaced
# only once the archive is complete.
set -euo pipefail
if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: scripts/image.sh OUT.tar" >&2
  exit 2
fi
out="$1"
case "$out" in
  *.tar) ;;
  *) echo "scripts/image.sh: $out: the archive's name must end in .tar" >&2; exit 2 ;;
esac
if [ -d "$out" ]; then
  echo "scripts/image.sh: $out is a folder: give the archive's file name" >&2
  exit 2
fi
out_dir=$(cd "$(dirname "$out")" 2>/dev/null && pwd) || { echo "scripts/image.sh: $(dirname "$out"): no such folder" >&2; exit 2; }
out="$out_dir/$(basename "$out")"
case "$out" in
  *:*) echo "scripts/image.sh: $out: a name with ':' cannot be an oci-archive path" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."

for tool in cargo rustup buildah; do
  if ! command -v "$tool" >/dev/null; then
    echo "scripts/image.sh: $tool is missing (buildah: apt-get install buildah)" >&2
    exit 2
  fi
done

target=x86_64-unknown-linux-musl
version=$(cargo metadata --no-deps --format-version 1 --locked |
  python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "svcgen"))')
rustup target add "$target" >&2
# With every default feature, "live" (preflight's network clients) included: its TLS stack
# (ring) compiles C for the target, with musl-gcc when it is there (Debian: musl-tools), else
# the host's gcc (ring's C needs no libc headers of its own; the binary is still linked
# statically against Rust's own musl). The public TLS roots are compiled in (webpki-roots,
# through ureq): the image has no CA bundle.
if [ -z "${CC_x86_64_unknown_linux_musl:-}" ]; then
  if command -v musl-gcc >/dev/null; then
    export CC_x86_64_unknown_linux_musl=musl-gcc
  elif command -v gcc >/dev/null; then
    export CC_x86_64_unknown_linux_musl=gcc
  else
    echo "scripts/image.sh: no C compiler for musl (apt-get install musl-tools, or gcc)" >&2
    exit 2
  fi
fi
cargo build --release --locked --target "$target" --bin svcgen >&2

work=$(mktemp -d)
trap 'buildah --root "$work/storage" --runroot "$work/run" --storage-driver vfs rm --all >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
mkdir "$work/context"
cp "${CARGO_TARGET_DIR:-target}/$target/release/svcgen" "$work/context/svcgen"
store=(--root "$work/storage" --runroot "$work/run" --storage-driver vfs)
image="localhost/svcgen:$version"
# Timestamps from SOURCE_DATE_EPOCH (else 0): the same binary gives the same image.
buildah "${store[@]}" bud --isolation chroot --layers=false --timestamp "${SOURCE_DATE_EPOCH:-0}" \
  -f "$PWD/Containerfile" -t "$image" "$work/context" >&2
partial="$out_dir/.$(basename "$out").partial"
rm -f "$partial"
buildah "${store[@]}" push "$image" "oci-archive:$partial:svcgen:$version" >&2
mv -f "$partial" "$out"
echo "$out: svcgen:$version (OCI archive)"
