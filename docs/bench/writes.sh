#!/usr/bin/env bash
# Usage: HS=/path/to/hindsight FLOOR=/path/to/floor FLOOR_LUA=../shared/bench/floor/post.lua [LUA=docs/bench/hs_post_varied.lua] docs/bench/writes.sh
# Writes alone: the floor's POST against Hindsight's POST /api/v1/incidents, alternated.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
LUA=$(realpath "${LUA:-$HERE/hs_post.lua}")
FLOOR_LUA=$(realpath "${FLOOR_LUA:?set FLOOR_LUA to ../shared/bench/floor/post.lua}")
HS=${HS:?set HS to a built hindsight binary}; d=$(mktemp -d); cd "$d"
${FLOOR:?build ../shared/bench/floor and set FLOOR to the binary} "$d/floor.db" 127.0.0.1:18999 > floor.log 2>&1 &
FP=$!
$HS migrate up --database "$d/hs.db" > /dev/null 2>&1
echo 'bench-password-123' | $HS user create --email bench@example.com --role responder --database "$d/hs.db" > /dev/null 2>&1
export HS_TOKEN=$($HS token create --email bench@example.com --name bench --database "$d/hs.db" 2>/dev/null | tail -1)
$HS serve --addr 127.0.0.1:18998 --database "$d/hs.db" > hs.log 2>&1 &
HP=$!
for i in $(seq 1 50); do curl -fs http://127.0.0.1:18998/healthz >/dev/null 2>&1 && curl -fs http://127.0.0.1:18999/healthz > /dev/null 2>&1 && break; sleep 0.2; done
for round in 1 2; do
  echo "floor: $(wrk -t2 -c8 -d6s -s $FLOOR_LUA http://127.0.0.1:18999/api/incidents | grep -E 'Requests/sec')"
  echo "hindsight: $(wrk -t2 -c8 -d6s --latency -s $LUA http://127.0.0.1:18998/api/v1/incidents | grep -E 'Requests/sec|Non-2xx|50%|99%' | tr '\n' ' ')"
done
kill $FP $HP; wait 2>/dev/null
