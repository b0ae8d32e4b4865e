#!/bin/bash
# Issue 40, equal time: lookahead with the learned rollout policy and leaf value against lookahead:draws=log,
# heads-up classic, at settings measured to make at least the decisions per CPU second of lookahead:draws=log;
# each deal twice, seats swapped (_A: the first player in seat 0, _B: seat 1). Run from this folder.
set -u
run() { nines tournament "$1" "$2" -p 2 -n "$3" --seed "$4" --workers 1 --batch-size 64 --save-matches --no-charts --quiet --out "$5" "${@:6}"; }
pair() { run "$1" "$2" "$3" "$4" "${5}_A" "${@:6}" & run "$2" "$1" "$3" "$4" "${5}_B" "${@:6}"; wait; }
L=lookahead:draws=log
M=$L,policy=learned,leaf=learned
case "$1" in
  1) pair $M,depth=12,samples=176 $L 500 410 d12 ;;  # screen: about the decisions per second of $L (speed0.log, speed2.log)
  2) pair $M,depth=12,samples=176 $L 2000 420 c12 ;;  # the screen's best, confirmed on fresh deals
  3) pair $M,depth=12,samples=176 expert 500 92 z92 ;;  # the first 500 deals of ../../draw-log/f92 (clairvoyant's share)
  4) pair $L,leaf=learned,depth=12,samples=320 $L 500 411 e12 ;;  # expert's rollouts cut: about the decisions per second of $L (speed5.log)
  5) pair $L,leaf=learned,depth=12,samples=320 $L 2000 421 f12 ;;  # run 4's player confirmed on fresh deals
esac
