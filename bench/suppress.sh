#!/usr/bin/env bash
# Suppression-list benchmark: a 10-million-number do-not-call list against a small sheet.
#   bench/suppress.sh [NUMBERS]     (default 10000000; run by `bench/run.sh suppress`)
#   BIN=path/to/leadsync bench/suppress.sh    measures that binary instead of building one
# Prints the load time and the memory the list adds (the same dry run with and without the
# list, alternating A B A B, 3 pairs), for a list in E.164 and a list in national format.
set -euo pipefail
cd "$(dirname "$0")/.."
numbers=${1:-10000000}
work=${BENCH_DIR:-target/bench}
mkdir -p "$work"
# BIN=path/to/leadsync measures a binary built elsewhere instead of building one.
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet --bin leadsync
fi
bin=${BIN:-target/release/leadsync}

# Distinct German mobile numbers; the sheet's first rows are on the list.
[ -f "$work/dnc_e164_$numbers.csv" ] || python3 - "$numbers" "$work/dnc_e164_$numbers.csv" <<'PY'
import sys
n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    f.write("phone\n")
    f.writelines(f"+49151{i:08d}\n" for i in range(n))
PY
national=$((numbers / 10))
[ -f "$work/dnc_national_$national.csv" ] || python3 - "$national" "$work/dnc_national_$national.csv" <<'PY'
import sys
n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    f.write("Telefon\n")
    f.writelines(f"0151 {i:08d}\n" for i in range(n))
PY
python3 - "$work/dnc_sheet.csv" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("Name,Phone,Campaign\n")
    # Numbers spread over twice the list's range: about half the rows are on it.
    f.writelines(f"Lead {i},0151 {i * 19997:08d},1\n" for i in range(1000))
PY

run() { # label, extra args...
  local label=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$bin" import "$work/dnc_sheet.csv" --offline -q \
    --report "$work/dnc_report.json" "$@" >/dev/null 2>&1 || true
  read -r secs user sys kib < <(tail -1 "$work/time.txt")
  printf '%-34s %6.2f s wall  %6.2f s cpu  %7.1f MiB peak\n' "$label" "$secs" "$(echo "$user + $sys" | bc -l)" "$(echo "$kib / 1024" | bc -l)"
}

echo "== $numbers numbers in E.164, a 1,000-row sheet (3 pairs, A B A B)"
for _ in 1 2 3; do
  run "without a list"
  run "with the E.164 list" --suppress "$work/dnc_e164_$numbers.csv"
done
python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['summary']; print('rows on the list:', s['do_not_call'], 'of', s['rows'])" "$work/dnc_report.json"
echo "== $national numbers in national format (0151 ...: each goes through libphonenumber)"
for _ in 1 2 3; do
  run "without a list"
  run "with the national list" --suppress "$work/dnc_national_$national.csv"
done
