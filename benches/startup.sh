#!/usr/bin/env bash
# Start-up figures of issue 26: svcgen's one-profile commands against a bare process spawn
# (/bin/true), and the static (musl) build against the dynamic (glibc) one, in one interleaved
# run (benches/support/interleave.py: each round runs every command once, in turn; medians).
# Ratios are measured in the same run, so the load of the shared machine hits every command alike;
# instruction counts (callgrind) do not move with the load at all.
#
#   benches/startup.sh                  # 201 rounds; a table on stdout (and $OUT/startup.md)
#   ROUNDS=101 benches/startup.sh
#   NO_MUSL=1 benches/startup.sh        # glibc build only
#
# The musl build needs the target (`rustup target add x86_64-unknown-linux-musl`); without it
# the musl rows are left out with a note. benches/compare.sh runs this script too.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=${ROUNDS:-201}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/svcgen-startup.XXXXXX")
OUT=${OUT:-$WORK}
mkdir -p "$OUT"
PROFILE=$ROOT/examples/b-consul-vault-sql.toml
MUSL=x86_64-unknown-linux-musl
say() { echo "== $*" >&2; }

say "building svcgen (release, glibc)"
(cd "$ROOT" && cargo build --release --quiet)
declare -A BIN=([glibc]=$ROOT/target/release/svcgen)
if [[ -z ${NO_MUSL:-} ]] && rustup target list --installed 2>/dev/null | grep -qx "$MUSL"; then
  say "building svcgen (release, $MUSL, static)"
  (cd "$ROOT" && cargo build --release --quiet --target "$MUSL")
  BIN[musl]=$ROOT/target/$MUSL/release/svcgen
else
  echo "note: no musl rows ($MUSL not installed, or NO_MUSL set)" >&2
fi
BUILDS=(glibc)
[[ -n ${BIN[musl]:-} ]] && BUILDS+=(musl)

# The commands: name, then argv. `--out-dir` writes into a folder emptied before each run.
declare -a NAMES=() ARGVS=()
add() {
  NAMES+=("$1")
  shift
  ARGVS+=("$(printf '%s\n' "$@" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().splitlines()))')")
}
add "/bin/true" /bin/true
for b in "${BUILDS[@]}"; do
  add "$b --version" "${BIN[$b]}" --version
  add "$b render -t k8s-env" "${BIN[$b]}" render "$PROFILE" -t k8s-env
  add "$b render -t dotenv -q" "${BIN[$b]}" render "$PROFILE" -t dotenv -q
  add "$b render --out-dir" "${BIN[$b]}" render "$PROFILE" --out-dir "$WORK/out-$b" -q
done
{
  echo "["
  for i in "${!NAMES[@]}"; do
    [[ $i -gt 0 ]] && echo ","
    printf '{"name": %s, "argv": %s, "stdout": null, "prepare": {"empty": ["%s"]}}' \
      "$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "${NAMES[$i]}")" "${ARGVS[$i]}" "$WORK/out-${NAMES[$i]%% *}"
  done
  echo "]"
} >"$WORK/startup.json"
say "$ROUNDS interleaved rounds of ${#NAMES[@]} commands"
python3 "$ROOT/benches/support/interleave.py" "$WORK/startup.json" "$ROUNDS" "$WORK/startup-ms.json"

instructions() { # argv... -> instructions of the whole process (callgrind)
  command -v valgrind >/dev/null || return 0
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | awk '/Collected/ {print $4}'
}
{
  echo "### Start-up against a bare spawn ($ROUNDS interleaved rounds, medians; $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
  echo
  echo "| command | wall ms | above /bin/true, ms | ÷ /bin/true (wall) | instructions | ÷ /bin/true (instructions) |"
  echo "|---|---:|---:|---:|---:|---:|"
  true_ir=$(instructions /bin/true)
  for i in "${!NAMES[@]}"; do
    # shellcheck disable=SC2207 # the argv is a JSON list of plain words
    argv=($(python3 -c 'import json,sys; print(" ".join(json.loads(sys.argv[1])))' "${ARGVS[$i]}"))
    mkdir -p "$WORK/out-${NAMES[$i]%% *}"
    ir=$(instructions "${argv[@]}")
    python3 - "$WORK/startup-ms.json" "${NAMES[$i]}" "$ir" "$true_ir" <<'EOF'
import json, sys
ms = json.load(open(sys.argv[1]))
name, ir, true_ir = sys.argv[2], sys.argv[3], sys.argv[4]
wall, base = ms[name], ms["/bin/true"]
irs = f"{int(ir):,}" if ir else "-"
ir_ratio = f"{int(ir) / int(true_ir):.1f}×" if ir and true_ir else "-"
print(f"| `{name}` | {wall:.2f} | {wall - base:+.2f} | {wall / base:.1f}× | {irs} | {ir_ratio} |")
EOF
  done
  for b in "${BUILDS[@]}"; do
    echo
    echo "$b binary: $(stat -c %s "${BIN[$b]}") bytes, $(file -b "${BIN[$b]}" | cut -d, -f1-2,4)"
  done
} | tee "$OUT/startup.md"
