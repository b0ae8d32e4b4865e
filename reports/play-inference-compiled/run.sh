#!/bin/bash
# Issue 40, play inference by the learned model made cheap (compiled likelihoods, play_worlds=weigh): lookahead with
# the learned rollout policy and leaf value and infer_plays=1,play_model=learned against lookahead:draws=log, heads-up
# classic, at settings measured (speed*.log) to make at least the decisions per CPU second of lookahead:draws=log;
# each deal twice, seats swapped (_A: the first player in seat 0, _B: seat 1). Run from this folder.
set -u
run() { nice -n 5 nines tournament "$1" "$2" -p 2 -n "$3" --seed "$4" --workers 1 --batch-size 64 --save-matches --no-charts --quiet --out "$5" "${@:6}"; }
pair() { run "$1" "$2" "$3" "$4" "${5}_A" "${@:6}" & run "$2" "$1" "$3" "$4" "${5}_B" "${@:6}"; wait; }
L=lookahead:draws=log
M=$L,policy=learned,leaf=learned,depth=12,infer_plays=1,play_model=learned
case "$1" in
  1) pair $M,samples=160,play_worlds=weigh $L 500 450 w160 ;;  # screen: weighed worlds at equal time (speed1.log)
  2) pair $M,samples=160,play_worlds=weigh $L 2000 460 c160 ;;  # the screen's player confirmed on fresh deals
  3) pair $L,policy=learned,leaf=learned,depth=12,samples=176 $L 500 450 b176 ;;  # the screen's deals without play inference (the equal-time setting of ../leaf-value/log-model): paired
  4) pair $M,samples=96 $L 500 450 r96 ;;  # the screen's deals, resampled from four times the worlds at 96 samples (speed1.log)
  5) pair $M,samples=128,oversample=2 $L 500 450 h128 ;;  # the screen's deals, resampled from twice the worlds at 128 samples (speed1.log)
  6) pair $M,samples=160,play_worlds=weigh $L 500 451 w160b ;;  # run 1's player on 500 more deals, for the pairing with run 7
  7) pair $L,policy=learned,leaf=learned,depth=12,samples=176 $L 500 451 b176b ;;  # run 3's player on run 6's deals
  8) pair $M,samples=96 $L 2000 460 c96 ;;  # run 4's player (screen 0.541) confirmed on fresh deals
  9) pair $L,policy=learned,leaf=learned,depth=12,samples=176 $L 2000 460 e176 ;;  # run 8's deals without play inference: paired
esac
