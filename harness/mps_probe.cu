// mps_probe.cu -- which kernels of one MPS client slow down while other
// clients run, and with what work (hqsim issue 10, FINDINGS §24).
//
//   mps_probe victim --kind K [--secs S] [--barrier DIR --peers P] [--tag T]
//       closed loop of requests: one CUDA graph of --nodes (32) chained
//       kernels of kind K, launched and synchronized; after P aggressors left
//       DIR/ready.* (and a 0.3 s warm-up) it measures for S seconds, touches
//       DIR/stop and prints one CSV line (columns: victim_header()).
//   mps_probe aggr --kind A --barrier DIR
//       runs kind A until DIR/stop exists (at most 60 s): the victim kinds
//       as the same graph loop, `triad` (DRAM streaming: a = b + s*c over
//       3 x 256 MiB, 528 x 256-thread blocks; `triadB`: B blocks, less load)
//       and `fmaall` (528 x 256-thread FMA blocks, ~all issue slots of every
//       SM) as eager launches, 4 queued per synchronize.  Prints "aggr KIND
//       kernels_per_s" on stderr (a triad kernel moves 768 MiB).
//   mps_probe aggr --kind empty --grid G --tpb B --work T [--pause P] --barrier DIR
//       a graph loop of --nodes (32) chained kernels of G blocks x B threads
//       in which thread 0 of each block spins T ns on %globaltimer (T = 0:
//       an empty kernel); no memory access at all.  After each graph the
//       host synchronizes and, with P > 0, busy-waits P us (rate control:
//       fewer kernels per second at the same grid and block duration).
//       Prints "aggr empty kernels_per_s" on stderr.
//       --smem S: S bytes of dynamic shared memory per block (the SM's
//       shared/L1 split as a GEMV's); --loads L: each thread first reads L
//       float4 from an 8 MiB buffer that stays in the L2 (traffic, no DRAM).
//       (FINDINGS §27: does a client's launch path pay for the others'
//       grid size, block rate, kernel rate or block duration?)
//   mps_probe victim|aggr --kind var --spec NODE[/NODE...] ...
//       a graph of --nodes (32) chained kernels whose node i is of type
//       NODE[i mod count] (FINDINGS §28: which kernel property costs inside
//       MPS, alone and beside other clients).  NODE: fields joined by '.',
//       each a letter and an integer: g grid, b threads per block, s dynamic
//       shared bytes, c preferred shared-memory carveout percent of the
//       function (-1: the driver's default), f function 0..15 (flavour 0:
//       sixteen copies of one body, distinct symbols; flavour 1: 0..7), t ns from the block's start that thread 0
//       spins to, l float4 L2 reads per thread (8 MiB buffer), d float4 DRAM
//       reads per thread (each kernel of the run a fresh part of 256 MiB;
//       an aggressor's kernels all read the first part, which stays in the
//       L2, unless it runs with --fresh 1),
//       x flavour: 0 plain, 1 large code (1024 unrolled FMAs, ~16 KB of
//       instructions; f picks one of eight such functions), 2 many registers (168 per thread: 3 blocks of 128
//       threads per SM, as the decoder's gemvx with 159), 3 ~3.8 KB of
//       kernel parameters, 4 lean (at most 24 registers, b <= 256), 5 many
//       registers capped at 160 (the decoder's gemvx); m: a device-to-device
//       copy of m bytes (a graph memcpy node) before the node's kernel; w
//       float4 written per thread
//       to the part d reads; o float4 written per thread to node k's own 8 MiB
//       region (k mod 32) and i float4 read per thread from the previous
//       node's (what it just wrote: a producer-consumer chain).  Defaults
//       g1.b128.s0.c-1.f0.t2000.l0.d0.x0.m0.w0.i0.o0.
//       As an aggressor, --copy B adds a B-byte copy host-to-device before
//       and device-to-host after each graph launch (pinned host memory: a
//       request's input/output); --fresh 1 makes its d reads and w writes
//       take a fresh part of 256 MiB per kernel as a victim's do (DRAM
//       streaming; the last node's last block advances the part counter).
//       As a victim, --launch stream launches the nodes one by one on the
//       stream each request instead of as one graph (--launch graph, the
//       default); --gate NS first launches a 1-block kernel spinning NS ns
//       (an extra function, not recorded) so that the host has queued the
//       request's nodes before the first starts: GPU-side gaps, not the
//       host's launch rate.
//       As a victim it prints the usual columns and three more: block 0's
//       SM the same as the previous node's (share), distinct SMs of block 0
//       per request (median), and per node type "kern_p50:gap_p50" (gap
//       before a node of that type) joined by '|'.  `header --kind var`
//       prints that header.
//
// Victim kinds (32-thread blocks unless said):
//   timer   1 block, thread 0 spins 5 us on %globaltimer (graphbench's node)
//   fma     1 block, 4 independent FMA chains x --fmaiters (2000), ~5 us
//   chase   1 block, thread 0 follows --steps (12) dependent pointers through
//           a random cycle over 256 MiB (one 128-B line per step, beyond the
//           50 MiB L2); the position carries over from node to node and
//           request to request, so no line is read twice in a run
//   stream  64 blocks x 256 threads read 4 MiB (float4) and reduce, each node
//           its own slice of 128 MiB (GEMV-like, DRAM-bound)
// Every kernel records, per request slot and node, the earliest block start
// and latest block end (%globaltimer) and block 0's clock64 cycles, into
// device memory; the last block of the last node advances the slot.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cuda_check.h"

enum { MAXSLOT = 40000, CHASE_BYTES = 256 << 20, LINE_U64 = 16 };

struct RecArgs {
    u64 *s, *e, *cyc;  // [slot * nodes + node]; s starts at ~0, e at 0
    unsigned *ctr;     // current slot
    unsigned *done;    // blocks of the last node finished
    int nodes, node;   // node < 0: no recording (aggressor kernels)
    int anode;         // aggressor with --fresh: the graph node's index; else -1
};

__device__ __forceinline__ u64 gtime()
{
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Called by every thread at the end of a kernel, with the block's start.
__device__ void rec_end(const RecArgs &r, u64 t0, long long c0)
{
    if (r.node < 0) { // an aggressor: with --fresh the last node advances the part counter
        if (r.anode == r.nodes - 1 && threadIdx.x == 0) {
            __threadfence();
            if (atomicAdd(r.done, 1u) == gridDim.x - 1) {
                *r.done = 0;
                atomicAdd(r.ctr, 1u);
            }
        }
        return;
    }
    __syncthreads();
    // The block's end is taken before the bookkeeping's own memory accesses
    // (the slot read), which a loaded memory system would lengthen.
    u64 t1 = gtime();
    long long c1 = clock64();
    if (threadIdx.x != 0)
        return;
    unsigned slot = *(volatile unsigned *)r.ctr;
    unsigned i = slot * r.nodes + r.node;
    atomicMin(&r.s[i], t0);
    atomicMax(&r.e[i], t1);
    if (blockIdx.x == 0)
        r.cyc[i] = (u64)(c1 - c0);
    if (r.node == r.nodes - 1) {
        __threadfence();
        if (atomicAdd(r.done, 1u) == gridDim.x - 1) {
            *r.done = 0;
            *(volatile unsigned *)r.ctr = min(slot + 1, (unsigned)MAXSLOT - 1);
        }
    }
}

__global__ void ktimer(RecArgs r, u64 work)
{
    u64 t0 = gtime();
    long long c0 = clock64();
    if (threadIdx.x == 0) {
        u64 t = t0;
        while (t - t0 < work)
            t = gtime();
    }
    rec_end(r, t0, c0);
}

// The `empty` aggressor's kernel: no memory access; thread 0 spins work ns.
__global__ void kspin(u64 work)
{
    if (work == 0 || threadIdx.x != 0)
        return;
    u64 t0 = gtime(), t = t0;
    while (t - t0 < work)
        t = gtime();
}

// Its variant with --loads L > 0 and/or --smem S > 0: every thread first
// reads L float4 (coalesced) from an 8 MiB buffer that stays in the L2; the
// block holds S bytes of dynamic shared memory, of which thread 0 writes and
// reads one word; then thread 0 spins work ns.
__global__ void kspinm(u64 work, const float4 *buf, int loads, float *sink)
{
    extern __shared__ float sm[];
    float acc = 0;
    size_t n4 = (8u << 20) / 16, stride = (size_t)gridDim.x * blockDim.x;
    size_t i0 = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) % n4;
    for (int k = 0; k < loads; k++)
        acc += __ldcg(buf + (i0 + k * stride) % n4).x;
    if (threadIdx.x == 0) {
        sm[0] = acc;
        acc = *(volatile float *)sm;
        u64 t0 = gtime(), t = t0;
        while (t - t0 < work)
            t = gtime();
    }
    if (acc == 1234.5f)
        sink[0] = acc;
}

__global__ void kfma(RecArgs r, int iters, float *sink)
{
    u64 t0 = gtime();
    long long c0 = clock64();
    float a = threadIdx.x, b = a + 1, c = a + 2, d = a + 3;
    for (int i = 0; i < iters; i++) {
        a = fmaf(a, 0.999f, 0.5f);
        b = fmaf(b, 0.999f, 0.5f);
        c = fmaf(c, 0.999f, 0.5f);
        d = fmaf(d, 0.999f, 0.5f);
    }
    if (a + b + c + d == 1234.5f)
        sink[0] = a;
    rec_end(r, t0, c0);
}

__global__ void kchase(RecArgs r, const u64 *buf, u64 *pos, int steps)
{
    u64 t0 = gtime();
    long long c0 = clock64();
    if (threadIdx.x == 0) {
        u64 p = *pos;
        for (int i = 0; i < steps; i++)
            p = buf[p];
        *pos = p;
    }
    rec_end(r, t0, c0);
}

__global__ void kstream(RecArgs r, const float4 *buf, size_t n4, int slice,
                        float *sink)
{
    u64 t0 = gtime();
    long long c0 = clock64();
    const float4 *b = buf + (size_t)slice * n4;
    float acc = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
#pragma unroll 4
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = __ldcg(b + i);
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 1234.5f)
        sink[blockIdx.x] = acc;
    rec_end(r, t0, c0);
}

__global__ void ktriad(float4 *a, const float4 *b, const float4 *c, size_t n4)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 x = b[i], y = c[i];
        a[i] = make_float4(x.x + 1.5f * y.x, x.y + 1.5f * y.y, x.z + 1.5f * y.z,
                           x.w + 1.5f * y.w);
    }
}

// ---- kind `var` (FINDINGS §28) ----
enum { VAR_FUNCS = 16, VAR_BIGS = 8, VAR_BIG = 1024, VAR_REGS = 150, VAR_PAD = 3800, VAR_L2 = 8 << 20,
       VAR_DRAM = 256 << 20, VAR_COPY = 8 << 20, VAR_REGION = 8 << 20, VAR_REGIONS = 32 };

struct VarArgs {
    u64 work;             // ns from the block's start that thread 0 spins to
    const float4 *l2;     // 8 MiB, stays in the L2
    const float4 *dram;   // 256 MiB
    int loads, dloads;    // float4 per thread from l2 / dram
    int wstores;          // float4 per thread written to dram
    int in, out;          // float4 per thread: the previous node's region read, its own written
    int smem;             // dynamic shared bytes (> 0: thread 0 touches one word)
    float *sink;
    unsigned *smid;       // [slot * nodes + node]: block 0's SM (victim only)
};
struct VarPad {
    unsigned char b[VAR_PAD];
};

// What every var kernel does between its start stamp and rec_end.
__device__ __forceinline__ float var_body(const RecArgs &r, const VarArgs &a, u64 t0, float acc)
{
    extern __shared__ float vsm[];
    // The part of the DRAM buffer d and w use: the victim's slot and node; an aggressor's
    // graph count and node with --fresh (anode >= 0), else the first part.
    bool fresh = r.node >= 0 || r.anode >= 0;
    unsigned slot = fresh ? *(volatile unsigned *)r.ctr : 0;
    size_t node = r.node >= 0 ? r.node : (r.anode >= 0 ? r.anode : 0);
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t nthr = (size_t)gridDim.x * blockDim.x;
    if (a.loads) {
        size_t n4 = VAR_L2 / 16;
        for (int k = 0; k < a.loads; k++)
            acc += __ldcg(a.l2 + (tid + k * nthr) % n4).x;
    }
    if (a.dloads) { // a fresh part of the buffer for every kernel of the run
        size_t n4 = VAR_DRAM / 16, per = nthr * a.dloads;
        size_t base = ((size_t)slot * (r.nodes > 0 ? r.nodes : 1) + node) * per;
        for (int k = 0; k < a.dloads; k++)
            acc += __ldcg(a.dram + (base + tid + k * nthr) % n4).x;
    }
    if (a.in || a.out) { // node k's region: the k-th 8 MiB of the 256 MiB buffer
        size_t n4 = VAR_REGION / 16, k = r.node > 0 ? r.node : 0;
        int nr = r.nodes > 0 ? r.nodes : 1;
        const float4 *src = a.dram + ((k + nr - 1) % nr % VAR_REGIONS) * n4;
        for (int j = 0; j < a.in; j++)
            acc += __ldcg(src + (tid + j * nthr) % n4).x;
        float4 *dst = (float4 *)a.dram + (k % VAR_REGIONS) * n4;
        for (int j = 0; j < a.out; j++)
            __stcg(dst + (tid + j * nthr) % n4, make_float4(acc, acc, acc, acc));
    }
    if (a.wstores) { // the same fresh part, written
        size_t n4 = VAR_DRAM / 16, per = nthr * a.wstores;
        size_t base = ((size_t)slot * (r.nodes > 0 ? r.nodes : 1) + node) * per;
        float4 *w = (float4 *)a.dram;
        for (int k = 0; k < a.wstores; k++)
            __stcg(w + (base + tid + k * nthr) % n4, make_float4(acc, acc, acc, acc));
    }
    if (threadIdx.x == 0) {
        if (a.smem > 0) {
            vsm[0] = acc;
            acc = *(volatile float *)vsm;
        }
        u64 t = gtime();
        while (t - t0 < a.work)
            t = gtime();
        if (blockIdx.x == 0 && r.node >= 0 && a.smid) {
            unsigned id;
            asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
            a.smid[slot * r.nodes + r.node] = id;
        }
    }
    return acc;
}

template <int F> __global__ void kvar(RecArgs r, VarArgs a)
{
    u64 t0 = gtime();
    long long c0 = clock64();
    float acc = var_body(r, a, t0, (float)F);
    if (acc == 1234.5f + F)
        a.sink[F] = acc;
    rec_end(r, t0, c0);
}

// Large code: VAR_BIG dependent FMAs with distinct immediates, fully unrolled;
// one copy per f (eight large functions; specs before --funcmem3 used f0 only).
template <int F> __global__ void kvbig(RecArgs r, VarArgs a)
{
    u64 t0 = gtime();
    long long c0 = clock64();
    float x = threadIdx.x * 1e-3f;
#pragma unroll
    for (int i = 0; i < VAR_BIG; i++)
        x = fmaf(x, 1.0001f + i * 1e-7f, 1e-4f * (i & 7));
    float acc = var_body(r, a, t0, x + F);
    if (acc == 1234.5f)
        a.sink[8] = acc;
    rec_end(r, t0, c0);
}

// Many registers: VAR_REGS values made before the spin and summed after it;
// with at least 3 blocks of 128 threads per SM ptxas gives it 168 registers.
__device__ __forceinline__ void var_regs(const RecArgs &r, const VarArgs &a, int sink);
__global__ void __launch_bounds__(128, 3) kvregs(RecArgs r, VarArgs a)
{
    var_regs(r, a, 9);
}

// The same capped at 160 registers (x5): the decoder's cuBLAS gemvx (159,
// allocated as 160) leaves 4096 of an SM's 65536 registers beside 3 blocks,
// kvregs (168) only 1024.
__global__ void __maxnreg__(160) kvregs160(RecArgs r, VarArgs a)
{
    var_regs(r, a, 12);
}

// A lean kernel (x4): 24 registers (ptxas's floor on sm_90), so 160 threads
// need 3840 of the 4096 that 3 gemvx blocks leave on an SM, with 5 warps per
// block (12 blocks per SM): does that make its configuration alone small?
__global__ void __maxnreg__(24) kvlean(RecArgs r, VarArgs a)
{
    u64 t0 = gtime();
    long long c0 = clock64();
    float acc = var_body(r, a, t0, 0.f);
    if (acc == 1234.5f)
        a.sink[11] = acc;
    rec_end(r, t0, c0);
}

__device__ __forceinline__ void var_regs(const RecArgs &r, const VarArgs &a, int sink)
{
    u64 t0 = gtime();
    long long c0 = clock64();
    float v[VAR_REGS];
#pragma unroll
    for (int i = 0; i < VAR_REGS; i++) { // volatile: neither folded nor recomputed later
        unsigned x;
        asm volatile("add.u32 %0, %1, %2;" : "=r"(x) : "r"(threadIdx.x), "r"(i));
        v[i] = __uint_as_float(x);
    }
    float acc = var_body(r, a, t0, 0.f);
#pragma unroll
    for (int i = 0; i < VAR_REGS; i++)
        acc += v[i] * (1.0f + i);
    if (acc == 1234.5f)
        a.sink[sink] = acc;
    rec_end(r, t0, c0);
}

// Large parameters: VAR_PAD bytes passed by value, one byte read per thread.
__global__ void kvpar(RecArgs r, VarArgs a, VarPad p)
{
    u64 t0 = gtime();
    long long c0 = clock64();
    float acc = var_body(r, a, t0, (float)p.b[threadIdx.x % VAR_PAD]);
    if (acc == 1234.5f)
        a.sink[10] = acc;
    rec_end(r, t0, c0);
}

typedef void (*VarFn)(RecArgs, VarArgs);
static const VarFn var_fns[VAR_FUNCS] = {kvar<0>,  kvar<1>,  kvar<2>,  kvar<3>,
                                         kvar<4>,  kvar<5>,  kvar<6>,  kvar<7>,
                                         kvar<8>,  kvar<9>,  kvar<10>, kvar<11>,
                                         kvar<12>, kvar<13>, kvar<14>, kvar<15>};
static const VarFn var_big_fns[VAR_BIGS] = {kvbig<0>, kvbig<1>, kvbig<2>, kvbig<3>,
                                             kvbig<4>, kvbig<5>, kvbig<6>, kvbig<7>};

struct VarNode {
    int g = 1, b = 128, s = 0, c = -1, f = 0, l = 0, d = 0, x = 0, m = 0, w = 0, i = 0, o = 0;
    u64 t = 2000;
};

// "g384.b128.x2/g1.b32" -> node types; exits on a malformed spec.
static std::vector<VarNode> var_parse(const std::string &spec)
{
    std::vector<VarNode> v;
    size_t i = 0;
    while (i <= spec.size()) {
        size_t j = spec.find('/', i);
        if (j == std::string::npos)
            j = spec.size();
        VarNode n;
        std::string node = spec.substr(i, j - i);
        size_t k = 0;
        while (k < node.size()) {
            size_t e = node.find('.', k);
            if (e == std::string::npos)
                e = node.size();
            char key = node[k];
            char *end = nullptr;
            std::string num = node.substr(k + 1, e - k - 1);
            long long val = strtoll(num.c_str(), &end, 10);
            if (num.empty() || *end) {
                fprintf(stderr, "bad --spec field '%s'\n", node.substr(k, e - k).c_str());
                exit(2);
            }
            switch (key) {
            case 'g': n.g = (int)val; break;
            case 'b': n.b = (int)val; break;
            case 's': n.s = (int)val; break;
            case 'c': n.c = (int)val; break;
            case 'f': n.f = (int)val; break;
            case 'l': n.l = (int)val; break;
            case 'd': n.d = (int)val; break;
            case 'x': n.x = (int)val; break;
            case 'm': n.m = (int)val; break;
            case 'w': n.w = (int)val; break;
            case 'i': n.i = (int)val; break;
            case 'o': n.o = (int)val; break;
            case 't': n.t = (u64)val; break;
            default: fprintf(stderr, "bad --spec key '%c'\n", key); exit(2);
            }
            k = e + 1;
        }
        if (n.g < 1 || n.b < 1 || n.b > 1024 || n.f < 0 || n.f >= VAR_FUNCS || n.x < 0 || (n.x == 1 && n.f >= VAR_BIGS) ||
            n.x > 5 || n.c < -1 || n.c > 100 || ((n.x == 2 || n.x == 5) && n.b > 128) ||
            (n.x == 4 && n.b > 256) || n.m < 0 ||
            n.w < 0 || n.i < 0 || n.o < 0 || n.m > VAR_COPY) {
            fprintf(stderr, "bad --spec node '%s'\n", node.c_str());
            exit(2);
        }
        v.push_back(n);
        i = j + 1;
    }
    return v;
}

static const void *var_fn(const VarNode &n)
{
    switch (n.x) {
    case 1: return (const void *)var_big_fns[n.f];
    case 2: return (const void *)kvregs;
    case 3: return (const void *)kvpar;
    case 4: return (const void *)kvlean;
    case 5: return (const void *)kvregs160;
    default: return (const void *)var_fns[n.f];
    }
}

// Random single cycle (Sattolo) over the lines: buf[line * 16] = next * 16.
__global__ void kscatter(u64 *buf, const unsigned *next, unsigned lines)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < lines)
        buf[(u64)i * LINE_U64] = (u64)next[i] * LINE_U64;
}

static u64 hnow()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static bool exists(const std::string &p)
{
    struct stat st;
    return stat(p.c_str(), &st) == 0;
}

struct Opt {
    std::string mode, kind, barrier, tag = "-";
    int nodes = 32, peers = 0, fmaiters = 2000, steps = 12, sblocks = 64;
    int grid = 1, tpb = 128; // kind `empty`
    int smem = 0, loads = 0;  // kind `empty`: dynamic shared bytes, float4 reads per thread
    double pause_us = 0;     // aggressor: host busy-wait after each graph
    std::string spec;        // kind `var`: node types
    int copy = 0;            // kind `var` aggressor: host copies per graph (bytes)
    int fresh = 0;           // kind `var` aggressor: d / w parts advance per kernel
    std::string launch = "graph"; // victim: "graph" (one graph per request) or "stream"
    u64 gate = 0;            // victim: ns a 1-block kernel spins before each request
    double secs = 1.0;
    u64 work = 5000;
    size_t sbytes = 4 << 20;
};

struct Dev {
    cudaStream_t s;
    RecArgs r;
    u64 *chase = nullptr, *pos = nullptr;
    float4 *sbuf = nullptr, *ta = nullptr, *tb = nullptr, *tc = nullptr;
    float *sink = nullptr;
    std::vector<VarNode> var; // kind `var`
    float4 *vl2 = nullptr, *vdram = nullptr;
    unsigned *smid = nullptr;
    char *cpy = nullptr, *hcpy = nullptr; // copies: 2 x VAR_COPY device, --copy pinned host
};

// Kind `var`: parse the spec, set each function's attributes (the largest
// dynamic shared memory its nodes ask for; its carveout, which must be the
// same for every node of that function), allocate the buffers it reads.
static void var_setup(const Opt &o, Dev &d)
{
    d.var = var_parse(o.spec);
    std::vector<std::pair<const void *, int>> carve;
    bool l2 = false, dram = false;
    for (const VarNode &n : d.var) {
        const void *fn = var_fn(n);
        int smax = n.s;
        for (const VarNode &m : d.var)
            if (var_fn(m) == fn)
                smax = std::max(smax, m.s);
        CK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smax));
        for (auto &pc : carve)
            if (pc.first == fn && pc.second != n.c) {
                fprintf(stderr, "--spec: one function with two carveouts (use f)\n");
                exit(2);
            }
        carve.push_back({fn, n.c});
        if (n.c >= 0)
            CK(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, n.c));
        l2 |= n.l > 0;
        dram |= n.d > 0 || n.w > 0 || n.i > 0 || n.o > 0;
    }
    if (l2) {
        CK(cudaMalloc(&d.vl2, VAR_L2));
        CK(cudaMemset(d.vl2, 0, VAR_L2));
    }
    if (dram) {
        CK(cudaMalloc(&d.vdram, VAR_DRAM));
        CK(cudaMemset(d.vdram, 0, VAR_DRAM));
    }
    bool m = false;
    for (const VarNode &n : d.var)
        m |= n.m > 0;
    if (m || o.copy > 0)
        CK(cudaMalloc(&d.cpy, 2 * VAR_COPY));
    if (o.copy > 0)
        CK(cudaMallocHost(&d.hcpy, o.copy));
    CK(cudaMalloc(&d.smid, (size_t)MAXSLOT * o.nodes * 4));
    CK(cudaMemset(d.sink, 0, 4096 * 4));
}

static void setup(const Opt &o, Dev &d, bool record)
{
    CK(cudaStreamCreateWithFlags(&d.s, cudaStreamNonBlocking));
    size_t n = (size_t)MAXSLOT * o.nodes;
    CK(cudaMalloc(&d.r.s, n * 8));
    CK(cudaMalloc(&d.r.e, n * 8));
    CK(cudaMalloc(&d.r.cyc, n * 8));
    CK(cudaMalloc(&d.r.ctr, 8));
    CK(cudaMalloc(&d.r.done, 8));
    CK(cudaMemset(d.r.ctr, 0, 8)); // an aggressor's part counter (--fresh); the victim resets them
    CK(cudaMemset(d.r.done, 0, 8));
    CK(cudaMalloc(&d.sink, 4096 * 4));
    d.r.nodes = o.nodes;
    d.r.node = record ? 0 : -1;
    d.r.anode = -1;
    if (o.kind == "chase") {
        unsigned lines = CHASE_BYTES / (LINE_U64 * 8);
        std::vector<unsigned> perm(lines), next(lines);
        for (unsigned i = 0; i < lines; i++)
            perm[i] = i;
        srand48(12345 + getpid());
        for (unsigned i = lines - 1; i > 0; i--) // Sattolo: one cycle
            std::swap(perm[i], perm[lrand48() % i]);
        for (unsigned i = 0; i < lines; i++)
            next[perm[i]] = perm[(i + 1) % lines];
        unsigned *dn;
        CK(cudaMalloc(&d.chase, CHASE_BYTES));
        CK(cudaMalloc(&dn, lines * 4));
        CK(cudaMemcpy(dn, next.data(), lines * 4, cudaMemcpyHostToDevice));
        kscatter<<<(lines + 255) / 256, 256>>>(d.chase, dn, lines);
        CK(cudaDeviceSynchronize());
        CK(cudaFree(dn));
        CK(cudaMalloc(&d.pos, 8));
        CK(cudaMemset(d.pos, 0, 8));
    }
    if (o.kind == "stream") {
        CK(cudaMalloc(&d.sbuf, o.sbytes * o.nodes));
        CK(cudaMemset(d.sbuf, 0, o.sbytes * o.nodes));
    }
    if (o.kind == "empty") {
        CK(cudaMalloc(&d.sbuf, 8 << 20));
        CK(cudaMemset(d.sbuf, 0, 8 << 20));
        int smem = std::max(o.smem, 4); // kspinm uses one word
        CK(cudaFuncSetAttribute(kspinm, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    }
    if (o.kind == "var")
        var_setup(o, d);
    if (o.kind.rfind("triad", 0) == 0) {
        size_t b = 256 << 20;
        CK(cudaMalloc(&d.ta, b));
        CK(cudaMalloc(&d.tb, b));
        CK(cudaMalloc(&d.tc, b));
        CK(cudaMemset(d.tb, 0, b));
        CK(cudaMemset(d.tc, 0, b));
    }
}

static void reset_rec(const Opt &o, Dev &d)
{
    size_t n = (size_t)MAXSLOT * o.nodes;
    CK(cudaMemset(d.r.s, 0xff, n * 8));
    CK(cudaMemset(d.r.e, 0, n * 8));
    CK(cudaMemset(d.r.cyc, 0, n * 8));
    CK(cudaMemset(d.r.ctr, 0, 8));
    CK(cudaMemset(d.r.done, 0, 8));
    CK(cudaDeviceSynchronize());
}

// One node of a victim kind on stream d.s (captured into the graph).
static bool launch_node(const Opt &o, Dev &d, int node)
{
    RecArgs r = d.r;
    if (r.node >= 0)
        r.node = node;
    else if (o.fresh && o.kind == "var")
        r.anode = node;
    if (o.kind == "timer")
        ktimer<<<1, 32, 0, d.s>>>(r, o.work);
    else if (o.kind == "fma")
        kfma<<<1, 32, 0, d.s>>>(r, o.fmaiters, d.sink);
    else if (o.kind == "chase")
        kchase<<<1, 32, 0, d.s>>>(r, d.chase, d.pos, o.steps);
    else if (o.kind == "stream")
        kstream<<<o.sblocks, 256, 0, d.s>>>(r, d.sbuf, o.sbytes / 16, node, d.sink);
    else if (o.kind == "var") {
        const VarNode &n = d.var[node % d.var.size()];
        if (n.m > 0)
            CK(cudaMemcpyAsync(d.cpy + VAR_COPY, d.cpy, n.m, cudaMemcpyDeviceToDevice, d.s));
        VarArgs a = {n.t, d.vl2, d.vdram, n.l, n.d, n.w, n.i, n.o, n.s, d.sink, d.smid};
        VarPad pad;
        memset(&pad, 1, sizeof pad);
        void *args[] = {&r, &a, &pad};
        CK(cudaLaunchKernel(var_fn(n), dim3(n.g), dim3(n.b), args, n.s, d.s));
    } else if (o.kind == "empty" && r.node < 0)
        if (o.smem > 0 || o.loads > 0)
            kspinm<<<o.grid, o.tpb, std::max(o.smem, 4), d.s>>>(o.work, d.sbuf, o.loads, d.sink);
        else
            kspin<<<o.grid, o.tpb, 0, d.s>>>(o.work);
    else
        return false;
    return true;
}

static cudaGraphExec_t make_graph(const Opt &o, Dev &d)
{
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(d.s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < o.nodes; i++)
        if (!launch_node(o, d, i)) {
            fprintf(stderr, "unknown graph kind %s\n", o.kind.c_str());
            exit(2);
        }
    CK(cudaStreamEndCapture(d.s, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphDestroy(g));
    return ge;
}

static double pct(std::vector<double> v, double p)
{
    if (v.empty())
        return -1;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, (size_t)(p * v.size()))];
}

static double mean(const std::vector<double> &v)
{
    double s = 0;
    for (double x : v)
        s += x;
    return v.empty() ? -1 : s / v.size();
}

static const char *victim_header()
{
    return "tag,victim,requests,req_per_s,host_p50_us,span_p50_us,kern_p50_us,"
           "kern_mean_us,kern_p10_us,kern_p90_us,gap_p50_us,gap_mean_us,mhz_p50";
}

// Kind `var`'s extra columns (see the header comment): where block 0 ran,
// and each node type's kernel and preceding-gap medians.
static void var_extra(const Opt &o, const Dev &d, const std::vector<u64> &s,
                      const std::vector<u64> &e, size_t nreq)
{
    size_t n = nreq * o.nodes, T = d.var.size();
    std::vector<unsigned> sm(n);
    CK(cudaMemcpy(sm.data(), d.smid, n * 4, cudaMemcpyDeviceToHost));
    std::vector<std::vector<double>> kt(T), gt(T);
    std::vector<double> distinct;
    size_t same = 0, pairs = 0;
    for (size_t q = 0; q < nreq; q++) {
        size_t b = q * o.nodes;
        if (e[b + o.nodes - 1] == 0 || s[b] == ~0ull)
            continue;
        std::vector<unsigned> ids;
        for (int k = 0; k < o.nodes; k++) {
            kt[k % T].push_back((double)(e[b + k] - s[b + k]) / 1e3);
            if (k > 0) {
                gt[k % T].push_back(((double)s[b + k] - (double)e[b + k - 1]) / 1e3);
                same += sm[b + k] == sm[b + k - 1];
                pairs++;
            }
            ids.push_back(sm[b + k]);
        }
        std::sort(ids.begin(), ids.end());
        distinct.push_back((double)(std::unique(ids.begin(), ids.end()) - ids.begin()));
    }
    printf(",%.3f,%.0f,", pairs ? (double)same / pairs : -1.0, pct(distinct, 0.5));
    for (size_t t = 0; t < T; t++)
        printf("%s%.3f:%.3f", t ? "|" : "", pct(kt[t], 0.5), pct(gt[t], 0.5));
}

static int victim(const Opt &o)
{
    Dev d;
    setup(o, d, true);
    bool graph = o.launch == "graph";
    cudaGraphExec_t ge = graph ? make_graph(o, d) : nullptr;
    auto request = [&]() {
        if (o.gate > 0)
            kspin<<<1, 32, 0, d.s>>>(o.gate);
        if (graph)
            CK(cudaGraphLaunch(ge, d.s));
        else
            for (int i = 0; i < o.nodes; i++)
                if (!launch_node(o, d, i)) {
                    fprintf(stderr, "unknown victim kind %s\n", o.kind.c_str());
                    exit(2);
                }
        CK(cudaStreamSynchronize(d.s));
    };
    if (!o.barrier.empty()) { // wait for the aggressors, warm
        u64 t0 = hnow();
        for (;;) {
            std::string cmd = "ls " + o.barrier + " 2>/dev/null | grep -c ready";
            FILE *p = popen(cmd.c_str(), "r");
            int k = 0;
            if (p) {
                if (fscanf(p, "%d", &k) != 1)
                    k = 0;
                pclose(p);
            }
            if (k >= o.peers)
                break;
            if (hnow() - t0 > 30000000000ull) {
                fprintf(stderr, "victim: only %d of %d aggressors ready\n", k, o.peers);
                break;
            }
            usleep(20000);
        }
    }
    for (u64 t0 = hnow(); hnow() - t0 < 300000000ull;)
        request();
    reset_rec(o, d);
    std::vector<double> lat;
    u64 t_start = hnow(), t_end;
    while ((t_end = hnow()) - t_start < (u64)(o.secs * 1e9) && lat.size() < MAXSLOT - 2) {
        u64 t0 = hnow();
        request();
        lat.push_back((hnow() - t0) / 1e3);
    }
    t_end = hnow();
    if (!o.barrier.empty()) {
        FILE *f = fopen((o.barrier + "/stop").c_str(), "w");
        if (f)
            fclose(f);
    }
    size_t nreq = lat.size(), n = nreq * o.nodes;
    std::vector<u64> s(n), e(n), c(n);
    CK(cudaMemcpy(s.data(), d.r.s, n * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(e.data(), d.r.e, n * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(c.data(), d.r.cyc, n * 8, cudaMemcpyDeviceToHost));
    std::vector<double> kern, gap, span, mhz;
    for (size_t q = 0; q < nreq; q++) {
        size_t b = q * o.nodes;
        if (e[b + o.nodes - 1] == 0 || s[b] == ~0ull)
            continue; // slot not written: skip
        span.push_back((e[b + o.nodes - 1] - s[b]) / 1e3);
        for (int k = 0; k < o.nodes; k++) {
            double dur = (double)(e[b + k] - s[b + k]);
            kern.push_back(dur / 1e3);
            if (dur > 0)
                mhz.push_back(c[b + k] / dur * 1e3);
            if (k > 0)
                gap.push_back(((double)s[b + k] - (double)e[b + k - 1]) / 1e3);
        }
    }
    printf("%s,%s,%zu,%.1f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.0f", o.tag.c_str(),
           o.kind.c_str(), nreq, nreq / ((t_end - t_start) / 1e9), pct(lat, 0.5),
           pct(span, 0.5), pct(kern, 0.5), mean(kern), pct(kern, 0.1), pct(kern, 0.9),
           pct(gap, 0.5), mean(gap), pct(mhz, 0.5));
    if (o.kind == "var")
        var_extra(o, d, s, e, nreq);
    printf("\n");
    return 0;
}

static int aggr(const Opt &o)
{
    Dev d;
    setup(o, d, false);
    bool triad = o.kind.rfind("triad", 0) == 0;
    bool graph = !triad && o.kind != "fmaall";
    int tblocks = o.kind.size() > 5 && triad ? atoi(o.kind.c_str() + 5) : 528;
    if (tblocks < 1 || tblocks > 4096) {
        fprintf(stderr, "bad triad kind %s\n", o.kind.c_str());
        return 2;
    }
    cudaGraphExec_t ge = graph ? make_graph(o, d) : nullptr;
    size_t n4 = (256 << 20) / 16;
    u64 kernels = 0;
    auto batch = [&]() {
        if (graph) {
            if (d.hcpy)
                CK(cudaMemcpyAsync(d.cpy, d.hcpy, o.copy, cudaMemcpyHostToDevice, d.s));
            CK(cudaGraphLaunch(ge, d.s));
            if (d.hcpy)
                CK(cudaMemcpyAsync(d.hcpy, d.cpy, o.copy, cudaMemcpyDeviceToHost, d.s));
            kernels += o.nodes;
        } else {
            for (int i = 0; i < 4; i++) {
                if (triad)
                    ktriad<<<tblocks, 256, 0, d.s>>>(d.ta, d.tb, d.tc, n4);
                else
                    kfma<<<528, 256, 0, d.s>>>(d.r, 20 * o.fmaiters, d.sink);
            }
            kernels += 4;
        }
        CK(cudaStreamSynchronize(d.s));
        if (o.pause_us > 0)
            for (u64 t0 = hnow(); hnow() - t0 < (u64)(o.pause_us * 1e3);)
                ;
    };
    for (u64 t0 = hnow(); hnow() - t0 < 300000000ull;)
        batch();
    std::string stop = o.barrier + "/stop";
    char ready[64];
    snprintf(ready, sizeof ready, "/ready.%d", getpid());
    FILE *f = fopen((o.barrier + ready).c_str(), "w");
    if (f)
        fclose(f);
    kernels = 0;
    u64 t_start = hnow(), t_check = t_start, t;
    for (;;) {
        batch();
        t = hnow();
        if (t - t_check > 10000000ull) {
            t_check = t;
            if (exists(stop) || t - t_start > 60000000000ull)
                break;
        }
    }
    fprintf(stderr, "aggr %s %.0f\n", o.kind.c_str(), kernels / ((t - t_start) / 1e9));
    return 0;
}

int main(int argc, char **argv)
{
    Opt o;
    if (argc < 2) {
        fprintf(stderr, "usage: mps_probe victim|aggr|header --kind K [options]\n");
        return 1;
    }
    o.mode = argv[1];
    for (int i = 2; i < argc; i++) {
        std::string a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
        if (!v) {
            fprintf(stderr, "option %s needs a value\n", a.c_str());
            return 2;
        }
        if (a == "--kind") o.kind = v;
        else if (a == "--barrier") o.barrier = v;
        else if (a == "--tag") o.tag = v;
        else if (a == "--nodes") o.nodes = atoi(v);
        else if (a == "--peers") o.peers = atoi(v);
        else if (a == "--secs") o.secs = atof(v);
        else if (a == "--work") o.work = strtoull(v, nullptr, 10);
        else if (a == "--fmaiters") o.fmaiters = atoi(v);
        else if (a == "--steps") o.steps = atoi(v);
        else if (a == "--sblocks") o.sblocks = atoi(v);
        else if (a == "--sbytes") o.sbytes = strtoull(v, nullptr, 10);
        else if (a == "--grid") o.grid = atoi(v);
        else if (a == "--tpb") o.tpb = atoi(v);
        else if (a == "--pause") o.pause_us = atof(v);
        else if (a == "--smem") o.smem = atoi(v);
        else if (a == "--loads") o.loads = atoi(v);
        else if (a == "--spec") o.spec = v;
        else if (a == "--copy") o.copy = atoi(v);
        else if (a == "--fresh") o.fresh = atoi(v);
        else if (a == "--launch") o.launch = v;
        else if (a == "--gate") o.gate = strtoull(v, nullptr, 10);
        else {
            fprintf(stderr, "unknown option %s\n", a.c_str());
            return 2;
        }
        i++;
    }
    if (o.kind == "var")
        var_parse(o.spec); // a malformed spec stops here, before any CUDA call
    if (o.launch != "graph" && o.launch != "stream") {
        fprintf(stderr, "--launch must be graph or stream\n");
        return 2;
    }
    if (o.copy < 0 || o.copy > VAR_COPY) {
        fprintf(stderr, "--copy must be 0..%d bytes\n", (int)VAR_COPY);
        return 2;
    }
    if (o.mode == "header") {
        printf("%s%s\n", victim_header(),
               o.kind == "var" ? ",sm_same,sm_distinct_p50,types_kern_gap_p50" : "");
        return 0;
    }
    if (o.mode == "victim")
        return victim(o);
    if (o.mode == "aggr") {
        if (o.barrier.empty()) {
            fprintf(stderr, "aggr needs --barrier\n");
            return 2;
        }
        return aggr(o);
    }
    fprintf(stderr, "unknown mode %s\n", o.mode.c_str());
    return 1;
}
