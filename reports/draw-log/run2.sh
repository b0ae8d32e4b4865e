#!/bin/bash
# Issue 25: the baselines on the deals of run.sh's seed 92 (plain lookahead against expert), and draws=log with the
# weights of b7ea319 against expert; each deal twice, seats swapped.  PYTHONPATH: the checkout to run.
set -u
run() { nines tournament "$1" "$2" -p 2 -n "$3" --seed "$4" --workers 1 --batch-size 64 --save-matches --no-charts --quiet --out "$5" "${@:6}"; }
pair() { run "$1" "$2" "$3" "$4" "${5}_A" "${@:6}" & run "$2" "$1" "$3" "$4" "${5}_B" "${@:6}"; wait; }
case "$1" in
  b92) pair lookahead expert 1000 92 b92 ;;
  f92) pair lookahead:draws=log expert 1000 92 f92 ;;
  f93) pair lookahead:draws=log expert 1000 93 f93 --rules hard-nines ;;
  b93) pair lookahead expert 1000 93 b93 --rules hard-nines ;;
esac
