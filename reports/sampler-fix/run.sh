#!/bin/bash
# usage: run.sh SAMPLES SEED DEALS TAG   (from the report folder, venv active)
set -u
run() { nice -n 5 nines tournament "$1" "$2" -p 2 -n "$3" --seed "$4" --workers 1 --batch-size 64 --save-matches --no-charts --quiet --out "$5"; }
L=lookahead:draws=log
M=$L,policy=learned,leaf=learned,depth=12,samples=$1
run $M $L $3 $2 ${4}_A & run $L $M $3 $2 ${4}_B; wait
