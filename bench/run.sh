#!/usr/bin/env bash
# leadsync benchmarks: generate data, time the real binary, report rows/s and peak memory.
#   bench/run.sh            everything
#   bench/run.sh import     dry-run speed and memory (1M-row CSV, 100k-row XLSX, 200k-row CSV)
#   bench/run.sh push       sending throughput, rate accuracy, resume start-up on a 1M-row journal
# Data goes to target/bench (BENCH_DIR to change). With ../shared/bench/py_baseline.py and the
# Python `phonenumbers` + `openpyxl` packages, the Python baseline runs on the same files.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
work=${BENCH_DIR:-target/bench}
mkdir -p "$work"
cargo build --release --quiet --bin leadsync --example gen_leads
bin=target/release/leadsync
gen=target/release/examples/gen_leads

data() { [ -f "$work/$2" ] || "$gen" "$1" "$work/$2"; }

# Runs a command, prints its wall time and peak memory.
measure() {
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >/dev/null 2>"$work/stderr.txt" || true
  # GNU time puts "Command exited with non-zero status 3" first when rows were rejected.
  read -r secs kib < <(tail -1 "$work/time.txt")
  printf '%-46s %7.2f s  %6.1f MiB peak\n' "$label" "$secs" "$(echo "$kib / 1024" | bc -l)"
  echo "$secs" > "$work/last_secs"
}

rows_per_sec() { echo "$1 / $(cat "$work/last_secs")" | bc -l | xargs printf '%.0f rows/s\n'; }

bench_import() {
  data 1000000 leads_1m.csv
  data 200000 leads_200k.csv
  data 100000 leads_100k.xlsx
  echo "== dry run, offline (read, normalize 2 phone columns, map, dedupe)"
  measure "1M-row CSV, no report" "$bin" import "$work/leads_1m.csv" --offline -q
  rows_per_sec 1000000
  measure "1M-row CSV, JSON report of every row" "$bin" import "$work/leads_1m.csv" --offline -q --report "$work/r1m.json"
  rows_per_sec 1000000
  measure "200k-row CSV (memory)" "$bin" import "$work/leads_200k.csv" --offline -q
  measure "100k-row XLSX" "$bin" import "$work/leads_100k.xlsx" --offline -q
  rows_per_sec 100000
  local shared=../shared/bench
  if [ -f "$shared/py_baseline.py" ] && python3 -c 'import phonenumbers, openpyxl' 2>/dev/null; then
    echo "== the Python baseline on the same files"
    measure "python: 1M-row CSV" python3 "$shared/py_baseline.py" "$work/leads_1m.csv" --report "$work/py_rejects.json"
    measure "python: 100k-row XLSX" python3 "$shared/py_baseline.py" "$work/leads_100k.xlsx" --report "$work/py_rejects_x.json"
    echo "== side by side on the shared generator's files (../shared/bench/gen_leads.py)"
    [ -f "$work/shared_1m.csv" ] || python3 "$shared/gen_leads.py" --rows 1000000 --out "$work/shared_1m.csv"
    [ -f "$work/shared_100k.xlsx" ] || python3 "$shared/gen_leads.py" --rows 100000 --format xlsx --out "$work/shared_100k.xlsx"
    measure "leadsync: shared 1M-row CSV" "$bin" import "$work/shared_1m.csv" --offline -q
    measure "python: shared 1M-row CSV" python3 "$shared/py_baseline.py" "$work/shared_1m.csv" --report "$work/py_shared.json"
    measure "leadsync: shared 100k-row XLSX" "$bin" import "$work/shared_100k.xlsx" --offline -q
    measure "python: shared 100k-row XLSX" python3 "$shared/py_baseline.py" "$work/shared_100k.xlsx" --report "$work/py_shared_x.json"
  fi
}

# Starts a release sandbox with extra flags; sets $sandbox_pid and $base_url.
start_sandbox() {
  "$bin" sandbox --port 0 -q "$@" > "$work/sandbox.out" 2>/dev/null &
  sandbox_pid=$!
  for _ in $(seq 50); do [ -s "$work/sandbox.out" ] && break; sleep 0.1; done
  base_url=$(head -1 "$work/sandbox.out")
}

bench_push() {
  export LEADSYNC_TOKEN=sandbox-demo-token
  local state="$work/state"
  rm -rf "$state"
  "$gen" 20000 "$work/push_20k.csv"
  echo "== throughput: 20k leads, no rate limit, 16 in flight, sandbox on the same 2 cores"
  start_sandbox --db "$work/push.db.$$"
  measure "20k leads, --rate 0 --concurrency 16" "$bin" --base-url "$base_url" import "$work/push_20k.csv" \
    --rate 0 --concurrency 16 --state-dir "$state" -q --allow-duplicates
  rows_per_sec "$("$bin" --base-url "$base_url" leads list --output json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')"
  kill "$sandbox_pid"; rm -f "$work"/push.db.$$*

  echo "== rate accuracy: --rate 50 for ~30 s against a sandbox limited to 50/s"
  "$gen" 1600 "$work/push_1600.csv"
  start_sandbox --rate-limit 50
  "$bin" --base-url "$base_url" --output json import "$work/push_1600.csv" --rate 50 --concurrency 8 \
    --state-dir "$state" -q --allow-duplicates > "$work/rate.json" 2>/dev/null || true
  python3 - "$work/rate.json" <<'PY'
import json, sys, datetime as dt
r = json.load(open(sys.argv[1]))
p = r["push"]
secs = p["sending_secs"]
print(f"{p['sent']} requests in {secs:.1f} s of sending = {p['sent']/secs:.2f}/s ({100*p['sent']/secs/50:.1f}% of 50); 429 answers: {p['rate_limited']}")
PY
  kill "$sandbox_pid"

  echo "== resume start-up on a journal of 1,000,000 rows"
  data 1000000 leads_1m.csv
  start_sandbox
  local journal="$work/resume.jsonl"
  rm -f "$journal"
  # Start a real run (so the journal header matches the file), stop it, then record every row
  # as settled, as a finished million-row run would have.
  "$bin" --base-url "$base_url" import "$work/leads_1m.csv" --journal "$journal" --rate 1 -q >/dev/null 2>&1 &
  local run=$!
  for _ in $(seq 100); do [ -s "$journal" ] && break; sleep 0.1; done
  sleep 1; kill -9 "$run" 2>/dev/null || true; wait "$run" 2>/dev/null || true
  python3 - "$journal" <<'PY'
import sys
with open(sys.argv[1]) as f:
    header = f.readline()
with open(sys.argv[1], "w") as f:
    f.write(header)
    for row in range(2, 1_000_002):
        f.write(f'{{"event":"attempt","row":{row},"phone":"+4915100000000","campaign_id":1}}\n')
        f.write(f'{{"event":"outcome","row":{row},"status":"created","lead_id":{row}}}\n')
PY
  "$bin" -v --base-url "$base_url" import "$work/leads_1m.csv" --journal "$journal" --rate 0 2> "$work/resume.log" >/dev/null || true
  grep -E 'journal opened|ready to send' "$work/resume.log" | sed 's/^[^ ]* *INFO *//' || true
  measure "whole resumed run (1M rows, nothing to send)" "$bin" --base-url "$base_url" import "$work/leads_1m.csv" --journal "$journal" --rate 0 -q
  kill "$sandbox_pid"
}

case $what in
  import) bench_import ;;
  push) bench_push ;;
  suppress) bash bench/suppress.sh ;;
  all) bench_import; bench_push; bash bench/suppress.sh ;;
  *) echo "usage: bench/run.sh [import|push|suppress|all]" >&2; exit 2 ;;
esac
