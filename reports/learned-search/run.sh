#!/bin/bash
# Issue 40: the search with the learned model (rollouts, play inference) and counts=obey under V2, heads-up;
# each deal twice, seats swapped (_A: the first player in seat 0, _B: in seat 1).
set -u
run() { nines tournament "$1" "$2" -p 2 -n "$3" --seed "$4" --workers 1 --batch-size 64 --save-matches --no-charts --quiet --out "$5" "${@:6}"; }
pair() { run "$1" "$2" "$3" "$4" "${5}_A" "${@:6}" & run "$2" "$1" "$3" "$4" "${5}_B" "${@:6}"; wait; }
case "$1" in
  1) pair lookahead:draws=log,policy=learned lookahead:draws=log 1000 200 r200 ;;
  2) pair lookahead:draws=log,infer_plays=1,play_model=learned lookahead:draws=log 500 204 p204 ;;
  3) pair lookahead:draws=log,counts=obey lookahead:draws=log 500 202 v202 --rules draw-until-playable ;;
  4) pair lookahead:draws=log,policy=learned expert 500 92 re92 ;;  # the first 500 deals of ../draw-log/f92
  5) pair clairvoyant expert 500 92 ce92 ;;
  6) pair lookahead:draws=log,policy=learned,samples=128 lookahead:draws=log 500 205 q205 ;;  # about equal time
  7) pair lookahead:draws=log,policy=learned,samples=128 lookahead:draws=log 500 206 q206 ;;
esac
