#!/usr/bin/env bash
# Usage: HS=/path/to/hindsight [LUA=docs/bench/hs_post_varied.lua] docs/bench/pg2.sh (PostgreSQL at 127.0.0.1:5432, trust auth)
# PostgreSQL, two instances on one database, 16 writers: write throughput and lock waits.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
LUA=$(realpath "${LUA:-$HERE/hs_post.lua}")
HS=${HS:?set HS to a built hindsight binary}; d=$(mktemp -d); cd "$d"
DB=hsbench_$$
psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE $DB" >/dev/null
URL="postgres://postgres@127.0.0.1:5432/$DB?sslmode=disable"
$HS migrate up --database "$URL" > /dev/null 2>&1
echo 'bench-password-123' | $HS user create --email bench@example.com --role responder --database "$URL" > /dev/null 2>&1
export HS_TOKEN=$($HS token create --email bench@example.com --name bench --database "$URL" 2>/dev/null | tail -1)
$HS serve --addr 127.0.0.1:18996 --database "$URL" > a.log 2>&1 & A=$!
$HS serve --addr 127.0.0.1:18997 --database "$URL" > b.log 2>&1 & B=$!
for i in $(seq 1 50); do curl -fs http://127.0.0.1:18996/healthz >/dev/null 2>&1 && curl -fs http://127.0.0.1:18997/healthz > /dev/null 2>&1 && break; sleep 0.2; done
sample() { # samples pg_stat_activity every 50 ms from one session while wrk runs
  printf "SELECT count(*) FILTER (WHERE xact_start IS NOT NULL AND backend_type = 'client backend' AND pid <> pg_backend_pid()), count(*) FILTER (WHERE wait_event_type = 'Lock') FROM pg_stat_activity WHERE datname = '$DB'\n\\watch 0.05\n" |
    psql -h 127.0.0.1 -U postgres -d $DB -At > samples.txt 2>/dev/null
}
echo "one instance, 16 writers: $(wrk -t2 -c16 -d8s -s $LUA http://127.0.0.1:18996/api/v1/incidents | grep -E 'Requests/sec|Non-2xx' | tr '\n' ' ')"
sample & S=$!
wrk -t2 -c8 -d8s --latency -s $LUA http://127.0.0.1:18996/api/v1/incidents > wa.txt & WA=$!
wrk -t2 -c8 -d8s --latency -s $LUA http://127.0.0.1:18997/api/v1/incidents > wb.txt
wait $WA; kill $S 2>/dev/null; pkill -f -- "-d $DB -At" 2>/dev/null; wait $S 2>/dev/null
echo "two instances, 8+8 writers: A $(grep -E 'Requests/sec|Non-2xx|99%' wa.txt | tr '\n' ' ') B $(grep -E 'Requests/sec|Non-2xx|99%' wb.txt | tr '\n' ' ')"
grep '|' samples.txt | awk -F'|' '{tx+=$1; lock+=$2} END {printf "samples %d, backends in a transaction %d, waiting on a lock %d (%.1f%%)\n", NR, tx, lock, tx ? 100*lock/tx : 0}'
kill $A $B; wait $A $B 2>/dev/null
psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE $DB" >/dev/null
