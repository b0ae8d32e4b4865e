#!/bin/bash
# Issue 40: lookahead:draws=log,counts=obey against lookahead:draws=log, heads-up classic; each deal twice,
# seats swapped (_A: the counting player in seat 0, _B: in seat 1).  Stopped with Ctrl-C (SIGINT) when the time
# ran out: the run folders keep the matches that finished (report marked PARTIAL).
set -u
run() { nines tournament "$1" "$2" -p 2 -n "$3" --seed "$4" --workers 1 --batch-size 64 --save-matches --no-charts --quiet --out "$5" "${@:6}"; }
pair() { run "$1" "$2" "$3" "$4" "${5}_A" "${@:6}" & run "$2" "$1" "$3" "$4" "${5}_B" "${@:6}"; wait; }
case "$1" in
  1) pair lookahead:draws=log,counts=obey lookahead:draws=log 2000 140 c140 ;;
  2) pair lookahead:counts=obey lookahead 1000 141 s141 ;;
esac
