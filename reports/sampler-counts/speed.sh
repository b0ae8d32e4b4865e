#!/bin/bash
# Issue 40: decisions per CPU second of lookahead with and without counts=obey, heads-up against expert, one
# process each, alternated in one sitting (reports/ismcts/speed.py: N matches of seed 7 after a compiling run).
# ./speed.sh 24 2 "lookahead:draws=log lookahead:draws=log,counts=obey lookahead lookahead:counts=obey"
set -u
N=${1:-24}; ROUNDS=${2:-2}
SPECS=${3:-lookahead:draws=log lookahead:draws=log,counts=obey lookahead lookahead:counts=obey}
for i in $(seq "$ROUNDS"); do
  for spec in $SPECS; do
    python ../ismcts/speed.py "$spec" "$N"
  done
done
