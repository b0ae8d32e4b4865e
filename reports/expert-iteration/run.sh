#!/bin/bash
# usage: run.sh CAND SAMPLES SEED DEALS TAG   (from this folder)
# ../sampler-fix/run.sh with the candidate CAND (ship.py's folder) in place of the shipped model and value:
# the equal-time learned search against lookahead:draws=log, each deal twice with the seats swapped.
set -u
PY=../../.venv/bin/python
run() { nice -n 10 $PY ship.py "$1" nines tournament "$2" "$3" -p 2 -n "$4" --seed "$5" --workers 1 --batch-size 64 --save-matches --no-charts --quiet --out "$6"; }
L=lookahead:draws=log
M=$L,policy=learned,leaf=learned,depth=12,samples=$2
run $1 $M $L $4 $3 ${5}_A & run $1 $L $M $4 $3 ${5}_B; wait
