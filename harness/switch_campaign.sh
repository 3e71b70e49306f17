#!/bin/bash
# Contexts taking turns without MPS (hqsim issue 10): switch_probe.py in N = 1 and 2
# processes for three graph configurations and one eager one; one device call.
#   harness/switch_campaign.sh OUTDIR   -> OUTDIR/switch.tar.gz
set -u
OUTDIR=${1:?outdir}
HERE=$(cd "$(dirname "$0")" && pwd)
RAW=/tmp/swraw; rm -rf "$RAW"; mkdir -p "$RAW" "$OUTDIR"
trap 'date -u >> "$RAW/info.txt"; tar czf "$OUTDIR/switch.tar.gz" -C "$RAW" .; ls -la "$OUTDIR"' EXIT
trap 'exit 143' TERM INT
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"; } > "$RAW/info.txt" 2>&1
cat "$RAW/info.txt"
for cfg in decoder:1:graph encoder:8:graph cnn:1:graph decoder:16:graph; do
  for n in 1 2; do
    tag=$(echo $cfg | tr : _)_n$n; B=$RAW/bar_$tag; mkdir -p "$B"; pids=()
    for i in $(seq 0 $((n - 1))); do
      timeout 60 python3 "$HERE/switch_probe.py" --config $cfg --n $n --rank $i --barrier "$B" \
        --out "$RAW/${tag}_p$i" > "$RAW/${tag}_p$i.log" 2>&1 & pids+=($!)
    done
    for p in "${pids[@]}"; do wait $p; done; rm -rf "$B"
    echo "$tag done $SECONDS s"
  done
done
