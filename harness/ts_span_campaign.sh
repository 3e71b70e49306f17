#!/bin/bash
# Graph spans when contexts take turns without MPS (hqsim issue 10, ts10): ts_span_probe.py
# in 1, 2 and 4 processes, one device call.   harness/ts_span_campaign.sh OUTDIR
#   -> OUTDIR/ts_span.tar.gz (n<N>_p<R>.json per process, info.txt)
set -u
OUTDIR=${1:?outdir}
HERE=$(cd "$(dirname "$0")" && pwd)
RAW=/tmp/tsspan; rm -rf "$RAW"; mkdir -p "$RAW" "$OUTDIR"
trap 'date -u >> "$RAW/info.txt"; tar czf "$OUTDIR/ts_span.tar.gz" -C "$RAW" .; ls -la "$OUTDIR"' EXIT
trap 'exit 143' TERM INT
. "$HERE/mps_lib.sh"
mps_lib_info 1 torch > "$RAW/info.txt" 2>&1; cat "$RAW/info.txt"
CFGS="decoder:1 cnn:1 encoder:8 decoder:16"
plan() { local p="" c r; for c in $CFGS; do for r in "$@"; do p="$p;$c:$r"; done; done; echo "${p#;}"; }
P1=$(plan req queued b2b)
P2=$(plan req,idle queued,idle b2b,idle req,req req,spin queued,req)
P4=$(plan req,req,req,req)
group() { # TAG N PLAN
  local tag=$1 n=$2 pl=$3 B=$RAW/bar_$1 pids=() i
  mkdir -p "$B"
  for i in $(seq 0 $((n - 1))); do
    timeout 150 python3 "$HERE/ts_span_probe.py" --rank $i --n $n --barrier "$B" --plan "$pl" \
      --out "$RAW/${tag}_p$i" > "$RAW/${tag}_p$i.log" 2>&1 & pids+=($!)
  done
  for i in "${pids[@]}"; do wait $i; done; rm -rf "$B"; echo "$tag done $SECONDS s"
}
group n1a 1 "$P1"
group n2 2 "$P2"
group n4 4 "$P4"
group n1b 1 "$P1"
