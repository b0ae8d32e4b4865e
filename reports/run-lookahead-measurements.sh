#!/usr/bin/env bash
# The strength runs of reports/lookahead-measurements.md, one after the other, with wall times.
cd "$(dirname "$0")/.." && . .venv/bin/activate
out=${1:-reports/lookahead}
seat_n=${2:-150}
mkdir -p $out
run() {  # name, then the tournament arguments
  local name=$1; shift
  local t0=$(date +%s)
  echo "$(date -u +%H:%M:%S) start $name: nines tournament $*" >> $out/times.log
  nines tournament "$@" --workers 2 --no-charts --out $out/$name --force > $out/$name.log 2>&1
  echo "$(date -u +%H:%M:%S) end $name rc=$? wall $(( $(date +%s) - t0 )) s; load $(cut -d' ' -f1-3 /proc/loadavg)" >> $out/times.log
}
run classic-2000 lookahead expert -p 2 -n 2000 --seed 1
run hard-nines-2000 lookahead expert -p 2 -n 2000 --seed 1 --rules hard-nines
for i in 0 1 2 3; do  # lookahead in each seat in turn
  case $i in
    0) lineup="lookahead expert dump-faces hold-nines";;
    1) lineup="expert lookahead dump-faces hold-nines";;
    2) lineup="expert dump-faces lookahead hold-nines";;
    3) lineup="expert dump-faces hold-nines lookahead";;
  esac
  run 4seat-$i $lineup -n $seat_n --seed $((10 + i))
done
