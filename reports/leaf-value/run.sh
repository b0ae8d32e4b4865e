#!/bin/bash
# Issue 40: lookahead with the learned rollout policy and leaf value (leaf=learned,depth=K) against
# lookahead:draws=log, heads-up classic; each deal twice, seats swapped (_A: the first player in seat 0, _B: seat 1).
set -u
run() { nines tournament "$1" "$2" -p 2 -n "$3" --seed "$4" --workers 1 --batch-size 64 --save-matches --no-charts --quiet --out "$5" "${@:6}"; }
pair() { run "$1" "$2" "$3" "$4" "${5}_A" "${@:6}" & run "$2" "$1" "$3" "$4" "${5}_B" "${@:6}"; wait; }
L=lookahead:draws=log
case "$1" in
  1) pair $L,policy=learned,leaf=learned,depth=4 $L 1000 400 d4 ;;
  2) pair $L,policy=learned,leaf=learned,depth=8 $L 1000 401 d8 ;;
  3) pair $L,leaf=learned,depth=4 $L 500 402 e4 ;;
  4) pair $L,policy=learned,leaf=learned,depth=4 expert 500 92 x92 ;;  # the first 500 deals of ../draw-log/f92
  6) pair $L,leaf=learned,depth=4,samples=384 $L 500 404 s384 ;;  # about the decisions per second of $L
  7) pair $L,policy=learned,leaf=learned,depth=8 expert 500 92 y92 ;;  # the first 500 deals of ../draw-log/f92
  8) pair $L,policy=learned,leaf=learned,depth=8,samples=160 $L 500 405 t160 ;;  # about the decisions per second of $L (speed4.log)
esac
