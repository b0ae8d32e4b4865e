#!/bin/bash
# Issue 25: draws=log+declare (b8f23ea) against draws=log and against today's lookahead; each deal twice, seats
# swapped.  PYTHONPATH: the checkout to run.
set -u
run() { nines tournament "$1" "$2" -p 2 -n "$3" --seed "$4" --workers 1 --batch-size 64 --save-matches --no-charts --quiet --out "$5" "${@:6}"; }
pair() { run "$1" "$2" "$3" "$4" "${5}_A" "${@:6}" & run "$2" "$1" "$3" "$4" "${5}_B" "${@:6}"; wait; }
D=lookahead:draws=log+declare
case "$1" in
  d101) pair $D lookahead:draws=log 1000 101 d101 ;;
  d102) pair $D lookahead:draws=log 1000 102 d102 ;;
  x103) pair $D lookahead 1000 103 x103 ;;
  x104) pair $D lookahead 1000 104 x104 ;;
  y105) pair $D lookahead 1000 105 y105 --rules hard-nines ;;
  y106) pair $D lookahead 1000 106 y106 --rules hard-nines ;;
  g92) pair $D expert 1000 92 g92 ;;
esac
