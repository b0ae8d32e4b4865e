#!/bin/bash
# Issue 25: lookahead with the draw log (draws=log) against today's lookahead and expert; each deal twice, seats swapped.
set -u
export PYTHONPATH=${PYTHONPATH:-/work/wt_log}
run() { nines tournament "$1" "$2" -p 2 -n "$3" --seed "$4" --workers 1 --batch-size 64 --save-matches --no-charts --quiet --out "$5" "${@:6}"; }
pair() { run "$1" "$2" "$3" "$4" "${5}_A" "${@:6}" & run "$2" "$1" "$3" "$4" "${5}_B" "${@:6}"; wait; }
case "$1" in
  1) pair lookahead:draws=log lookahead 1000 91 l91 ;;
  2) pair lookahead:draws=log expert 1000 92 e92 ;;
  3) pair lookahead:draws=log lookahead 1000 93 h93 --rules hard-nines ;;
  4) pair lookahead:draws=log lookahead 1000 94 l94 ;;
  5) pair lookahead:draws=log lookahead 1000 95 h95 --rules hard-nines ;;
  6) pair lookahead:draws=log lookahead 1000 96 v96 ;;
  7) pair lookahead:draws=log lookahead 1000 97 v97 ;;
  8) pair lookahead:draws=log lookahead 1000 98 w98 --rules hard-nines ;;
  9) pair lookahead:draws=log lookahead 1000 99 w99 --rules hard-nines ;;
  4seat)  # at the 4-seat classic table of the lookahead measurements, in each seat in turn (seeds 10-13)
    S=${2:-lookahead:draws=log}; T=${3:-4seat}
    seat() {
      case $1 in
        0) lineup="$S expert dump-faces hold-nines";;
        1) lineup="expert $S dump-faces hold-nines";;
        2) lineup="expert dump-faces $S hold-nines";;
        3) lineup="expert dump-faces hold-nines $S";;
      esac
      nines tournament $lineup -n 400 --seed $((10 + $1)) --workers 1 --batch-size 64 --no-charts --quiet --out $T-$1
    }
    seat 0 & seat 1; wait; seat 2 & seat 3; wait ;;
esac
