#!/usr/bin/env bash
# Replays the inputs that once crashed (fuzz/regressions/<target>/), then fuzzes every target
# of fuzz/ for SECONDS_PER_TARGET (default 60) and prints, per target, the executions and the
# crashes found. Exits 1 when anything crashed; crashing inputs are kept in
# $FUZZ_OUT/crashes/<target>/ (replay one with `leadsync-fuzz replay TARGET FILE`; once fixed,
# copy it to fuzz/regressions/<target>/ beside a regression test in leadsync itself).
#
#   scripts/fuzz.sh 600                          # ten minutes a target
#   FUZZ_TARGETS="phone journal" scripts/fuzz.sh 30
#
# Environment:
#   FUZZ_ENGINE   afl: AFL++ through cargo-afl (coverage-guided; `cargo install cargo-afl`
#                 once); loop: leadsync-fuzz's mutation loop (no coverage, no instrumentation,
#                 builds in a debug build's time); auto (default): afl when cargo-afl is there.
#   FUZZ_TARGETS  the targets to run (default: all, see `leadsync-fuzz list`).
#   FUZZ_JOBS     targets run at once (default 2).
#   FUZZ_MEMORY_MB  address-space limit per target process (default 2048): a file that makes
#                 leadsync allocate without bound is a crash, not a machine brought down.
#   FUZZ_OUT      seeds, AFL's output and the crashes (default fuzz/out); each run starts
#                 afresh from the seeds, so the counts are this run's.
#   FUZZ_NICE     niceness of the fuzzers (default 19: others' builds and benchmarks first).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

seconds=${1:-60}
engine=${FUZZ_ENGINE:-auto}
jobs=${FUZZ_JOBS:-2}
memory_mb=${FUZZ_MEMORY_MB:-2048}
out=${FUZZ_OUT:-$repo/fuzz/out}
niceness=${FUZZ_NICE:-19}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$repo/target}
manifest=$repo/fuzz/Cargo.toml

if [ "$engine" = auto ]; then
  if cargo afl --version >/dev/null 2>&1; then engine=afl; else engine=loop; fi
fi
case $engine in afl | loop) ;; *) echo "error: FUZZ_ENGINE must be afl, loop or auto, not \`$engine\`" >&2; exit 2 ;; esac

echo "== building the fuzz harness (engine: $engine)"
# The loop binary also writes the seeds and replays crashes, so it is built for either engine.
cargo build --quiet --manifest-path "$manifest" --bin leadsync-fuzz
tool=$CARGO_TARGET_DIR/debug/leadsync-fuzz
if [ "$engine" = afl ]; then
  # Instrumented builds get their own target dir: other RUSTFLAGS would make cargo rebuild
  # the uninstrumented artifacts every time the two alternate.
  afl_target=$CARGO_TARGET_DIR/afl
  cargo afl build --quiet --release --manifest-path "$manifest" --features afl \
    --bin leadsync-fuzz-afl --target-dir "$afl_target"
  afl_bin=$afl_target/release/leadsync-fuzz-afl
fi

targets=${FUZZ_TARGETS:-$("$tool" list | tr '\n' ' ')}
rm -rf "$out/seeds"
"$tool" seeds "$repo" "$out/seeds"
mkdir -p "$out/results"
scratch_root=$(mktemp -d "${TMPDIR:-/dev/shm}/leadsync-fuzz.XXXXXX" 2>/dev/null || mktemp -d)
trap 'rm -rf "$scratch_root"' EXIT

# Runs one target and writes "executions crashes" to $out/results/<target>.
fuzz_afl() {
  local target=$1 dir=$out/afl/$1
  rm -rf "$dir" "$out/crashes/$target"
  mkdir -p "$dir"
  AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 \
    AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_SUPPRESS_AFL_OUTPUT=1 \
    nice -n "$niceness" cargo afl fuzz -V "$seconds" -m "$memory_mb" -t 5000 \
    -i "$out/seeds/$target" -o "$dir" -- "$afl_bin" "$target" >"$dir/log" 2>&1 || {
    echo "error: afl-fuzz failed on $target; see $dir/log" >&2
    tail -5 "$dir/log" >&2
  }
  local stats=$dir/default/fuzzer_stats
  local execs crashes
  execs=$(awk -F' *: *' '$1 == "execs_done" { print $2 }' "$stats" 2>/dev/null || true)
  mkdir -p "$out/crashes/$target"
  cp "$dir"/default/crashes/id:* "$out/crashes/$target/" 2>/dev/null || true
  cp "$dir"/default/hangs/id:* "$out/crashes/$target/" 2>/dev/null || true
  crashes=$(find "$out/crashes/$target" -type f | wc -l)
  echo "${execs:-0} $crashes" >"$out/results/$target"
}

fuzz_loop() {
  local target=$1 crashes_dir=$out/crashes/$1 status=0 line
  rm -rf "$crashes_dir"
  mkdir -p "$crashes_dir"
  # A hang or a killed process (abort, memory limit) leaves the input it was on as `current`.
  line=$(
    ulimit -v $((memory_mb * 1024))
    nice -n "$niceness" timeout -s KILL $((seconds + 120)) \
      "$tool" run "$target" "$seconds" "$out/seeds/$target" "$crashes_dir" 2>>"$crashes_dir/log"
  ) || status=$?
  if [ -f "$crashes_dir/current" ]; then
    mv "$crashes_dir/current" "$crashes_dir/killed-$(date +%s)-status-$status"
  fi
  local execs=${line#executions=}
  execs=${execs%% *}
  [ -n "$line" ] || execs=0
  echo "$execs $(find "$crashes_dir" -type f ! -name log | wc -l)" >"$out/results/$target"
}

# Inputs that once crashed, kept in fuzz/regressions/<target>/: each must now run cleanly.
# One process each, under the memory limit and a time limit (one of them was a hang), in the
# scratch folder removed on exit, since some crashed by taking the process down.
echo "== replaying fuzz/regressions"
regressions=0
for file in "$repo"/fuzz/regressions/*/*; do
  [ -f "$file" ] || continue
  target=$(basename "$(dirname "$file")")
  # The braces keep bash's own "Aborted" notice out of the output.
  mkdir -p "$scratch_root/replay"
  if ! { (ulimit -v $((memory_mb * 1024)) && LEADSYNC_FUZZ_SCRATCH=$scratch_root/replay \
      timeout -s KILL 60 "$tool" replay "$target" "$file") >/dev/null 2>&1; } 2>/dev/null; then
    echo "still crashes: $target ${file#"$repo"/}"
    regressions=$((regressions + 1))
  fi
done

echo "== fuzzing each target for ${seconds}s, $jobs at a time"
running=0
for target in $targets; do
  rm -f "$out/results/$target"
  mkdir -p "$scratch_root/$target"
  LEADSYNC_FUZZ_SCRATCH=$scratch_root/$target "fuzz_$engine" "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait

printf '\n%-10s %-6s %12s %8s\n' target engine executions crashes
failed=0
for target in $targets; do
  read -r execs crashes <"$out/results/$target" || { execs=?; crashes=?; }
  printf '%-10s %-6s %12s %8s\n' "$target" "$engine" "$execs" "$crashes"
  [ "$crashes" = 0 ] || failed=1
done
echo "regressions still crashing: $regressions"
[ "$regressions" = 0 ] || failed=1
if [ "$failed" = 1 ]; then
  echo "crashes are in $out/crashes/<target>/; replay one with: $tool replay TARGET FILE" >&2
fi
exit "$failed"
