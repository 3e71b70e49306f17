// hqprobe: measurement harness for hqsim ground truth (H100, CUDA 13).
//
// Every kernel block records (thread 0) its SM id (%smid), %globaltimer at
// start and end and clock64 at start and end. Host code records
// CLOCK_REALTIME around every API call and maps host time to %globaltimer
// with a ping-pong over mapped host memory (offset = gpu - host).
//
// Modes:
//   hqprobe info     --out PREFIX
//   hqprobe run      --spec FILE --out PREFIX [--reps R] [--nosolo] [--barrier DIR] [--tag T]
//   hqprobe latency  --out PREFIX
//   hqprobe copies   --out PREFIX
//   hqprobe hold     --out PREFIX [--barrier DIR] [--hold-ms MS] [--alloc-mib M]
//
// Kernel kinds (work = unit in brackets):
//   gt       spin on %globaltimer for `work` ns (every thread)             [ns]
//   clk      spin on clock64 for `work` SM cycles (simpleHyperQ style)     [cycles]
//   fma      dependent FMA chains: `work` iterations x `chains` chains     [iterations]
//   fmaheavy fma with chains=1 plus ~160 registers kept live (<=256 thr)   [iterations]
//            (its `chains` field: __launch_bounds__(256, chains) for 2..6, capping the
//            registers so that 2..6 blocks of 256 threads fit an SM; 1: uncapped, 244)
//   fmas32   fma chains=1 plus 32 KiB static shared memory                 [iterations]
//   tslice   spin until the block's own running time reaches `work` ns;
//            any step of %globaltimer > 2 us is a gap (context switched
//            out) and is recorded (blocks 0..3, warp 0)                    [ns]
//   empty    does nothing, records nothing
//   Memory and mixed kernels (part I).  They stream over three 512 MiB
//   buffers (far beyond the 50 MiB L2) grid-stride: at any moment the
//   blocks touch one contiguous window, which wraps around the buffer only
//   long after L2 has evicted it; each launch starts at its own rotating
//   offset so that concurrent kernels do not share cache lines:
//   triad    a[i] = b[i] + s*c[i], `work` float4 per thread (48 B each)    [float4/thread]
//   copy     a[i] = b[i], `work` float4 per thread (32 B each)             [float4/thread]
//   reduce   sum of `work` float4 per thread, block sum (16 B each)        [float4/thread]
//   gemv     y = A x, one warp per row of 4096 floats, `work` rows/warp    [rows/warp]
//   smem     `work` dependent read-modify-writes of shared memory, 32 KiB
//            static per block (LSU/shared-memory bound)                    [iterations]
//   sgemm    64x64 tile of C = A B per block (256 threads, 4x4 each),
//            16-deep shared tiles, K = `work`                              [K]
#include <cuda_runtime.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "cuda_check.h"

struct BRec {
  u64 t0, t1;  // globaltimer ns
  u64 c0, c1;  // clock64
  unsigned smid;
  unsigned ngaps;
};

static const int TS_REC_BLOCKS = 4;
static const int TS_MAXG = 8192;
static const u64 TS_THR_NS = 2000;

__device__ __forceinline__ u64 gtimer() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned get_smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

__device__ float g_sink[4];

#define REC_BEGIN                      \
  __shared__ u64 s_t0, s_c0;           \
  if (threadIdx.x == 0) {              \
    s_t0 = gtimer();                   \
    s_c0 = clock64();                  \
  }
#define REC_END(NG)                                        \
  __syncthreads();                                         \
  if (threadIdx.x == 0 && rec) {                           \
    BRec r;                                                \
    r.c1 = clock64();                                      \
    r.t1 = gtimer();                                       \
    r.t0 = s_t0;                                           \
    r.c0 = s_c0;                                           \
    r.smid = get_smid();                                   \
    r.ngaps = (NG);                                        \
    rec[blockIdx.x] = r;                                   \
  }

__global__ void k_empty() {}

__global__ void k_gt(BRec* rec, long long ns) {
  REC_BEGIN
  u64 st = gtimer();
  while ((long long)(gtimer() - st) < ns) {
  }
  REC_END(0)
}

__global__ void k_clk(BRec* rec, long long cycles) {
  REC_BEGIN
  long long st = clock64();
  while (clock64() - st < cycles) {
  }
  REC_END(0)
}

template <int CH>
__global__ void k_fma(BRec* rec, long long iters, float b, float c) {
  REC_BEGIN
  float a[CH];
#pragma unroll
  for (int j = 0; j < CH; j++) a[j] = threadIdx.x * 1e-7f + j;
  for (long long i = 0; i < iters; i++) {
#pragma unroll
    for (int j = 0; j < CH; j++) a[j] = fmaf(a[j], b, c);
  }
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < CH; j++) s += a[j];
  if (s == -1.2345f) g_sink[0] = s;
  REC_END(0)
}

#define NHEAVY 160
__device__ float g_heavy[NHEAVY];
// ~170 registers: NHEAVY values loaded (volatile) before the loop and used after it.
__device__ __forceinline__ void fmaheavy_body(long long iters, float b, float c);
__global__ void __launch_bounds__(256) k_fmaheavy(BRec* rec, long long iters, float b, float c) {
  REC_BEGIN
  fmaheavy_body(iters, b, c);
  REC_END(0)
}
// The same work capped by __launch_bounds__(256, MINB) at the registers that let MINB blocks of
// 256 threads share an SM (2..6: 128, 80, 64, 48, 40; the rest spills): register-limited kernels
// without shared memory at 2-6 blocks per SM, for the driver's shared-memory configuration (ncu).
template <int MINB>
__global__ void __launch_bounds__(256, MINB) k_fmaheavy_lb(BRec* rec, long long iters, float b, float c) {
  REC_BEGIN
  fmaheavy_body(iters, b, c);
  REC_END(0)
}
__device__ __forceinline__ void fmaheavy_body(long long iters, float b, float c) {
  float r[NHEAVY];
  volatile float* src = g_heavy;
#pragma unroll
  for (int i = 0; i < NHEAVY; i++) r[i] = src[i];
  float a = threadIdx.x * 1e-7f;
  for (long long i = 0; i < iters; i++) a = fmaf(a, b, c);
  float s = a;
#pragma unroll
  for (int i = 0; i < NHEAVY; i++) s = fmaf(r[i], a, s);
  if (s == -1.2345f) g_sink[1] = s;
}

__global__ void k_fmas32(BRec* rec, long long iters, float b, float c) {
  __shared__ float sbuf[8192];  // 32 KiB static
  REC_BEGIN
  for (int i = threadIdx.x; i < 8192; i += blockDim.x) sbuf[i] = i * 1e-3f;
  __syncthreads();
  float a = sbuf[(threadIdx.x * 7) & 8191];
  for (long long i = 0; i < iters; i++) a = fmaf(a, b, c);
  if (a == -1.2345f) g_sink[2] = a + sbuf[threadIdx.x & 8191];
  REC_END(0)
}


// ---------------------------------------------------------------- memory kernels
static const size_t MEM_N4 = (512ull << 20) / 16;  // float4 per buffer
static float4 *g_ma = nullptr, *g_mb = nullptr, *g_mc = nullptr;
static unsigned long long g_launch_no = 0;

__device__ __forceinline__ size_t wrap4(size_t i) { return i % MEM_N4; }

__global__ void k_triad(BRec* rec, long long work, float4* a, const float4* b, const float4* c, size_t base) {
  REC_BEGIN
  const size_t i0 = base + (size_t)blockIdx.x * blockDim.x + threadIdx.x, step = (size_t)gridDim.x * blockDim.x;
  for (long long j = 0; j < work; j++) {
    size_t i = wrap4(i0 + (size_t)j * step);
    float4 x = b[i], y = c[i];
    a[i] = make_float4(x.x + 1.5f * y.x, x.y + 1.5f * y.y, x.z + 1.5f * y.z, x.w + 1.5f * y.w);
  }
  REC_END(0)
}

__global__ void k_copy(BRec* rec, long long work, float4* a, const float4* b, size_t base) {
  REC_BEGIN
  const size_t i0 = base + (size_t)blockIdx.x * blockDim.x + threadIdx.x, step = (size_t)gridDim.x * blockDim.x;
  for (long long j = 0; j < work; j++) {
    size_t i = wrap4(i0 + (size_t)j * step);
    a[i] = b[i];
  }
  REC_END(0)
}

__global__ void k_reduce(BRec* rec, long long work, const float4* b, size_t base) {
  REC_BEGIN
  const size_t i0 = base + (size_t)blockIdx.x * blockDim.x + threadIdx.x, step = (size_t)gridDim.x * blockDim.x;
  float s = 0.f;
  for (long long j = 0; j < work; j++) {
    float4 x = b[wrap4(i0 + (size_t)j * step)];
    s += x.x + x.y + x.z + x.w;
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  __shared__ float ws[32];
  if ((threadIdx.x & 31) == 0) ws[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.f;
    for (int w = 0; w < (int)(blockDim.x >> 5); w++) t += ws[w];
    if (t == -1.2345f) g_sink[3] = t;
  }
  REC_END(0)
}

// one warp per row of 1024 float4 (4096 floats); x is the first row of c (cached)
__global__ void k_gemv(BRec* rec, long long work, const float4* A, const float4* x, float* y, size_t base) {
  REC_BEGIN
  const int lane = threadIdx.x & 31;
  const size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const size_t nwarps = ((size_t)gridDim.x * blockDim.x) >> 5;
  for (long long r = 0; r < work; r++) {
    size_t row = (size_t)r * nwarps + warp;
    size_t i0 = base + row * 1024;
    float s = 0.f;
#pragma unroll 4
    for (int j = lane; j < 1024; j += 32) {
      float4 a = A[wrap4(i0 + j)], v = x[j];
      s += a.x * v.x + a.y * v.y + a.z * v.z + a.w * v.w;
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) y[row % (MEM_N4 * 4)] = s;
  }
  REC_END(0)
}

__global__ void k_smem(BRec* rec, long long iters) {
  __shared__ float sbuf[8192];  // 32 KiB static
  REC_BEGIN
  for (int i = threadIdx.x; i < 8192; i += blockDim.x) sbuf[i] = i * 1e-3f;
  __syncthreads();
  unsigned idx = threadIdx.x;
  for (long long i = 0; i < iters; i++) {
    float v = sbuf[idx];
    sbuf[idx] = v * 0.99999f + 1e-7f;
    idx = (idx + 32 * 33) & 8191;  // next bank-conflict-free slot of this lane
  }
  __syncthreads();
  if (sbuf[threadIdx.x] == -1.2345f) g_sink[0] = 1.f;
  REC_END(0)
}

// C tile 64x64 = A (64 x K, row-major, lda = K) B (K x 4096, row-major); 256 threads, 4x4 each
__global__ void __launch_bounds__(256) k_sgemm(BRec* rec, long long K, const float* A, const float* B, float* C) {
  __shared__ float As[16][64], Bs[16][64];
  REC_BEGIN
  const size_t NF = MEM_N4 * 4;
  const int tr = blockIdx.x >> 6, tc = blockIdx.x & 63;
  const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
  float acc[4][4] = {};
  for (long long k0 = 0; k0 < K; k0 += 16) {
    for (int e = threadIdx.x; e < 1024; e += 256) {
      int r = e >> 4, kk = e & 15;  // A: 64 rows x 16
      As[kk][r] = A[((size_t)(tr * 64 + r) * K + k0 + kk) % NF];
      int kb = e >> 6, cc = e & 63;  // B: 16 rows x 64
      Bs[kb][cc] = B[((size_t)(k0 + kb) * 4096 + tc * 64 + cc) % NF];
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < 16; kk++) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; i++) a[i] = As[kk][ty * 4 + i], b[i] = Bs[kk][tx * 4 + i];
#pragma unroll
      for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; i++)
#pragma unroll
    for (int j = 0; j < 4; j++) C[((size_t)(tr * 64 + ty * 4 + i) * 4096 + tc * 64 + tx * 4 + j) % NF] = acc[i][j];
  REC_END(0)
}

// Own-time spin with gap recording. Every warp spins (so resident state is
// real); lane 0 reads the timer and broadcasts it.
__global__ void k_tslice(BRec* rec, long long work_ns, u64* gaps, int maxg) {
  REC_BEGIN
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const bool recorder = (warp == 0) && (blockIdx.x < TS_REC_BLOCKS);
  u64 last = __shfl_sync(0xffffffffu, lane == 0 ? gtimer() : 0ull, 0);
  long long run = 0;
  unsigned n = 0;
  while (run < work_ns) {
    u64 t = __shfl_sync(0xffffffffu, lane == 0 ? gtimer() : 0ull, 0);
    u64 d = t - last;
    if (d > TS_THR_NS) {
      if (recorder && lane == 0 && (int)n < maxg) {
        gaps[((size_t)blockIdx.x * maxg + n) * 2 + 0] = last;
        gaps[((size_t)blockIdx.x * maxg + n) * 2 + 1] = t;
      }
      n++;
    } else {
      run += (long long)d;
    }
    last = t;
  }
  __shared__ unsigned s_ng;
  if (threadIdx.x == 0) s_ng = n;
  REC_END(s_ng)
}

// Marker: records its own start/end (used to anchor CUDA events in %globaltimer).
__global__ void k_mark(BRec* rec) {
  REC_BEGIN
  REC_END(0)
}

// Ping-pong over mapped host memory for host<->globaltimer offset.
__global__ void k_pingpong(volatile int* flag, volatile u64* out, int n) {
  for (int i = 0; i < n; i++) {
    long long spins = 0;
    while (flag[0] != i + 1) {
      if (++spins > 200000000LL) return;
    }
    out[i] = gtimer();
    __threadfence_system();
    flag[1] = i + 1;
  }
}

// globaltimer resolution and clock probe
__global__ void k_timer_probe(u64* out, int n) {
  if (threadIdx.x != 0) return;
  u64 prev = gtimer();
  u64 mind = ~0ull, maxd = 0;
  int changes = 0;
  u64 t_first = prev;
  long long c_first = clock64();
  for (int i = 0; i < n; i++) {
    u64 t = gtimer();
    if (t != prev) {
      u64 d = t - prev;
      if (d < mind) mind = d;
      if (d > maxd) maxd = d;
      changes++;
      prev = t;
    }
  }
  // spin 10 ms to measure clock
  u64 ts = gtimer();
  long long cs = clock64();
  while (gtimer() - ts < 10000000ull) {
  }
  u64 te = gtimer();
  long long ce = clock64();
  out[0] = mind;
  out[1] = maxd;
  out[2] = changes;
  out[3] = prev - t_first;
  out[4] = te - ts;
  out[5] = (u64)(ce - cs);
  (void)c_first;
}

// ---------------------------------------------------------------- host utils
static inline int64_t now_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
static void sleep_us(long long us) {
  if (us <= 0) return;
  // sleep most of it, spin the rest for precision
  int64_t end = now_ns() + us * 1000LL;
  if (us > 300) {
    struct timespec ts = {(time_t)((us - 200) / 1000000), (long)(((us - 200) % 1000000) * 1000)};
    nanosleep(&ts, NULL);
  }
  while (now_ns() < end) {
  }
}

enum Kind { K_GT, K_CLK, K_FMA, K_FMAHEAVY, K_FMAS32, K_TSLICE, K_EMPTY,
            K_TRIAD, K_COPY, K_REDUCE, K_GEMV, K_SMEM, K_SGEMM, K_NKINDS };
static const char* kind_names[] = {"gt", "clk", "fma", "fmaheavy", "fmas32", "tslice", "empty",
                                   "triad", "copy", "reduce", "gemv", "smem", "sgemm"};
static int kind_from(const char* s) {
  for (int i = 0; i < K_NKINDS; i++)
    if (!strcmp(s, kind_names[i])) return i;
  fprintf(stderr, "unknown kernel kind %s\n", s);
  exit(1);
}

static const float FMA_B = 0.99999f, FMA_C = 1e-7f;

static void set_smem_attrs() {
  int maxopt = 0;
  CK(cudaDeviceGetAttribute(&maxopt, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  struct {
    const void* f;
    int stat;
  } fs[] = {{(const void*)k_gt, 0},         {(const void*)k_clk, 0},
            {(const void*)k_fma<1>, 0},     {(const void*)k_fma<2>, 0},
            {(const void*)k_fma<4>, 0},     {(const void*)k_fma<8>, 0},
            {(const void*)k_fmaheavy, 0},   {(const void*)k_fmas32, 32768},
            {(const void*)k_fmaheavy_lb<2>, 0}, {(const void*)k_fmaheavy_lb<3>, 0},
            {(const void*)k_fmaheavy_lb<4>, 0}, {(const void*)k_fmaheavy_lb<5>, 0},
            {(const void*)k_fmaheavy_lb<6>, 0},
            {(const void*)k_tslice, 0},     {(const void*)k_empty, 0},
            {(const void*)k_triad, 0},      {(const void*)k_copy, 0},
            {(const void*)k_reduce, 128},   {(const void*)k_gemv, 0},
            {(const void*)k_smem, 32768},   {(const void*)k_sgemm, 8192}};
  for (auto& f : fs) {
    cudaFuncAttributes a;
    CK(cudaFuncGetAttributes(&a, f.f));
    int dyn = maxopt - (int)a.sharedSizeBytes;
    CK(cudaFuncSetAttribute(f.f, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn));
  }
}

struct GapBuf {
  u64* d = nullptr;  // [TS_REC_BLOCKS][TS_MAXG][2]
};

static cudaError_t launch_kind(int kind, int grid, int block, int smem, long long work, int chains,
                               cudaStream_t s, BRec* rec, u64* gaps) {
  dim3 g(grid), b(block);
  switch (kind) {
    case K_GT: k_gt<<<g, b, smem, s>>>(rec, work); break;
    case K_CLK: k_clk<<<g, b, smem, s>>>(rec, work); break;
    case K_FMA:
      switch (chains) {
        case 1: k_fma<1><<<g, b, smem, s>>>(rec, work, FMA_B, FMA_C); break;
        case 2: k_fma<2><<<g, b, smem, s>>>(rec, work, FMA_B, FMA_C); break;
        case 4: k_fma<4><<<g, b, smem, s>>>(rec, work, FMA_B, FMA_C); break;
        case 8: k_fma<8><<<g, b, smem, s>>>(rec, work, FMA_B, FMA_C); break;
        default: fprintf(stderr, "chains must be 1,2,4,8\n"); exit(1);
      }
      break;
    case K_FMAHEAVY:
      switch (chains) {  // chains = the __launch_bounds__ blocks per SM (1: none)
        case 1: k_fmaheavy<<<g, b, smem, s>>>(rec, work, FMA_B, FMA_C); break;
        case 2: k_fmaheavy_lb<2><<<g, b, smem, s>>>(rec, work, FMA_B, FMA_C); break;
        case 3: k_fmaheavy_lb<3><<<g, b, smem, s>>>(rec, work, FMA_B, FMA_C); break;
        case 4: k_fmaheavy_lb<4><<<g, b, smem, s>>>(rec, work, FMA_B, FMA_C); break;
        case 5: k_fmaheavy_lb<5><<<g, b, smem, s>>>(rec, work, FMA_B, FMA_C); break;
        case 6: k_fmaheavy_lb<6><<<g, b, smem, s>>>(rec, work, FMA_B, FMA_C); break;
        default: fprintf(stderr, "fmaheavy chains must be 1..6\n"); exit(1);
      }
      break;
    case K_FMAS32: k_fmas32<<<g, b, smem, s>>>(rec, work, FMA_B, FMA_C); break;
    case K_TSLICE: k_tslice<<<g, b, smem, s>>>(rec, work, gaps, TS_MAXG); break;
    case K_EMPTY: k_empty<<<g, b, smem, s>>>(); break;
    default: {
      if (!g_ma) {
        CK(cudaMalloc(&g_ma, MEM_N4 * 16));
        CK(cudaMalloc(&g_mb, MEM_N4 * 16));
        CK(cudaMalloc(&g_mc, MEM_N4 * 16));
        CK(cudaMemset(g_ma, 0, MEM_N4 * 16));
        CK(cudaMemset(g_mb, 0, MEM_N4 * 16));
        CK(cudaMemset(g_mc, 0, MEM_N4 * 16));
      }
      // each launch starts 97 MiB (+ 1 KiB) further on: concurrent kernels touch different lines
      size_t base = (size_t)((g_launch_no++ * ((97ull << 20) / 16 + 64)) % MEM_N4);
      switch (kind) {
        case K_TRIAD: k_triad<<<g, b, smem, s>>>(rec, work, g_ma, g_mb, g_mc, base); break;
        case K_COPY: k_copy<<<g, b, smem, s>>>(rec, work, g_ma, g_mb, base); break;
        case K_REDUCE: k_reduce<<<g, b, smem, s>>>(rec, work, g_mb, base); break;
        case K_GEMV: k_gemv<<<g, b, smem, s>>>(rec, work, g_mb, g_mc, (float*)g_ma, base); break;
        case K_SMEM: k_smem<<<g, b, smem, s>>>(rec, work); break;
        case K_SGEMM:
          k_sgemm<<<g, b, smem, s>>>(rec, work, (const float*)g_mb, (const float*)g_mc, (float*)g_ma);
          break;
      }
    }
  }
  return cudaGetLastError();
}

// ---------------------------------------------------------------- clock sync
struct SyncRes {
  int64_t offset;  // gpu - host, ns (sample with the smallest round trip)
  int64_t rtt;     // that sample's round trip
  int64_t offset_med;
  int n;
};
static SyncRes clock_sync(int n = 64) {
  SyncRes r = {0, 0, 0, 0};
  volatile int* flag;
  volatile u64* out;
  CK(cudaHostAlloc((void**)&flag, 64, cudaHostAllocMapped));
  CK(cudaHostAlloc((void**)&out, sizeof(u64) * n, cudaHostAllocMapped));
  flag[0] = 0;
  flag[1] = 0;
  int* dflag;
  u64* dout;
  CK(cudaHostGetDevicePointer((void**)&dflag, (void*)flag, 0));
  CK(cudaHostGetDevicePointer((void**)&dout, (void*)out, 0));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  k_pingpong<<<1, 1, 0, s>>>(dflag, dout, n);
  CK(cudaGetLastError());
  std::vector<int64_t> h1(n), h2(n);
  bool ok = true;
  for (int i = 0; i < n && ok; i++) {
    sleep_us(50);
    h1[i] = now_ns();
    flag[0] = i + 1;
    __sync_synchronize();
    int64_t lim = h1[i] + 2000000000LL;
    while (flag[1] != i + 1) {
      if (now_ns() > lim) {
        ok = false;
        break;
      }
    }
    h2[i] = now_ns();
    r.n = i + 1;
  }
  CK(cudaStreamSynchronize(s));
  CK(cudaStreamDestroy(s));
  if (ok) {
    int best = 0;
    std::vector<int64_t> offs(n);
    for (int i = 0; i < n; i++) {
      offs[i] = (int64_t)out[i] - (h1[i] + h2[i]) / 2;
      if (h2[i] - h1[i] < h2[best] - h1[best]) best = i;
    }
    r.offset = offs[best];
    r.rtt = h2[best] - h1[best];
    std::vector<int64_t> so = offs;
    std::sort(so.begin(), so.end());
    r.offset_med = so[n / 2];
  } else {
    r.rtt = -1;
  }
  CK(cudaFreeHost((void*)flag));
  CK(cudaFreeHost((void*)out));
  return r;
}

// ---------------------------------------------------------------- meta/json
static FILE* xopen(const std::string& path, const char* mode) {
  FILE* f = fopen(path.c_str(), mode);
  if (!f) {
    fprintf(stderr, "cannot open %s: %s\n", path.c_str(), strerror(errno));
    exit(1);
  }
  return f;
}
static const char* envs(const char* n) {
  const char* v = getenv(n);
  return v ? v : "";
}

struct Meta {
  int64_t t_proc_start, t_ctx_start, t_ctx_done;
  SyncRes sync0, sync1;
  int64_t t_barrier_release = 0;
  size_t mem_free = 0, mem_total = 0;
  int sm_count = 0;
};

static void write_meta(const std::string& prefix, const char* mode, int argc, char** argv,
                       const Meta& m) {
  FILE* f = xopen(prefix + "_meta.json", "w");
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int drv = 0, rt = 0, lo = 0, hi = 0, clk = 0, memclk = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  cudaDeviceGetStreamPriorityRange(&lo, &hi);
  cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  cudaDeviceGetAttribute(&memclk, cudaDevAttrMemoryClockRate, 0);
  fprintf(f, "{\n \"mode\": \"%s\",\n \"argv\": [", mode);
  for (int i = 0; i < argc; i++) fprintf(f, "%s\"%s\"", i ? ", " : "", argv[i]);
  fprintf(f, "],\n \"pid\": %d,\n", (int)getpid());
  fprintf(f, " \"env\": {\"CUDA_DEVICE_MAX_CONNECTIONS\": \"%s\", \"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE\": \"%s\", \"CUDA_MPS_PIPE_DIRECTORY\": \"%s\", \"CUDA_MODULE_LOADING\": \"%s\"},\n",
          envs("CUDA_DEVICE_MAX_CONNECTIONS"), envs("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"),
          envs("CUDA_MPS_PIPE_DIRECTORY"), envs("CUDA_MODULE_LOADING"));
  fprintf(f, " \"device\": \"%s\",\n \"cc\": \"%d.%d\",\n \"sm_count_attr\": %d,\n", p.name, p.major,
          p.minor, m.sm_count);
  fprintf(f, " \"driver_version\": %d,\n \"runtime_version\": %d,\n", drv, rt);
  fprintf(f, " \"clock_rate_khz\": %d,\n \"mem_clock_khz\": %d,\n \"mem_bus_width\": %d,\n", clk, memclk,
          p.memoryBusWidth);
  fprintf(f, " \"stream_priority_range\": [%d, %d],\n", lo, hi);
  fprintf(f, " \"async_engine_count\": %d,\n \"concurrent_kernels\": %d,\n", p.asyncEngineCount,
          p.concurrentKernels);
  fprintf(f, " \"regs_per_sm\": %d,\n \"smem_per_sm\": %zu,\n \"smem_per_block_optin\": %zu,\n \"reserved_smem_per_block\": %zu,\n",
          p.regsPerMultiprocessor, p.sharedMemPerMultiprocessor, p.sharedMemPerBlockOptin,
          p.reservedSharedMemPerBlock);
  fprintf(f, " \"max_threads_per_sm\": %d,\n \"max_blocks_per_sm\": %d,\n \"l2_bytes\": %d,\n",
          p.maxThreadsPerMultiProcessor, p.maxBlocksPerMultiProcessor, p.l2CacheSize);
  fprintf(f, " \"total_global_mem\": %zu,\n \"mem_free_after_ctx\": %zu,\n \"mem_total\": %zu,\n",
          p.totalGlobalMem, m.mem_free, m.mem_total);
  fprintf(f, " \"pci\": \"%04x:%02x:%02x\",\n", p.pciDomainID, p.pciBusID, p.pciDeviceID);
  fprintf(f, " \"t_proc_start\": %lld,\n \"t_ctx_start\": %lld,\n \"t_ctx_done\": %lld,\n",
          (long long)m.t_proc_start, (long long)m.t_ctx_start, (long long)m.t_ctx_done);
  fprintf(f, " \"t_barrier_release\": %lld,\n", (long long)m.t_barrier_release);
  fprintf(f, " \"clock_sync_start\": {\"offset_ns\": %lld, \"rtt_ns\": %lld, \"offset_median_ns\": %lld, \"n\": %d},\n",
          (long long)m.sync0.offset, (long long)m.sync0.rtt, (long long)m.sync0.offset_med, m.sync0.n);
  fprintf(f, " \"clock_sync_end\": {\"offset_ns\": %lld, \"rtt_ns\": %lld, \"offset_median_ns\": %lld, \"n\": %d}\n}\n",
          (long long)m.sync1.offset, (long long)m.sync1.rtt, (long long)m.sync1.offset_med, m.sync1.n);
  fclose(f);
}

static void barrier_wait(const char* dir, Meta& m) {
  if (!dir) return;
  char path[4096];
  snprintf(path, sizeof path, "%s/ready.%d", dir, (int)getpid());
  int fd = open(path, O_CREAT | O_WRONLY, 0644);
  if (fd >= 0) close(fd);
  snprintf(path, sizeof path, "%s/go", dir);
  int64_t lim = now_ns() + 300LL * 1000000000LL;
  while (access(path, F_OK) != 0) {
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
    if (now_ns() > lim) {
      fprintf(stderr, "barrier timeout\n");
      exit(3);
    }
  }
  m.t_barrier_release = now_ns();
}

static void ctx_init(Meta& m) {
  m.t_ctx_start = now_ns();
  CK(cudaSetDevice(0));
  CK(cudaFree(0));
  m.t_ctx_done = now_ns();
  CK(cudaMemGetInfo(&m.mem_free, &m.mem_total));
  CK(cudaDeviceGetAttribute(&m.sm_count, cudaDevAttrMultiProcessorCount, 0));
}

// ---------------------------------------------------------------- spec runner
enum OpType { OP_KERNEL, OP_H2D, OP_D2H, OP_D2D, OP_SLEEP, OP_SYNC, OP_SSYNC };
static const char* op_names[] = {"kernel", "h2d", "d2h", "d2d", "sleep", "sync", "ssync"};

struct Op {
  int type = OP_KERNEL;
  int stream = 0;
  std::string name;
  int kind = K_GT, grid = 1, block = 1, smem = 0, chains = 1;
  long long work = 0;
  size_t bytes = 0;
  int pinned = 1;
  long long sleep_us = 0;
  // runtime
  BRec* d_rec = nullptr;  // [reps][grid]
  u64* d_gaps = nullptr;  // [reps][TS_REC_BLOCKS][TS_MAXG][2]
  void* dbuf = nullptr;
  void* dbuf2 = nullptr;
  void* hbuf = nullptr;
  std::vector<cudaEvent_t> e0, e1;
  std::vector<int64_t> h0, h1;
  std::vector<int> err;
};

struct Spec {
  int nstreams = 1;
  std::vector<int> prio;
  std::vector<Op> ops;
};

static Spec parse_spec(const char* path) {
  Spec sp;
  FILE* f = xopen(path, "r");
  char line[1024];
  int ln = 0;
  while (fgets(line, sizeof line, f)) {
    ln++;
    char* h = strchr(line, '#');
    if (h) *h = 0;
    char w[16][128];
    int n = 0;
    char* save = nullptr;
    for (char* t = strtok_r(line, " \t\r\n", &save); t && n < 16; t = strtok_r(NULL, " \t\r\n", &save))
      snprintf(w[n++], 128, "%s", t);
    if (!n) continue;
    Op op;
    if (!strcmp(w[0], "streams")) {
      sp.nstreams = atoi(w[1]);
      sp.prio.assign(sp.nstreams, 0);
      if (n > 2) {  // comma-separated priorities, last one repeats
        std::vector<int> pl;
        char* s2 = nullptr;
        for (char* t = strtok_r(w[2], ",", &s2); t; t = strtok_r(NULL, ",", &s2)) pl.push_back(atoi(t));
        for (int i = 0; i < sp.nstreams; i++) sp.prio[i] = pl[i < (int)pl.size() ? i : pl.size() - 1];
      }
      continue;
    } else if (!strcmp(w[0], "kernel") && n >= 8) {
      op.type = OP_KERNEL;
      op.stream = atoi(w[1]);
      op.name = w[2];
      op.kind = kind_from(w[3]);
      op.grid = atoi(w[4]);
      op.block = atoi(w[5]);
      op.smem = atoi(w[6]);
      op.work = atoll(w[7]);
      op.chains = n > 8 ? atoi(w[8]) : 1;
    } else if ((!strcmp(w[0], "h2d") || !strcmp(w[0], "d2h") || !strcmp(w[0], "d2d")) && n >= 4) {
      op.type = !strcmp(w[0], "h2d") ? OP_H2D : !strcmp(w[0], "d2h") ? OP_D2H : OP_D2D;
      op.stream = atoi(w[1]);
      op.name = w[0];
      op.bytes = (size_t)atoll(w[2]);
      op.pinned = !strcmp(w[3], "pinned");
    } else if (!strcmp(w[0], "sleep") && n >= 2) {
      op.type = OP_SLEEP;
      op.name = "sleep";
      op.sleep_us = atoll(w[1]);
      op.stream = -1;
    } else if (!strcmp(w[0], "sync")) {
      op.type = OP_SYNC;
      op.name = "sync";
      op.stream = -1;
    } else if (!strcmp(w[0], "ssync") && n >= 2) {
      op.type = OP_SSYNC;
      op.name = "ssync";
      op.stream = atoi(w[1]);
    } else {
      fprintf(stderr, "%s:%d: cannot parse '%s'\n", path, ln, w[0]);
      exit(1);
    }
    if (op.stream >= sp.nstreams) {
      fprintf(stderr, "%s:%d: stream %d >= streams %d\n", path, ln, op.stream, sp.nstreams);
      exit(1);
    }
    sp.ops.push_back(op);
  }
  fclose(f);
  return sp;
}

static bool is_copy(int t) { return t == OP_H2D || t == OP_D2H || t == OP_D2D; }

struct Runner {
  std::vector<cudaStream_t> streams;
  std::vector<int> prio;
  cudaStream_t mstream = nullptr;
  BRec* d_mark = nullptr;  // [reps]
  std::vector<cudaEvent_t> ref;
};

static void alloc_ops(std::vector<Op>& ops, int reps) {
  for (auto& op : ops) {
    if (op.type == OP_KERNEL && op.kind != K_EMPTY) {
      CK(cudaMalloc(&op.d_rec, sizeof(BRec) * (size_t)op.grid * reps));
      CK(cudaMemset(op.d_rec, 0, sizeof(BRec) * (size_t)op.grid * reps));
      if (op.kind == K_TSLICE) {
        size_t ng = (size_t)reps * TS_REC_BLOCKS * TS_MAXG * 2;
        CK(cudaMalloc(&op.d_gaps, ng * sizeof(u64)));
        CK(cudaMemset(op.d_gaps, 0, ng * sizeof(u64)));
      }
    }
    if (is_copy(op.type)) {
      CK(cudaMalloc(&op.dbuf, op.bytes));
      CK(cudaMemset(op.dbuf, 1, op.bytes));
      if (op.type == OP_D2D) {
        CK(cudaMalloc(&op.dbuf2, op.bytes));
      } else if (op.pinned) {
        CK(cudaMallocHost(&op.hbuf, op.bytes));
        memset(op.hbuf, 1, op.bytes);
      } else {
        op.hbuf = malloc(op.bytes);
        memset(op.hbuf, 1, op.bytes);
      }
      op.e0.resize(reps);
      op.e1.resize(reps);
      for (int r = 0; r < reps; r++) {
        CK(cudaEventCreate(&op.e0[r]));
        CK(cudaEventCreate(&op.e1[r]));
      }
    }
    op.h0.assign(reps, 0);
    op.h1.assign(reps, 0);
    op.err.assign(reps, 0);
  }
}

static void free_ops(std::vector<Op>& ops) {
  for (auto& op : ops) {
    if (op.d_rec) cudaFree(op.d_rec);
    if (op.d_gaps) cudaFree(op.d_gaps);
    if (op.dbuf) cudaFree(op.dbuf);
    if (op.dbuf2) cudaFree(op.dbuf2);
    if (op.hbuf) {
      if (op.pinned && op.type != OP_D2D)
        cudaFreeHost(op.hbuf);
      else
        free(op.hbuf);
    }
    for (auto e : op.e0) cudaEventDestroy(e);
    for (auto e : op.e1) cudaEventDestroy(e);
  }
}

static void issue(Op& op, int r, Runner& R) {
  if (op.type == OP_SLEEP) {
    op.h0[r] = now_ns();
    sleep_us(op.sleep_us);
    op.h1[r] = now_ns();
    return;
  }
  if (op.type == OP_SYNC) {
    op.h0[r] = now_ns();
    op.err[r] = (int)cudaDeviceSynchronize();
    op.h1[r] = now_ns();
    return;
  }
  cudaStream_t s = R.streams[op.stream];
  if (op.type == OP_SSYNC) {
    op.h0[r] = now_ns();
    op.err[r] = (int)cudaStreamSynchronize(s);
    op.h1[r] = now_ns();
    return;
  }
  if (op.type == OP_KERNEL) {
    BRec* rec = op.d_rec ? op.d_rec + (size_t)r * op.grid : nullptr;
    u64* gaps = op.d_gaps ? op.d_gaps + (size_t)r * TS_REC_BLOCKS * TS_MAXG * 2 : nullptr;
    op.h0[r] = now_ns();
    cudaError_t e = launch_kind(op.kind, op.grid, op.block, op.smem, op.work, op.chains, s, rec, gaps);
    op.h1[r] = now_ns();
    op.err[r] = (int)e;
    if (e != cudaSuccess) fprintf(stderr, "launch %s failed: %s\n", op.name.c_str(), cudaGetErrorString(e));
    return;
  }
  // copies
  CK(cudaEventRecord(op.e0[r], s));
  op.h0[r] = now_ns();
  cudaError_t e;
  if (op.type == OP_H2D)
    e = cudaMemcpyAsync(op.dbuf, op.hbuf, op.bytes, cudaMemcpyHostToDevice, s);
  else if (op.type == OP_D2H)
    e = cudaMemcpyAsync(op.hbuf, op.dbuf, op.bytes, cudaMemcpyDeviceToHost, s);
  else
    e = cudaMemcpyAsync(op.dbuf2, op.dbuf, op.bytes, cudaMemcpyDeviceToDevice, s);
  op.h1[r] = now_ns();
  op.err[r] = (int)e;
  CK(cudaEventRecord(op.e1[r], s));
}

struct KeyLess {
  bool operator()(const Op& a, const Op& b) const {
    if (a.type != b.type) return a.type < b.type;
    if (a.kind != b.kind) return a.kind < b.kind;
    if (a.grid != b.grid) return a.grid < b.grid;
    if (a.block != b.block) return a.block < b.block;
    if (a.smem != b.smem) return a.smem < b.smem;
    if (a.work != b.work) return a.work < b.work;
    if (a.chains != b.chains) return a.chains < b.chains;
    if (a.bytes != b.bytes) return a.bytes < b.bytes;
    return a.pinned < b.pinned;
  }
};

// Execute ops `reps` times. Writes rows to ops/blocks/gaps files.
static void execute(std::vector<Op>& ops, int reps, Runner& R, const char* phase, const char* tag,
                    FILE* fops, FILE* fblk, FILE* fgap, const char* barrier, Meta& m,
                    int rep_gap_us) {
  alloc_ops(ops, reps);
  bool has_copy = false;
  for (auto& op : ops) has_copy |= is_copy(op.type);
  CK(cudaDeviceSynchronize());
  std::vector<int64_t> rep_h0(reps), rep_h1(reps);
  for (int r = 0; r < reps; r++) {
    if (has_copy) {
      k_mark<<<1, 1, 0, R.mstream>>>(R.d_mark + r);
      CK(cudaGetLastError());
      CK(cudaEventRecord(R.ref[r], R.mstream));
      CK(cudaStreamSynchronize(R.mstream));
    }
    if (r == 0) barrier_wait(barrier, m);
    rep_h0[r] = now_ns();
    for (auto& op : ops) issue(op, r, R);
    CK(cudaDeviceSynchronize());
    rep_h1[r] = now_ns();
    if (r + 1 < reps) sleep_us(rep_gap_us);
  }
  std::vector<BRec> marks(reps);
  if (has_copy) CK(cudaMemcpy(marks.data(), R.d_mark, sizeof(BRec) * reps, cudaMemcpyDeviceToHost));
  int pid = (int)getpid();
  for (size_t i = 0; i < ops.size(); i++) {
    Op& op = ops[i];
    std::vector<BRec> recs;
    if (op.d_rec) {
      recs.resize((size_t)op.grid * reps);
      CK(cudaMemcpy(recs.data(), op.d_rec, sizeof(BRec) * recs.size(), cudaMemcpyDeviceToHost));
    }
    std::vector<u64> gaps;
    if (op.d_gaps) {
      gaps.resize((size_t)reps * TS_REC_BLOCKS * TS_MAXG * 2);
      CK(cudaMemcpy(gaps.data(), op.d_gaps, sizeof(u64) * gaps.size(), cudaMemcpyDeviceToHost));
    }
    for (int r = 0; r < reps; r++) {
      long long g0 = 0, g1 = 0;
      int nsm = 0;
      double clk = 0;
      if (op.d_rec) {
        BRec* rr = &recs[(size_t)r * op.grid];
        u64 mn = ~0ull, mx = 0;
        std::vector<char> seen(1024, 0);
        for (int b = 0; b < op.grid; b++) {
          if (rr[b].t0 && rr[b].t0 < mn) mn = rr[b].t0;
          if (rr[b].t1 > mx) mx = rr[b].t1;
          if (rr[b].smid < 1024 && !seen[rr[b].smid]) {
            seen[rr[b].smid] = 1;
            nsm++;
          }
        }
        g0 = (long long)mn;
        g1 = (long long)mx;
        if (rr[0].t1 > rr[0].t0) clk = (double)(rr[0].c1 - rr[0].c0) / (double)(rr[0].t1 - rr[0].t0) * 1000.0;
        if (fblk && phase[0] == 'm')
          for (int b = 0; b < op.grid; b++)
            fprintf(fblk, "%d,%s,%d,%zu,%d,%u,%llu,%llu,%u,%llu,%llu\n", pid, tag, r, i, b, rr[b].smid, rr[b].t0,
                    rr[b].t1, rr[b].ngaps, rr[b].c0, rr[b].c1);
        if (fgap && op.d_gaps)
          for (int b = 0; b < TS_REC_BLOCKS && b < op.grid; b++) {
            unsigned ng = rr[b].ngaps < (unsigned)TS_MAXG ? rr[b].ngaps : TS_MAXG;
            for (unsigned k = 0; k < ng; k++) {
              size_t base = (((size_t)r * TS_REC_BLOCKS + b) * TS_MAXG + k) * 2;
              fprintf(fgap, "%d,%s,%d,%zu,%d,%llu,%llu\n", pid, tag, r, i, b, gaps[base], gaps[base + 1]);
            }
          }
      } else if (is_copy(op.type)) {
        float a = 0, b = 0;
        CK(cudaEventElapsedTime(&a, R.ref[r], op.e0[r]));
        CK(cudaEventElapsedTime(&b, R.ref[r], op.e1[r]));
        g0 = (long long)marks[r].t1 + (long long)(a * 1e6);
        g1 = (long long)marks[r].t1 + (long long)(b * 1e6);
      }
      const char* tn = op.type == OP_KERNEL ? kind_names[op.kind] : "";
      fprintf(fops,
              "%d,%s,%s,%d,%zu,%s,%d,%d,%s,%s,%d,%d,%d,%lld,%d,%zu,%d,%lld,%lld,%lld,%lld,%d,%.1f,%d,%lld,%lld\n",
              pid, tag, phase, r, i, op_names[op.type], op.stream,
              op.stream >= 0 ? R.prio[op.stream] : 0, op.name.c_str(), tn, op.grid, op.block, op.smem,
              op.work, op.chains, op.bytes, op.pinned, (long long)op.h0[r], (long long)op.h1[r], g0, g1,
              nsm, clk, op.err[r], (long long)rep_h0[r], (long long)rep_h1[r]);
    }
  }
  free_ops(ops);
}

static const char* OPS_HDR =
    "pid,tag,phase,rep,op,type,stream,prio,name,kind,grid,block,smem,work,chains,bytes,pinned,host_t0,host_t1,"
    "gpu_t0,gpu_t1,nsm,clk_mhz,err,rep_host_t0,rep_host_t1\n";

static bool g_uses_mem = false;

static void warmup(Runner& R) {
  BRec* rec;
  u64* gaps;
  CK(cudaMalloc(&rec, sizeof(BRec) * 4));
  CK(cudaMalloc(&gaps, sizeof(u64) * TS_REC_BLOCKS * TS_MAXG * 2));
  for (int k = 0; k < K_NKINDS; k++) {
    if (k >= K_TRIAD && !g_uses_mem) continue;  // no 1.5 GiB of buffers unless the spec needs them
    int chains[] = {1, 2, 4, 8};
    for (int c = 0; c < (k == K_FMA ? 4 : 1); c++)
      CK(launch_kind(k, 1, 32, 0, k == K_TSLICE ? 1000 : 10, chains[c], R.streams[0], rec,
                     k == K_TSLICE ? gaps : nullptr));
  }
  k_mark<<<1, 1, 0, R.mstream>>>(rec);
  CK(cudaDeviceSynchronize());
  CK(cudaFree(rec));
  CK(cudaFree(gaps));
}

static bool g_nosync = false, g_nowarmup = false;

static int cmd_run(int argc, char** argv, const char* spec_path, const std::string& out, int reps,
                   bool solo, const char* barrier, const char* tag, Meta& m) {
  Spec sp = parse_spec(spec_path);
  for (auto& op : sp.ops)
    if (op.type == OP_KERNEL && op.kind >= K_TRIAD) g_uses_mem = true;
  ctx_init(m);
  set_smem_attrs();
  Runner R;
  R.prio = sp.prio;
  if (R.prio.empty()) R.prio.assign(sp.nstreams, 0);
  int lo, hi;
  CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
  for (int i = 0; i < sp.nstreams; i++) {
    cudaStream_t s;
    int p = R.prio[i];
    if (p > lo) p = lo;
    if (p < hi) p = hi;
    R.prio[i] = p;
    CK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, p));
    R.streams.push_back(s);
  }
  CK(cudaStreamCreateWithFlags(&R.mstream, cudaStreamNonBlocking));  // created last
  int maxreps = reps > 3 ? reps : 3;
  CK(cudaMalloc(&R.d_mark, sizeof(BRec) * maxreps));
  R.ref.resize(maxreps);
  for (auto& e : R.ref) CK(cudaEventCreate(&e));
  if (!g_nowarmup) warmup(R);
  if (!g_nosync) m.sync0 = clock_sync();

  FILE* fops = xopen(out + "_ops.csv", "w");
  FILE* fblk = xopen(out + "_blocks.csv", "w");
  FILE* fgap = xopen(out + "_gaps.csv", "w");
  fputs(OPS_HDR, fops);
  fputs("pid,tag,rep,op,block,smid,t0,t1,ngaps,clk0,clk1\n", fblk);
  fputs("pid,tag,rep,op,block,gap_t0,gap_t1\n", fgap);

  if (solo) {
    // each distinct kernel / copy configuration alone, 3 times, on stream 0
    std::map<Op, int, KeyLess> seen;
    for (auto& op : sp.ops) {
      if (op.type != OP_KERNEL && !is_copy(op.type)) continue;
      if (seen.count(op)) continue;
      seen[op] = 1;
      std::vector<Op> one(1, op);
      one[0].stream = 0;
      one[0].d_rec = nullptr;
      execute(one, 3, R, "solo", tag, fops, nullptr, nullptr, nullptr, m, 5000);
    }
  }
  execute(sp.ops, reps, R, "main", tag, fops, fblk, fgap, barrier, m, 20000);
  fclose(fops);
  fclose(fblk);
  fclose(fgap);
  if (!g_nosync) m.sync1 = clock_sync();
  write_meta(out, "run", argc, argv, m);
  return 0;
}

// ---------------------------------------------------------------- latency
static int cmd_latency(int argc, char** argv, const std::string& out, Meta& m) {
  ctx_init(m);
  set_smem_attrs();
  Runner R;
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  R.streams.push_back(s);
  R.prio.push_back(0);
  CK(cudaStreamCreateWithFlags(&R.mstream, cudaStreamNonBlocking));
  warmup(R);
  m.sync0 = clock_sync();
  FILE* f = xopen(out + "_latency.csv", "w");
  fputs("test,i,host_call,host_ret,gpu_t0,gpu_t1,host_done,bytes\n", f);
  const int N = 2000;
  BRec* rec;
  CK(cudaMalloc(&rec, sizeof(BRec) * N));
  std::vector<BRec> h(N);
  // 1) API time of launching an empty kernel, back to back
  for (int i = 0; i < N; i++) {
    int64_t a = now_ns();
    k_empty<<<1, 32, 0, s>>>();
    int64_t b = now_ns();
    fprintf(f, "launch_api_empty,%d,%lld,%lld,,,,\n", i, (long long)a, (long long)b);
  }
  CK(cudaStreamSynchronize(s));
  // 2) back-to-back recorded kernels (gt 0 ns and gt 5 us) in one stream: GPU gaps
  const long long works[2] = {0, 5000};
  const char* names[2] = {"b2b_gt0", "b2b_gt5us"};
  for (int w = 0; w < 2; w++) {
    std::vector<int64_t> a(N), b(N);
    // pre-fill: hold the stream with a 3 ms kernel so the launches queue up
    k_gt<<<1, 32, 0, s>>>(nullptr, 3000000);
    for (int i = 0; i < N; i++) {
      a[i] = now_ns();
      k_gt<<<1, 32, 0, s>>>(rec + i, works[w]);
      b[i] = now_ns();
    }
    CK(cudaStreamSynchronize(s));
    int64_t done = now_ns();
    CK(cudaMemcpy(h.data(), rec, sizeof(BRec) * N, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
      fprintf(f, "%s,%d,%lld,%lld,%llu,%llu,%lld,\n", names[w], i, (long long)a[i], (long long)b[i], h[i].t0,
              h[i].t1, (long long)done);
  }
  // 2b) same with 132x1024 blocks (full-GPU kernels back to back), gt 20 us
  {
    BRec* rb;
    CK(cudaMalloc(&rb, sizeof(BRec) * 132 * 200));
    std::vector<BRec> hb(132 * 200);
    k_gt<<<1, 32, 0, s>>>(nullptr, 3000000);
    std::vector<int64_t> a(200), b(200);
    for (int i = 0; i < 200; i++) {
      a[i] = now_ns();
      k_gt<<<132, 1024, 0, s>>>(rb + 132 * i, 20000);
      b[i] = now_ns();
    }
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(hb.data(), rb, sizeof(BRec) * hb.size(), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 200; i++) {
      u64 mn = ~0ull, mx = 0;
      for (int k = 0; k < 132; k++) {
        mn = hb[132 * i + k].t0 < mn ? hb[132 * i + k].t0 : mn;
        mx = hb[132 * i + k].t1 > mx ? hb[132 * i + k].t1 : mx;
      }
      fprintf(f, "b2b_full132x1024_gt20us,%d,%lld,%lld,%llu,%llu,,\n", i, (long long)a[i], (long long)b[i], mn,
              mx);
    }
    CK(cudaFree(rb));
  }
  // 3) launch call -> kernel start on an idle GPU; kernel end -> sync return
  for (int i = 0; i < 300; i++) {
    sleep_us(200);
    int64_t a = now_ns();
    k_gt<<<1, 32, 0, s>>>(rec + i, 0);
    int64_t b = now_ns();
    CK(cudaStreamSynchronize(s));
    int64_t c = now_ns();
    CK(cudaMemcpy(&h[i], rec + i, sizeof(BRec), cudaMemcpyDeviceToHost));
    fprintf(f, "launch_to_start,%d,%lld,%lld,%llu,%llu,%lld,\n", i, (long long)a, (long long)b, h[i].t0, h[i].t1,
            (long long)c);
  }
  // 4) cudaStreamSynchronize / cudaDeviceSynchronize on idle, event record, event sync
  for (int i = 0; i < 500; i++) {
    int64_t a = now_ns();
    CK(cudaStreamSynchronize(s));
    int64_t b = now_ns();
    fprintf(f, "stream_sync_idle,%d,%lld,%lld,,,,\n", i, (long long)a, (long long)b);
  }
  for (int i = 0; i < 500; i++) {
    int64_t a = now_ns();
    CK(cudaDeviceSynchronize());
    int64_t b = now_ns();
    fprintf(f, "device_sync_idle,%d,%lld,%lld,,,,\n", i, (long long)a, (long long)b);
  }
  cudaEvent_t ev;
  CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  for (int i = 0; i < 500; i++) {
    int64_t a = now_ns();
    CK(cudaEventRecord(ev, s));
    int64_t b = now_ns();
    fprintf(f, "event_record_api,%d,%lld,%lld,,,,\n", i, (long long)a, (long long)b);
  }
  CK(cudaStreamSynchronize(s));
  // 5) memcpy API times (GPU idle)
  size_t sizes[3] = {4, 65536, 1 << 20};
  void *hp, *hg, *dv;
  CK(cudaMallocHost(&hp, 1 << 20));
  hg = malloc(1 << 20);
  memset(hg, 1, 1 << 20);
  memset(hp, 1, 1 << 20);
  CK(cudaMalloc(&dv, 1 << 20));
  for (int si = 0; si < 3; si++)
    for (int pin = 0; pin < 2; pin++)
      for (int dir = 0; dir < 2; dir++)
        for (int i = 0; i < 100; i++) {
          void* hb = pin ? hp : hg;
          char name[64];
          snprintf(name, sizeof name, "memcpyasync_api_%s_%s", dir ? "d2h" : "h2d", pin ? "pinned" : "pageable");
          int64_t a = now_ns();
          if (dir)
            CK(cudaMemcpyAsync(hb, dv, sizes[si], cudaMemcpyDeviceToHost, s));
          else
            CK(cudaMemcpyAsync(dv, hb, sizes[si], cudaMemcpyHostToDevice, s));
          int64_t b = now_ns();
          CK(cudaStreamSynchronize(s));
          int64_t c = now_ns();
          fprintf(f, "%s,%d,%lld,%lld,,,%lld,%zu\n", name, i, (long long)a, (long long)b, (long long)c, sizes[si]);
        }
  for (int si = 0; si < 3; si++)
    for (int i = 0; i < 100; i++) {
      int64_t a = now_ns();
      CK(cudaMemcpy(dv, hp, sizes[si], cudaMemcpyHostToDevice));
      int64_t b = now_ns();
      fprintf(f, "memcpy_sync_h2d_pinned,%d,%lld,%lld,,,%lld,%zu\n", i, (long long)a, (long long)b, (long long)b,
              sizes[si]);
    }
  // 6) stream creation cost
  for (int i = 0; i < 64; i++) {
    cudaStream_t t;
    int64_t a = now_ns();
    CK(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));
    int64_t b = now_ns();
    fprintf(f, "stream_create,%d,%lld,%lld,,,,\n", i, (long long)a, (long long)b);
  }
  fclose(f);
  m.sync1 = clock_sync();
  write_meta(out, "latency", argc, argv, m);
  return 0;
}

// ---------------------------------------------------------------- copies
static int cmd_copies(int argc, char** argv, const std::string& out, Meta& m) {
  ctx_init(m);
  set_smem_attrs();
  Runner R;
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  R.streams.push_back(s);
  R.prio.push_back(0);
  CK(cudaStreamCreateWithFlags(&R.mstream, cudaStreamNonBlocking));
  warmup(R);
  m.sync0 = clock_sync();
  const size_t MAXB = 256u << 20;
  void *hp, *hg, *d1, *d2;
  CK(cudaMallocHost(&hp, MAXB));
  hg = malloc(MAXB);
  memset(hp, 1, MAXB);
  memset(hg, 1, MAXB);
  CK(cudaMalloc(&d1, MAXB));
  CK(cudaMalloc(&d2, MAXB));
  CK(cudaMemset(d1, 1, MAXB));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  FILE* f = xopen(out + "_copies.csv", "w");
  fputs("dir,mem,bytes,rep,host_call,host_ret,host_done,event_ms\n", f);
  for (size_t sz = 4096; sz <= MAXB; sz *= 4) {
    for (int dir = 0; dir < 3; dir++)
      for (int pin = 1; pin >= 0; pin--) {
        if (dir == 2 && !pin) continue;
        for (int r = 0; r < 6; r++) {
          void* hb = pin ? hp : hg;
          CK(cudaEventRecord(a, s));
          int64_t t0 = now_ns();
          if (dir == 0)
            CK(cudaMemcpyAsync(d1, hb, sz, cudaMemcpyHostToDevice, s));
          else if (dir == 1)
            CK(cudaMemcpyAsync(hb, d1, sz, cudaMemcpyDeviceToHost, s));
          else
            CK(cudaMemcpyAsync(d2, d1, sz, cudaMemcpyDeviceToDevice, s));
          int64_t t1 = now_ns();
          CK(cudaEventRecord(b, s));
          CK(cudaStreamSynchronize(s));
          int64_t t2 = now_ns();
          float ms;
          CK(cudaEventElapsedTime(&ms, a, b));
          fprintf(f, "%s,%s,%zu,%d,%lld,%lld,%lld,%.6f\n", dir == 0 ? "h2d" : dir == 1 ? "d2h" : "d2d",
                  dir == 2 ? "device" : pin ? "pinned" : "pageable", sz, r, (long long)t0, (long long)t1,
                  (long long)t2, ms);
        }
      }
  }
  fclose(f);
  m.sync1 = clock_sync();
  write_meta(out, "copies", argc, argv, m);
  return 0;
}

// ---------------------------------------------------------------- info
static int cmd_info(int argc, char** argv, const std::string& out, Meta& m) {
  ctx_init(m);
  set_smem_attrs();
  m.sync0 = clock_sync();
  u64* d;
  CK(cudaMalloc(&d, 8 * sizeof(u64)));
  k_timer_probe<<<1, 32>>>(d, 200000);
  CK(cudaGetLastError());
  u64 h[8];
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  FILE* f = xopen(out + "_timer.json", "w");
  fprintf(f,
          "{\"globaltimer_min_step_ns\": %llu, \"globaltimer_max_step_ns\": %llu, \"changes\": %llu, "
          "\"span_ns\": %llu, \"clock_probe_ns\": %llu, \"clock_probe_cycles\": %llu, \"sm_clock_mhz_1thread\": %.1f}\n",
          h[0], h[1], h[2], h[3], h[4], h[5], (double)h[5] / (double)h[4] * 1000.0);
  fclose(f);
  // function attributes of each kernel (registers, smem)
  FILE* g = xopen(out + "_funcattrs.csv", "w");
  fputs("kernel,num_regs,static_smem,local_bytes,max_threads_per_block,max_dyn_smem\n", g);
  struct {
    const char* n;
    const void* f;
  } fs[] = {{"gt", (const void*)k_gt},           {"clk", (const void*)k_clk},
            {"fma1", (const void*)k_fma<1>},     {"fma2", (const void*)k_fma<2>},
            {"fma4", (const void*)k_fma<4>},     {"fma8", (const void*)k_fma<8>},
            {"fmaheavy", (const void*)k_fmaheavy}, {"fmas32", (const void*)k_fmas32},
            {"fmaheavy_lb2", (const void*)k_fmaheavy_lb<2>}, {"fmaheavy_lb3", (const void*)k_fmaheavy_lb<3>},
            {"fmaheavy_lb4", (const void*)k_fmaheavy_lb<4>}, {"fmaheavy_lb5", (const void*)k_fmaheavy_lb<5>},
            {"fmaheavy_lb6", (const void*)k_fmaheavy_lb<6>},
            {"tslice", (const void*)k_tslice},   {"empty", (const void*)k_empty},
            {"triad", (const void*)k_triad},     {"copy", (const void*)k_copy},
            {"reduce", (const void*)k_reduce},   {"gemv", (const void*)k_gemv},
            {"smem", (const void*)k_smem},       {"sgemm", (const void*)k_sgemm}};
  for (auto& x : fs) {
    cudaFuncAttributes a;
    CK(cudaFuncGetAttributes(&a, x.f));
    fprintf(g, "%s,%d,%zu,%zu,%d,%d\n", x.n, a.numRegs, a.sharedSizeBytes, a.localSizeBytes,
            a.maxThreadsPerBlock, a.maxDynamicSharedSizeBytes);
  }
  fclose(g);
  m.sync1 = clock_sync();
  write_meta(out, "info", argc, argv, m);
  return 0;
}

// ---------------------------------------------------------------- hold
static int cmd_hold(int argc, char** argv, const std::string& out, const char* barrier, long long hold_ms,
                    long long alloc_mib, Meta& m) {
  m.t_ctx_start = now_ns();
  cudaError_t e = cudaSetDevice(0);
  if (e == cudaSuccess) e = cudaFree(0);
  m.t_ctx_done = now_ns();
  size_t fr = 0, tot = 0;
  int sm = 0;
  void* p = nullptr;
  cudaError_t e2 = cudaSuccess;
  if (e == cudaSuccess) {
    cudaMemGetInfo(&fr, &tot);
    cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, 0);
    if (alloc_mib > 0) e2 = cudaMalloc(&p, (size_t)alloc_mib << 20);
  }
  size_t fr2 = 0;
  if (e == cudaSuccess) cudaMemGetInfo(&fr2, &tot);
  FILE* f = xopen(out + "_hold.json", "w");
  fprintf(f,
          "{\"pid\": %d, \"ctx_err\": \"%s\", \"ctx_err_code\": %d, \"alloc_err\": \"%s\", \"t_ctx_start\": %lld, "
          "\"t_ctx_done\": %lld, \"mem_free\": %zu, \"mem_free_after_alloc\": %zu, \"mem_total\": %zu, "
          "\"sm_count_attr\": %d, \"env_pct\": \"%s\", \"env_conn\": \"%s\"}\n",
          (int)getpid(), cudaGetErrorName(e), (int)e, cudaGetErrorName(e2), (long long)m.t_ctx_start,
          (long long)m.t_ctx_done, fr, fr2, tot, sm, envs("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"),
          envs("CUDA_DEVICE_MAX_CONNECTIONS"));
  fclose(f);
  if (barrier) {
    // barrier here means: signal ready, then wait for go (release)
    barrier_wait(barrier, m);
  } else if (hold_ms > 0) {
    sleep_us(hold_ms * 1000);
  }
  (void)argc;
  (void)argv;
  return e == cudaSuccess ? 0 : 4;
}

int main(int argc, char** argv) {
  Meta m;
  m.t_proc_start = now_ns();
  if (argc < 2) {
    fprintf(stderr, "usage: hqprobe info|run|latency|copies|hold [options]\n");
    return 1;
  }
  const char* mode = argv[1];
  const char *spec = nullptr, *barrier = nullptr, *tag = "x";
  std::string out = "out";
  int reps = 3;
  bool solo = true;
  long long hold_ms = 0, alloc_mib = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--spec") && i + 1 < argc)
      spec = argv[++i];
    else if (!strcmp(argv[i], "--out") && i + 1 < argc)
      out = argv[++i];
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--nosolo"))
      solo = false;
    else if (!strcmp(argv[i], "--nosync"))
      g_nosync = true;
    else if (!strcmp(argv[i], "--nowarmup"))
      g_nowarmup = true;
    else if (!strcmp(argv[i], "--barrier") && i + 1 < argc)
      barrier = argv[++i];
    else if (!strcmp(argv[i], "--tag") && i + 1 < argc)
      tag = argv[++i];
    else if (!strcmp(argv[i], "--hold-ms") && i + 1 < argc)
      hold_ms = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--alloc-mib") && i + 1 < argc)
      alloc_mib = atoll(argv[++i]);
    else {
      fprintf(stderr, "unknown argument %s\n", argv[i]);
      return 1;
    }
  }
  if (reps < 1 || reps > 1000) reps = 3;
  if (!strcmp(mode, "run")) {
    if (!spec) {
      fprintf(stderr, "run needs --spec\n");
      return 1;
    }
    if (barrier) solo = false;  // a solo pass would overlap other processes
    return cmd_run(argc, argv, spec, out, reps, solo, barrier, tag, m);
  }
  if (!strcmp(mode, "latency")) return cmd_latency(argc, argv, out, m);
  if (!strcmp(mode, "copies")) return cmd_copies(argc, argv, out, m);
  if (!strcmp(mode, "info")) return cmd_info(argc, argv, out, m);
  if (!strcmp(mode, "hold")) return cmd_hold(argc, argv, out, barrier, hold_ms, alloc_mib, m);
  fprintf(stderr, "unknown mode %s\n", mode);
  return 1;
}
