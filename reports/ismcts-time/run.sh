#!/bin/bash
# Issue 25: ismcts against lookahead at equal time per decision, and against expert; each deal twice, seats swapped.
set -u
export PYTHONPATH=/work/wt25
run() { nines tournament "$1" "$2" -p 2 -n "$3" --seed "$4" --workers 1 --batch-size 64 --save-matches --no-charts --quiet --out "$5"; }
pair() { run "$1" "$2" "$3" "$4" "${5}_A"; run "$2" "$1" "$3" "$4" "${5}_B"; }
case "$1" in
  1) pair ismcts:iterations=56 lookahead 1000 81 t81 ;;
  2) pair ismcts lookahead:samples=1152 1000 82 t82 ;;
  3) pair ismcts expert 1000 83 e83 ;;
esac
