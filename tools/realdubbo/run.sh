#!/usr/bin/env bash
# Differential test: real Apache Dubbo 3.3 (or 2.7.23 with --profile 2.7; compiled from the mirror by
# build.sh) against zonesim's CLI, on the same seeded random cases. One line per disagreement class,
# then per-component counts and `realdubbo: N cases, M disagree`; exit 1 when M > 0.
#
#   run.sh <zonesim-checkout> [--seed S] [--scale F] [--keep DIR] [--mutate] [--profile 3.3|2.7]
#
# The checkout must have node_modules and dist built (npm ci). --scale multiplies the case counts
# (default 1: 3000 condition, 1500 tag, 300 round-robin, 300 consistent-hash, 400 weight cases).
# Work files go to a temporary folder (kept with --keep DIR: cases, both answers, disagreements.jsonl).
# The two sides run one after the other (the Java driver, then zonesim), never at once.
# --mutate is a self-check of the harness: zonesim's side of every case is perturbed (force flipped,
# clock moved, tag changed, ...), so a large share of the cases must then disagree.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ $# -ge 1 ] || { echo "usage: run.sh <zonesim-checkout> [--seed S] [--scale F] [--keep DIR]" >&2; exit 2; }
ZS="$(cd "$1" && pwd)"; shift
SEED=20250101; SCALE=1; KEEP=""; MUTATE=""; PROFILE=3.3
while [ $# -gt 0 ]; do
  case "$1" in
    --seed) SEED="$2"; shift 2 ;;
    --scale) SCALE="$2"; shift 2 ;;
    --keep) KEEP="$2"; shift 2 ;;
    --mutate) MUTATE="--mutate"; shift ;;
    --profile) PROFILE="$2"; shift 2 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -f "$ZS/bin/zonesim.js" ] && [ -d "$ZS/dist" ] && [ -d "$ZS/node_modules" ] || {
  echo "run.sh: $ZS is not a built zonesim checkout (bin/zonesim.js, dist/, node_modules/: run npm ci there)" >&2; exit 2; }

case "$PROFILE" in
  3.3) DRIVER=realdubbo.Driver; CACHE="${RD_CACHE:-/tmp/realdubbo-cache}" ;;
  2.7) DRIVER=realdubbo.Driver27; CACHE="${RD_CACHE:-/tmp/realdubbo-cache-2.7}" ;;
  *) echo "run.sh: --profile must be 3.3 or 2.7, found $PROFILE" >&2; exit 2 ;;
esac
RD_PROFILE="$PROFILE" RD_CACHE="$CACHE" "$HERE/build.sh"
if [ -n "$KEEP" ]; then W="$KEEP"; mkdir -p "$W"; else W="$(mktemp -d /tmp/realdubbo-run.XXXXXX)"; trap 'rm -rf "$W"' EXIT; fi

n() { python3 -c "print(max(1, round($1 * $SCALE)))"; }
python3 "$HERE/gen.py" --seed "$SEED" --route "$(n 3000)" --tag "$(n 1500)" --rr "$(n 300)" --ch "$(n 300)" --weight "$(n 400)" --profile "$PROFILE" $MUTATE > "$W/cases.jsonl"
python3 - "$W" <<'EOF'
import json, sys
w = sys.argv[1]
with open(f"{w}/java.jsonl", "w") as j, open(f"{w}/zs.jsonl", "w") as z:
    for line in open(f"{w}/cases.jsonl", encoding="utf-8"):
        c = json.loads(line)
        j.write(json.dumps(c["java"], ensure_ascii=False) + "\n")
        z.write(json.dumps({"id": c["id"], "zs": c["zs"]}, ensure_ascii=False) + "\n")
EOF
echo "realdubbo: $(wc -l < "$W/cases.jsonl") cases (seed $SEED, Dubbo $PROFILE); Dubbo side..." >&2
t0=$(date +%s)
java -XX:+UseSerialGC -Dfile.encoding=UTF-8 -Ddubbo.application.logger=jdk \
  -cp "$(cat "$CACHE/classpath")" "$DRIVER" < "$W/java.jsonl" > "$W/java-out.jsonl" 2> "$W/java.log"
t1=$(date +%s)
echo "realdubbo: Dubbo side $((t1 - t0)) s; zonesim side..." >&2
node "$HERE/zs-batch.mjs" "$ZS" < "$W/zs.jsonl" > "$W/zs-out.jsonl"
t2=$(date +%s)
echo "realdubbo: zonesim side $((t2 - t1)) s" >&2
# Self-check of the in-process runner: 15 cases spread over the components again through a real
# `node bin/zonesim.js` process each; the answers must be byte-identical.
python3 - "$W" <<'EOF2'
import json, sys
w = sys.argv[1]
lines = open(f"{w}/zs.jsonl", encoding="utf-8").read().splitlines()
step = max(1, len(lines) // 15)
open(f"{w}/zs-spawn.jsonl", "w", encoding="utf-8").write("\n".join(lines[::step][:15]) + "\n")
EOF2
RD_SPAWN=1 node "$HERE/zs-batch.mjs" "$ZS" < "$W/zs-spawn.jsonl" > "$W/zs-spawn-out.jsonl"
python3 - "$W" <<'EOF2' || exit 1
import json, sys
w = sys.argv[1]
inproc = {d["id"]: d for d in map(json.loads, open(f"{w}/zs-out.jsonl", encoding="utf-8"))}
bad = [d["id"] for d in map(json.loads, open(f"{w}/zs-spawn-out.jsonl", encoding="utf-8"))
       if (d["code"], d["stdout"]) != (inproc[d["id"]]["code"], inproc[d["id"]]["stdout"])]
n = sum(1 for _ in open(f"{w}/zs-spawn-out.jsonl"))
if bad:
    print(f"HARNESS: the in-process CLI and a spawned `node bin/zonesim.js` answer differently for {bad}")
    sys.exit(1)
print(f"realdubbo: {n} cases re-run through spawned `node bin/zonesim.js`: same answers as in-process", file=sys.stderr)
EOF2
set +e
python3 "$HERE/compare.py" "$W/cases.jsonl" "$W/java-out.jsonl" "$W/zs-out.jsonl" --details "$W" --profile "$PROFILE"
rc=$?
set -e
[ -n "$KEEP" ] && echo "realdubbo: work files in $W (disagreements.jsonl lists every disagreeing case)" >&2
exit $rc
