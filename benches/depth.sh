#!/usr/bin/env bash
# A deep, wide `extends` chain: LEVELS files of KEYS `[env]` keys each, each file extending the
# next, validated in one process; wall time and peak RSS from /usr/bin/time -v (GNU time).
# Memory and time should grow with the input (LEVELS x KEYS), not with LEVELS x the input.
#   benches/depth.sh                     # 60 levels x 2,000 keys, target/release/svcgen
#   SVCGEN=path/to/svcgen LEVELS=30 KEYS=500 benches/depth.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SVCGEN=${SVCGEN:-$ROOT/target/release/svcgen}
LEVELS=${LEVELS:-60}
KEYS=${KEYS:-2000}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
[[ -x /usr/bin/time ]] || { echo "depth.sh: needs GNU time at /usr/bin/time" >&2; exit 1; }

python3 - "$WORK" "$LEVELS" "$KEYS" <<'PY'
import sys
work, levels, keys = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for level in range(levels):
    head = f'extends = "w{level + 1}.toml"\n' if level + 1 < levels else 'edition = "B"\n'
    body = "".join(f'V{level}_{k} = "value {level} {k}"\n' for k in range(keys))
    with open(f"{work}/w{level}.toml", "w") as f:
        f.write(f"{head}[env]\n{body}")
PY
input_kb=$(du -sk "$WORK" | cut -f1)
status=0
/usr/bin/time -v -o "$WORK/time" "$SVCGEN" validate "$WORK/w0.toml" -q >/dev/null 2>"$WORK/err" || status=$?
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$WORK/time")
cpu_user=$(sed -n 's/.*User time (seconds): //p' "$WORK/time")
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$WORK/time")
[[ $status -eq 0 ]] || echo "first error: $(grep -m1 '^error' "$WORK/err" || true)"
echo "levels=$LEVELS keys=$KEYS input=${input_kb} KB  wall=$wall user=${cpu_user}s peak_rss=${rss} KB exit=$status  ($SVCGEN)"
