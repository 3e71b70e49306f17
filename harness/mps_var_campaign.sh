#!/bin/bash
# Which kernel property costs an MPS client time, alone and beside other clients (hqsim issue 10
# items 2 and 5, FINDINGS §28); one device call, ~5 min. No card setting is changed.
#   harness/mps_var_campaign.sh OUTDIR [--mock|--quick|--more|--more-mock|--chain|--chain-mock|
#       --dissect|--dissect-mock|--confirm|--confirm-mock|--funcs|--funcs-mock|--wide|--wide-mock|
#       --fit|--fit-mock|--window|--window-mock|--mixparts|--mixparts-mock|--funcmem|--funcmem-mock|
#       --funcmem2|--funcmem2-mock|--funcmem3|--funcmem3-mock|--funcmem3b|--funcmem3b-mock|
#       --burst|--burst-mock|--selfn|--selfn-mock|--funcn|--funcn-mock]
#       -> OUTDIR/var.csv, decoder.csv, aggr.csv, info.txt, ncu_*.csv.gz, logs.tar.gz
# Builds harness/mps_probe.cu (its `var` kind: a graph of 32 chained kernels whose node types are
# given by a spec, see its header comment). Closed loops, medians, SECS measured after 0.3 s.
#  Part L (lone client, item 2): each LONE spec as the only process, first without MPS (time
#    slicing, nothing else on the GPU), then as the only client of an MPS daemon at 100% threads;
#    one property varied at a time from 1 block x 128 threads spinning 2 us (grid, threads,
#    registers, dynamic shared memory, carveouts alternating, distinct functions, code size,
#    parameter size, L2 / DRAM reads, a decoder-like mix), and the decoder b1 graph itself
#    (harness/mps_decoder_probe.py, no profiler) alone without and with MPS.
#  Part A (beside others): victims VT (graphbench's timer node as a var spec: 1 block x 32
#    threads spinning 5 us, the driver's carveout) and VT8 (the same with a preferred carveout
#    of 0%: the smallest shared-memory configuration) beside N - 1 = 1, 3 clients running AGGR
#    specs as graph loops (all SMs busy with blocks of small or large carveouts, register-heavy
#    GEMV-like grids that fit in one wave alone but not two, distinct functions, alternating
#    carveouts, the decoder-like mix) or the decoder b1 graph itself; the decoder victim beside
#    the carveout pair. N = 1 rows before and after.
#  Part N (no MPS): ncu LaunchStats and Occupancy of one decoder request and of one kernel of
#    each var node type used here (the shared-memory configuration the driver chose, the
#    occupancy limits).
# --more (a second call): the carveout window (victims with preferred carveouts 0, 25, 100% and
#   the default beside aggressors whose blocks hold SMs at carveouts set by 0/25/50/100% and the
#   default, N = 2) and, alone without and with MPS, kernels that read and/or write DRAM on 1-1024
#   blocks; the decoder alone again; ncu of those kernels.
# --chain (a third call): alone without and with MPS only, producer-consumer chains (each node
#   reads what the previous node wrote: 1-block and 384-block nodes, alternating) against nodes
#   that only write or only read; the decoder alone again; ncu of those kernels.
# --dissect (a fourth call): the same for the decoder-like chain `mixchain` taken apart: without
#   its registers and shared memory, without its memory chain, reads or writes only, and its
#   first two nodes alone.
# --confirm (a fifth call): `mixchain` again, and the same with every function's preferred carveout
#   at 100% (one configuration for all its nodes), alone without and with MPS; ncu of the latter.
# --funcs (a sixth call): `gridchain` (mixchain's grids and chain, one function, no registers or
#   shared memory) with mixchain's distinct functions, or its registers, or its shared memory
#   (at one configuration) added, and 8 distinct functions streaming DRAM against one; alone.
# --wide (a seventh call): the timer victim as one 1024-thread block (its configuration alone 8 KB,
#   so every configuration is in its window) against VT beside 8 KB and 16 KB clients and decoders.
# --fit (an eighth call): victims whose window holds every configuration the decoder's kernels
#   hold SMs at and that fit beside its GEMV blocks: `VS` (1 block x 32 threads, 1024 registers,
#   1.5 KB dynamic, 0% preference: by the window rule [8, 100] KB) and `VM` (128 threads, 4096
#   registers, 512 B, 0%: [8, 64] KB, fits beside 3 gemvx blocks of 160 registers but not of
#   168), with VT, beside 8 KB, 16 KB (168 and 160 registers), 228 KB clients, `mix` and decoders;
#   ncu of each victim (with and without its preference) and of the 160-register grid.
# --window (a ninth call): the inverse test: VT beside decoder-like aggressors whose every grid
#   sits inside VT's window [32, 228] KB: `mixw` (`mix` with its GEMV nodes as 160-register x5
#   blocks, so 3 per SM leave VT's registers, and every function at a 100% preference: 228 KB),
#   run twice (mixw, mixw2), against `mix`, `mix5` (x5 only: still 16 KB), `mixc100` (168
#   registers at 100%) and decoders, N = 2 / 4; ncu of mixw's node types and a VT-like kernel.
# --mixparts (a tenth call, issue 10 (A)): `mixw` taken apart as VT's neighbour, N = 2 / 4, the
#   whole pass twice: no memory traffic with the same spins (mixwN) or with spins that keep its
#   kernels' durations (mixwT); its 1024-block node as 132 blocks with the same traffic (mixwG) and
#   without (mixwGN); writes instead of reads (mixwW); its GEMV reads streaming fresh DRAM (mixwD,
#   --fresh 1: mix's aggressor reads all hit one L2-resident 8 MiB part); decoders. Each mix alone
#   too (its node durations, first pass only); ncu of mixwG's node types and a VT-like kernel.
# --funcmem (an eleventh call, issue 10 (B)): a lone client without MPS and as the only MPS
#   client, twice (the daemon restarted): gridchain's 8 grids with 1, 2, 4 or 8 distinct functions
#   (F8blk: 8, each 4 nodes in a row) x memory: none, L2 reads of a clean 8 MiB buffer (rd), writes
#   of the node's own region (wr), both (rdwr: independent buffers), or reading what the previous
#   node wrote (chain); the chain on 1-block and 384-block nodes only (F1 / F8); the decoder alone.
# --funcmem2 (a twelfth call): the same, chains cycling 1, 4, 5, 6, 7, 8 functions over 32 node
#   types (gridchain's grids), and 1-block / 384-block (nw), 1 / 128 (nw128), 384 / 128 (ww)
#   alternating with 1 or 8 functions (nwrd: nw reading the clean buffer only); twice.
# --funcmem3 (a thirteenth call, issue 10 (B)): what a wide kernel pays after a narrow one with 8
#   functions cycled: `wp` specs alternate a 1-block writer W and a probe P (function i mod F,
#   F = 8 or 1, every function at LRU distance 7 with F = 8); varied one at a time from W writing
#   1 MB to its own region (o512) and P = 384 blocks without memory: the bytes W writes (0, 4 KB,
#   64 KB, 1 MB, 8 MB to its region, 16 MB streamed to fresh DRAM: dirty L2 data), P's width
#   (1, 8, 32, 132, 384, 1024 blocks), P's own traffic after a W without any (6 MB of L2 reads or
#   of writes), W's shape (132 blocks writing the same 1 MB; no writes, spinning 10 / 100 us),
#   large code (x1: 8 functions of ~16 KB) and one function with 3.8 KB of parameters (x3); and
#   graph vs stream launches (names ending _gate / _str: --gate 150000, --launch graph / stream)
#   of wpD1m and of funcmem2's F1/F8 chains. Twice; no decoder, no ncu.
# --funcmem3b (a fourteenth call): the same pattern, the rows --funcmem3 left open: P reading 6 MB
#   of fresh DRAM (d8) or as the chain's wide node (i8.o8) after a W without memory, P of 2
#   blocks, F1 at 8 / 32 blocks, large code in P only and with a 132-block W, wpD1m again.
# --burst (a fifteenth call, issue 10 (A)): what sets a DRAM-streaming client's cost to a 1-block
#   neighbour, its average traffic or the bytes it has in flight at once: VT beside N - 1 = 1, 3
#   clients (all --fresh 1) cycling a streaming node and a 1-block 5 us spin: b8 (1024 blocks x
#   128 threads, 4 independent float4 loads each: 8 MiB requested at once), s8 (the same 8 MiB on
#   132 blocks, 31 loads per thread), b2 (1024 blocks, 1 load each: 2 MiB at once), b8L (b8 with a
#   20 us spin: a quarter of its duty), mixwD (the --mixparts aggressor again); each alone (its
#   node durations, first pass); twice. BURST2=1 (a sixteenth call): whether the neighbour's
#   distinct functions make its traffic costly: b8 again, b8F8 (b8 with its pair on 8 functions:
#   the 1024-block node after a 1-block one, every function 7 others old), mixwD1 (mixwD on one
#   function, its 160-register nodes still kvregs160).
# MPS pipe/log under /tmp/mpsvar, quit here. --mock runs the whole flow with stand-ins for the
# GPU programs (no GPU); --quick a short subset (0.3 s per row).
# --selfn (FINDINGS §40): the decoder-like chain `mixchain` (7 distinct functions around L2-resident
#   data), `gridchain` (its grids and chain, one function, no registers or shared memory) and
#   `gridchainF` (gridchain with 8 distinct functions) each beside N - 1 = 1, 3, 7 copies of
#   itself (MPS, 100% threads), as N decoders serve together: the victim's growth per node per other
#   client against the decoders' per-kernel growth (+0.73 / +1.91 / +3.68 us at N = 2 / 4 / 8).
# --funcn (FINDINGS §43, issue 10): what the distinct functions of --selfn cost beside other
#   clients. One pass (FUNCN rows: victim, aggressor, N), SECS 0.5: gridchain's 8 grids and chain on
#   F = 1, 2, 4, 8, 16 functions (function of node i: i mod F; cF1 = gridchain, cF8 = gridchainF)
#   each beside N - 1 = 0, 1, 3 copies of itself; cF1 beside cF8 / cF16 copies and the reverse
#   (the victim's functions or the others'); cF1 / cF8 beside 1 / 3 idle clients (connected, one
#   graph of 32 1-block empty nodes per 100 ms: --pause 100000); the chain on 1-block nodes only
#   (n1F1/n1F8) and on 132-block nodes only (w132F1/w132F8), 8 functions in runs of 4 nodes
#   (cF8blk: few changes of function), large code (cBigF1/cBigF8: x1, ~16 KB
#   per function), and cF1/cF8 stream-launched and graph-launched behind a 150 us gate (_str,
#   _gate; the others graph-launched), each at N = 1, 2; cF1/cF8 at N = 1 again; then the same cF1
#   / cF8 rows without MPS (time slicing), N = 1, 2. mps_probe's kvar has 16 clones (f 0..15).
set -u
OUTDIR=${1:?outdir}; MODE=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
RAW=/tmp/mpsvar_raw; rm -rf "$RAW"; mkdir -p "$RAW/logs" "$OUTDIR"
MPSDIR=/tmp/mpsvar
BIN=$RAW/mps_probe
SECS=0.8; DSECS=1.0
T=t2000 # lone base node: 1 block x 128 threads, thread 0 spins 2 us
MIX="g1.b128.f0.l4.t1500/g384.b128.x2.s528.d4.t3000/g1.b128.f1.t1000/g128.b128.x2.s528.d4.t2500"
MIX="$MIX/g256.b128.f2.s1536.d4.t3000/g1.b128.f3.l2.t1200/g2.b128.f4.t1000/g1024.b128.f5.s2560.d4.t0"
LONE="b32=g1.b32.$T base=g1.b128.$T g128=g128.b128.$T g384=g384.b128.$T g1024=g1024.b128.$T
 regs=g1.b128.x2.$T regs384=g384.b128.x2.$T s1k=g1.b128.s1536.$T s48k=g1.b128.s49152.$T
 s100k=g1.b128.s102400.$T carvealt=g1.b128.f0.c0.$T/g1.b128.f1.c100.$T
 carvealt384=g384.b128.f0.c0.$T/g384.b128.f1.c100.$T
 func8=g1.b128.f0.$T/g1.b128.f1.$T/g1.b128.f2.$T/g1.b128.f3.$T/g1.b128.f4.$T/g1.b128.f5.$T/g1.b128.f6.$T/g1.b128.f7.$T
 big=g1.b128.x1.t0 par=g1.b128.x3.$T l2=g1.b128.l8.$T dram=g1.b128.d8.$T dram384=g384.b128.d8.t0
 memcpy=m2048.g1.b128.$T mix=$MIX"
VICT="VT=g1.b32.t5000 VT8=g1.b32.c0.t5000"
AGGR="g132=g132.b128.t3000 g132c0=g132.b128.s512.c0.t3000 g132c100=g132.b128.s512.c100.t3000
 r128=g128.b128.x2.s528.t3000 r384=g384.b128.x2.s528.t3000 r384c100=g384.b128.x2.s528.c100.t3000
 f8=g132.b128.f0.t3000/g132.b128.f1.t3000/g132.b128.f2.t3000/g132.b128.f3.t3000/g132.b128.f4.t3000/g132.b128.f5.t3000/g132.b128.f6.t3000/g132.b128.f7.t3000
 carvealt=g132.b128.s512.f0.c0.t3000/g132.b128.s512.f1.c100.t3000 par=g132.b128.x3.t3000
 light=g1.b128.t1000 lightpar=g1.b128.x3.t1000 light8=g1.b128.f0.t1000/g1.b128.f1.t1000/g1.b128.f2.t1000/g1.b128.f3.t1000/g1.b128.f4.t1000/g1.b128.f5.t1000/g1.b128.f6.t1000/g1.b128.f7.t1000
 big=g132.b128.x1.t0 memcpy=m2048.g132.b128.t3000 hcopy=g132.b128.t3000 mix=$MIX decoder=torch"
# hcopy: with --copy 32768 (the decoder's logits out, its token in: a request's host copies)
VT8AGGR=" g132 g132c0 g132c100 r384 r384c100 carvealt mix decoder "
DVICT="g132 g132c0 decoder"
NS="2 4"
# one kernel of each node type, for ncu (Part N)
NCUSPEC="g1.b32.t5000/g1.b32.f1.c0.t5000/g132.b128.f2.t3000/g132.b128.s512.f3.c0.t3000"
NCUSPEC="$NCUSPEC/g132.b128.s512.f4.c100.t3000/g384.b128.x2.s528.t3000/g1.b128.x1.t0/g1.b128.x3.t2000"
NCUSPEC="$NCUSPEC/g1.b128.f5.s49152.t2000/g256.b128.f6.s1536.t3000/g1024.b128.f7.s2560.t0"
if [ "$MODE" = --more ] || [ "$MODE" = --more-mock ]; then
  LONE="base=g1.b128.$T par=g1.b128.x3.$T w1=g1.b128.w8.$T w384=g384.b128.w8.t0
 d128=g128.b128.d8.t0 dram384=g384.b128.d8.t0 d1024=g1024.b128.d8.t0 rw384=g384.b128.d8.w8.t0"
  VICT="VT=g1.b32.t5000 VT8=g1.b32.c0.t5000 VT25=g1.b32.c25.t5000 VT100=g1.b32.c100.t5000"
  AGGR="adef=g132.b128.s512.t3000 a0=g132.b128.s512.c0.t3000 a25=g132.b128.s512.c25.t3000
 a50=g132.b128.s512.c50.t3000 a100=g132.b128.s512.c100.t3000 r384=g384.b128.x2.s528.t3000"
  VT8AGGR=" adef a0 a25 a50 a100 r384 "; DVICT=; NS=2; MORE=1
  NCUSPEC="g1.b32.f0.t5000/g1.b32.f1.c0.t5000/g1.b32.f2.c25.t5000/g1.b32.f3.c100.t5000"
  NCUSPEC="$NCUSPEC/g132.b128.s512.f4.t3000/g132.b128.s512.f5.c25.t3000/g132.b128.s512.f6.c50.t3000"
  NCUSPEC="$NCUSPEC/g132.b128.s512.f7.c75.t3000/g384.b128.d8.w8.t0"
fi
if [ "$MODE" = --chain ] || [ "$MODE" = --chain-mock ]; then
  LONE="base=g1.b128.$T chain1=g1.b128.i4.o4.t0 chain384=g384.b128.i8.o8.t0
 chainmix=g384.b128.i8.o8.t0/g1.b128.i4.o4.t0 out1=g1.b128.o4.t0 outmix=g384.b128.o8.t0/g1.b128.o4.t0
 inmix=g384.b128.i8.t0/g1.b128.i4.t0
 mixchain=g1.b128.f0.i4.o4.t0/g384.b128.x2.s528.i8.o8.t0/g1.b128.f1.i4.o4.t0/g128.b128.x2.s528.i8.o8.t0/g256.b128.f2.s1536.i8.o8.t0/g1.b128.f3.i4.o4.t0/g2.b128.f4.i4.o4.t0/g1024.b128.f5.s2560.i8.o8.t0"
  AGGR=; VICT=; DVICT=; MORE=1
  NCUSPEC="g1.b128.i4.o4.t0/g384.b128.i8.o8.t0"
fi
if [ "$MODE" = --dissect ] || [ "$MODE" = --dissect-mock ] || [ "$MODE" = --confirm ] ||
  [ "$MODE" = --confirm-mock ] || [ "$MODE" = --funcs ] || [ "$MODE" = --funcs-mock ]; then
  A=g1.b128.f0; B=g384.b128.x2.s528; C=g1.b128.f1; D=g128.b128.x2.s528; E=g256.b128.f2.s1536
  F=g1.b128.f3; G=g2.b128.f4; H=g1024.b128.f5.s2560
  io() { # SMALL BIG -> the mixchain with those float4 per thread (1-2 block / wide nodes)
    echo "$A.$1.t0/$B.$2.t0/$C.$1.t0/$D.$2.t0/$E.$2.t0/$F.$1.t0/$G.$1.t0/$H.$2.t0"
  }
  LONE="mixchain=$(io i4.o4 i8.o8) mixin=$(io i4 i8) mixout=$(io o4 o8)
 mixshape=$(io t1 t1 | sed 's/\.t1\.t0/.t1000/g')
 gridchain=g1.b128.i4.o4.t0/g384.b128.i8.o8.t0/g1.b128.i4.o4.t0/g128.b128.i8.o8.t0/g256.b128.i8.o8.t0/g1.b128.i4.o4.t0/g2.b128.i4.o4.t0/g1024.b128.i8.o8.t0
 pairregs=$A.i4.o4.t0/$B.i8.o8.t0 pairregsin=$A.i4.t0/$B.i8.t0 pairregsout=$A.o4.t0/$B.o8.t0
 pair2=$F.i4.o4.t0/$G.i4.o4.t0"
  AGGR=; VICT=; DVICT=; MORE=1; NCUSPEC=
  if [ "$MODE" = --funcs ] || [ "$MODE" = --funcs-mock ]; then
    LONE="gridchain=$(io i4.o4 i8.o8 | sed 's/\.f[0-9]//g; s/\.x2//g; s/\.s[0-9]*//g')
 gridchainF=$(io i4.o4 i8.o8 | sed 's/\.x2//g; s/\.s[0-9]*//g; s/\.f[0-9]//g' |
      awk -F/ '{for (i = 1; i <= NF; i++) printf "%s%s.f%d", (i > 1 ? "/" : ""), $i, i - 1}')
 gridchainR=$(io i4.o4 i8.o8 | sed 's/\.f[0-9]//g; s/\.s[0-9]*//g')
 gridchainS=$(io i4.o4.c100 i8.o8.c100 | sed 's/\.f[0-9]//g; s/\.x2//g')
 funcd=$(for i in 0 1 2 3 4 5 6 7; do printf "g384.b128.f$i.d8.t0/"; done | sed 's|/$||')
 dram384=g384.b128.d8.t0 mixchain=$(io i4.o4 i8.o8)"
  fi
  if [ "$MODE" = --confirm ] || [ "$MODE" = --confirm-mock ]; then
    LONE="mixchain=$(io i4.o4 i8.o8) mixchainc100=$(io i4.o4.c100 i8.o8.c100)
 mixshapec100=$(io c100.t1 c100.t1 | sed 's/\.t1\.t0/.t1000/g')"
    NCUSPEC=$(io i4.o4.c100 i8.o8.c100)
  fi
fi
if [ "$MODE" = --wide ] || [ "$MODE" = --wide-mock ]; then
  LONE=; VICT="VT=g1.b32.t5000 VT1024=g1.b1024.t5000"
  AGGR="g132c0=g132.b128.s512.c0.t3000 r384=g384.b128.x2.s528.t3000 decoder=torch"
  VT8AGGR=" g132c0 r384 decoder "; DVICT=; MORE=1; NCUSPEC="g1.b1024.t5000/g1.b32.f1.t5000"
fi
if [ "$MODE" = --fit ] || [ "$MODE" = --fit-mock ]; then
  LONE=; VICT="VT=g1.b32.t5000 VS=g1.b32.s1536.c0.t5000 VM=g1.b128.s512.c0.t5000"
  AGGR="g132c0=g132.b128.s512.c0.t3000 r384=g384.b128.x2.s528.t3000
 r384r=g384.b128.x5.s528.t3000 g132c100=g132.b128.s512.c100.t3000 mix=$MIX decoder=torch"
  VT8AGGR=" g132c0 r384 r384r g132c100 mix decoder "; N4AGGR=" g132c0 r384 mix decoder "
  DVICT=; MORE=1
  NCUSPEC="g1.b32.f0.t5000/g1.b32.f1.s1536.c0.t5000/g1.b32.f2.s1536.t5000/g1.b128.f3.s512.c0.t5000"
  NCUSPEC="$NCUSPEC/g1.b128.f4.s512.t5000/g384.b128.x5.s528.t3000/g1.b160.x4.t5000"
fi
if [ "$MODE" = --window ] || [ "$MODE" = --window-mock ]; then
  MIXW=$(echo "$MIX" | sed 's/\.x2/.x5/g; s|/|.c100/|g; s|$|.c100|')
  LONE=; VICT="VT=g1.b32.t5000"
  AGGR="mix=$MIX mixw=$MIXW mix5=$(echo "$MIX" | sed 's/\.x2/.x5/g')
 mixc100=$(echo "$MIX" | sed 's|/|.c100/|g; s|$|.c100|') decoder=torch mixw2=$MIXW"
  DVICT=; MORE=1; NCUSPEC="$MIXW/g1.b32.f7.t5000"
fi
if [ "$MODE" = --mixparts ] || [ "$MODE" = --mixparts-mock ]; then
  MIXW=$(echo "$MIX" | sed 's/\.x2/.x5/g; s|/|.c100/|g; s|$|.c100|')
  MIXWN=$(echo "$MIXW" | sed 's/\.[ld][0-9]*//g')
  # spins giving mixw's node durations without traffic (L_mix alone, var/var.csv: 1.60 3.52 1.12
  # 3.01 3.20 1.31 1.12 4.19 us; a 1-block node lasts its spin + ~0.1 us)
  MIXWT=$(echo "$MIXWN" | awk -F/ -v OFS=/ '{split("1500 3400 1000 2900 3100 1200 1000 3000", t, " ")
    for (i = 1; i <= NF; i++) sub(/\.t[0-9]+/, ".t" t[i], $i); print}')
  G132='s/g1024\.b128\.f5\.s2560\.d4\.t0/g132.b128.f5.s2560.d31.t0/' # same 8 MiB (4092 x 128 x 16 B)
  MIXWG=$(echo "$MIXW" | sed "$G132")
  LONE=; VICT="VT=g1.b32.t5000"
  AGGR="mixw=$MIXW mixwD=$MIXW mixwN=$MIXWN mixwT=$MIXWT mixwG=$MIXWG
 mixwGN=$(echo "$MIXWN" | sed 's/g1024\./g132./') mixwW=$(echo "$MIXW" | sed 's/\.l\([0-9]\)/.o\1/g; s/\.d\([0-9]\)/.w\1/g')
 decoder=torch"
  FRESHAGGR=" mixwD "
  for w in $AGGR; do # alone (a victim's d reads are fresh: mixwD alone is mixw alone)
    [ "${w#*=}" != torch ] && [ "${w%%=*}" != mixwD ] && LONE="$LONE $w"
  done
  LONEREPS=1; LONEDEC=0; REPS=2
  DVICT=; MORE=1; NCUSPEC="$MIXWG/g1.b32.f7.t5000"
fi
if [ "$MODE" = --burst ] || [ "$MODE" = --burst-mock ]; then
  MIXW=$(echo "$MIX" | sed 's/\.x2/.x5/g; s|/|.c100/|g; s|$|.c100|')
  LONE=; VICT="VT=g1.b32.t5000"
  AGGR="b8=g1024.b128.d4.t0/g1.b128.t5000 s8=g132.b128.d31.t0/g1.b128.t5000
 b2=g1024.b128.d1.t0/g1.b128.t5000 b8L=g1024.b128.d4.t0/g1.b128.t20000 mixwD=$MIXW"
  FRESHAGGR=" b8 s8 b2 b8L mixwD "
  if [ "${BURST2:-0}" = 1 ]; then
    B8F8=$(for f in 0 1 2 3 4 5 6 7; do printf '/g1024.b128.f%d.d4.t0/g1.b128.f%d.t5000' $f $(((f + 4) % 8)); done)
    AGGR="b8=g1024.b128.d4.t0/g1.b128.t5000 b8F8=${B8F8#/} mixwD1=$(echo "$MIXW" | sed 's/\.f[0-9]//g')"
    FRESHAGGR=" b8 b8F8 mixwD1 "
  fi
  for w in $AGGR; do LONE="$LONE $w"; done # alone: a victim's d reads are fresh too
  LONEREPS=1; LONEDEC=0; REPS=2
  DVICT=; MORE=1; NCUSPEC=
fi
if [ "$MODE" = --funcmem ] || [ "$MODE" = --funcmem-mock ] || [ "$MODE" = --funcmem2 ] ||
  [ "$MODE" = --funcmem2-mock ] || [ "$MODE" = --funcmem3 ] || [ "$MODE" = --funcmem3-mock ] ||
  [ "$MODE" = --funcmem3b ] || [ "$MODE" = --funcmem3b-mock ]; then
  # fm GRIDS F MEM [B]: one node type per grid, function i mod F; B = 1: 32 node types, function
  # i / 4 (8 functions in runs of 4); B = 2: 32 node types, function i mod F (F need not divide 8);
  # 1-2 block nodes move 4 float4 per thread, wider ones 8 (gridchain's, FINDINGS §28)
  fm() {
    echo "$1" | awk -v F="$2" -v M="$3" -v B="${4:-0}" '{
      n = split($0, g, " "); T = B ? 32 : n; s = ""
      for (i = 0; i < T; i++) {
        gr = g[i % n + 1]; sub(/^g/, "", gr); c = gr + 0 <= 2 ? 4 : 8
        m = ""
        if (M == "rd" || M == "rdwr") m = ".l" c
        if (M == "chain") m = ".i" c
        if (M == "wr" || M == "rdwr" || M == "chain") m = m ".o" c
        s = s (i ? "/" : "") "g" gr ".b128.f" (B == 1 ? int(i / 4) : i % F) m ".t0"
      }
      print s }'
  }
  GC="g1 g384 g1 g128 g256 g1 g2 g1024"
  LONE=
  for m in none rd wr rdwr chain; do
    for f in 1 2 4 8; do LONE="$LONE F$f$m=$(fm "$GC" $f $m)"; done
  done
  LONE="$LONE F8blknone=$(fm "$GC" 8 none 1) F8blkchain=$(fm "$GC" 8 chain 1)"
  for g in g1 g384; do
    for f in 1 8; do LONE="$LONE ${g}F${f}chain=$(fm "$g $g $g $g $g $g $g $g" $f chain)"; done
  done
  SECS=0.5; AGGR=; VICT=; DVICT=; MORE=1; NCUSPEC=; REPS=2
  if [ "$MODE" = --funcmem2 ] || [ "$MODE" = --funcmem2-mock ]; then
    # how many functions a client cycles through before it pays (F5-F7 on gridchain's grids),
    # and whether a wide kernel after a 1-block one is what pays (alternating grids, F1 / F8)
    LONE=
    for f in 1 4 5 6 7 8; do LONE="$LONE F${f}chain=$(fm "$GC" $f chain 2)"; done
    for p in "nw:g1 g384" "nw128:g1 g128" "ww:g384 g128" "nwrd:g1 g384"; do
      for f in 1 8; do
        m=chain; [ "${p%%:*}" = nwrd ] && m=rd
        LONE="$LONE ${p%%:*}F$f=$(fm "${p#*:}" $f $m 2)"
      done
    done
    LONEDEC=0
  fi
fi
if [ "$MODE" = --funcmem3 ] || [ "$MODE" = --funcmem3-mock ] || [ "$MODE" = --funcmem3b ] ||
  [ "$MODE" = --funcmem3b-mock ]; then
  # wp WRITER PROBE F: 32 nodes alternating WRITER / PROBE (node fields without f), function i mod F
  wp() {
    awk -v W="$1" -v P="$2" -v F="$3" 'BEGIN {
      for (i = 0; i < 32; i++) s = s (i ? "/" : "") (i % 2 ? P : W) ".f" i % F; print s }'
  }
  # W: 1 block x 128 threads writing o x 2 KB to its own 8 MiB region; P: 384 blocks, no memory
  W1M=g1.b128.o512.t0; P384=g384.b128.t0
  LONE=
  for f in 8 1; do
    for d in D0:t0 D4k:o2.t0 D64k:o32.t0 D1m:o512.t0 D8m:o4096.t0 D16mw:w8192.t0; do
      [ $f = 1 ] && [[ " D4k D64k " == *" ${d%%:*} "* ]] && continue
      LONE="$LONE wp${d%%:*}F$f=$(wp "g1.b128.${d#*:}" $P384 $f)"
    done
    for g in 1 8 32 132 1024; do
      [ $f = 1 ] && [[ " 8 32 " == *" $g "* ]] && continue
      LONE="$LONE wpG${g}F$f=$(wp $W1M "g$g.b128.t0" $f)"
    done
    LONE="$LONE wpPrdF$f=$(wp g1.b128.t0 g384.b128.l8.t0 $f) wpPwrF$f=$(wp g1.b128.t0 g384.b128.o8.t0 $f)"
    LONE="$LONE wpW132F$f=$(wp g132.b128.o4.t0 $P384 $f) wpT10F$f=$(wp g1.b128.t10000 $P384 $f)"
    [ $f = 8 ] && LONE="$LONE wpT100F8=$(wp g1.b128.t100000 $P384 8)"
    LONE="$LONE wpBigF$f=$(wp g1.b128.x1.o512.t0 g384.b128.x1.t0 $f)"
    for l in gate str; do
      LONE="$LONE wpD1mF${f}_$l=$(wp $W1M $P384 $f)"
      LONE="$LONE F${f}chain_$l=$(fm "$GC" $f chain 2)"
    done
  done
  LONE="$LONE wpParF1=$(wp g1.b128.x3.o512.t0 g384.b128.x3.t0 1)"
  if [ "$MODE" = --funcmem3b ] || [ "$MODE" = --funcmem3b-mock ]; then
    LONE=
    for f in 8 1; do
      LONE="$LONE wpPdrF$f=$(wp g1.b128.t0 g384.b128.d8.t0 $f) wpPchF$f=$(wp g1.b128.t0 g384.b128.i8.o8.t0 $f)"
      LONE="$LONE wpG2F$f=$(wp $W1M g2.b128.t0 $f) wpBigPF$f=$(wp g1.b128.o512.t0 g384.b128.x1.t0 $f)"
      LONE="$LONE wpBigW132F$f=$(wp g132.b128.x1.o4.t0 g384.b128.x1.t0 $f) wpD1mF${f}r=$(wp $W1M $P384 $f)"
    done
    LONE="$LONE wpG8F1=$(wp $W1M g8.b128.t0 1) wpG32F1=$(wp $W1M g32.b128.t0 1)"
  fi
  SECS=0.5; AGGR=; VICT=; DVICT=; MORE=1; NCUSPEC=; REPS=2; LONEDEC=0
fi
if [ "$MODE" = --quick ]; then
  SECS=0.3; DSECS=0.3; LONE="base=g1.b128.$T regs384=g384.b128.x2.$T mix=$MIX"
  AGGR="g132c0=g132.b128.s512.c0.t3000 hcopy=g132.b128.t3000 decoder=torch"; DVICT=g132c0; NS=2
fi
if [ "$MODE" = --selfn ] || [ "$MODE" = --selfn-mock ]; then
  VICT="mixchain=g1.b128.f0.i4.o4.t0/g384.b128.x2.s528.i8.o8.t0/g1.b128.f1.i4.o4.t0/g128.b128.x2.s528.i8.o8.t0/g256.b128.f2.s1536.i8.o8.t0/g1.b128.f3.i4.o4.t0/g2.b128.f4.i4.o4.t0/g1024.b128.f5.s2560.i8.o8.t0
 gridchain=g1.b128.i4.o4.t0/g384.b128.i8.o8.t0/g1.b128.i4.o4.t0/g128.b128.i8.o8.t0/g256.b128.i8.o8.t0/g1.b128.i4.o4.t0/g2.b128.i4.o4.t0/g1024.b128.i8.o8.t0
 gridchainF=g1.b128.i4.o4.t0.f0/g384.b128.i8.o8.t0.f1/g1.b128.i4.o4.t0.f2/g128.b128.i8.o8.t0.f3/g256.b128.i8.o8.t0.f4/g1.b128.i4.o4.t0.f5/g2.b128.i4.o4.t0.f6/g1024.b128.i8.o8.t0.f7"
  AGGR=$VICT; VT8AGGR=" mixchain gridchain gridchainF "; SELFONLY=1; NS="2 4 8"
  LONE=; DVICT=; MORE=1; NCUSPEC=; LONEDEC=0
fi
if [ "$MODE" = --funcn ] || [ "$MODE" = --funcn-mock ]; then
  GC="g1 g384 g1 g128 g256 g1 g2 g1024"
  fm2() { # GRIDS F [EXTRA [B]]: gridchain's chain on those grids, function i mod F (B = 1:
    # i / 4, runs of 4 nodes), 32 node types
    echo "$1" | awk -v F="$2" -v X="${3:-}" -v B="${4:-0}" '{
      n = split($0, g, " "); s = ""
      for (i = 0; i < 32; i++) {
        gr = g[i % n + 1]; sub(/^g/, "", gr); c = gr + 0 <= 2 ? 4 : 8
        s = s (i ? "/" : "") "g" gr ".b128.f" (B ? int(i / 4) : i % F) ".i" c ".o" c X ".t0"
      }
      print s }'
  }
  AGGR="idle=g1.b32.t0"
  for f in 1 2 4 8 16; do AGGR="$AGGR cF$f=$(fm2 "$GC" $f)"; done
  for f in 1 8; do
    AGGR="$AGGR n1F$f=$(fm2 g1 $f) w132F$f=$(fm2 g132 $f) cBigF$f=$(fm2 "$GC" $f .x1)"
  done
  AGGR="$AGGR cF8blk=$(fm2 "$GC" 8 '' 1)"
  PAUSEAGGR=" idle "
  # victim:aggressor:N (the victim's spec is its aggressor name's, less a _str / _gate suffix)
  FUNCN=
  for n in 1 2 4; do for f in 1 2 4 8 16; do FUNCN="$FUNCN cF$f:cF$f:$n"; done; done
  for n in 2 4; do FUNCN="$FUNCN cF1:cF8:$n cF8:cF1:$n"; done
  FUNCN="$FUNCN cF1:cF16:2 cF16:cF1:2"
  for n in 2 4; do FUNCN="$FUNCN cF1:idle:$n cF8:idle:$n"; done
  for v in cF8blk n1F1 n1F8 w132F1 w132F8 cBigF1 cBigF8; do FUNCN="$FUNCN $v:$v:1 $v:$v:2"; done
  for l in str gate; do for f in 1 8; do FUNCN="$FUNCN cF${f}_$l:cF$f:1 cF${f}_$l:cF$f:2"; done; done
  FUNCN="$FUNCN cF1:cF1:1 cF8:cF8:1"
  FUNCNTS="cF1:cF1:1 cF8:cF8:1 cF1:cF1:2 cF8:cF8:2"
  SECS=0.5; LONE=; VICT=; DVICT=; MORE=1; NCUSPEC=; LONEDEC=0
fi
MPSON=0
PIDS=()
MORE=${MORE:-0}
N4AGGR=${N4AGGR:-} # set: only these aggressors at N = 4
PAUSEAGGR=${PAUSEAGGR:-} # these aggressors run with --pause 100000 (connected, ~idle)
FRESHAGGR=${FRESHAGGR:-} # these aggressors run with --fresh 1 (DRAM-streaming d / w)
SELFONLY=${SELFONLY:-0}  # 1: a victim only beside copies of itself (aggressor of its name)
REPS=${REPS:-1}          # passes (the rows' rep column); each restarts the MPS daemon
LONEREPS=${LONEREPS:-$REPS} # passes that run the LONE specs
LONEDEC=${LONEDEC:-1}    # 0: no decoder alone

. "$HERE/mps_lib.sh" # mps_lib_stop, mps_lib_start, mps_lib_reap, mock_probe, mock_dec
if [ "$MODE" = --mock ] || [ "$MODE" = --more-mock ] || [ "$MODE" = --chain-mock ] ||
  [ "$MODE" = --dissect-mock ] || [ "$MODE" = --confirm-mock ] || [ "$MODE" = --funcs-mock ] ||
  [ "$MODE" = --wide-mock ] || [ "$MODE" = --fit-mock ] || [ "$MODE" = --window-mock ] ||
  [ "$MODE" = --mixparts-mock ] || [ "$MODE" = --funcmem-mock ] || [ "$MODE" = --funcmem2-mock ] ||
  [ "$MODE" = --funcmem3-mock ] || [ "$MODE" = --funcmem3b-mock ] || [ "$MODE" = --burst-mock ] ||
  [ "$MODE" = --selfn-mock ] || [ "$MODE" = --funcn-mock ]; then
  MODE=--mock; PROBE=mock_probe; DEC=mock_dec; TO=; NCU="echo ncu"
else
  PROBE=$BIN; DEC="python3 $HERE/mps_decoder_probe.py"; TO="timeout 90"
  NCU="timeout 150 ncu --section LaunchStats --section Occupancy --cache-control none --clock-control none --csv"
fi

finish() {
  mps_lib_stop
  date -u >> "$RAW/info.txt"
  cp "$RAW/var.csv" "$RAW/decoder.csv" "$RAW/aggr.csv" "$RAW/info.txt" "$OUTDIR/" 2>/dev/null
  for f in "$RAW"/ncu_*.csv; do [ -s "$f" ] && gzip -9c "$f" > "$OUTDIR/$(basename "$f").gz"; done
  tar czf "$OUTDIR/logs.tar.gz" -C "$RAW" logs 2>/dev/null
  ls -la "$OUTDIR"
}
trap finish EXIT
trap 'exit 143' TERM INT
real=1; [ "$MODE" = --mock ] && real=0
mps_lib_info $real torch ncu > "$RAW/info.txt" 2>&1
for w in $LONE $VICT $AGGR; do echo "spec $w"; done >> "$RAW/info.txt" # what each row ran
[ -n "$FRESHAGGR" ] && echo "fresh (--fresh 1) aggressors:$FRESHAGGR" >> "$RAW/info.txt"
cat "$RAW/info.txt"
if [ "$MODE" != --mock ]; then
  nvcc -O3 -arch=sm_90 -std=c++17 -o "$BIN" "$HERE/mps_probe.cu" || exit 1
fi
echo "mode,rep,n,aggr,$($PROBE header --kind var | sed 's/^tag,//')" > "$RAW/var.csv"
echo "mode,rep,n,aggr,$($DEC header | sed 's/^tag,//')" > "$RAW/decoder.csv"
echo "mode,rep,n,aggr,victim,i,rate_per_s" > "$RAW/aggr.csv"
REP=1

spec() { # NAME LIST -> the spec of NAME in LIST (name=spec words)
  local w; for w in $2; do [ "${w%%=*}" = "$1" ] && { echo "${w#*=}"; return; }; done
  echo "no spec $1" >&2; exit 1
}

# one MODE N AGGR VICTIM VSPEC: N - 1 aggressors AGGR (a name of $AGGR; `decoder`: the torch
# graph), then the victim (VSPEC a var spec; `decoder`: the torch graph) in the foreground; it
# touches the barrier's stop file, the aggressors report and leave. Victim names in the rows:
# L_<lone spec>, VT, VT8, decoder.
one() {
  local mode=$1 n=$2 ag=$3 v=$4 vs=$5 i bar=$RAW/bar_$1_$2_$3_$4_$REP t0=$SECONDS rc as last
  local lg=$RAW/logs/${mode}_r${REP}_${n}_${ag}_$v
  rm -rf "$bar"; mkdir -p "$bar"
  PIDS=()
  for ((i = 1; i < n; i++)); do
    if [ "$ag" = decoder ]; then
      $TO $DEC aggr --model decoder --barrier "$bar" 2> "$bar/aggr_$i.log" &
    else
      as=$(spec "$ag" "$AGGR")
      local cp=0 fr=0 pz=(); [ "$ag" = hcopy ] && cp=32768
      [[ "$FRESHAGGR" == *" $ag "* ]] && fr=1
      [[ "$PAUSEAGGR" == *" $ag "* ]] && pz=(--pause 100000)
      $TO $PROBE aggr --kind var --spec "$as" --copy $cp --fresh $fr "${pz[@]}" --barrier "$bar" \
        2> "$bar/aggr_$i.log" &
    fi
    PIDS+=($!)
  done
  local peers=()
  [ "$n" -gt 1 ] && peers=(--barrier "$bar" --peers $((n - 1)))
  if [ "$vs" = decoder ]; then
    $TO $DEC victim --model decoder --secs $DSECS --kineto 0 --tag "$mode,$REP,$n,$ag" "${peers[@]}" \
      >> "$RAW/decoder.csv" 2> "$lg.log"
    rc=$?; last=$RAW/decoder.csv
  else
    local lopt=() # a lone spec named *_gate / *_str: gated graph / gated stream launches
    case $v in
      *_gate) lopt=(--launch graph --gate 150000);; *_str) lopt=(--launch stream --gate 150000);;
    esac
    $TO $PROBE victim --kind var --spec "$vs" --secs $SECS --tag "$mode,$REP,$n,$ag" "${peers[@]}" "${lopt[@]}" \
      2> "$lg.log" | sed "s/,var,/,$v,/" >> "$RAW/var.csv"
    rc=${PIPESTATUS[0]}; last=$RAW/var.csv
  fi
  touch "$bar/stop"
  mps_lib_reap "$bar" "$mode,$REP,$n,$ag,$v" "$RAW/aggr.csv" "${lg}_aggr"
  echo "$mode r$REP n=$n aggr=$ag victim=$v rc=$rc $((SECONDS - t0))s | $(tail -1 "$last" | cut -d, -f6-10,14-17)"
}

lone() { # MODE: every LONE spec and the decoder, alone (passes up to LONEREPS)
  local w
  [ "$REP" -le "$LONEREPS" ] || return 0
  for w in $LONE; do one "$1" 1 none "L_${w%%=*}" "${w#*=}"; done
  [ "$LONEDEC" = 1 ] && one "$1" 1 none decoder decoder
  return 0
}

# One pass: Part L without MPS (time slicing; nothing else runs), then Part L and A inside MPS.
pass() {
  local w n a k
  lone nomps
  export CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log
  if [ "$MODE" != --mock ]; then
    mps_lib_start
  fi
  lone mps
  for w in $VICT; do one mps 1 none "${w%%=*}" "${w#*=}"; done
  for n in $NS; do
    for a in $AGGR; do
      for w in $VICT; do
        [ "$SELFONLY" = 1 ] && [ "${a%%=*}" != "${w%%=*}" ] && continue
        [ "${w%%=*}" != VT ] && [[ "$VT8AGGR" != *" ${a%%=*} "* ]] && continue
        [ -n "$N4AGGR" ] && [ "$n" = 4 ] && [[ "$N4AGGR" != *" ${a%%=*} "* ]] && continue
        one mps "$n" "${a%%=*}" "${w%%=*}" "${w#*=}"
      done
    done
    for a in $DVICT; do one mps "$n" "$a" decoder decoder; done
  done
  for w in $VICT; do one mps 1 none_again "${w%%=*}" "${w#*=}"; done
  [ "$LONEDEC" = 1 ] && one mps 1 none_again decoder decoder
  mps_lib_stop; MPSON=0
  for k in $(seq 20); do pgrep -f nvidia-cuda-mps >/dev/null || break; sleep 0.5; done # gone
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
}
funcn_rows() { # MODE ROWS: victim:aggressor:N rows (N = 1: alone)
  local r v a n
  for r in $2; do
    v=${r%%:*}; a=${r#*:}; n=${a#*:}; a=${a%%:*}
    if [ "$n" = 1 ]; then one "$1" 1 none "$v" "$(spec "${v%_*}" "$AGGR")"
    else one "$1" "$n" "$a" "$v" "$(spec "${v%_*}" "$AGGR")"; fi
  done
}
if [ -n "${FUNCN:-}" ]; then # --funcn: MPS rows, then time slicing
  export CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log
  [ "$MODE" != --mock ] && mps_lib_start
  funcn_rows mps "$FUNCN"
  mps_lib_stop; MPSON=0
  for k in $(seq 20); do pgrep -f nvidia-cuda-mps >/dev/null || break; sleep 0.5; done
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  funcn_rows nomps "$FUNCNTS"
else
  for ((REP = 1; REP <= REPS; REP++)); do pass; done
fi

# Part N: ncu without MPS. The decoder (not with --more): skip ~25 requests' kernels, then one
# request (151).
if [ "$MORE" != 1 ]; then
  $NCU --launch-skip $((151 * 25)) --launch-count 151 --log-file "$RAW/ncu_decoder.csv" \
    python3 "$HERE/mps_decoder_probe.py" victim --model decoder --secs 0.05 --kineto 0 \
    > "$RAW/logs/ncu_decoder.out" 2>&1
  echo "ncu decoder rc=$? $(wc -l < "$RAW/ncu_decoder.csv" 2>/dev/null) lines"
fi
if [ -n "$NCUSPEC" ]; then
  NT=$(echo "$NCUSPEC" | tr / '\n' | wc -l)
  $NCU --launch-skip $((NT * 120)) --launch-count "$NT" --log-file "$RAW/ncu_var.csv" \
    "$BIN" victim --kind var --nodes "$NT" --spec "$NCUSPEC" --secs 0.05 \
    > "$RAW/logs/ncu_var.out" 2>&1
  echo "ncu var rc=$? $(wc -l < "$RAW/ncu_var.csv" 2>/dev/null) lines"
fi
wc -l "$RAW/var.csv" "$RAW/decoder.csv" "$RAW/aggr.csv"
