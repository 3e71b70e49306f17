// chase.cu -- how an MPS neighbour's DRAM traffic lengthens a kernel that waits on
// memory: per kernel, or per dependent memory round trip? (hqsim issue 10, FINDINGS
// §64, §67.)  One process; prints one JSON object per configuration on stdout.
//
//   chase --ks 1,4,16,64,256 --shapes 16x128,528x256 --iters 200 [--mib 1024]
//         [--dur-s S] [--tag T] [--warm W] [--fresh 0|1]
//
// Each configuration (K, BLOCKS x THREADS) is a kernel in which every thread follows
// K dependent pointers through a MIB-sized buffer (index -> buf[index], loaded past L1
// with __ldcg): K round trips to DRAM in sequence, nothing to overlap them with, so
// the kernel's time is about K x the loaded memory latency.  The buffer holds the
// permutation i -> (a*i + c) mod N (N a power of two, c odd, a = 1 mod 4: one cycle
// through every entry, Hull-Dobell), a long jump each step (a ~ N / golden ratio),
// so a walk has no locality. With --fresh 1 each launch starts every thread at a new place
// (the launch's number in the start index), so a 1 GiB buffer is read from DRAM every time;
// with --fresh 0 every launch walks the same K x threads entries, and a buffer well under
// the L2 (50 MB on the GH100; e.g. --mib 8) is read from L2 once warm: the same chain
// of dependent loads, served by L2 or by DRAM.  The kernel is launched ITERS times back to back (after 20
// warm-up launches, --warm), each between two CUDA events; the record is the median, p10 and
// p90 of the event times (us), and the ns per round trip (median / K).  With --dur-s
// the list of configurations is repeated until S seconds have passed (a victim that
// outlasts nothing: the neighbours outlast it).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cuda_check.h"

__global__ void kinit(unsigned *buf, unsigned long long n, unsigned long long a,
                      unsigned long long c)
{
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (; i < n; i += stride)
        buf[i] = (unsigned)((a * i + c) & (n - 1));
}

// K dependent loads a thread; the final index is stored only when it equals ~0u (never:
// indices are < n) so the chain cannot be optimised away.
__global__ void kchase(const unsigned *buf, unsigned *sink, int k, unsigned long long n,
                       unsigned long long launch)
{
    unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x +
                           launch * gridDim.x * (unsigned long long)blockDim.x;
    unsigned idx = (unsigned)((t * 2654435761ull) & (n - 1));
    for (int i = 0; i < k; i++)
        idx = __ldcg(buf + idx);
    if (idx == ~0u)
        sink[0] = idx;
}

static std::vector<int> parse_ints(const char *s)
{
    std::vector<int> v;
    for (const char *p = s; *p;) {
        char *end;
        long k = strtol(p, &end, 10);
        if (end == p || (*end && *end != ',') || k < 1 || k > 1 << 20) {
            fprintf(stderr, "chase: bad --ks entry at '%s' (round trips, 1 to 2^20)\n", p);
            exit(2);
        }
        v.push_back((int)k);
        const char *q = strchr(p, ',');
        if (!q)
            break;
        p = q + 1;
    }
    return v;
}

struct Shape {
    int blocks, threads;
};

static std::vector<Shape> parse_shapes(const char *s)
{
    std::vector<Shape> v;
    for (const char *p = s; *p;) {
        Shape sh;
        if (sscanf(p, "%dx%d", &sh.blocks, &sh.threads) != 2 || sh.blocks < 1 || sh.threads < 1 ||
            sh.threads > 1024) {
            fprintf(stderr, "chase: bad --shapes entry at '%s' (BLOCKSxTHREADS)\n", p);
            exit(2);
        }
        v.push_back(sh);
        const char *q = strchr(p, ',');
        if (!q)
            break;
        p = q + 1;
    }
    return v;
}

static double now_s()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double pct(std::vector<float> v, double q)
{
    std::sort(v.begin(), v.end());
    return v[(size_t)(q * (v.size() - 1) + 0.5)];
}

static void run_one(const unsigned *buf, unsigned *sink, unsigned long long n, int k, Shape sh,
                    int iters, int warm, int fresh, const char *tag, int round)
{
    std::vector<cudaEvent_t> ev(2 * (size_t)iters);
    for (auto &e : ev)
        CK(cudaEventCreate(&e));
    for (int i = 0; i < warm; i++)
        kchase<<<sh.blocks, sh.threads>>>(buf, sink, k, n, fresh ? 1000 + i : 0);
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < iters; i++) {
        CK(cudaEventRecord(ev[2 * i]));
        kchase<<<sh.blocks, sh.threads>>>(buf, sink, k, n, fresh ? 1000000 * (unsigned long long)round + i + 1 : 0);
        CK(cudaEventRecord(ev[2 * i + 1]));
    }
    CK(cudaDeviceSynchronize());
    std::vector<float> us(iters);
    for (int i = 0; i < iters; i++) {
        float ms;
        CK(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
        us[i] = ms * 1000.0f;
    }
    for (auto &e : ev)
        CK(cudaEventDestroy(e));
    double med = pct(us, 0.5);
    printf("{\"tag\": \"%s\", \"round\": %d, \"mib\": %llu, \"fresh\": %d, \"k\": %d, "
           "\"blocks\": %d, \"threads\": %d, \"iters\": %d, \"median_us\": %.3f, \"p10_us\": %.3f, \"p90_us\": %.3f, "
           "\"ns_per_trip\": %.2f}\n",
           tag, round, n * sizeof(unsigned) >> 20, fresh, k, sh.blocks, sh.threads, iters, med,
           pct(us, 0.1), pct(us, 0.9),
           med * 1000.0 / k);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const char *ks = "1,4,16,64,256", *shapes = "16x128", *tag = "";
    int iters = 200, warm = 20, fresh = 0;
    unsigned long long mib = 1024;
    double dur = 0;
    if (argc % 2 == 0) {
        fprintf(stderr, "chase: every option takes a value (%s has none)\n", argv[argc - 1]);
        return 2;
    }
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--ks"))
            ks = argv[i + 1];
        else if (!strcmp(argv[i], "--shapes"))
            shapes = argv[i + 1];
        else if (!strcmp(argv[i], "--iters"))
            iters = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--mib"))
            mib = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--dur-s"))
            dur = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--fresh"))
            fresh = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--warm"))
            warm = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--tag"))
            tag = argv[i + 1];
        else {
            fprintf(stderr, "chase: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    unsigned long long n = mib * 1024 * 1024 / sizeof(unsigned);
    if (iters < 1 || n < 2 || (n & (n - 1))) {
        fprintf(stderr, "chase: --iters >= 1 and --mib a power of two\n");
        return 2;
    }
    std::vector<int> kv = parse_ints(ks);
    std::vector<Shape> sv = parse_shapes(shapes);
    unsigned *buf, *sink;
    CK(cudaMalloc(&buf, n * sizeof(unsigned)));
    CK(cudaMalloc(&sink, sizeof(unsigned)));
    // a = 1 mod 4 near n / golden ratio, c odd: a single cycle over all n entries.
    unsigned long long a = ((unsigned long long)(n * 0.6180339887) & ~3ull) | 1ull, c = 12345;
    kinit<<<1024, 256>>>(buf, n, a, c);
    CK(cudaDeviceSynchronize());
    double t0 = now_s();
    int round = 0;
    do {
        for (int k : kv)
            for (Shape sh : sv)
                run_one(buf, sink, n, k, sh, iters, warm, fresh, tag, round);
        round++;
    } while (dur > 0 && now_s() - t0 < dur);
    CK(cudaFree(buf));
    CK(cudaFree(sink));
    return 0;
}
