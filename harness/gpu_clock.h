/* gpu_clock.h -- the GPU's %globaltimer and the host's clock, related: what
 * the harness probes that stamp both sides share (graphbench.cu,
 * span_probe.cu).  gtime() reads %globaltimer in a kernel; hnow() is the
 * host's CLOCK_REALTIME in ns; clock_offset() measures gt = host + offset
 * from the shortest of 32 round trips of a one-thread ping-pong kernel
 * through mapped host memory (the midpoint of the shortest trip is the
 * least uncertain).  Header-only: each probe is one translation unit. */
#ifndef HQSIM_HARNESS_GPU_CLOCK_H
#define HQSIM_HARNESS_GPU_CLOCK_H

#include <time.h>

#include "cuda_check.h"

__device__ __forceinline__ u64 gtime()
{
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Ping-pong: wait for the host's flag, answer with the GPU time.
__global__ void kpong(volatile u64 *box)
{
    for (int i = 0; i < 32; i++) {
        while (box[0] != (u64)(i + 1)) {
        }
        box[1] = gtime();
        __threadfence_system();
        box[0] = 0;
    }
}

static u64 hnow()
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

// The offset (gt = host + offset) on stream @s, with @box mapped host
// memory of two words and @dbox its device pointer; @best gets the
// shortest round trip (ns).  Waits for the ping-pong kernel to end.
static long long clock_offset(volatile u64 *box, u64 *dbox, cudaStream_t s,
                              u64 *best)
{
    box[0] = box[1] = 0;
    kpong<<<1, 1, 0, s>>>((volatile u64 *)dbox);
    long long off = 0;
    *best = ~0ull;
    for (int i = 0; i < 32; i++) {
        u64 t0 = hnow();
        box[0] = i + 1;
        while (box[0] != 0) {
        }
        u64 t1 = hnow();
        if (t1 - t0 < *best) {
            *best = t1 - t0;
            off = (long long)box[1] - (long long)(t0 + (t1 - t0) / 2);
        }
    }
    CK(cudaStreamSynchronize(s));
    return off;
}

#endif
