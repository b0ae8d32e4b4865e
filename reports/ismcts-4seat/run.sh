#!/bin/bash
# Issue 25: ismcts at the 4-seat classic table of the lookahead measurements (expert, dump-faces, hold-nines),
# in each seat in turn (seeds 10-13, 400 matches each); and heads-up against expert under hard-nines.
set -u
export PYTHONPATH=/work/wt25
case "$1" in
  4seat)
    for i in 0 1 2 3; do
      case $i in
        0) lineup="ismcts expert dump-faces hold-nines";;
        1) lineup="expert ismcts dump-faces hold-nines";;
        2) lineup="expert dump-faces ismcts hold-nines";;
        3) lineup="expert dump-faces hold-nines ismcts";;
      esac
      nines tournament $lineup -n 400 --seed $((10 + i)) --workers 1 --batch-size 64 --no-charts --quiet --out 4seat-$i
    done ;;
  hard)
    nines tournament ismcts expert -p 2 -n 1000 --seed 84 --rules hard-nines --workers 1 --batch-size 64 --save-matches --no-charts --quiet --out h84_A
    nines tournament expert ismcts -p 2 -n 1000 --seed 84 --rules hard-nines --workers 1 --batch-size 64 --save-matches --no-charts --quiet --out h84_B ;;
esac
