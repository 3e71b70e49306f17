/* cuda_check.h -- what every harness CUDA program shares: CK(x) stops the
 * program with file, line, call and CUDA's message when a runtime call
 * fails (a measurement with a failed call is worthless, so there is no
 * recovery), and u64 for %globaltimer / clock64 stamps. */
#ifndef HQSIM_HARNESS_CUDA_CHECK_H
#define HQSIM_HARNESS_CUDA_CHECK_H

#include <cstdio>
#include <cstdlib>

#define CK(x)                                                               \
    do {                                                                    \
        cudaError_t e_ = (x);                                               \
        if (e_ != cudaSuccess) {                                            \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,      \
                    cudaGetErrorString(e_));                                \
            exit(1);                                                        \
        }                                                                   \
    } while (0)

typedef unsigned long long u64;

#endif
