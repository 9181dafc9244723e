#!/usr/bin/env bash
# leadsync ui's check of a big sheet, as a browser drives it (curl, loopback only): how long
# the check of the whole sheet takes, how long pages of the row table take (first, deep,
# filtered by status and by reason, searched, before and after the search index is built), and
# the server's peak memory (VmHWM).
# usage: bench/ui_check.sh BIN FILE   e.g. target/release/leadsync /tmp/leads_1m.csv
# (a file from ../shared/bench/gen_leads.py --rows 1000000); compare the check's time with
# `BIN import FILE --dry-run --offline -q --campaign 1` run beside it, e.g. in turn:
#   farm-bench --vs "BIN import FILE --dry-run --offline -q --campaign 1" -- \
#     env UI_CHECK_ONLY=1 bash bench/ui_check.sh BIN FILE
set -euo pipefail
BIN=$1; FILE=$2
STATE=$(mktemp -d)
$BIN --state-dir "$STATE" ui --no-open --port 0 > "$STATE/out" 2> "$STATE/err" &
PID=$!
trap 'kill $PID 2>/dev/null; rm -rf "$STATE"' EXIT
for i in $(seq 100); do [ -s "$STATE/out" ] && break; sleep 0.1; done
URL=$(head -1 "$STATE/out")
ORIGIN=$(echo "$URL" | sed -E 's#(http://[^/]+).*#\1#')
JAR="$STATE/jar"
curl -s -c "$JAR" -o /dev/null "$URL"
LOC=$(curl -s -b "$JAR" -H "Origin: $ORIGIN" -o /dev/null -w '%{redirect_url}' --data-urlencode "location=$FILE" "$ORIGIN/source/location")
ID=${LOC##*/reading/}
# The check is started and its page polled every 100 ms on one kept-alive connection (a
# browser's page is pushed its status every 500 ms on one): a curl process every 50 ms cost
# about half a second of CPU during a 1M-row check, and every page rendered a little more,
# which the machine's two cores took from the check itself. The end is seen at most 0.1 s late.
COOKIE=$(awk '$6 ~ /^leadsync_ui_/ {print $6 "=" $7}' "$JAR")
read -r RUN SECS < <(python3 - "$ORIGIN" "$ID" "$COOKIE" <<'PY'
import http.client, sys, time, urllib.parse
origin, run_id, cookie = sys.argv[1:4]
host = urllib.parse.urlparse(origin).netloc
conn = http.client.HTTPConnection(host)
headers = {"Cookie": cookie, "Origin": origin, "Content-Type": "application/x-www-form-urlencoded"}
start = time.monotonic()
conn.request("POST", f"/check/{run_id}", body="campaign=1", headers=headers)
answer = conn.getresponse(); answer.read()
run = urllib.parse.urlparse(answer.getheader("Location")).path
while True:
    conn.request("GET", run, headers={"Cookie": cookie})
    page = conn.getresponse().read()
    if b"data-refresh" not in page:
        break
    time.sleep(0.1)
print(run, f"{time.monotonic() - start:.3f}")
PY
)
echo "check of $(basename "$FILE"): $SECS s"
# UI_CHECK_ONLY=1: stop here, for timing the check beside the CLI's dry run with farm-bench.
[ -n "${UI_CHECK_ONLY:-}" ] && exit 0
for q in "" "?after=500000" "?status=rejected" "?status=rejected&after=900000" "?reason=invalid_phone&after=600000" "?q=m%C3%BCller" "?q=zzzz-not-there"; do
  for k in 1 2 3; do
    T=$(curl -s -b "$JAR" -o /dev/null -w '%{time_total}' "$ORIGIN$RUN$q")
    echo "page $RUN$q: ${T} s"
  done
done
# Searches answer from the run's search index once it is built (in the background, after the
# check): the same searches again then.
START=$(date +%s.%N)
for i in $(seq 1200); do ls "$STATE"/ui/runs/*/rows.sqlite.search >/dev/null 2>&1 && break; sleep 0.1; done
echo "search index ready $(echo "$(date +%s.%N) - $START" | bc) s after the check"
for q in "?q=m%C3%BCller" "?q=zzzz-not-there" "?status=rejected&q=zzzz-not-there" "?reason=invalid_phone&q=schmidt&after=600000"; do
  for k in 1 2 3; do
    T=$(curl -s -b "$JAR" -o /dev/null -w '%{time_total}' "$ORIGIN$RUN$q")
    echo "indexed page $RUN$q: ${T} s"
  done
done
echo "server peak: $(grep VmHWM /proc/$PID/status)"
