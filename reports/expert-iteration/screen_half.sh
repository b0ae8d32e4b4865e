#!/bin/bash
# usage: screen_half.sh CAND SAMPLES SEED DEALS TAG A|B   (from this folder): one seating of run.sh, for running
# the two seatings one after the other while another job of ours holds a core
set -u
PY=../../.venv/bin/python
L=lookahead:draws=log
M=$L,policy=learned,leaf=learned,depth=12,samples=$2
if [ "$6" = A ]; then P0=$M; P1=$L; else P0=$L; P1=$M; fi
nice -n 10 $PY ship.py "$1" nines tournament "$P0" "$P1" -p 2 -n "$4" --seed "$3" --workers 1 --batch-size 64 --save-matches --no-charts --quiet --out "${5}_$6"
