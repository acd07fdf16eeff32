#!/usr/bin/env bash
# Usage: HS=/path/to/hindsight [ROUNDS=2] [KEEP_LOG=server.log] docs/bench/rw.sh
# 16 writers beside 60 readers on SQLite: wrk -c16 POSTing varied incidents beside wrk -c60
# reading single incidents and the list through the API, 20 s a round, after a 3 s warm-up.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
HS=${HS:?set HS to a built hindsight binary}; d=$(mktemp -d); cd "$d"
$HS migrate up --database "$d/hs.db" > /dev/null 2>&1
echo 'bench-password-123' | $HS user create --email bench@example.com --role responder --database "$d/hs.db" > /dev/null 2>&1
export HS_TOKEN=$($HS token create --email bench@example.com --name bench --database "$d/hs.db" 2>/dev/null | tail -1)
$HS serve --addr 127.0.0.1:18995 --database "$d/hs.db" --max-in-flight-per-address 256 > hs.log 2>&1 &
HP=$!
for i in $(seq 1 50); do curl -fs http://127.0.0.1:18995/healthz >/dev/null 2>&1 && break; sleep 0.2; done
wrk -t2 -c16 -d3s -s "$HERE/hs_post_varied.lua" http://127.0.0.1:18995/api/v1/incidents > /dev/null
for round in $(seq 1 "${ROUNDS:-2}"); do
  wrk -t2 -c60 -d20s --latency -s "$HERE/hs_read.lua" http://127.0.0.1:18995 > reads.txt & R=$!
  wrk -t2 -c16 -d20s --latency -s "$HERE/hs_post_varied.lua" http://127.0.0.1:18995/api/v1/incidents > writes.txt
  wait $R
  echo "writes: $(grep -E 'Requests/sec|Non-2xx|^ +(50|99)%' writes.txt | tr -s ' ' | tr '\n' ' ')"
  echo "write-ahead log: $(stat -c %s "$d/hs.db-wal" 2>/dev/null || echo 0) bytes"
  echo "reads:  $(grep -E 'Requests/sec|Non-2xx|^ +(50|99)%' reads.txt | tr -s ' ' | tr '\n' ' ')"
done
kill $HP; wait 2>/dev/null
[ -n "${KEEP_LOG:-}" ] && cp hs.log "$KEEP_LOG"
rm -rf "$d"
