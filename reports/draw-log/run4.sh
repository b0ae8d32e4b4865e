#!/bin/bash
# Issue 25: ismcts with the draw log against plain ismcts, heads-up classic, each deal twice, seats swapped (e49c282).
set -u
run() { nines tournament "$1" "$2" -p 2 -n "$3" --seed "$4" --workers 1 --batch-size 64 --save-matches --no-charts --quiet --out "$5" "${@:6}"; }
pair() { run "$1" "$2" "$3" "$4" "${5}_A" "${@:6}" & run "$2" "$1" "$3" "$4" "${5}_B" "${@:6}"; wait; }
case "$1" in
  i107) pair ismcts:draws=log ismcts 1000 107 i107 ;;
esac
