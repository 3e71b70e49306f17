#!/usr/bin/env python3
"""Generate the launch-pattern spec files used by the campaign (harness/specs/*.spec).

Spec language (one op per line, read by `hqprobe run`):
  streams N [p0,p1,...]        create N streams in this order (priority list; last value repeats)
  kernel S NAME KIND GRID BLOCK DYN_SMEM WORK [CHAINS]
  h2d|d2h|d2d S BYTES pinned|pageable
  sleep US                     host-side gap
  sync | ssync S               cudaDeviceSynchronize / cudaStreamSynchronize
Ops are issued in file order (host issue order). KIND/WORK: see hqprobe.cu.

FMA_ITERS_PER_MS: iterations of the 1-chain FMA loop that take ~1 ms for a lone warp
(calibrated in part A, experiment ct_i1_w1 solo; default is a first guess).
"""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "specs")
FMA_ITERS_PER_MS = int(os.environ.get("FMA_ITERS_PER_MS", "446000"))
MS = 1_000_000  # ns
KB = 1024
MB = 1 << 20

specs = {}


def spec(name, lines):
    specs[name] = "\n".join(lines) + "\n"


def kern(s, name, kind, grid, block, smem, work, chains=1):
    return f"kernel {s} {name} {kind} {grid} {block} {smem} {int(work)} {chains}"


# ---------------------------------------------------------------- A1 hyperq
def hyperq(nstreams, order="df", perm=None, used=None, prio=None, t_ns=10 * MS):
    lines = [f"streams {nstreams}" + (f" {','.join(map(str, prio))}" if prio else "")]
    ids = list(range(nstreams)) if perm is None else list(perm)
    if used is not None:
        ids = [i for i in ids if i in used]
    if order == "df":
        for s in ids:
            lines.append(kern(s, f"kA_s{s}", "gt", 1, 1, 0, t_ns))
            lines.append(kern(s, f"kB_s{s}", "gt", 1, 1, 0, t_ns))
    else:
        for s in ids:
            lines.append(kern(s, f"kA_s{s}", "gt", 1, 1, 0, t_ns))
        for s in ids:
            lines.append(kern(s, f"kB_s{s}", "gt", 1, 1, 0, t_ns))
    return lines


spec("hq_df32", hyperq(32, "df"))
spec("hq_bf32", hyperq(32, "bf"))
for S in (5, 9, 17, 33):
    spec(f"hq_df{S}", hyperq(S, "df"))
spec("hq_df64", hyperq(64, "df"))
spec("hq_interleave8", hyperq(8, "df", perm=[0, 2, 4, 6, 1, 3, 5, 7]))
rnd = list(range(16))
random.Random(7).shuffle(rnd)
spec("hq_random16", hyperq(16, "df", perm=rnd))
spec("hq_unused8", hyperq(8, "df", used={1, 3, 5, 7}))
# max resident grids: 256 streams x one 1x1 kernel of 20 ms
spec("grids256", ["streams 256"] + [kern(s, f"k_s{s}", "gt", 1, 1, 0, 20 * MS) for s in range(256)])
spec("hq_prio8", hyperq(8, "df", prio=[0, -5, 0, -5, 0, -5, 0, -5]))

# ---------------------------------------------------------------- A4 placement
T2 = 2 * MS
for g, b, sm in [(132, 1024, 0), (133, 1024, 0), (264, 1024, 0), (66, 1024, 0), (132, 32, 0), (264, 64, 0),
                 (1056, 64, 0), (4224, 32, 0), (264, 128, 120 * KB)]:
    nm = f"pl_{g}x{b}" + (f"_s{sm // KB}k" if sm else "")
    spec(nm, ["streams 1", kern(0, "K", "gt", g, b, sm, T2)])
for nm, (g1, b1), (g2, b2) in [("pl2_66x1024_132x1024", (66, 1024), (132, 1024)),
                               ("pl2_132x1024_132x1024", (132, 1024), (132, 1024)),
                               ("pl2_132x512_264x512", (132, 512), (264, 512)),
                               ("pl2_33x1024_264x64", (33, 1024), (264, 64)),
                               ("pl2_100x1024_132x1024", (100, 1024), (132, 1024))]:
    spec(nm, ["streams 2", kern(0, "K1", "gt", g1, b1, 0, 4 * MS), kern(1, "K2", "gt", g2, b2, 0, 2 * MS)])

# ---------------------------------------------------------------- A5 leftover / head of line
spec("lo_big_small", ["streams 2", kern(0, "K1big", "gt", 264, 1024, 0, 5 * MS),
                      kern(1, "K2small", "gt", 132, 64, 0, 1 * MS)])
spec("lo_half_small", ["streams 2", kern(0, "K1half", "gt", 132, 1024, 0, 5 * MS),
                       kern(1, "K2small", "gt", 132, 64, 0, 1 * MS)])
spec("lo_waves", ["streams 2", kern(0, "K1waves", "gt", 528, 1024, 0, 2 * MS),
                  kern(1, "K2small", "gt", 132, 64, 0, 1 * MS)])
spec("lo_hol_smem", ["streams 3", kern(0, "K0", "gt", 132, 1024, 100 * KB, 5 * MS),
                     kern(1, "K1head", "gt", 132, 32, 150 * KB, 1 * MS),
                     kern(2, "K2later", "gt", 132, 32, 0, 1 * MS)])
spec("lo_hol_smem_ctrl", ["streams 3", kern(0, "K0", "gt", 132, 1024, 100 * KB, 5 * MS),
                          kern(2, "K2later", "gt", 132, 32, 0, 1 * MS),
                          kern(1, "K1head", "gt", 132, 32, 150 * KB, 1 * MS)])
spec("lo_hol_reg", ["streams 3", kern(0, "K0heavy128", "fmaheavy", 132, 128, 0, 5 * FMA_ITERS_PER_MS),
                    kern(1, "K1heavy256", "fmaheavy", 132, 256, 0, 1 * FMA_ITERS_PER_MS),
                    kern(2, "K2later", "gt", 132, 32, 0, 1 * MS)])
spec("lo_hol_slots", ["streams 3", kern(0, "K0slots", "gt", 4224, 32, 0, 5 * MS),
                      kern(1, "K1head", "gt", 132, 32, 0, 1 * MS),
                      kern(2, "K2later", "gt", 132, 32, 0, 1 * MS)])
spec("lo_fmas32_occ", ["streams 1", kern(0, "Kstatic32k", "fmas32", 132 * 8, 128, 0, 1 * FMA_ITERS_PER_MS)])

# ---------------------------------------------------------------- A6 priorities
for nm, pr, gap in [("pr_lohi", "0,-5", 300), ("pr_same", "0,0", 300), ("pr_lohi_nogap", "0,-5", 0),
                    ("pr_hilo", "-5,0", 300)]:
    lines = [f"streams 2 {pr}", kern(0, "Kfirst", "gt", 528, 128, 120 * KB, 1 * MS)]
    if gap:
        lines.append(f"sleep {gap}")
    lines.append(kern(1, "Ksecond", "gt", 132, 128, 120 * KB, 1 * MS))
    spec(nm, lines)

# ---------------------------------------------------------------- A7 contention
N = FMA_ITERS_PER_MS
for ch, Ws in [(1, (1, 2, 4, 8, 12, 16, 24, 32)), (4, (1, 2, 4, 8, 16))]:
    for W in Ws:
        spec(f"ct_i{ch}_w{W}", ["streams 2", kern(0, "KA", "fma", 132, 32 * W, 0, N, ch),
                                kern(1, "KB", "fma", 132, 32 * W, 0, N, ch)])
spec("ct_mix_w4_w32", ["streams 2", kern(0, "KA_w4", "fma", 132, 128, 0, N, 1),
                       kern(1, "KB_w32", "fma", 132, 1024, 0, N, 1)])
spec("ct_mix_w1_w32", ["streams 2", kern(0, "KA_w1", "fma", 132, 32, 0, N, 1),
                       kern(1, "KB_w32", "fma", 132, 1024, 0, N, 1)])
# four kernels of 8 warps on the same SMs
spec("ct_i1_w8_x4", ["streams 4"] + [kern(i, f"K{i}", "fma", 132, 256, 0, N, 1) for i in range(4)])

# ---------------------------------------------------------------- A8 copies / overlap
for mem in ("pinned", "pageable"):
    spec(f"cp_overlap_{mem}", ["streams 3", f"h2d 0 {64 * MB} {mem}", kern(1, "K10ms", "gt", 132, 256, 0, 10 * MS),
                               f"d2h 2 {64 * MB} {mem}"])
spec("cp_h2d_x2", ["streams 2", f"h2d 0 {256 * MB} pinned", f"h2d 1 {256 * MB} pinned"])
spec("cp_d2h_x2", ["streams 2", f"d2h 0 {256 * MB} pinned", f"d2h 1 {256 * MB} pinned"])
spec("cp_bidir", ["streams 2", f"h2d 0 {256 * MB} pinned", f"d2h 1 {256 * MB} pinned"])
pl = ["streams 4"]
for s in range(4):
    pl += [f"h2d {s} {16 * MB} pinned", kern(s, f"K_s{s}", "gt", 132, 256, 0, 2 * MS), f"d2h {s} {16 * MB} pinned"]
spec("cp_pipeline4", pl)

# ---------------------------------------------------------------- B multi-process
spec("ts_small", ["streams 1", kern(0, "spin", "tslice", 1, 32, 0, 1500 * MS)])
spec("ts_small1s", ["streams 1", kern(0, "spin", "tslice", 1, 32, 0, 1000 * MS)])
spec("ts_small_solo", ["streams 1", kern(0, "spin", "tslice", 1, 32, 0, 300 * MS)])
spec("ts_full", ["streams 1", kern(0, "spinfull", "tslice", 264, 1024, 100 * KB, 1000 * MS)])
idle = ["streams 1"]
for i in range(40):
    idle += [kern(0, f"short{i}", "gt", 1, 32, 0, 200_000), "ssync 0", "sleep 10000"]
spec("ts_idle_short", idle)
spec("tv_1blk", ["streams 1"] + [kern(0, f"k{i}", "fma", 1, 256, 0, 50 * N) for i in range(10)])
spec("mps_pct", ["streams 1", kern(0, "Kspread", "gt", 4224, 128, 0, 100_000)])
spec("mps_pair", ["streams 1", kern(0, "Kspread", "gt", 4224, 128, 0, 200_000)])
# part H: how fast one wave is dispatched, by block size and blocks per SM (one 100 us timer
# wave exactly: grid = 132 x blocks per SM), and two kernels of 8 x 128 threads per SM at once
DISPATCH = [(32, 32), (64, 16), (64, 32), (96, 21), (128, 8), (128, 12), (128, 16), (256, 4), (256, 8),
            (512, 2), (512, 4), (1024, 2)]
for b, k in DISPATCH:
    spec(f"dsp_b{b}_k{k}", ["streams 1", kern(0, "Kwave", "gt", 132 * k, b, 0, 100_000)])
spec("dsp_b128_k8x2", ["streams 2", kern(0, "Kwave1", "gt", 132 * 8, 128, 0, 100_000),
                       kern(1, "Kwave2", "gt", 132 * 8, 128, 0, 100_000)])
# part G: the mps_pct kernel's shape with fixed work instead of a timer (a lone warp ~100 us)
spec("g_spreadfma", ["streams 1", kern(0, "Kspreadfma", "fma", 4224, 128, 0, FMA_ITERS_PER_MS // 10)])
u = ["streams 1", "sleep 1000000", kern(0, "spin3s", "gt", 1, 1, 0, 3000 * MS), "ssync 0", "sleep 1000000"]
for i in range(75):
    u += [kern(0, f"d50_{i}", "gt", 1, 1, 0, 20 * MS), "ssync 0", "sleep 20000"]
for i in range(60):
    u += [kern(0, f"d10_{i}", "gt", 1, 1, 0, 5 * MS), "ssync 0", "sleep 45000"]
u += ["sleep 1000000"]
spec("util_pattern", u)

# ---------------------------------------------------------------- D: carveout compatibility / more HOL
for b1 in (1024, 64):
    for b2 in (64, 128, 256, 512, 1024):
        if b1 == 64 and b2 != 1024:
            continue
        spec(f"lo_carve_k1b{b1}_k2b{b2}", ["streams 2", kern(0, f"K1_b{b1}", "gt", 132, b1, 0, 5 * MS),
                                            kern(1, f"K2_b{b2}", "gt", 132, b2, 0, 1 * MS)])
# K1 with 40 KB dynamic smem (carveout >= 100 KB): a 64-thread K2 should now fit beside it
spec("lo_carve_k1b1024s40k_k2b64", ["streams 2", kern(0, "K1_b1024_s40k", "gt", 132, 1024, 40 * KB, 5 * MS),
                                      kern(1, "K2_b64", "gt", 132, 64, 0, 1 * MS)])
# head of line again, the later kernel's blocks being 1024-thread blocks (small carveout)
spec("lo_hol_smem2", ["streams 3", kern(0, "K0", "gt", 132, 1024, 100 * KB, 5 * MS),
                      kern(1, "K1head", "gt", 132, 1024, 120 * KB, 1 * MS),
                      kern(2, "K2later", "gt", 132, 1024, 0, 1 * MS)])
spec("lo_hol_smem2_ctrl", ["streams 3", kern(0, "K0", "gt", 132, 1024, 100 * KB, 5 * MS),
                           kern(2, "K2later", "gt", 132, 1024, 0, 1 * MS),
                           kern(1, "K1head", "gt", 132, 1024, 120 * KB, 1 * MS)])
# MPS SM sets: one block per SM (200 KB dynamic smem), 132 blocks of 20 ms
spec("mps_excl", ["streams 1", kern(0, "Kexcl", "gt", 132, 128, 200 * KB, 20 * MS)])

spec("cp_h2d_256m", ["streams 1", f"h2d 0 {256 * MB} pinned"])
spec("cp_d2h_256m", ["streams 1", f"d2h 0 {256 * MB} pinned"])

# ---------------------------------------------------------------- ncu
spec("ncu_kernels", ["streams 1", kern(0, "gt", "gt", 264, 1024, 0, 20000),
                     kern(0, "fma1", "fma", 132, 256, 0, 20000, 1),
                     kern(0, "fma4", "fma", 132, 256, 0, 20000, 4),
                     kern(0, "fmaheavy", "fmaheavy", 132, 256, 0, 20000),
                     kern(0, "fmas32", "fmas32", 1056, 128, 0, 20000),
                     kern(0, "gt_smem120k", "gt", 264, 128, 120 * KB, 20000)])

# ---------------------------------------------------------------- I: kernels the calibration never saw
# Memory-bound (triad, copy, reduce, GEMV), shared-memory-bound, a tiled SGEMM and FMA with ILP 1/2/4;
# alone, in pairs and quads on streams, in 2-4 processes; see mp.py part_I.  Sizes aim at ~1 ms alone.
N1 = FMA_ITERS_PER_MS  # ILP-1 lone warp ~1 ms
IK = {  # name: (kind, grid, block, smem, work, chains)
    "tri528": ("triad", 528, 256, 0, 494, 1),    # 1.6 GB
    "tri132": ("triad", 132, 256, 0, 986, 1),
    "tri1056": ("triad", 1056, 256, 0, 247, 1),
    "cpy528": ("copy", 528, 256, 0, 740, 1),     # 1.6 GB
    "red528": ("reduce", 528, 256, 0, 1480, 1),  # 1.6 GB
    "gemv132": ("gemv", 132, 256, 0, 92, 1),     # 1.6 GB
    "sgemm": ("sgemm", 1024, 256, 0, 1792, 1),
    "smem264": ("smem", 264, 256, 0, 40000, 1),
    "fma1": ("fma", 132, 256, 0, N1, 1),
    "fma4": ("fma", 132, 256, 0, N1 // 2, 4),
}


def ik(s, name, key, **over):
    kind, g, b, sm, w, ch = IK[key]
    g, w = over.get("grid", g), over.get("work", w)
    return kern(s, name, kind, g, b, sm, w, ch)


# alone: delivered bandwidth by SMs and by warps per SM (fitted), then every new kernel once
bw = ["streams 1"]
for g in (4, 8, 16, 33, 66, 99, 132):
    bw.append(kern(0, f"tri{g}x1024", "triad", g, 1024, 0, 256))
for g, w in ((132, 986), (264, 493), (528, 247), (1056, 123)):
    bw.append(kern(0, f"tri{g}x256", "triad", g, 256, 0, w))
spec("i_bw", bw)
spec("i_alone", ["streams 1"] + [ik(0, k, k) for k in ("cpy528", "red528", "gemv132", "sgemm", "smem264",
                                                        "tri528", "fma1", "fma4")])
# the issue curve of FMA with ILP 1, 2, 4 (fitted): W warps per SM, one block per SM
spec("i_ilp", ["streams 1"] + [kern(0, f"f{c}_w{W}", "fma", 132, 32 * W, 0, N1 // 4, c)
                               for c in (1, 2, 4) for W in (1, 2, 4, 6, 8, 12, 16, 32)])
# triads on disjoint SM sets (1024-thread blocks: one per SM, most-free placement)
for a in (8, 16, 33, 66):
    spec(f"i_tri{a}_{132 - a}", ["streams 2", kern(0, f"T{a}", "triad", a, 1024, 0, 512),
                                 kern(1, f"T{132 - a}", "triad", 132 - a, 1024, 0, 512)])
PAIRS = {
    "i_tri_x2": ("tri528", "tri528"),
    "i_cpy_tri": ("cpy528", "tri528"),
    "i_red_tri": ("red528", "tri528"),
    "i_gemv_x2": ("gemv132", "gemv132"),
    "i_gemv_tri": ("gemv132", "tri528"),
    "i_tri_fma": ("tri132", "fma1"),
    "i_fma4_tri": ("fma4", "tri528"),
    "i_sgemm_x2": ("sgemm", "sgemm"),
    "i_sgemm_tri": ("sgemm", "tri528"),
    "i_smem_x2": ("smem264", "smem264"),
    "i_smem_fma": ("smem264", "fma1"),
    "i_fma1_fma4": ("fma1", "fma4"),
    "i_sgemm_fma4": ("sgemm", "fma4"),
}
for nm, (a, b) in PAIRS.items():
    spec(nm, ["streams 2", ik(0, "A_" + a, a), ik(1, "B_" + b, b)])
spec("i_tri66_fma66", ["streams 2", kern(0, "T66", "triad", 66, 1024, 0, 512),
                       kern(1, "F66", "fma", 66, 1024, 0, N1 // 4, 1)])
for W in (1, 2, 4, 8, 16):
    spec(f"i_ilp2_w{W}", ["streams 2", kern(0, "KA", "fma", 132, 32 * W, 0, N1, 2),
                          kern(1, "KB", "fma", 132, 32 * W, 0, N1, 2)])
spec("i_quad_mem", ["streams 4"] + [ik(i, k, k) for i, k in enumerate(("tri528", "cpy528", "red528", "gemv132"))])
spec("i_quad_mix", ["streams 4"] + [ik(i, k, k) for i, k in enumerate(("sgemm", "tri528", "fma4", "smem264"))])
# co-resident kernels started at different times: who finishes first?
spec("i_older_fma", ["streams 2", ik(0, "old", "fma1"), "sleep 300", ik(1, "young", "fma1")])
spec("i_older_tri", ["streams 2", ik(0, "old", "tri528"), "sleep 200", ik(1, "young", "tri528")])
spec("i_older_mix", ["streams 2", ik(0, "old", "fma1"), "sleep 300", ik(1, "young", "tri528")])
# a kernel queued behind a full-occupancy triad: where do its blocks go as the triad drains?
spec("i_behind", ["streams 2", ik(0, "tri", "tri1056"), ik(1, "fma", "fma1", grid=264)])
# one kernel per process (multi-process runs)
for k in ("tri528", "gemv132", "sgemm", "fma4"):
    spec(f"i_p_{k}", ["streams 1", ik(0, k, k)])
# for ncu: each new kernel once, FMA ILP 1/2/4 at 8 and 32 warps per SM
spec("i_ncu", ["streams 1"] + [ik(0, k, k) for k in IK] + [kern(0, "tri16x1024", "triad", 16, 1024, 0, 256)]
     + [kern(0, f"f{c}_w{W}", "fma", 132, 32 * W, 0, N1 // 8, c) for c in (1, 2, 4) for W in (2, 8, 32)])

# ---------------------------------------------------------------- J: who goes first inside an SM, uneven waves
# Pairs of the kernels part I measured with ncu (same shapes, so their issue share is known) that test the
# greedy-then-oldest rule hqsim fitted on ct_i1_w* (issue 11 item 3): the greedy kernel first or second, ILP 2
# against ILP 1, age against warp count; and kernels queued behind a draining wave (item 4).
IK.update({"fma2": ("fma", 132, 256, 0, N1 // 2, 2),       # ncu shape f2_w8
           "fma1w32": ("fma", 132, 1024, 0, N1 // 4, 1),   # ncu shape f1_w32
           "red1056": ("reduce", 1056, 256, 0, 740, 1)})
JPAIRS = {
    "j_fma4_fma1": ("fma4", "fma1"),
    "j_fma2_fma1": ("fma2", "fma1"),
    "j_fma1_fma2": ("fma1", "fma2"),
    "j_w8_w32": ("fma1", "fma1w32"),
    "j_w32_w8": ("fma1w32", "fma1"),
    "j_tri_fma4": ("tri528", "fma4"),
    "j_smem_fma4": ("smem264", "fma4"),
    "j_fma4_smem": ("fma4", "smem264"),
    "j_sgemm_fma1": ("sgemm", "fma1"),
    "j_fma1_sgemm": ("fma1", "sgemm"),
}
for nm, (a, b) in JPAIRS.items():
    spec(nm, ["streams 2", ik(0, "A_" + a, a), ik(1, "B_" + b, b)])
spec("j_older_fma1_fma4", ["streams 2", ik(0, "old", "fma1"), "sleep 300", ik(1, "young", "fma4")])
spec("j_older_fma2_fma1", ["streams 2", ik(0, "old", "fma2"), "sleep 200", ik(1, "young", "fma1")])
spec("j_quad_fma", ["streams 4"] + [ik(i, k, k) for i, k in enumerate(("fma1", "fma2", "fma4", "fma1w32"))])
spec("j_behind_red", ["streams 2", ik(0, "red", "red1056"), ik(1, "fma", "fma1", grid=264)])
spec("j_behind_sgemm", ["streams 2", ik(0, "sgemm", "sgemm"), ik(1, "fma", "fma1", grid=264)])
spec("j_behind_fma", ["streams 2", ik(0, "fmaw32", "fma1w32", grid=264), ik(1, "fma", "fma1", grid=264)])

# ---------------------------------------------------------------- K: copies drawing on DRAM
# A device-to-device copy (1 GiB) or a pinned host-to-device copy beside memory-bound and compute kernels of
# part I (issue 11: copy engines draw on the same DRAM as kernels).
GB = 1 << 30
spec("k_d2d_tri", ["streams 2", ik(0, "tri", "tri528"), f"d2d 1 {GB} pinned"])
spec("k_tri_d2d", ["streams 2", f"d2d 1 {GB} pinned", ik(0, "tri", "tri528")])
spec("k_d2d_fma", ["streams 2", ik(0, "fma", "fma1"), f"d2d 1 {GB} pinned"])
spec("k_d2d_gemv", ["streams 2", ik(0, "gemv", "gemv132"), f"d2d 1 {GB} pinned"])
spec("k_h2d_tri", ["streams 2", ik(0, "tri", "tri528"), f"h2d 1 {256 * MB} pinned"])
spec("k_d2d_x2", ["streams 2", f"d2d 0 {GB} pinned", f"d2d 1 {GB} pinned"])

# ---------------------------------------------------------------- M: warps of different ILP on one warp scheduler
# FMA kernels of one block per SM (FINDINGS.md §34, issue 11 item 2): pairs of ILP 8 (never measured before),
# ILP 1/2/4 mixed on the same schedulers, and blocks whose warps do not spread evenly over the 4 schedulers
# (6 + 2 warps), all without Nsight Compute data: hqsim predicts them from the ILP families alone.
def mk(s, name, ilp, warps, work=None):
    return kern(s, name, "fma", 132, 32 * warps, 0, work or N1, ilp)


MPAIRS = {  # name: ((ilp, warps), (ilp, warps)), stream 0 launched first
    "m_i8_w2": ((8, 2), (8, 2)), "m_i8_w4": ((8, 4), (8, 4)), "m_i8_w8": ((8, 8), (8, 8)),
    "m_i1w4_i4w4": ((1, 4), (4, 4)), "m_i4w4_i1w4": ((4, 4), (1, 4)), "m_i1w8_i4w4": ((1, 8), (4, 4)),
    "m_i2w4_i4w4": ((2, 4), (4, 4)), "m_i1w2_i4w2": ((1, 2), (4, 2)), "m_i2w4_i8w4": ((2, 4), (8, 4)),
    "m_i1w6_i1w2": ((1, 6), (1, 2)), "m_i4w6_i4w2": ((4, 6), (4, 2)), "m_i2w6_i2w6": ((2, 6), (2, 6)),
    "m_i4w1_i4w32": ((4, 1), (4, 32)),
}
for nm, ((ia, wa), (ib, wb)) in MPAIRS.items():
    spec(nm, ["streams 2", mk(0, f"A_i{ia}w{wa}", ia, wa), mk(1, f"B_i{ib}w{wb}", ib, wb)])

# ---------------------------------------------------------------- shared-memory configuration (ncu only)
# Which configuration the driver gives kernels of the validated experiments that no Nsight Compute export
# shows (FINDINGS.md §30 addendum, issue 11): the GEMV (36 registers, 6 blocks per SM by registers) and the
# other part I kernels, lo_carve's K1 / K2 shapes (132 x 64..1024 threads), and 256-thread kernels without
# shared memory limited by registers to 1..6 blocks per SM (fmaheavy, chains = __launch_bounds__ blocks).
spec("smem_cfg", ["streams 1"] + [ik(0, k, k) for k in ("gemv132", "tri528", "cpy528", "red528", "sgemm",
                                                         "smem264", "fma1", "fma4")]
     + [kern(0, f"gt_b{b}", "gt", 132, b, 0, 20000) for b in (64, 128, 256, 512, 1024)]
     + [kern(0, "gt_b1024_s40k", "gt", 132, 1024, 40 * KB, 20000)]
     + [kern(0, f"heavy_lb{c}", "fmaheavy", 132, 256, 0, 20000, c) for c in range(1, 7)]
     + [kern(0, "heavy_lb4_g528", "fmaheavy", 528, 256, 0, 20000, 4)])
# ---------------------------------------------------------------- N: ILP ranks on one warp scheduler
# New mixes to test the ranks of FINDINGS.md §34's addendum (hqsim predicts them; nothing is fitted on
# them): ILP 2 beside ILP 1 at 1 + 1 and 2 + 2 warps per scheduler in both launch orders, ILP 4 beside an
# older ILP 1 at 2 + 2, ILP 8 beside ILP 1 and beside ILP 4, and ILP 1 + 2 + 4 on one scheduler.
NMIXES = {  # name: [(ilp, warps), ...], stream i launched i-th
    "n_i1w4_i2w4": [(1, 4), (2, 4)], "n_i2w4_i1w4": [(2, 4), (1, 4)],
    "n_i1w8_i2w8": [(1, 8), (2, 8)], "n_i2w8_i1w8": [(2, 8), (1, 8)],
    "n_i1w8_i4w8": [(1, 8), (4, 8)], "n_i1w4_i8w4": [(1, 4), (8, 4)],
    "n_i4w4_i8w4": [(4, 4), (8, 4)], "n_i1w4_i2w4_i4w4": [(1, 4), (2, 4), (4, 4)],
}
for nm, ks in NMIXES.items():
    spec(nm, [f"streams {len(ks)}"] + [mk(i, f"{'ABC'[i]}_i{k}w{w}", k, w) for i, (k, w) in enumerate(ks)])

# ---------------------------------------------------------------- P: where blocks go when MPS clients wait
# (issue 10, FINDINGS.md §41).  Wall-clock (gt) blocks unless said, so a kernel's span is its blocks'
# start delays plus their fixed time: what a later kernel waits for is read off directly.
# p_hol_*: A = 396 blocks x 128 threads holding 100 KiB (two per SM: 264 run, 132 wait 1 ms for a
# whole SM's room); B = 132 one-warp-group blocks without shared memory, launched 0.4 ms later,
# which fit beside A's blocks everywhere.  Does B wait behind A's pending blocks (head of line)?
P_A = kern(0, "A_smem100", "gt", 396, 128, 100 * KB, 1 * MS)
P_B = kern(0, "B_small", "gt", 132, 128, 0, 50_000)
spec("p_hol_a", ["streams 1", P_A])
spec("p_hol_b", ["streams 1", "sleep 400", P_B])
spec("p_hol_1p", ["streams 2", P_A, "sleep 400", P_B.replace("kernel 0", "kernel 1")])
# p_gw_*: a resnet50-like one-block-per-SM GEMM (52 blocks x 256 threads, 120 KiB dynamic shared
# memory: the driver configures 132 KiB, one block per SM) launched 100 times back to back by client A,
# beside clients streaming elementwise-like kernels (512 blocks, 5 us): `b` 128 threads without shared
# memory (their SMs configured for 32 KiB: A cannot join them), `c` 256 threads with 24 KiB (228 KiB:
# A joins an SM holding at most four of them).  A as wall-clock blocks (10 us: where and when they
# start) and as FMA work (~10 us alone: what sharing an SM costs on top).
P_GW = {"gt": ("gt", 10_000), "fma": ("fma", FMA_ITERS_PER_MS // 100)}
for nm, (kind, work) in P_GW.items():
    spec(f"p_gw_a_{nm}", ["streams 1", "sleep 300"] +
         [kern(0, f"A{i}", kind, 52, 256, 120 * KB, work) for i in range(100)])
spec("p_gw_b", ["streams 1"] + [kern(0, f"B{i}", "gt", 512, 128, 0, 5000) for i in range(400)])
spec("p_gw_c", ["streams 1"] + [kern(0, f"C{i}", "gt", 512, 256, 24 * KB, 5000) for i in range(400)])
# the same in one process (two streams; SM ids physical): A's kernels interleaved with C's, 1 in 4
spec("p_gw_gt_c_1p", ["streams 2"] + [x for i in range(400) for x in
                                      ([kern(0, f"A{i // 4}", "gt", 52, 256, 120 * KB, 10_000)] if i % 4 == 0 else [])
                                      + [kern(1, f"C{i}", "gt", 512, 256, 24 * KB, 5000)]])

if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".spec"):
            os.remove(os.path.join(OUT, f))
    for nm, txt in specs.items():
        with open(os.path.join(OUT, nm + ".spec"), "w") as f:
            f.write(f"# generated by gen_specs.py (FMA_ITERS_PER_MS={FMA_ITERS_PER_MS})\n" + txt)
    print(f"{len(specs)} specs -> {OUT}", file=sys.stderr)
