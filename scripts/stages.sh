#!/usr/bin/env bash
# scripts/stages.sh — run `make test`'s stages in turn and print a timeline at the end.
#
#   scripts/stages.sh STAGE...    each STAGE is a make target ("setup-test", "lint", "test-go", ...)
#
# Every stage's wall time, its status and the load average when it ended are printed as a table when
# the run ends — also when a stage fails (the run stops there, as make would) — and written to
# build/test-timeline.tsv, so the slowest stage of a CI run is read off its log's last lines.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
TSV=build/test-timeline.tsv
printf 'stage\tseconds\tstatus\tload\n' > "$TSV"
now() { date +%s.%N; }
t0=$(now)
rc=0
for stage in "$@"; do
  s=$(now)
  make --no-print-directory "$stage"
  rc=$?
  e=$(now)
  status=ok; [ "$rc" = 0 ] || status="FAILED ($rc)"
  printf '%s\t%.1f\t%s\t%s\n' "$stage" "$(awk -v a="$s" -v b="$e" 'BEGIN { print b - a }')" "$status" "$(cut -d' ' -f1 /proc/loadavg)" >> "$TSV"
  [ "$rc" = 0 ] || break
done
total=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { print b - a }')
echo
echo "make test: timeline ($(nproc) CPUs; load average at the end of each stage)"
awk -F'\t' -v total="$total" 'NR > 1 {
    printf "  %-16s %4d m %02d s  %5.1f%%  load %-5s %s\n", $1, int($2 / 60), int($2) % 60, 100 * $2 / total, $4, $3
  } END { printf "  %-16s %4d m %02d s\n", "total", int(total / 60), int(total) % 60 }' "$TSV"
echo "  (also in $TSV)"
exit "$rc"
