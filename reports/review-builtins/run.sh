#!/bin/sh
# The README's "where each built-in loses its points": every built-in heuristic heads-up against expert,
# 200 matches, seed 1, the search with 256 samples; one process at a time on the 2-core machine.
for s in expert dump-faces hold-nines suit-majority random; do
  nines review "$s" --against expert --matches 200 --seed 1 --out "reports/review-builtins/$s" --force \
    > "reports/review-builtins/$s.log" 2>&1
done
