#!/bin/bash
# Issue 25: lookahead:refine=2 at the 4-seat classic table of the lookahead measurements (expert, dump-faces,
# hold-nines), in each seat in turn (seeds 10-13, 400 matches each), as reports/ismcts-4seat does for ismcts.
set -u
export PYTHONPATH=/work/wt25
R=lookahead:refine=2
one() {
  case $1 in
    0) lineup="$R expert dump-faces hold-nines";;
    1) lineup="expert $R dump-faces hold-nines";;
    2) lineup="expert dump-faces $R hold-nines";;
    3) lineup="expert dump-faces hold-nines $R";;
  esac
  nines tournament $lineup -n 400 --seed $((10 + $1)) --workers 1 --batch-size 64 --no-charts --quiet --out 4seat-$1
}
for i in "$@"; do one $i; done
