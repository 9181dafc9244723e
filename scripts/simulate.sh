#!/usr/bin/env bash
# Runs the exactly-once simulation for many cases: scripts/simulate.sh [CASES] [SEED].
# Each case is a random workbook sheet, random sandbox faults, random SIGKILLs and restarts;
# a failing case prints the seed that replays it alone. Loopback only, bounded per case.
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-1000}
seed=${2:-$(date +%s)}
echo "simulating $cases cases from seed $seed"
start=$(date +%s)
LEADSYNC_SIM_CASES=$cases LEADSYNC_SIM_SEED=$seed \
  cargo test --release --test integration simulation:: -- --nocapture
echo "$cases cases from seed $seed passed in $(( $(date +%s) - start )) s"
