#!/bin/bash
# usage: confirm.sh CAND TAG   (from this folder): the full confirmation of ../sampler-fix/ for a candidate,
# 1,000 deals of seed 490 then 1,000 of seed 491, each deal twice with the seats swapped (TAG490_*, TAG491_*)
set -u
./run.sh "$1" 176 490 1000 "${2}490"
./run.sh "$1" 176 491 1000 "${2}491"
