# mps_lib.sh -- pieces shared by the MPS probe campaigns (mps_probe_campaign.sh, chase_campaign.sh,
# mps_decoder_campaign.sh, mps_empty_campaign.sh, mps_var_campaign.sh); sourced, not run.
# The caller sets MPSDIR (the daemon's pipe/log directory), MPSON (1 while
# the daemon runs) and PIDS (the background clients to stop).

# Stop the clients still running and quit the MPS daemon if this campaign
# started it: every campaign leaves the card as it found it (its EXIT trap).
mps_lib_stop() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  if [ "$MPSON" = 1 ]; then
    echo quit | CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe timeout 20 nvidia-cuda-mps-control >/dev/null 2>&1
    sleep 1
  fi
}

# Start the MPS daemon (pipe and log under $MPSDIR, which the caller has
# exported as CUDA_MPS_PIPE_DIRECTORY / CUDA_MPS_LOG_DIRECTORY); exits the
# campaign when it does not start.
mps_lib_start() {
  rm -rf "$MPSDIR"; mkdir -p "$MPSDIR/pipe" "$MPSDIR/log"
  nvidia-cuda-mps-control -d && sleep 1 && MPSON=1
  [ "$MPSON" = 1 ] || { echo "MPS daemon did not start"; exit 1; }
}

# After a victim ends (it touched BAR/stop): wait up to 10 s for each
# aggressor in PIDS to stop, append its "aggr KIND kernels_per_s [extra]"
# line as a row TAG,i,kernels_per_s[,extra] of CSV (EXTRA=1 keeps the
# fourth field), copy its log to LOGS_i.log when LOGS is not empty.
mps_lib_reap() { # BAR TAG CSV LOGS EXTRA
  local bar=$1 tag=$2 csv=$3 logs=$4 extra=${5:-0} i p k
  for i in "${!PIDS[@]}"; do
    p=${PIDS[$i]}
    for k in $(seq 20); do kill -0 "$p" 2>/dev/null || break; sleep 0.5; done
    kill "$p" 2>/dev/null; wait "$p" 2>/dev/null
    awk -v c="$tag,$((i + 1))" -v x="$extra" \
      '$1 == "aggr" { print c "," $3 (x == 1 ? "," $4 : "") }' "$bar/aggr_$((i + 1)).log" >> "$csv"
    [ -z "$logs" ] || cp "$bar/aggr_$((i + 1)).log" "${logs}$((i + 1)).log"
  done
  PIDS=()
}

# What a campaign records of the machine in its info.txt (on stdout): the
# date, and with REAL=1 the GPU, driver, CUDA and nvcc versions, then each
# extra asked for (torch, ncu); the core count last.
mps_lib_info() { # REAL [torch] [ncu]
  local real=$1 x; shift
  date -u
  if [ "$real" = 1 ]; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
    nvidia-smi | grep -i "cuda version"
    nvcc --version | tail -2
    for x in "$@"; do
      case $x in
        torch) python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)";;
        ncu) ncu --version | tail -1;;
      esac
    done
  fi
  nproc
}

# Stand-in for mps_decoder_probe.py in a campaign's --mock mode (HERE: the harness folder).
mock_dec() { # mps_decoder_probe.py victim|aggr|header ...
  local mode=$1 model= bar= tag=- peers=0 kf=; shift
  while [ $# -gt 1 ]; do
    case $1 in --model) model=$2;; --barrier) bar=$2;; --tag) tag=$2;; --peers) peers=$2;;
      --kernels) kf=$2;; esac
    shift 2
  done
  case $mode in
    header) python3 "$HERE/mps_decoder_probe.py" header;;
    victim)
      while [ -n "$bar" ] && [ "$(ls "$bar" | grep -c ready)" -lt "$peers" ]; do sleep 0.1; done
      sleep 0.2; [ -n "$bar" ] && touch "$bar/stop"
      echo "$tag,$model,plain,2000,2000.0,500.0,$((450 + 50 * peers)).0,440.0,470.0,,,,"
      echo "$tag,$model,kineto,30,1900.0,520.0,$((460 + 60 * peers)).0,450.0,480.0,151,455.0,444.0,200.0"
      [ -n "$kf" ] && printf 'kernel,grid,per_request,median_us\n"gemvx",128x1x1,16.0,3.84\n' > "$kf";;
    aggr)
      touch "$bar/ready.$BASHPID"; while [ ! -e "$bar/stop" ]; do sleep 0.05; done
      echo "aggr $model 1800.0 125829120" >&2;;
  esac
}

# Stand-in for mps_probe in a campaign's --mock mode: the same command lines,
# barrier files and output lines, no GPU (numbers are placeholders).
mock_probe() { # mps_probe victim|aggr|header ...
  local mode=$1 kind= bar= tag=- peers=0 grid=1; shift
  while [ $# -gt 1 ]; do
    case $1 in --kind) kind=$2;; --barrier) bar=$2;; --tag) tag=$2;; --peers) peers=$2;;
      --grid) grid=$2;; esac
    shift 2
  done
  case $mode in
    header) echo "tag,victim,requests,req_per_s,host_p50_us,span_p50_us,kern_p50_us,kern_mean_us,kern_p10_us,kern_p90_us,gap_p50_us,gap_mean_us,mhz_p50$(
      [ "$kind" = var ] && echo ",sm_same,sm_distinct_p50,types_kern_gap_p50")";;
    victim)
      while [ -n "$bar" ] && [ "$(ls "$bar" | grep -c ready)" -lt "$peers" ]; do sleep 0.1; done
      sleep 0.2; [ -n "$bar" ] && touch "$bar/stop"
      echo "$tag,$kind,4700,4700.0,210.0,$((195 + 10 * peers)).000,5.088,5.09,5.08,5.10,1.02,1.1,1980$(
        [ "$kind" = var ] && echo ",0.500,16,5.088:1.020")";;
    aggr)
      touch "$bar/ready.$BASHPID"; while [ ! -e "$bar/stop" ]; do sleep 0.05; done
      echo "aggr $kind $((165000 - 100 * grid))" >&2;;
  esac
}

# The graphbench loop arguments of a neighbour kind (mps_disj_nb_campaign.sh's header says what
# each is; FINDINGS §54), ITERS requests; GW (the caller's, default 3000) ns a node.
mps_lib_gargs() { # gfast|gslow|gl2|gdram|gdramt32|gdramt512|gdramw ITERS
  local GW=${GW:-3000}
  case $1 in
    gfast) echo "--pat $(printf 'kK%.0s' $(seq 75)) --work $GW --iters $2";;
    gslow) echo "--pat kK --work $GW --gap 3600 --iters $2";;
    gl2) echo "--pat $(printf 'lL%.0s' $(seq 75)) --work $GW --iters $2";;
    gdram) echo "--pat $(printf 'dD%.0s' $(seq 75)) --work $GW --iters $2";;
    gdramt32 | gdramt512) echo "--pat $(printf 'dD%.0s' $(seq 75)) --work $GW --mthreads ${1#gdramt} --iters $2";;
    gdramw) echo "--pat $(printf 'dD%.0s' $(seq 75)) --work $((GW * 10)) --region-kib 2048 --iters $2";;
  esac
}
