#!/usr/bin/env bash
# The fleet loop alone: fresh, unchanged and --check renders of COUNT generated profiles in one
# process each, with wall time, CPU (user+sys, and its ratio to wall: both cores busy is ~200 %)
# and peak RSS from /usr/bin/time. Runs in a memory-backed folder by default (WORK=/dev/shm/...);
# give WORK=/some/disk/folder to measure on disk.
#   benches/fleet.sh [COUNT...]          # default: 1000 3000
#   SVCGEN=path/to/svcgen ROUNDS=5 benches/fleet.sh 1000
#   SVCGEN="old/svcgen new/svcgen" ROUNDS=3 benches/fleet.sh 1000   # interleaved: each round runs
#                                        # every binary in turn, so the machine's load hits both alike
#
# The host files the profiles name are copied beside them (not linked): a profile reads host files
# only from inside its root, links resolved, so a link to examples/files would fail every profile
# that copies one (E0245) and measure an error path instead of a render.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
read -ra BINS <<<"${SVCGEN:-$ROOT/target/release/svcgen}"
ROUNDS=${ROUNDS:-5}
WORK=${WORK:-/dev/shm/svcgen-fleet-$$}
mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT
counts=("$@")
[[ ${#counts[@]} -gt 0 ]] || counts=(1000 3000)

# One run: prints "wall_s cpu_s rss_kb".
measure() {
  /usr/bin/time -f '%e %U %S %M' -o "$WORK/t" "$@" >/dev/null 2>&1 || true
  awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$WORK/t"
}

# The median of the first fields of the lines on stdin, with the matching CPU and RSS.
median() { sort -n | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}'; }

for count in "${counts[@]}"; do
  profiles=$WORK/profiles-$count
  python3 "$ROOT/benches/support/profiles.py" generate "$ROOT/examples" "$profiles" "$count" >/dev/null
  cp -r "$ROOT/examples/files" "$profiles/files"
  for kind in fresh unchanged check; do
    for b in "${!BINS[@]}"; do : >"$WORK/runs-$b"; done
    for _ in $(seq "$ROUNDS"); do
      for b in "${!BINS[@]}"; do
        out=$WORK/out-$count-$b
        case $kind in
          fresh) rm -rf "$out" ;;
          *) [[ -d $out ]] || "${BINS[$b]}" render "$profiles" --out-dir "$out" -q ;;
        esac
        args=(render "$profiles" --out-dir "$out" -q)
        [[ $kind == check ]] && args+=(--check)
        measure "${BINS[$b]}" "${args[@]}" >>"$WORK/runs-$b"
      done
    done
    for b in "${!BINS[@]}"; do
      read -r wall cpu rss < <(median <"$WORK/runs-$b")
      awk -v k="$kind" -v n="$count" -v w="$wall" -v c="$cpu" -v r="$rss" -v bin="${BINS[$b]}" 'BEGIN {
        printf "%-9s %5d profiles: %6.2f s wall, %7.0f profiles/s, CPU %5.2f s (%3.0f %% of wall; %.2f ms a profile, %.0f/s CPU-bound on 2 cores), peak RSS %5.1f MB  %s\n",
          k, n, w, (w > 0 ? n / w : 0), c, (w > 0 ? 100 * c / w : 0), 1000 * c / n, (c > 0 ? 2 * n / c : 0), r / 1024, bin }'
    done
  done
done
