#!/usr/bin/env bash
# Runs one of Crest's fuzz targets (fuzz/, docs/Reliability.md) for SECONDS
# seconds in the fuzzing build: every Crest library with libFuzzer's coverage,
# ASan and UBSan.
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer flags...]
#   scripts/fuzz.sh all SECONDS          each target in turn, SECONDS each
#   scripts/fuzz.sh hours                CPU-hours and executions so far
#
# TARGET: onnx, ir, package, code-object, npy, tensor-proto, emulator.
# The build goes to ${CREST_SANITIZE_BUILD_DIR:-build-san} (configured with
# CREST_SANITIZE=address,undefined and CREST_FUZZ=ON on first use, which
# takes about half an hour on two cores). Seeds come from
# scripts/fuzz-corpus.py; what the fuzzer learns stays in
# BUILD/fuzz-corpus/TARGET; a crash is written to BUILD/fuzz-crashes/TARGET/
# and makes this script fail (copy it to test/Fuzz/Inputs/TARGET/, fix the
# cause: test/Fuzz replays it in every build). Each run appends a line to
# BUILD/fuzz-log.tsv: date, target, CPU seconds, executions, crashed (0/1).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${CREST_SANITIZE_BUILD_DIR:-$root/build-san}"
targets=(onnx ir package code-object npy tensor-proto emulator)
log="$build/fuzz-log.tsv"

usage() {
  sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

hours() {
  if [ ! -f "$log" ]; then
    echo "fuzz: no runs logged in $log"
    return 0
  fi
  awk -F'\t' '{ s[$2] += $3; e[$2] += $4; c[$2] += $5 }
    END { for (t in s) printf "fuzz: %-12s %7.2f CPU-hours %12d executions %d crashes\n",
                              t, s[t] / 3600, e[t], c[t] }' "$log" | sort
}

[ $# -ge 1 ] || usage
if [ "$1" = hours ]; then
  hours
  exit 0
fi
[ $# -ge 2 ] || usage
target="$1"; seconds="$2"; shift 2
[[ "$seconds" =~ ^[0-9]+$ ]] || usage
if [ "$target" = all ]; then
  status=0
  for t in "${targets[@]}"; do
    "${BASH_SOURCE[0]}" "$t" "$seconds" "$@" || status=1
  done
  exit $status
fi
case " ${targets[*]} " in
  *" $target "*) ;;
  *) echo "fuzz: unknown target '$target' (known: ${targets[*]})" >&2; exit 2 ;;
esac

# The fuzzing build (scripts/sanitize.sh's); crest-compile only to make the
# seeds.
seeds="$build/fuzz-corpus/seeds"
needed="crest-$target-fuzzer crest-emulator-fuzzer-templates"
[ -d "$seeds/$target" ] || needed="$needed crest-compile"
CREST_BUILD_DIR="$build" \
  CREST_CMAKE_ARGS="-DCREST_SANITIZE=address,undefined -DCREST_FUZZ=ON" \
  CREST_BUILD_TARGETS="$needed" "$root/scripts/build.sh" >/dev/null

if [ ! -d "$seeds/$target" ]; then
  /usr/bin/python3 "$root/scripts/fuzz-corpus.py" --tools "$build/bin" \
    --out "$seeds"
fi
corpus="$build/fuzz-corpus/$target"
crashes="$build/fuzz-crashes/$target"
mkdir -p "$corpus" "$crashes"

case "$target" in
  npy|tensor-proto) max_len=4096 ;;
  emulator) max_len=2048 ;;
  ir) max_len=16384 ;;
  *) max_len=65536 ;;
esac

# The sanitizer build's runtime options, as the lit suites use them
# (test/sanitizer_options.py says why each is needed).
eval "$(/usr/bin/python3 "$root/test/sanitizer_options.py")"

out="$build/fuzz-last-$target.log"
# The CPU seconds (user + system) the fuzzer used, which is what the log
# counts: on a busy machine they are fewer than the seconds it ran.
TIMEFORMAT='%U %S'
set +e
{ time "$build/bin/crest-$target-fuzzer" -max_total_time="$seconds" \
    -timeout=30 -rss_limit_mb=4096 -max_len="$max_len" -print_final_stats=1 \
    -artifact_prefix="$crashes/" "$@" "$corpus" "$seeds/$target" \
    >"$out" 2>&1; } 2>"$out.time"
status=$?
set -e
elapsed=$(awk '{ printf "%d", $1 + $2 }' "$out.time")
executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out" | tail -1)
printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$target" "$elapsed" \
  "${executions:-0}" "$([ $status -eq 0 ] && echo 0 || echo 1)" >>"$log"
echo "fuzz: $target: $elapsed CPU s, ${executions:-0} executions, exit $status (log: $out)"
if [ $status -ne 0 ]; then
  grep -E 'ERROR|SUMMARY|invariant|Test unit written' "$out" | head -5 >&2
  exit 1
fi
