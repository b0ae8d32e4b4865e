#!/bin/bash
# Issue 40: decisions per CPU second of lookahead:draws=log with and without counts=obey, heads-up against expert,
# one process each, alternated in one sitting (reports/ismcts/speed.py: 24 matches of seed 7 after a compiling run).
set -u
for i in 1 2; do
  for spec in lookahead:draws=log lookahead:draws=log,counts=obey lookahead lookahead:counts=obey; do
    python ../ismcts/speed.py "$spec" 24
  done
done
