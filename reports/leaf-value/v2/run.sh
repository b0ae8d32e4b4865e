#!/bin/bash
# The world value (world.py) in play: lookahead with it against lookahead:draws=log, heads-up classic; each deal
# twice, seats swapped (_A: the first player in seat 0, _B: seat 1).  From this folder, the venv active.
set -u
run() { python world.py nines tournament "$1" "$2" -p 2 -n "$3" --seed "$4" --workers 1 --batch-size 64 --save-matches --no-charts --quiet --out "$5"; }
pair() { run "$1" "$2" "$3" "$4" "${5}_A" 2> "${5}_A.err" & run "$2" "$1" "$3" "$4" "${5}_B" 2> "${5}_B.err"; wait; }
# the shipped value, with the package's own nines
plain() { nines tournament "$1" "$2" -p 2 -n "$3" --seed "$4" --workers 1 --batch-size 64 --save-matches --no-charts --quiet --out "$5"; }
plain_pair() { plain "$1" "$2" "$3" "$4" "${5}_A" & plain "$2" "$1" "$3" "$4" "${5}_B"; wait; }
L=lookahead:draws=log
W=$L,policy=learned,leaf=learned,depth=12,samples=176
case "$1" in
  1) pair $W $L 500 470 w12 ;;   # screen: 1,000 matches
  2) pair $W $L 2000 480 c12 ;;  # confirmation on fresh deals: 4,000 matches
  3) plain_pair $W $L 500 470 s12 ;;  # the shipped value on the screen's deals, for the paired difference
  4) plain_pair $W $L 2000 480 p12 ;;  # the shipped value on the confirmation's deals
esac
