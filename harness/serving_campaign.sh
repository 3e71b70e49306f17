#!/bin/bash
# The serving table of one GPU in one device call (hqsim issue 10; first run on the H200,
# traces/measured/h200/openloop/): everything openloop_predict.py needs from that GPU and the
# measured rows it predicts.
#   harness/serving_campaign.sh OUTDIR [--mock]
# 1. Kineto profiles, one process alone, no MPS (torch_graphs.py --profile-all: resnet50,
#    encoder, decoder, batch 1 and large, eager and graph; 8 requests after 20 + 50 warm-up, as
#    the H100's launch/kineto/)                                     -> OUTDIR/kineto.tar.gz
# 2. harness/openloop_campaign.sh: N = 1, 2, 4, 8 without MPS and as MPS clients (graph and
#    eager), thread percentages PCTS at N = 1, 4 (graph)            -> OUTDIR/openloop.tar.gz
#    (its nomps_n1 closed phases are the lone process's spread and host-scale fit)
# 3. harness/ncu_campaign.sh of NCU_CFGS, matched to step 1's traces (ncu_request.py)
#                                                                   -> OUTDIR/ncu.tar.gz
# Env: TOTAL (s, default 500): step 2's groups and step 3's configurations that would start
# after TOTAL - NCU_RESERVE (step 2) or TOTAL (step 3) seconds are skipped; NCU_RESERVE (s kept
# for step 3, default 90); PCTS (default "50"); NCU_CFGS (";"-separated "model batch mode",
# default the encoders' and decoders' graphs, the H100's openloop/ncu/ set); NCU_SECTIONS
# (default the three ncu_request.py reads); NCU_TIMEOUT (s per configuration, 120); WORK (the
# working folder, /tmp/servecamp; emptied first); openloop_campaign.sh's GROUPS_RUN and CONFIGS.
# --mock: openloop.py's mock requests, no profiles, ncu_campaign.sh --dry (no GPU, no torch).
# Exit status: non-zero when any step failed (each step's status is printed); the tarballs are
# written either way, so a partial campaign still comes back.
set -u -o pipefail
FAILED=""
OUTDIR=${1:?outdir}; MOCK=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUTDIR"
TOTAL=${TOTAL:-500}; NCU_RESERVE=${NCU_RESERVE:-90}
W=${WORK:-/tmp/servecamp}; rm -rf "$W"; mkdir -p "$W/kineto" "$W/ncu"
echo "serving_campaign start $(date -u) total $TOTAL"
# 1. profiles of one process
t0=$SECONDS
if [ -z "$MOCK" ]; then
  timeout 150 python3 "$HERE/torch_graphs.py" --profile-all "$W/kineto" --only cnn,encoder,decoder \
    > "$W/kineto/profile.log" 2>&1
  rc=$?; echo "kineto rc=$rc $((SECONDS - t0))s"; [ $rc = 0 ] || FAILED="$FAILED kineto"
else
  echo "kineto (mock: none)" | tee "$W/kineto/profile.log"
fi
tar czf "$OUTDIR/kineto.tar.gz" -C "$W/kineto" .
# 2. the serving groups; openloop_campaign.sh counts its own seconds
BUDGET=$((TOTAL - NCU_RESERVE - SECONDS)) PCTS=${PCTS-50} RAW="$W/olraw" \
  bash "$HERE/openloop_campaign.sh" "$OUTDIR" $MOCK 2>&1 | tee "$W/openloop.log" | grep -v '^-rw'
rc=${PIPESTATUS[0]}; echo "openloop rc=$rc"; [ "$rc" = 0 ] || FAILED="$FAILED openloop"
# 3. ncu of one request per configuration, matched to the traces of step 1
IFS=';' read -r -a NCFG <<< "${NCU_CFGS-encoder 1 graph;encoder 8 graph;decoder 16 graph;decoder 1 graph}"
if [ ${#NCFG[@]} -gt 0 ]; then
  BUDGET=$((TOTAL - SECONDS)) TRACES="$W/kineto" NCU_TIMEOUT=${NCU_TIMEOUT:-120} \
    NCU_SECTIONS=${NCU_SECTIONS:-SpeedOfLight LaunchStats ComputeWorkloadAnalysis} \
    bash "$HERE/ncu_campaign.sh" "$W/ncu" "${NCFG[@]}" $([ -n "$MOCK" ] && echo --dry) 2>&1 | tee "$W/ncu.log"
  rc=${PIPESTATUS[0]}; echo "ncu rc=$rc"; [ "$rc" = 0 ] || FAILED="$FAILED ncu"
fi
tar czf "$OUTDIR/ncu.tar.gz" -C "$W/ncu" .
echo "serving_campaign end $(date -u) ${SECONDS}s${FAILED:+, failed:$FAILED}"
ls -la "$OUTDIR"
[ -z "$FAILED" ]
