#!/bin/bash
# L2 and DRAM traffic per kernel of the GEMV graphs and of mps_probe's stream/chase kernels, one
# process alone, no MPS (ncu, --cache-control none --clock-control none: caches warm as in the
# closed loop); FINDINGS §26. One device call, ~2 min.
#   harness/mps_decoder_ncu.sh OUTDIR [--mock]   -> OUTDIR/ncu_<what>.csv
set -u
OUTDIR=${1:?outdir}; MODE=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
RAW=/tmp/mdncu; rm -rf "$RAW"; mkdir -p "$RAW" "$OUTDIR"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_requests_srcunit_tex.sum,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_tex_lookup_hit.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size
NCU="ncu --metrics $M --cache-control none --clock-control none --csv"
X=
[ "$MODE" = --mock ] && X=echo
[ "$MODE" = --mock ] || nvcc -O3 -arch=sm_90 -std=c++17 -o "$RAW/mps_probe" "$HERE/mps_probe.cu" || exit 1
for m in gemv gemvl2 decoder; do
  # skip the warm-up's kernels (~34 or 151 per request, >= 20 requests), then one request
  k=34; [ $m = decoder ] && k=151
  timeout 200 $X $NCU --launch-skip $((k * 25)) --launch-count $k \
    --log-file "$OUTDIR/ncu_$m.csv" python3 "$HERE/mps_decoder_probe.py" victim --model $m \
    --secs 0.05 --kineto 0 > "$RAW/$m.out" 2> "$RAW/$m.log"
  echo "$m rc=$? $(wc -l < "$OUTDIR/ncu_$m.csv" 2>/dev/null) lines"
done
for v in stream chase; do
  timeout 120 $X $NCU --launch-skip 1280 --launch-count 32 --log-file "$OUTDIR/ncu_$v.csv" \
    "$RAW/mps_probe" victim --kind $v --secs 0.05 > "$RAW/$v.out" 2> "$RAW/$v.log"
  echo "$v rc=$? $(wc -l < "$OUTDIR/ncu_$v.csv" 2>/dev/null) lines"
done
tail -n 3 "$RAW"/*.log "$RAW"/*.out
