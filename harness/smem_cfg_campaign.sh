#!/bin/bash
# Nsight Compute LaunchStats + Occupancy of every kernel of specs/smem_cfg.spec, once each,
# without MPS (issue 11, FINDINGS.md §30 addendum): the shared-memory configuration the driver
# chose ("Shared Memory Configuration Size") beside the launch shape, for the held-out check
# of harness/smem_rule_check.py.  One device call of ~20 s; the card is left as found
# (--clock-control none).
#   harness/smem_cfg_campaign.sh OUTDIR   (harness/bin/hqprobe built: make -C harness)
# -> OUTDIR/ncu_smem_cfg.csv.gz (for traces/measured/h100/ncu/), OUTDIR/smem_cfg_info.txt,
#    OUTDIR/smem_cfg_run.log
set -u
OUTDIR=${1:?outdir}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUTDIR"
. "$HERE/mps_lib.sh"
mps_lib_info 1 ncu > "$OUTDIR/smem_cfg_info.txt" 2>&1
cat "$OUTDIR/smem_cfg_info.txt"
timeout ${NCU_TIMEOUT:-120} ncu --csv --page details --section LaunchStats --section Occupancy \
  --clock-control none -k 'regex:^k_(gemv|triad|copy|reduce|sgemm|smem|fma|gt)' \
  --log-file "$OUTDIR/ncu_smem_cfg.csv" \
  "$HERE/bin/hqprobe" run --spec "$HERE/specs/smem_cfg.spec" --out /tmp/smem_cfg --reps 1 \
  --nosolo --nosync --nowarmup > "$OUTDIR/smem_cfg_run.log" 2>&1
echo "ncu rc=$?" | tee -a "$OUTDIR/smem_cfg_info.txt"
date -u >> "$OUTDIR/smem_cfg_info.txt"
gzip -f "$OUTDIR/ncu_smem_cfg.csv"
ls -la "$OUTDIR"
