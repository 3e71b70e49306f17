// graphbench.cu -- CUDA graph launch path and MPS-client costs on one GPU.
//
// Modes (each prints one JSON object on stdout, or writes it to --out):
//   graphbench micro [--out F]    single process: host cost of cudaGraphLaunch
//                                 against node count, first-node latency,
//                                 node-to-node spacing on the GPU by
//                                 transition kind, fork/join branches, graphs
//                                 in flight, and the eager launch path (API,
//                                 launch latency, back-to-back kernels,
//                                 synchronize) to compare inside/outside MPS.
//   graphbench loop --nodes N --work NS --iters I [--barrier DIR] [--eager]
//                                 [--pat P] [--gap US] [--mthreads T]
//                                 [--region-kib R] [--out F]
//                                 closed loop of requests (graph launch of N
//                                 chained kernel nodes of NS ns each, or the
//                                 same kernels launched one by one), then
//                                 stream synchronize; per-request latency.
//                                 --pat: the chain as a pattern instead ('k' a
//                                 1-block node, 'K' a 64-block one; 'l' / 'L'
//                                 and 'd' / 'D' the same with memory reads,
//                                 below); --gap: a host sleep of US us after
//                                 each request (a low launch rate); a line on
//                                 stderr every 1000 requests.  SIGTERM / SIGINT
//                                 end the loop after the request in flight and
//                                 the output is written (a neighbour killed
//                                 from outside still reports): per request its
//                                 start (us after t_start_epoch_s) and latency,
//                                 nodes per second, bytes read by memory nodes.
//
// Memory nodes (loop mode, FINDINGS §54): 128 threads a block (--mthreads) stream float4
// loads past L1 (__ldcg, 4 in flight a thread) for `work` ns from an 8 MiB
// buffer ('l' / 'L': stays in the 50 MB L2) or a 2 GiB one ('d' / 'D': each
// block its own 256 KiB region (--region-kib; more than a block reads in a
// node), ~10^4 regions a request: DRAM), so the same
// launch rate as 'k' / 'K' with L2-only or DRAM traffic.
//
// Node kernels: one block of 32 threads ('K': 64 blocks); thread 0 reads
// %globaltimer at start, spins for `work` ns, and block 0 records start and
// end.  Host times are
// CLOCK_REALTIME mapped onto %globaltimer by a ping-pong through mapped host
// memory (the smallest of 32 round trips; offset = gt - midpoint).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gpu_clock.h"

struct Rec {
    u64 s, e;
};

__global__ void knode(Rec *r, int idx, u64 work)
{
    if (threadIdx.x == 0) {
        u64 s = gtime(), t = s;
        while (t - s < work)
            t = gtime();
        if (blockIdx.x == 0) { // one record per node: a 64-block node writes 16 B too
            r[idx].s = s;
            r[idx].e = gtime();
        }
    }
}

// Memory node: see the header.  @mask4: the buffer's float4 count - 1 (a
// power of two); @bytes: the bytes read, added once per block; a block
// starts 2^@rshift float4 after the previous one (its region).
__global__ void kmem(Rec *r, int idx, u64 work, const float4 *buf, u64 mask4,
                     u64 *bytes, int rshift)
{
    __shared__ unsigned cnt;
    if (threadIdx.x == 0)
        cnt = 0;
    __syncthreads();
    u64 s = gtime(), t = s, p = ((u64)(idx * 64 + blockIdx.x) << rshift) + threadIdx.x;
    unsigned it = 0, n = blockDim.x;
    float acc = 0;
    while (t - s < work) {
        float4 a = __ldcg(buf + (p & mask4)), b = __ldcg(buf + ((p + n) & mask4));
        float4 c = __ldcg(buf + ((p + 2 * n) & mask4)), d = __ldcg(buf + ((p + 3 * n) & mask4));
        acc += a.x + b.y + c.z + d.w;
        p += 4 * n;
        it++;
        t = gtime();
    }
    atomicAdd(&cnt, it);
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(bytes, (u64)cnt * 64);
        if (blockIdx.x == 0) {
            r[idx].s = s;
            r[idx].e = gtime();
        }
    }
    if (acc == 1234.5f) // never (the buffer is zero): keeps the loads
        r[idx].s = 0;
}

static long long g_off; // gt = host + g_off

static void sync_clock()
{
    volatile u64 *box;
    CK(cudaHostAlloc((void **)&box, 64, cudaHostAllocMapped));
    u64 *dbox;
    CK(cudaHostGetDevicePointer((void **)&dbox, (void *)box, 0));
    u64 best;
    g_off = clock_offset(box, dbox, 0, &best);
    CK(cudaDeviceSynchronize());
    CK(cudaFreeHost((void *)box));
    fprintf(stderr, "clock sync: best round trip %llu ns\n", best);
}

static double med(std::vector<double> v)
{
    if (v.empty())
        return -1;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}
// The mean of @v; -1 (as med and pct) when empty: a loop stopped before its
// first request has no latency to average (0/0 printed "nan", not JSON).
static double mean(const std::vector<double> &v)
{
    if (v.empty())
        return -1;
    double s = 0;
    for (double x : v)
        s += x;
    return s / v.size();
}
static double pct(std::vector<double> v, double p)
{
    if (v.empty())
        return -1;
    std::sort(v.begin(), v.end());
    size_t i = (size_t)(p * (v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

static Rec *g_rec;      // device records (mapped host memory: read directly)
static char *g_dbuf;    // device scratch for memsets and copies
static cudaStream_t g_s;

static const float4 *g_l2buf, *g_drambuf; // memory nodes' buffers (loop mode)
static u64 *g_bytes;                       // their byte counter (device)
static int g_mthreads = 128;               // threads of a memory node's block (--mthreads)
static int g_rshift = 14;                  // log2 of a block's region in float4 (--region-kib)
enum { L2_F4 = 1 << 19, DRAM_F4 = 1 << 27 }; // 8 MiB, 2 GiB of float4

// One node of a loop pattern on stream @st (graph capture or eager).
static void launch_node(char c, int idx, u64 work, cudaStream_t st)
{
    int blocks = (c == 'K' || c == 'L' || c == 'D') ? 64 : 1;
    if (c == 'k' || c == 'K')
        knode<<<blocks, 32, 0, st>>>(g_rec, idx, work);
    else if (c == 'l' || c == 'L')
        kmem<<<blocks, g_mthreads, 0, st>>>(g_rec, idx, work, g_l2buf, L2_F4 - 1, g_bytes, g_rshift);
    else
        kmem<<<blocks, g_mthreads, 0, st>>>(g_rec, idx, work, g_drambuf, DRAM_F4 - 1, g_bytes, g_rshift);
}

// Capture a graph from a pattern: 'k' kernel node (work ns; 'K', 'l', 'L',
// 'd', 'D' the loop mode's others, launch_node), 'm' memset of 4 KiB, 'c' device-to-device copy of 4 KiB.  Kernel nodes record into
// g_rec[base + their kernel index].  A chain unless `branches` > 1: then
// kernel 0, `branches` parallel chains of the pattern, a join kernel.
static cudaGraphExec_t make_graph(const char *pat, u64 work, int branches,
                                  int base, int *n_kernels, int *n_nodes)
{
    cudaGraph_t g;
    int k = base, nodes = 0;
    CK(cudaStreamBeginCapture(g_s, cudaStreamCaptureModeGlobal));
    if (branches <= 1) {
        for (const char *p = pat; *p; p++, nodes++) {
            if (strchr("kKlLdD", *p))
                launch_node(*p, k++, work, g_s);
            else if (*p == 'm')
                CK(cudaMemsetAsync(g_dbuf, 0, 4096, g_s));
            else
                CK(cudaMemcpyAsync(g_dbuf + 8192, g_dbuf, 4096,
                                   cudaMemcpyDeviceToDevice, g_s));
        }
    } else {
        static cudaStream_t side[64];
        static cudaEvent_t fork, join[64];
        static bool init;
        if (!init) {
            for (int i = 0; i < 64; i++) {
                CK(cudaStreamCreateWithFlags(&side[i], cudaStreamNonBlocking));
                CK(cudaEventCreateWithFlags(&join[i], cudaEventDisableTiming));
            }
            CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
            init = true;
        }
        knode<<<1, 32, 0, g_s>>>(g_rec, k++, work);
        nodes++;
        CK(cudaEventRecord(fork, g_s));
        for (int b = 0; b < branches; b++) {
            CK(cudaStreamWaitEvent(side[b], fork, 0));
            for (const char *p = pat; *p; p++, nodes++)
                knode<<<1, 32, 0, side[b]>>>(g_rec, k++, work);
            CK(cudaEventRecord(join[b], side[b]));
            CK(cudaStreamWaitEvent(g_s, join[b], 0));
        }
        knode<<<1, 32, 0, g_s>>>(g_rec, k++, work);
        nodes++;
    }
    CK(cudaStreamEndCapture(g_s, &g));
    cudaGraphExec_t ge;
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphDestroy(g));
    *n_kernels = k - base;
    *n_nodes = nodes;
    return ge;
}

struct Out {
    std::string s;
    bool first = true;
    void kv(const char *k, double v)
    {
        char b[256];
        snprintf(b, sizeof b, "%s\"%s\": %.4f", first ? "" : ", ", k, v);
        s += b;
        first = false;
    }
    void raw(const char *k, const std::string &v)
    {
        s += (first ? "" : ", ");
        s += "\"" + std::string(k) + "\": " + v;
        first = false;
    }
};

static std::string arr(const std::vector<double> &v)
{
    std::string s = "[";
    char b[64];
    for (size_t i = 0; i < v.size(); i++) {
        snprintf(b, sizeof b, "%s%.3f", i ? ", " : "", v[i]);
        s += b;
    }
    return s + "]";
}

#define REPS 60

// Host cost of cudaGraphLaunch, first-node latency, node spacing of a chain.
static void graph_chain(Out &o, const char *tag, const char *pat, u64 work)
{
    int nk, nn;
    cudaGraphExec_t ge = make_graph(pat, work, 1, 0, &nk, &nn);
    std::vector<double> api, first, gapv;
    int npat = strlen(pat);
    std::vector<std::vector<double>> gap_at(nk);
    for (int r = 0; r < REPS + 5; r++) {
        CK(cudaStreamSynchronize(g_s));
        usleep(200);
        u64 t0 = hnow();
        CK(cudaGraphLaunch(ge, g_s));
        u64 t1 = hnow();
        CK(cudaStreamSynchronize(g_s));
        if (r < 5)
            continue;
        api.push_back((t1 - t0) / 1e3);
        if (pat[0] == 'k')
            first.push_back(((long long)g_rec[0].s - g_off - (long long)t1) / 1e3);
        for (int i = 1; i < nk; i++)
            gap_at[i].push_back(((long long)g_rec[i].s - (long long)g_rec[i - 1].e) / 1e3);
    }
    Out x;
    x.kv("nodes", nn);
    x.kv("kernels", nk);
    x.kv("api_us_p50", med(api));
    x.kv("api_us_p10", pct(api, 0.1));
    x.kv("api_us_p90", pct(api, 0.9));
    if (!first.empty())
        x.kv("first_node_after_return_us_p50", med(first));
    std::vector<double> gm;
    for (int i = 1; i < nk; i++)
        gm.push_back(med(gap_at[i]));
    if (nk > 1) {
        x.kv("kernel_gap_us_p50", med(gm));
        x.raw("kernel_gap_us_each", arr(std::vector<double>(gm.begin(), gm.begin() + std::min<size_t>(gm.size(), 16))));
    }
    o.raw(tag, "{" + x.s + "}");
    (void)npat;
    CK(cudaGraphExecDestroy(ge));
}

static void graph_branches(Out &o, int branches, int len)
{
    std::string pat(len, 'k');
    int nk, nn;
    cudaGraphExec_t ge = make_graph(pat.c_str(), 2000, branches, 0, &nk, &nn);
    std::vector<double> api, fork_first, fork_last, join, first, brlen;
    for (int r = 0; r < REPS / 2 + 3; r++) {
        CK(cudaStreamSynchronize(g_s));
        usleep(200);
        u64 t0 = hnow();
        CK(cudaGraphLaunch(ge, g_s));
        u64 t1 = hnow();
        CK(cudaStreamSynchronize(g_s));
        if (r < 3)
            continue;
        api.push_back((t1 - t0) / 1e3);
        first.push_back(((long long)g_rec[0].s - g_off - (long long)t1) / 1e3);
        u64 root_end = g_rec[0].e;
        std::vector<double> st;
        u64 last_end = 0;
        for (int b = 0; b < branches; b++) {
            int i0 = 1 + b * len;
            st.push_back(((long long)g_rec[i0].s - (long long)root_end) / 1e3);
            last_end = std::max(last_end, g_rec[i0 + len - 1].e);
        }
        std::sort(st.begin(), st.end());
        fork_first.push_back(st.front());
        fork_last.push_back(st.back());
        join.push_back(((long long)g_rec[nk - 1].s - (long long)last_end) / 1e3);
        brlen.push_back(((long long)g_rec[nk - 1].e - (long long)g_rec[0].s) / 1e3);
    }
    Out x;
    x.kv("branches", branches);
    x.kv("branch_len", len);
    x.kv("nodes", nn);
    x.kv("api_us_p50", med(api));
    x.kv("first_node_after_return_us_p50", med(first));
    x.kv("fork_first_us_p50", med(fork_first));
    x.kv("fork_last_us_p50", med(fork_last));
    x.kv("join_us_p50", med(join));
    x.kv("graph_span_us_p50", med(brlen));
    char tag[64];
    snprintf(tag, sizeof tag, "branches_%dx%d", branches, len);
    o.raw(tag, "{" + x.s + "}");
    CK(cudaGraphExecDestroy(ge));
}

// K launches of one 8-node graph back to back on one stream: the spacing
// between the last node of one launch and the first node of the next.
static void graph_inflight(Out &o, int K)
{
    int nk, nn;
    cudaGraphExec_t ge = make_graph("kkkkkkkk", 2000, 1, 0, &nk, &nn);
    // Each launch overwrites g_rec[0..7]: record only the last launch's
    // nodes, and the time from the first call to the last node's end.
    std::vector<double> per_graph, api;
    for (int r = 0; r < 23; r++) {
        CK(cudaStreamSynchronize(g_s));
        usleep(200);
        u64 t0 = hnow();
        knode<<<1, 32, 0, g_s>>>(g_rec, 100, 0); // marker
        for (int k = 0; k < K; k++)
            CK(cudaGraphLaunch(ge, g_s));
        u64 t1 = hnow();
        CK(cudaStreamSynchronize(g_s));
        if (r < 3)
            continue;
        api.push_back((t1 - t0) / 1e3 / K);
        // span from marker end to last node end, minus K*(8 nodes' own time)
        double span = ((long long)g_rec[7].e - (long long)g_rec[100].e) / 1e3;
        per_graph.push_back(span / K);
    }
    Out x;
    x.kv("graphs", K);
    x.kv("api_us_per_launch_p50", med(api));
    x.kv("us_per_graph_p50", med(per_graph));
    char tag[64];
    snprintf(tag, sizeof tag, "inflight_%d", K);
    o.raw(tag, "{" + x.s + "}");
    CK(cudaGraphExecDestroy(ge));
}

// The eager path: cudaLaunchKernel's host time, the time from its return to
// the kernel's start (idle GPU), back-to-back kernels queued behind a long
// one (GPU-side spacing per kernel), and synchronize (kernel end -> return).
static void eager(Out &o)
{
    std::vector<double> api, lat, gap, sync_ret, sync_api;
    for (int r = 0; r < REPS + 5; r++) {
        CK(cudaStreamSynchronize(g_s));
        usleep(200);
        u64 t0 = hnow();
        knode<<<1, 32, 0, g_s>>>(g_rec, 0, 20000);
        u64 t1 = hnow();
        // now queue 32 kernels behind it
        for (int i = 1; i <= 32; i++)
            knode<<<1, 32, 0, g_s>>>(g_rec, i, 1000);
        CK(cudaStreamSynchronize(g_s));
        u64 t2 = hnow();
        if (r < 5)
            continue;
        api.push_back((t1 - t0) / 1e3);
        lat.push_back(((long long)g_rec[0].s - g_off - (long long)t1) / 1e3);
        std::vector<double> g;
        for (int i = 2; i <= 32; i++)
            g.push_back(((long long)g_rec[i].s - (long long)g_rec[i - 1].e) / 1e3);
        gap.push_back(med(g));
        sync_ret.push_back(((long long)t2 - ((long long)g_rec[32].e - g_off)) / 1e3);
        // the API time of a synchronize on an idle stream
        u64 t3 = hnow();
        CK(cudaStreamSynchronize(g_s));
        sync_api.push_back((hnow() - t3) / 1e3);
    }
    // many launches in a row (no kernel waits): API time per launch
    std::vector<double> api_burst;
    for (int r = 0; r < 20; r++) {
        CK(cudaStreamSynchronize(g_s));
        knode<<<1, 32, 0, g_s>>>(g_rec, 0, 200000);
        u64 t0 = hnow();
        for (int i = 1; i <= 64; i++)
            knode<<<1, 32, 0, g_s>>>(g_rec, 1, 0);
        api_burst.push_back((hnow() - t0) / 1e3 / 64);
    }
    CK(cudaStreamSynchronize(g_s));
    Out x;
    x.kv("launch_api_us_p50", med(api));
    x.kv("launch_api_burst_us_p50", med(api_burst));
    x.kv("launch_to_start_us_p50", med(lat));
    x.kv("launch_to_start_us_p10", pct(lat, 0.1));
    x.kv("queued_kernel_gap_us_p50", med(gap));
    x.kv("sync_return_after_end_us_p50", med(sync_ret));
    x.kv("sync_idle_api_us_p50", med(sync_api));
    o.raw("eager", "{" + x.s + "}");
}

static void micro(FILE *f)
{
    Out o;
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    int drv, rt;
    CK(cudaDriverGetVersion(&drv));
    CK(cudaRuntimeGetVersion(&rt));
    o.raw("device", "\"" + std::string(p.name) + "\"");
    o.kv("driver_api", drv);
    o.kv("runtime", rt);
    const char *pipe = getenv("CUDA_MPS_PIPE_DIRECTORY");
    o.raw("mps_pipe", "\"" + std::string(pipe ? pipe : "") + "\"");
    eager(o);
    static const int ns[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
    for (int n : ns) {
        std::string pat(n, 'k');
        char tag[32];
        snprintf(tag, sizeof tag, "chain_k%d", n);
        graph_chain(o, tag, pat.c_str(), 2000);
    }
    graph_chain(o, "chain_k16_work0", "kkkkkkkkkkkkkkkk", 0);
    graph_chain(o, "chain_k16_work20us", "kkkkkkkkkkkkkkkk", 20000);
    // transitions: gaps around memsets and copies (gap k->X->k includes the
    // memset/copy's own time)
    graph_chain(o, "pat_kmk", "kmkmkmkmkmkmkmkmk", 2000);
    graph_chain(o, "pat_kck", "kckckckckckckckck", 2000);
    graph_chain(o, "pat_kmmk", "kmmkmmkmmkmmkmmkmmk", 2000);
    graph_chain(o, "pat_kcck", "kcckcckcckcckcck", 2000);
    graph_chain(o, "pat_mk", "mkkkkkkk", 2000);
    for (int b : {2, 4, 8, 16})
        graph_branches(o, b, 4);
    graph_branches(o, 4, 1);
    for (int k : {1, 2, 4, 8, 32})
        graph_inflight(o, k);
    fprintf(f, "{%s}\n", o.s.c_str());
}

static volatile sig_atomic_t g_stop; // SIGTERM / SIGINT: end the loop, report
static void on_stop(int) { g_stop = 1; }

static void loop(FILE *f, int nodes, u64 work, int iters, const char *barrier,
                 bool eager_mode, const char *pattern, int gap_us)
{
    std::string pat = pattern ? std::string(pattern) : std::string(nodes, 'k');
    nodes = (int)pat.size();
    if (nodes < 1 || nodes > 1024 || pat.find_first_not_of("kKlLdD") != std::string::npos) {
        fprintf(stderr, "--pat: 1 to 1024 of k K l L d D, got '%s'\n", pat.c_str());
        exit(2);
    }
    // Records in device memory here (nothing reads them: no PCIe write a node)
    CK(cudaMalloc((void **)&g_rec, 1024 * sizeof(Rec)));
    CK(cudaMalloc((void **)&g_bytes, sizeof(u64)));
    CK(cudaMemset(g_bytes, 0, sizeof(u64)));
    if (pat.find_first_of("lL") != std::string::npos) {
        CK(cudaMalloc((void **)&g_l2buf, L2_F4 * sizeof(float4)));
        CK(cudaMemset((void *)g_l2buf, 0, L2_F4 * sizeof(float4)));
    }
    if (pat.find_first_of("dD") != std::string::npos) {
        CK(cudaMalloc((void **)&g_drambuf, (size_t)DRAM_F4 * sizeof(float4)));
        CK(cudaMemset((void *)g_drambuf, 0, (size_t)DRAM_F4 * sizeof(float4)));
    }
    CK(cudaDeviceSynchronize());
    int nk, nn;
    cudaGraphExec_t ge = make_graph(pat.c_str(), work, 1, 0, &nk, &nn);
    auto request = [&]() {
        if (eager_mode)
            for (int i = 0; i < nodes; i++)
                launch_node(pat[i], i, work, g_s);
        else
            CK(cudaGraphLaunch(ge, g_s));
        CK(cudaStreamSynchronize(g_s));
    };
    for (int i = 0; i < 50; i++)
        request();
    if (barrier) {
        char b[512];
        snprintf(b, sizeof b, "%s/ready.%d", barrier, getpid());
        FILE *r = fopen(b, "w");
        if (r)
            fclose(r);
        snprintf(b, sizeof b, "%s/go", barrier);
        while (access(b, F_OK) != 0)
            usleep(100);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    u64 b0;
    CK(cudaMemcpy(&b0, g_bytes, sizeof b0, cudaMemcpyDeviceToHost));
    std::vector<double> lat, at;
    u64 t_start = hnow();
    int done = 0;
    for (int i = 0; i < iters && !g_stop; i++, done++) {
        u64 t0 = hnow();
        request();
        lat.push_back((hnow() - t0) / 1e3);
        at.push_back((t0 - t_start) / 1e3);
        if (gap_us > 0)
            usleep(gap_us);
        if ((i + 1) % 1000 == 0)
            fprintf(stderr, "requests %d at %.3f s (epoch %.3f), last 1000 median %.1f us\n",
                    i + 1, (hnow() - t_start) / 1e9, hnow() / 1e9,
                    med(std::vector<double>(lat.end() - 1000, lat.end())));
    }
    u64 t_end = hnow(), b1;
    CK(cudaMemcpy(&b1, g_bytes, sizeof b1, cudaMemcpyDeviceToHost));
    double el = (t_end - t_start) / 1e9;
    Out o;
    o.kv("pid", getpid());
    o.kv("nodes", nodes);
    o.raw("pattern", "\"" + pat + "\"");
    o.kv("gap_us", gap_us);
    o.kv("work_ns", (double)work);
    o.kv("iters", iters);
    o.kv("done", done);
    o.kv("stopped", g_stop);
    o.raw("mode", eager_mode ? "\"eager\"" : "\"graph\"");
    o.kv("t_start_ns_mod1e9", (double)(t_start % 1000000000ull));
    o.kv("t_start_epoch_s", t_start / 1e9);
    o.kv("elapsed_s", el);
    o.kv("throughput_per_s", done / el);
    o.kv("nodes_per_s", (double)done * nodes / el);
    o.kv("bytes_read", (double)(b1 - b0));
    o.kv("read_gb_per_s", (b1 - b0) / el / 1e9);
    o.kv("lat_us_p50", med(lat));
    o.kv("lat_us_p90", pct(lat, 0.9));
    o.kv("lat_us_p99", pct(lat, 0.99));
    o.kv("lat_us_mean", mean(lat));
    o.raw("start_us", arr(at));
    o.raw("lat_us", arr(lat));
    fprintf(f, "{%s}\n", o.s.c_str());
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: graphbench micro|loop [options]\n");
        return 1;
    }
    const char *out = NULL, *barrier = NULL;
    int nodes = 32, iters = 500;
    u64 work = 5000;
    bool eager_mode = false;
    const char *pattern = NULL;
    int gap_us = 0, region_kib = 256;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--barrier") && i + 1 < argc) barrier = argv[++i];
        else if (!strcmp(argv[i], "--nodes") && i + 1 < argc) nodes = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--work") && i + 1 < argc) work = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--eager")) eager_mode = true;
        else if (!strcmp(argv[i], "--pat") && i + 1 < argc) pattern = argv[++i];
        else if (!strcmp(argv[i], "--gap") && i + 1 < argc) gap_us = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--mthreads") && i + 1 < argc) g_mthreads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--region-kib") && i + 1 < argc) region_kib = atoi(argv[++i]);
        else { fprintf(stderr, "unknown option %s\n", argv[i]); return 2; }
    }
    if (g_mthreads < 32 || g_mthreads > 1024 || g_mthreads % 32) {
        fprintf(stderr, "--mthreads: a multiple of 32 from 32 to 1024, got %d\n", g_mthreads);
        return 2;
    }
    if (region_kib < 16 || region_kib > 65536 || (region_kib & (region_kib - 1))) {
        fprintf(stderr, "--region-kib: a power of two from 16 to 65536, got %d\n", region_kib);
        return 2;
    }
    for (g_rshift = 0; (16 << g_rshift) < region_kib * 1024; g_rshift++) {
    }
    CK(cudaSetDeviceFlags(cudaDeviceMapHost));
    CK(cudaStreamCreateWithFlags(&g_s, cudaStreamNonBlocking));
    CK(cudaHostAlloc((void **)&g_rec, 1024 * sizeof(Rec), cudaHostAllocMapped));
    Rec *drec;
    CK(cudaHostGetDevicePointer((void **)&drec, g_rec, 0));
    CK(cudaMalloc((void **)&g_dbuf, 1 << 20));
    Rec *hrec = g_rec;
    g_rec = drec; // kernels get the device pointer; reads go through hrec
    sync_clock();
    // host reads use hrec: alias g_rec for reads below by swapping back
    // after graphs are captured is awkward, so mapped memory is unified:
    // with UVA the device pointer equals the host pointer.
    if ((void *)drec != (void *)hrec)
        fprintf(stderr, "warning: mapped pointer differs from host pointer\n");
    FILE *f = out ? fopen(out, "w") : stdout;
    if (!f) {
        perror(out);
        return 1;
    }
    if (!strcmp(argv[1], "micro"))
        micro(f);
    else if (!strcmp(argv[1], "loop"))
        loop(f, nodes, work, iters, barrier, eager_mode, pattern, gap_us);
    else {
        fprintf(stderr, "unknown mode %s\n", argv[1]);
        return 2;
    }
    if (out)
        fclose(f);
    return 0;
}
