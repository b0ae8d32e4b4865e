#!/bin/bash
# Every command of this folder's README, in order (from this folder, the package's venv active); about 12 CPU minutes.
set -eu
python study.py collect 1 4000 /tmp/v40_L1.npz > collect1.log
python study.py collect 3 16000 /tmp/v40_L3.npz > collect3.log
python fit.py /tmp/v40_L1.npz > fit_L1.log
python fit.py /tmp/v40_L3.npz > fit_L3.log
python fit.py /tmp/v40_L3.npz hgb > fit_L3_hgb.log
python fit.py /tmp/v40_L3.npz cheat > fit_L3_cheat.log
python more_data.py /tmp/v40_L1.npz /tmp/v40_L3.npz > more_data.log
python world.py fit 1 16000 > world_fit.log  # world_value.npz, which denoised.py reads too
python denoised.py /tmp/v40_L3.npz 10 12000 16 > denoised.log
python match_study.py 6 20000 > match_study.log
python match_rank.py /tmp/v40_match_6.npz > match_rank.log
python match_risk.py 7 40000 32 > match_risk.log
python log_cost.py > log_cost.log 2>/dev/null
