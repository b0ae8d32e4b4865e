#!/bin/bash
# Issue 40, equal time with the heads-up classic model trained with --draws log (digest 13b954db720253f1) and its
# refitted value: lookahead with the learned rollout policy and leaf value against lookahead:draws=log, heads-up
# classic, at settings measured (speed*.log) to make at least the decisions per CPU second of lookahead:draws=log;
# each deal twice, seats swapped (_A: the first player in seat 0, _B: seat 1). Run from this folder.
set -u
run() { nines tournament "$1" "$2" -p 2 -n "$3" --seed "$4" --workers 1 --batch-size 64 --save-matches --no-charts --quiet --out "$5" "${@:6}"; }
pair() { run "$1" "$2" "$3" "$4" "${5}_A" "${@:6}" & run "$2" "$1" "$3" "$4" "${5}_B" "${@:6}"; wait; }
L=lookahead:draws=log
M=$L,policy=learned,leaf=learned
case "$1" in
  1) pair $M,depth=12,samples=176 $L 500 430 d12 ;;  # screen: the equal-time setting of ../equal-time, new model
  2) pair $M,depth=12,samples=176 $L 2000 440 c12 ;;  # the screen's player confirmed on fresh deals
  3) pair $M,depth=8,samples=192 $L 500 430 d8 ;;  # the screen's deals, cut at 8 turns: about equal time (speed3.log)
  4) pair $M,depth=16,samples=160 $L 500 430 d16 ;;  # the screen's deals, cut at 16 turns: about equal time (speed1.log)
  5) pair $M,depth=12,samples=176 expert 500 92 z92 ;;  # the first 500 deals of ../../draw-log/f92 (clairvoyant's share)
  6) pair $M,depth=8,samples=192 $L 2000 441 c8 ;;  # run 3's player confirmed on fresh deals (speed3.log, speed4.log)
  7) pair $M,depth=12,samples=176 $L 2000 441 e12 ;;  # run 2's player on run 6's deals: the depth paired, a second confirmation
esac
