#!/bin/bash
# Issue 40, the learned search's strength against its budget: lookahead with the learned rollout policy and leaf
# value (depth=12) at 1x, 2x and 4x the equal-time setting's samples (176, 352, 704), each against
# lookahead:draws=log on the SAME deals (seed 490: the differences are paired by deal), heads-up classic; each deal
# twice, seats swapped (_A: the first player in seat 0, _B: seat 1). Run from this folder.
set -u
run() { nice -n 5 nines tournament "$1" "$2" -p 2 -n "$3" --seed "$4" --workers 1 --batch-size 64 --save-matches --no-charts --quiet --out "$5" "${@:6}"; }
pair() { run "$1" "$2" "$3" "$4" "${5}_A" "${@:6}" & run "$2" "$1" "$3" "$4" "${5}_B" "${@:6}"; wait; }
L=lookahead:draws=log
M=$L,policy=learned,leaf=learned,depth=12
case "$1" in
  1) pair $M,samples=176 $L 1000 490 x1 ;;  # 1x: the equal-time setting
  2) pair $M,samples=352 $L 1000 490 x2 ;;  # 2x, the same deals
  3) pair $M,samples=704 $L 1000 490 x4 ;;  # 4x, the same deals
  4) pair $L,samples=512 $L 500 490 o2 ;;  # the opponent at 2x its samples against itself, the same deals
  5) pair $M,samples=80,rounds=2 $L 500 490 r2 ;;  # successive halving at about equal time (speed_rounds2.log), the first 500 deals
  6) pair $M,samples=176 $L 1000 491 y1 ;;  # 1x again on 1,000 fresh deals (seed 491)
  7) pair $M,samples=352 $L 1000 491 y2 ;;  # 2x on those deals
  8) pair $M,samples=704 $L 1000 491 y4 ;;  # 4x on those deals
  9) pair $L,samples=512 $L 500 491 p2 ;;  # the opponent at 2x against itself again, the first 500 deals of seed 491
esac
