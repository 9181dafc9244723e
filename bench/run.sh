#!/usr/bin/env bash
# leadsync benchmarks: time the real release binary with /usr/bin/time, side by side with the
# Python script a user would write (../shared/bench/py_baseline.py) on the same files.
#   bench/run.sh            everything
#   bench/run.sh import     dry-run speed, CPU and memory against the Python baseline, A B A B at
#                           200k and 1M rows, without and with ../shared/bench/bench-mapping.toml;
#                           the cost of a JSON report; the report identity check
#   bench/run.sh xlsx       the 1M-row XLSX against the same rows as CSV and against fastexcel
#                           (pip install fastexcel pyarrow), A B C A B C, with the mapping
#   bench/run.sh report     only the JSON report's cost and the identity check (no Python)
#   bench/run.sh push       sending throughput, rate accuracy, resume start-up on a 1M-row journal;
#                           with OLD_BIN, a 200k-row push of both builds alternating (A B A B)
#   bench/run.sh push-versus  only that 200k-row push, A B A B (needs OLD_BIN)
#   bench/run.sh sync-changes a sync of 100k rows with 1% changed, beside one with none, A B A B
#   bench/run.sh versus OLD this binary against another (e.g. one built from an earlier commit),
#                           alternating, on the 200k and 1M files, without and with a JSON report
# PAIRS=3 (pairs per comparison; medians are quoted), BENCH_DIR=target/bench (data and scratch).
# OLD_BIN=path/to/leadsync (import, report, xlsx, push): an earlier build measured in the same rounds,
# for before/after figures from one run.
# The Python side needs `pip install phonenumbers openpyxl`; without it only leadsync runs.
# The shared mapping (five variables and a secondary contact) is used when it is there.
#
# Identity: the 1M-row JSON report (timestamps blanked) must hash to bench/report_1m.sha256,
# which was made by the binary from before the speed work. REF_BIN=path/to/leadsync compares
# against another binary's report instead. A mismatch makes the script exit 1.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
what=${1:-all}
pairs=${PAIRS:-3}
work=$(mkdir -p "${BENCH_DIR:-target/bench}" && cd "${BENCH_DIR:-target/bench}" && pwd)
cargo build --release --quiet --bin leadsync --example gen_leads
bin="${CARGO_TARGET_DIR:-$root/target}/release/leadsync"
gen="${CARGO_TARGET_DIR:-$root/target}/release/examples/gen_leads"
shared=$root/../shared/bench
status=0
mapping=()
[ -f "$shared/bench-mapping.toml" ] && mapping=(--mapping "$shared/bench-mapping.toml")
if [ -n "${OLD_BIN:-}" ] && [ ! -x "$OLD_BIN" ]; then
  echo "OLD_BIN=$OLD_BIN is not an executable leadsync" >&2; exit 2
fi

data() { [ -f "$work/$2" ] || "$gen" "$1" "$work/$2"; }
# The shared generator's file of $1 rows named $2, made once (more generator flags after).
shared_data() {
  local rows=$1 file=$2; shift 2
  [ -f "$work/$file" ] || python3 "$shared/gen_leads.py" --rows "$rows" "$@" --out "$work/$file"
}

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

# Runs a command once and appends "wall cpu(user+sys) peak-KiB" to the file $1. Exit codes 0-3
# are results (3: some rows rejected); anything else is a failed run and stops the script.
sample() {
  local out=$1; shift
  local code=0
  /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$@" >/dev/null 2>"$work/stderr.txt" || code=$?
  if [ "$code" -gt 3 ]; then
    echo "failed ($code): $*" >&2; cat "$work/stderr.txt" >&2; exit 1
  fi
  tail -1 "$work/time.txt" | awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' >> "$out"
}

# Like `sample`, for a run that writes the JSON report $2 as a new file (none when $2 is empty):
# the last one is removed and the disk settles before and after (a run right after a report was
# up to 0.6 s slower).
sample_new_report() {
  local out=$1 report=$2; shift 2
  [ -z "$report" ] && { sample "$out" "$@"; return; }
  rm -f "$report"; sync
  sample "$out" "$@" --report "$report"
  sync
}

# "median min max" of column $2 of file $1.
stats() {
  awk -v c="$2" '{print $c}' "$1" | sort -g | awk '{a[NR] = $1}
    END {m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%s %s %s\n", m, a[1], a[NR]}'
}

# One side's line: wall median (min-max), CPU median and per row, peak memory median.
side() {
  local label=$1 file=$2 rows=$3
  read -r wall wmin wmax < <(stats "$file" 1)
  read -r cpu _ _ < <(stats "$file" 2)
  read -r kib kmin kmax < <(stats "$file" 3)
  printf '  %-10s wall %6.2f s (%.2f-%.2f)  CPU %6.2f s = %5.2f us/row  peak %5.1f MiB (%.1f-%.1f)\n' \
    "$label" "$wall" "$wmin" "$wmax" "$cpu" "$(echo "$cpu * 1000000 / $rows" | bc -l)" \
    "$(echo "$kib / 1024" | bc -l)" "$(echo "$kmin / 1024" | bc -l)" "$(echo "$kmax / 1024" | bc -l)"
}

# Ratio B/A of the medians (wall and CPU), with the range of the per-pair wall ratios.
ratio() {
  local label=$1 a=$2 b=$3
  read -r wa _ _ < <(stats "$a" 1); read -r wb _ _ < <(stats "$b" 1)
  read -r ca _ _ < <(stats "$a" 2); read -r cb _ _ < <(stats "$b" 2)
  read -r lo hi < <(paste -d' ' "$a" "$b" | awk '{r = $4 / $1; lo = NR == 1 || r < lo ? r : lo;
    hi = NR == 1 || r > hi ? r : hi} END {print lo, hi}')
  printf '  %-10s wall %.2fx (%.2f-%.2f per pair)  CPU %.2fx\n' "$label" \
    "$(echo "$wb / $wa" | bc -l)" "$lo" "$hi" "$(echo "$cb / $ca" | bc -l)"
}

have_python() { [ -f "$shared/py_baseline.py" ] && python3 -c 'import phonenumbers, openpyxl' 2>/dev/null; }

# leadsync A, Python B, alternating, $pairs times, on the shared generator's file of $1 rows;
# a third argument `mapped` gives leadsync the shared mapping (the Python script has its own
# fixed columns either way). With OLD_BIN=path/to/leadsync, that binary runs third in each
# round (A O B A O B ...), for a before/after table from one run.
against_python() {
  local rows=$1 file=$2 how=${3:-}
  local extra=()
  [ "$how" = mapped ] && extra=("${mapping[@]}")
  shared_data "$rows" "$file"
  local a="$work/pairs_ls_$rows" b="$work/pairs_py_$rows" o="$work/pairs_old_$rows"
  : > "$a"; : > "$b"; : > "$o"
  for _ in $(seq "$pairs"); do
    sample "$a" "$bin" import "$work/$file" --dry-run --offline -q "${extra[@]}"
    if [ -n "${OLD_BIN:-}" ]; then
      sample "$o" "$OLD_BIN" import "$work/$file" --dry-run --offline -q "${extra[@]}"
    fi
    sample "$b" python3 "$shared/py_baseline.py" "$work/$file" --report "$work/py_rejects.json"
  done
  printf '%s rows (%s%s), %s pairs, medians:\n' "$rows" "$file" "${how:+, $how}" "$pairs"
  side leadsync "$a" "$rows"
  side python "$b" "$rows"
  ratio ratio "$a" "$b"
  if [ -n "${OLD_BIN:-}" ]; then
    side before "$o" "$rows"
    ratio "before" "$o" "$b"
  fi
}

# The 1M-row JSON report with its timestamps blanked, hashed. Runs in $work so the report's
# `source` is the same relative name whoever runs it.
report_hash() {
  (cd "$work" && "$1" import shared_1m.csv --dry-run --offline -q --report "$2" >/dev/null 2>&1) || true
  sed -E '3s/"(started_at|finished_at)":"[^"]*"/"\1":""/g' "$work/$2" | sha256sum | cut -d' ' -f1
}

identity_check() {
  local got want
  got=$(report_hash "$bin" identity_new.json)
  if [ -n "${REF_BIN:-}" ]; then
    want=$(report_hash "$REF_BIN" identity_ref.json)
  else
    want=$(cut -d' ' -f1 "$root/bench/report_1m.sha256")
  fi
  if [ "$got" = "$want" ]; then
    echo "identity: the 1M-row JSON report is byte-identical to the reference apart from timestamps ($got)"
  else
    echo "identity: MISMATCH: the 1M-row JSON report hashes to $got, the reference to $want"
    status=1
  fi
}

bench_import() {
  echo "== dry run, offline, side by side with the Python baseline (leadsync, python, leadsync, ...)"
  if have_python; then
    against_python 200000 shared_200k.csv
    against_python 1000000 shared_1m.csv
    if [ ${#mapping[@]} -gt 0 ]; then
      against_python 200000 shared_200k.csv mapped
      against_python 1000000 shared_1m.csv mapped
    fi
  else
    echo "  (skipped: needs ../shared/bench/py_baseline.py and pip install phonenumbers openpyxl)"
  fi
  bench_report
  echo "== XLSX, 100k rows from the shared generator (one pair)"
  shared_data 100000 shared_100k.xlsx --format xlsx
  measure "leadsync: 100k-row XLSX" "$bin" import "$work/shared_100k.xlsx" --dry-run --offline -q
  if have_python; then
    measure "python: 100k-row XLSX" python3 "$shared/py_baseline.py" "$work/shared_100k.xlsx" --report "$work/py_rejects_x.json"
  fi
}

# The 1M-row XLSX (A) against the same rows as CSV (B) and against fastexcel reading the XLSX
# alone (C), in turn A B C, $pairs times: the XLSX targets (A at most 2.5x B, peak at most
# 128 MiB, faster than C while validating every row).
bench_xlsx() {
  shared_data 1000000 shared_1m.xlsx --format xlsx
  shared_data 1000000 shared_1m.csv
  local fastexcel=(python3 -c 'import sys, fastexcel; fastexcel.read_excel(sys.argv[1]).load_sheet(0).to_arrow()')
  local has_fastexcel=1
  python3 -c 'import fastexcel, pyarrow' 2>/dev/null || has_fastexcel=0
  echo "== 1M-row XLSX against the same rows as CSV${mapping:+ (with ${mapping[1]##*/})}, dry runs, then fastexcel"
  local a="$work/xlsx_ls" b="$work/xlsx_csv" c="$work/xlsx_fastexcel" o="$work/xlsx_old"
  : > "$a"; : > "$b"; : > "$c"; : > "$o"
  for _ in $(seq "$pairs"); do
    sample "$a" "$bin" import "$work/shared_1m.xlsx" --dry-run --offline -q "${mapping[@]}"
    if [ -n "${OLD_BIN:-}" ]; then
      sample "$o" "$OLD_BIN" import "$work/shared_1m.xlsx" --dry-run --offline -q "${mapping[@]}"
    fi
    sample "$b" "$bin" import "$work/shared_1m.csv" --dry-run --offline -q "${mapping[@]}"
    if [ "$has_fastexcel" = 1 ]; then sample "$c" "${fastexcel[@]}" "$work/shared_1m.xlsx"; fi
  done
  side "xlsx" "$a" 1000000
  side "csv" "$b" 1000000
  ratio "xlsx/csv" "$b" "$a"
  if [ -n "${OLD_BIN:-}" ]; then
    side "xlsx before" "$o" 1000000
    ratio "before/this" "$a" "$o"
  fi
  if [ "$has_fastexcel" = 1 ]; then
    side "fastexcel" "$c" 1000000
    ratio "fastexcel/leadsync" "$a" "$c"
  else
    echo "  (fastexcel skipped: pip install fastexcel pyarrow)"
  fi
  echo "  targets: xlsx/csv at most 2.5x, xlsx peak at most 128 MiB, fastexcel/leadsync above 1x"
}

# The JSON report's cost and the identity check (leadsync alone: about a minute).
bench_report() {
  shared_data 1000000 shared_1m.csv
  echo "== what a JSON report of every row costs, 1M rows (no report, replaced report, new report, ...)"
  # A new report costs the writing alone. Replacing one also makes the kernel free the last
  # run's 317 MB, as `rm` would; the first pair replaces the report of a warm-up run.
  local a="$work/pairs_noreport" b="$work/pairs_report_new" c="$work/pairs_report"
  : > "$a"; : > "$b"; : > "$c"
  [ -f "$work/r1m.json" ] ||
    "$bin" import "$work/shared_1m.csv" --dry-run --offline -q --report "$work/r1m.json" >/dev/null 2>&1 || true
  local oa="$work/pairs_old_noreport" ob="$work/pairs_old_report_new"
  : > "$oa"; : > "$ob"
  for _ in $(seq "$pairs"); do
    sample "$a" "$bin" import "$work/shared_1m.csv" --dry-run --offline -q
    sample "$c" "$bin" import "$work/shared_1m.csv" --dry-run --offline -q --report "$work/r1m.json"
    sample_new_report "$b" "$work/r1m_new.json" "$bin" import "$work/shared_1m.csv" --dry-run --offline -q
    if [ -n "${OLD_BIN:-}" ]; then
      sample "$oa" "$OLD_BIN" import "$work/shared_1m.csv" --dry-run --offline -q
      sample_new_report "$ob" "$work/r1m_new.json" "$OLD_BIN" import "$work/shared_1m.csv" --dry-run --offline -q
    fi
  done
  rm -f "$work/r1m_new.json"
  side "no report" "$a" 1000000
  side "new report" "$b" 1000000
  side "replaced" "$c" 1000000
  ratio "new report" "$a" "$b"
  ratio "replaced" "$a" "$c"
  if [ -n "${OLD_BIN:-}" ]; then
    echo "  before ($OLD_BIN):"
    side "no report" "$oa" 1000000
    side "new report" "$ob" 1000000
    ratio "new report" "$oa" "$ob"
  fi
  identity_check
}

# This build (A) against the binary $1 (B), alternating A B A B $pairs times: dry runs of the
# shared 200k and 1M files, then the 1M file with a JSON report. Medians, ranges, B/A ratios.
bench_versus() {
  local other=$1
  [ -x "$other" ] || { echo "usage: bench/run.sh versus path/to/other/leadsync" >&2; exit 2; }
  shared_data 200000 shared_200k.csv
  shared_data 1000000 shared_1m.csv
  echo "== this build (A) against $other (B), alternating, $pairs pairs, medians"
  local rows file report
  for run in "200000 shared_200k.csv" "1000000 shared_1m.csv" "1000000 shared_1m.csv report"; do
    read -r rows file report <<< "$run"
    local a="$work/versus_a" b="$work/versus_b" report_file=${report:+$work/versus.json}
    : > "$a"; : > "$b"
    for _ in $(seq "$pairs"); do
      sample_new_report "$a" "$report_file" "$bin" import "$work/$file" --dry-run --offline -q
      sample_new_report "$b" "$report_file" "$other" import "$work/$file" --dry-run --offline -q
    done
    rm -f "$work/versus.json"
    printf '%s rows%s:\n' "$rows" "${report:+, with a JSON report}"
    side "this" "$a" "$rows"
    side "other" "$b" "$rows"
    ratio "other/this" "$a" "$b"
  done
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
  # A state folder of its own: its ledger must not know these numbers from another run.
  rm -rf "$state.rate"
  "$bin" --base-url "$base_url" --output json import "$work/push_1600.csv" --rate 50 --concurrency 8 \
    --state-dir "$state.rate" -q --allow-duplicates > "$work/rate.json" 2>/dev/null || true
  python3 - "$work/rate.json" <<'PY'
import json, sys, datetime as dt
r = json.load(open(sys.argv[1]))
p = r["push"]
secs = p["sending_secs"]
print(f"{p['sent']} requests in {secs:.1f} s of sending = {p['sent']/secs:.2f}/s ({100*p['sent']/secs/50:.1f}% of 50); 429 answers: {p['rate_limited']}")
PY
  kill "$sandbox_pid"

  push_versus

  echo "== resume start-up on a journal of 1,000,000 rows"
  data 1000000 leads_1m.csv
  resume_startup "$bin" "this build"
  if [ -n "${OLD_BIN:-}" ]; then
    resume_startup "$OLD_BIN" "before"
  fi
}

# Sending 200k rows into a fresh sandbox with a fresh state folder, this build against OLD_BIN
# alternating (A B A B), PAIRS pairs: what the ledger's claims and outcomes add to a push.
push_versus() {
  [ -n "${OLD_BIN:-}" ] || return 0
  data 200000 leads_200k.csv
  echo "== push of 200k rows (--rate 0 --concurrency 16 --allow-duplicates), $pairs pairs, A B A B"
  local i run_bin label
  for i in $(seq "$pairs"); do
    for run_bin in "$bin" "$OLD_BIN"; do
      label="this build"; [ "$run_bin" = "$bin" ] || label="before"
      rm -rf "$work/push200k-state" "$work"/push200k.db*
      start_sandbox --db "$work/push200k.db"
      measure "$label: push 200k (pair $i)" "$run_bin" --base-url "$base_url" import \
        "$work/leads_200k.csv" --rate 0 --concurrency 16 --allow-duplicates -q \
        --state-dir "$work/push200k-state"
      kill "$sandbox_pid"; wait "$sandbox_pid" 2>/dev/null || true
    done
  done
  rm -rf "$work/push200k-state" "$work"/push200k.db*
}

# A sync of 100k rows of which 1% changed, beside a sync of the same rows with nothing changed,
# A B A B: two versions of one sheet (every 100th name differs) are synced in turn, each twice,
# so every "changed" run updates 1,000 leads and the next finds none. The summary must say so.
sync_changes() {
  local sheet="$work/sync100k.csv" state="$work/sync100k-state" i version label
  python3 - "$work" <<'PY'
import sys
work = sys.argv[1]
for version in ("a", "b"):
    with open(f"{work}/sync100k-{version}.csv", "w") as out:
        out.write("Name,Telefon,Stadt\n")
        for i in range(100_000):
            name = f"Person {i}" + (" (neu)" if version == "b" and i % 100 == 0 else "")
            out.write(f"{name},+49151{i:08d},Köln\n")
PY
  printf 'phone = "Telefon"\ncampaign = 1\n[variables]\ncustomer_name = "Name"\ncity = "Stadt"\n' \
    > "$work/sync100k.toml"
  rm -rf "$state" "$work"/sync100k.db*
  start_sandbox --db "$work/sync100k.db"
  local run=("$bin" --base-url "$base_url" sync "$sheet" --mapping "$work/sync100k.toml" --rate 0
    --concurrency 16 -q --state-dir "$state" --summary-json "$work/sync100k.json")
  cp "$work/sync100k-a.csv" "$sheet"
  measure "sync 100k, all new (100,000 creates)" "${run[@]}"
  echo "== sync of 100k rows: 1% changed against nothing changed, $pairs pairs, A B A B"
  for i in $(seq "$pairs"); do
    for version in b a; do
      cp "$work/sync100k-$version.csv" "$sheet"
      measure "1% changed (pair $i)" "${run[@]}"
      python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); a=s["sync"]["applied"]; print("  plan:", s["sync"]["plan"]["changed"], "changed; sent:", s["push"]["sent"], "creates,", a["updated"], "updates")' "$work/sync100k.json"
      measure "nothing changed (pair $i)" "${run[@]}"
    done
  done
  kill "$sandbox_pid"; wait "$sandbox_pid" 2>/dev/null || true
  rm -rf "$state" "$work"/sync100k.db* "$work"/sync100k*.csv
}

# Start-up of a resumed run on a 1M-row journal that binary $1 wrote itself: its log's timings,
# and the whole run's wall time and peak memory. Each binary gets a sandbox of its own, since a
# resume that reads the lead list reads every lead the sandbox holds.
resume_startup() {
  local run_bin=$1 label=$2 journal="$work/resume.jsonl" state="$work/resume-state"
  start_sandbox
  rm -rf "$journal" "$journal.lock" "$state"
  # A real million-row run (journal lines carry each row's content fingerprint, so they cannot
  # be made up), with its `finished` line taken off: an interrupted run that settled every row.
  "$run_bin" --base-url "$base_url" import "$work/leads_1m.csv" --journal "$journal" --rate 0 \
    --concurrency 16 --allow-duplicates -q --state-dir "$state" >/dev/null 2>&1 || true
  # Only a run that finished may lose its finished line: anything else would time another resume.
  if ! tail -1 "$journal" | grep -q '"event":"finished"'; then
    echo "the million-row push did not finish; its journal ends: $(tail -c 200 "$journal")" >&2
    exit 1
  fi
  sed -i '$ d' "$journal"
  cp "$journal" "$journal.open"
  "$run_bin" -v --base-url "$base_url" import "$work/leads_1m.csv" --journal "$journal" --rate 0 --allow-duplicates --state-dir "$state" 2> "$work/resume.log" >/dev/null || true
  grep -E 'journal opened|ready to send' "$work/resume.log" | sed 's/^[^ ]* *INFO *//' || true
  cp "$journal.open" "$journal"
  measure "$label: whole resumed run (1M rows, nothing to send)" "$run_bin" --base-url "$base_url" import "$work/leads_1m.csv" --journal "$journal" --rate 0 --allow-duplicates -q --state-dir "$state"
  rm -f "$journal.open"
  kill "$sandbox_pid"
}

case $what in
  import) bench_import ;;
  report) bench_report ;;
  xlsx) bench_xlsx ;;
  push) bench_push ;;
  push-versus)
    [ -n "${OLD_BIN:-}" ] || { echo "push-versus needs OLD_BIN" >&2; exit 2; }
    export LEADSYNC_TOKEN=sandbox-demo-token
    push_versus ;;
  sync-changes)
    export LEADSYNC_TOKEN=sandbox-demo-token
    sync_changes ;;
  suppress) bash bench/suppress.sh ;;
  versus) bench_versus "${2:-}" ;;
  all) bench_import; bench_push; bash bench/suppress.sh ;;
  *) echo "usage: bench/run.sh [import|report|xlsx|push|push-versus|sync-changes|suppress|versus OTHER_BIN|all]" >&2; exit 2 ;;
esac
exit "$status"
