// span_probe.cu -- where a graph request's time outside the GPU span goes when
// N processes (MPS clients or time-sliced contexts) serve at once (hqsim
// issue 10, FINDINGS §44).  One process of a group:
//
//   span_probe --rank R --n N --barrier DIR --out FILE [--slot-ms 300]
//              [--kernels 64] [--work-ns 4000] [--blocks 1]
//
// A request is what the PyTorch graph requests of the open-loop campaign do
// (harness/torch_graphs.py Runner): an 8-byte H2D copy from pinned memory,
// cudaGraphLaunch of a chain of K kernels (each spins W ns on %globaltimer;
// a one-block first node records its start gs, a one-block last node its
// end ge into mapped host memory; the K - 2 between have --blocks blocks of
// 32 threads, or of 128 when more than one, to hold SMs as PyTorch's
// kernels do), the output copy to the host, cudaStreamSynchronize,
// cudaDeviceSynchronize.  The output copy is a request variant:
//   pg    cudaMemcpyAsync 32 KiB to pageable memory (what y.to("cpu") does:
//         the call returns once the data is in host memory)
//   pin   cudaMemcpyAsync 32 KiB to pinned memory (returns at once; the
//         stream synchronize waits for it)
//   pg512 as pg with 512 KiB (decoder b16's output)
//   none  no output copy
//   pinev as pin with CUDA events recorded after the graph and after the
//         copy: their elapsed time (column ev) is the hand-off to the copy
//         engine plus the copy, as the GPU sees it
// Host marks (CLOCK_REALTIME, ns from the request's start): after the H2D
// call, after cudaGraphLaunch, after the output copy call, after each
// synchronize; gs / ge mapped onto the host clock by a ping-pong through
// mapped memory at the start of every slot (the smallest of 32 round trips).
//
// All processes start together (files in DIR) and follow one wall-clock
// schedule of slots of --slot-ms: in each slot rank 0 serves closed-loop
// requests of one variant while the other ranks do one of
//   same    the same requests (every rank records)
//   nocopy  the same graph and synchronizes, no output copy
//   copy    only the 32 KiB pageable output copy and synchronize, no kernels
//   idle    nothing (connected, sleeping)
//   dram    a graph of one copy kernel streaming --dram-mb MiB from one
//           device buffer to another (grid-stride float4), launched and
//           stream-synchronized back to back: neighbours streaming DRAM as
//           the decoders' kernels do (FINDINGS §31), with no output copy;
//           each such rank prints "dram GiB/s launches" of its slots on
//           stdout (span10b)
// FILE gets one CSV row per request: rank,slot,variant,others,i,h_h2d,
// h_launch,h_copy,h_ssync,h_dsync,gs,ge (ns from the request's start),ev
// (ns; pinev only, else 0).  --variants a,b,.. and --others a,b,.. limit the
// schedule (default others: same,nocopy,copy,idle; dram only when asked, as
// it allocates 2 x --dram-mb MiB, default 1024, in every rank but 0).
#include <cuda_runtime.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "gpu_clock.h"

// One node: thread 0 spins `work` ns; role 1 records its start in box[0],
// role 2 its end in box[1] and a word of the output (the copy's source).
__global__ void knode(volatile u64 *box, u64 *out, u64 work, int role)
{
    if (threadIdx.x != 0)
        return; // the block holds its SM slot while thread 0 spins
    u64 s = gtime(), t = s;
    if (role == 1)
        box[0] = s;
    while (t - s < work)
        t = gtime();
    if (role == 2) {
        out[0] = t;
        box[1] = gtime();
    }
}

// A DRAM-streaming neighbour's node: copy n float4 from a to b.
__global__ void kdram(const float4 *a, float4 *b, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        b[i] = a[i];
}

static volatile u64 *g_pbox; // mapped: ping-pong
static u64 *g_dpbox;

// gt = host + offset (gpu_clock.h), on stream s.
static long long sync_clock(cudaStream_t s)
{
    u64 best;
    return clock_offset(g_pbox, g_dpbox, s, &best);
}

static void sleep_until(u64 t)
{
    for (u64 n = hnow(); n + 2000000 < t; n = hnow())
        usleep(1000);
    while (hnow() < t) {
    }
}

static int count_prefix(const char *dir, const char *pre)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strncmp(e->d_name, pre, strlen(pre)) == 0;
    closedir(d);
    return n;
}

struct Slot {
    const char *variant, *others;
};
static const char *VARIANTS[] = {"pg", "pin", "none", "pg512", "pinev"};
static const char *OTHERS[] = {"same", "nocopy", "copy", "idle", "dram"};

int main(int argc, char **argv)
{
    int rank = 0, n = 1, kernels = 64, slot_ms = 300, blocks = 1;
    std::string only = "pg,pin,none,pg512";
    std::string oth = "same,nocopy,copy,idle";
    size_t dram_mb = 1024;
    u64 work = 4000;
    const char *bar = NULL, *outf = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string k = argv[i];
        if (k == "--rank")
            rank = atoi(argv[i + 1]);
        else if (k == "--n")
            n = atoi(argv[i + 1]);
        else if (k == "--barrier")
            bar = argv[i + 1];
        else if (k == "--out")
            outf = argv[i + 1];
        else if (k == "--slot-ms")
            slot_ms = atoi(argv[i + 1]);
        else if (k == "--kernels")
            kernels = atoi(argv[i + 1]);
        else if (k == "--work-ns")
            work = strtoull(argv[i + 1], NULL, 10);
        else if (k == "--blocks")
            blocks = atoi(argv[i + 1]);
        else if (k == "--variants")
            only = argv[i + 1];
        else if (k == "--others")
            oth = argv[i + 1];
        else if (k == "--dram-mb")
            dram_mb = strtoull(argv[i + 1], NULL, 10);
        else {
            fprintf(stderr, "span_probe: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (!bar || !outf || kernels < 2) {
        fprintf(stderr,
                "usage: span_probe --rank R --n N --barrier DIR --out FILE\n");
        return 2;
    }
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    volatile u64 *box;
    u64 *dbox, *dout, *din, *hpin, *hpin_in;
    CK(cudaHostAlloc((void **)&box, 64, cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer((void **)&dbox, (void *)box, 0));
    CK(cudaHostAlloc((void **)&g_pbox, 64, cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer((void **)&g_dpbox, (void *)g_pbox, 0));
    const size_t BIG = 512 << 10, SMALL = 32 << 10;
    CK(cudaMalloc((void **)&dout, BIG));
    CK(cudaMalloc((void **)&din, 64));
    CK(cudaMemset(dout, 0, BIG));
    CK(cudaHostAlloc((void **)&hpin, BIG, cudaHostAllocDefault));
    CK(cudaHostAlloc((void **)&hpin_in, 64, cudaHostAllocDefault));
    char *hpage = (char *)malloc(BIG);
    memset(hpage, 1, BIG);
    memset(hpin_in, 2, 64);

    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int k = 0; k < kernels; k++) {
        bool end = k == 0 || k == kernels - 1;
        knode<<<end ? 1 : blocks, end || blocks == 1 ? 32 : 128, 0, s>>>(
            (volatile u64 *)dbox, dout, work,
            k == 0 ? 1
            : end  ? 2
                   : 0);
    }
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));

    // the DRAM-streaming neighbour's graph (ranks > 0, only when asked)
    bool want_dram = rank > 0 && ("," + oth + ",").find(",dram,") !=
                                     std::string::npos;
    cudaGraphExec_t gd = NULL;
    size_t dram_n = dram_mb * (1024 * 1024 / 16);
    if (want_dram) {
        float4 *da, *db;
        CK(cudaMalloc((void **)&da, dram_n * 16));
        CK(cudaMalloc((void **)&db, dram_n * 16));
        CK(cudaMemset(da, 0, dram_n * 16));
        cudaGraph_t g2;
        CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        kdram<<<132 * 8, 256, 0, s>>>(da, db, dram_n);
        CK(cudaStreamEndCapture(s, &g2));
        CK(cudaGraphInstantiate(&gd, g2, 0));
        CK(cudaGraphLaunch(gd, s));
        CK(cudaStreamSynchronize(s));
    }

    cudaEvent_t e1, e2;
    CK(cudaEventCreate(&e1));
    CK(cudaEventCreate(&e2));
    // one request; variant v (0 pg, 1 pin, 2 none, 3 pg512, 5 pinev; 4 copy
    // only; 6 the DRAM-streaming graph alone)
    auto request = [&](int v, u64 *m) {
        u64 h0 = hnow();
        if (v == 6) {
            CK(cudaGraphLaunch(gd, s));
            CK(cudaStreamSynchronize(s));
            return;
        }
        CK(cudaMemcpyAsync(din, hpin_in, 8, cudaMemcpyHostToDevice, s));
        m[0] = hnow() - h0;
        if (v != 4)
            CK(cudaGraphLaunch(ge, s));
        if (v == 5)
            CK(cudaEventRecord(e1, s));
        m[1] = hnow() - h0;
        if (v == 0 || v == 4)
            CK(cudaMemcpyAsync(hpage, dout, SMALL, cudaMemcpyDeviceToHost, s));
        else if (v == 1 || v == 5)
            CK(cudaMemcpyAsync(hpin, dout, SMALL, cudaMemcpyDeviceToHost, s));
        if (v == 5)
            CK(cudaEventRecord(e2, s));
        else if (v == 3)
            CK(cudaMemcpyAsync(hpage, dout, BIG, cudaMemcpyDeviceToHost, s));
        m[2] = hnow() - h0;
        CK(cudaStreamSynchronize(s));
        m[3] = hnow() - h0;
        CK(cudaDeviceSynchronize());
        m[4] = hnow() - h0;
        m[5] = box[0];
        m[6] = box[1];
        m[7] = h0;
        float ms = 0;
        if (v == 5)
            CK(cudaEventElapsedTime(&ms, e1, e2));
        m[8] = (u64)(ms * 1e6);
    };
    u64 m[9];
    for (int i = 0; i < 50; i++)
        for (int v = 0; v < 6; v++)
            request(v, m);

    // start together: go.<rank>, all present, rank 0 writes t0
    char path[4096];
    snprintf(path, sizeof path, "%s/go.%d", bar, rank);
    fclose(fopen(path, "w"));
    while (count_prefix(bar, "go.") < n)
        usleep(200);
    snprintf(path, sizeof path, "%s/t0", bar);
    if (rank == 0) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s/t0.tmp", bar);
        FILE *f = fopen(tmp, "w");
        fprintf(f, "%llu\n", hnow() + 300000000ull);
        fclose(f);
        rename(tmp, path);
    }
    FILE *f;
    while (!(f = fopen(path, "r")))
        usleep(200);
    u64 t0 = 0;
    if (fscanf(f, "%llu", &t0) != 1)
        return 1;
    fclose(f);

    std::vector<Slot> slots;
    for (const char *v : VARIANTS)
        for (const char *o : OTHERS)
            if (("," + only + ",").find(std::string(",") + v + ",") !=
                    std::string::npos &&
                ("," + oth + ",").find(std::string(",") + o + ",") !=
                    std::string::npos)
                slots.push_back({v, o});
    FILE *out = fopen(outf, "w");
    fprintf(out, "rank,slot,variant,others,i,h_h2d,h_launch,h_copy,h_ssync,"
                 "h_dsync,gs,ge,ev\n");
    std::vector<std::vector<long long>> rows;
    u64 slot_ns = (u64)slot_ms * 1000000ull;
    for (size_t si = 0; si < slots.size(); si++) {
        u64 start = t0 + si * slot_ns, end = start + slot_ns - 30000000ull;
        sleep_until(start);
        long long off = sync_clock(s);
        const Slot &sl = slots[si];
        int vi = 0;
        while (strcmp(VARIANTS[vi], sl.variant))
            vi++;
        vi = vi == 4 ? 5 : vi; // pinev
        bool serve = rank == 0 || !strcmp(sl.others, "same");
        int v = serve                          ? vi
                : !strcmp(sl.others, "nocopy") ? 2
                : !strcmp(sl.others, "copy")   ? 4
                : !strcmp(sl.others, "dram")   ? 6
                                               : -1;
        rows.clear();
        if (v < 0) {
            sleep_until(end);
            continue;
        }
        u64 d0 = hnow();
        int i = 0;
        for (; hnow() < end; i++) {
            request(v, m);
            if (!serve || rows.size() >= 4000)
                continue;
            long long gs = (long long)m[5] - off - (long long)m[7];
            long long gend = (long long)m[6] - off - (long long)m[7];
            rows.push_back({(long long)i, (long long)m[0], (long long)m[1],
                            (long long)m[2], (long long)m[3], (long long)m[4],
                            gs, gend, (long long)m[8]});
        }
        if (v == 6)
            printf("dram slot %zu %.1f GiB/s %d launches\n", si,
                   2.0 * i * dram_n * 16 / 1073741824.0 / ((hnow() - d0) * 1e-9),
                   i);
        for (auto &r : rows)
            fprintf(out,
                    "%d,%zu,%s,%s,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,"
                    "%lld\n",
                    rank, si, sl.variant, sl.others, r[0], r[1], r[2], r[3],
                    r[4], r[5], r[6], r[7], r[8]);
    }
    fclose(out);
    return 0;
}
