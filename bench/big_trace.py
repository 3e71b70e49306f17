#!/usr/bin/env python3
"""bench/big_trace.py FORMAT N OUT -- a synthetic profiler trace of N
kernels, for the import benchmarks (make bench; README "Performance").

FORMAT: kineto (PyTorch profiler JSON: a cuda_runtime launch and a kernel
event per kernel), nsys (nsys stats --report cuda_gpu_trace CSV) or nvprof
(nvprof --print-gpu-trace CSV).  One process, 4 streams used round-robin;
each kernel (33 to 264 blocks of 256 threads, 20 to 199 us, from a fixed
linear congruential generator, as bench/overlap_trace.sh) starts when the
previous kernel of its stream ends, so the streams overlap all the time.
"""
import sys


def kernels(n):
    seed = 12345
    t = [1000.0] * 4  # per-stream clock, us
    for i in range(n):
        seed = (seed * 1103515245 + 12345) % 2147483648
        grid = 33 + (seed % 8) * 33
        seed = (seed * 1103515245 + 12345) % 2147483648
        dur = 20 + seed % 180
        s = i % 4
        yield i, s, grid, t[s], float(dur)
        t[s] += dur + 1.0


def kineto(n, out):
    out.write('{"schemaVersion": 1, "deviceProperties": [{"id": 0, '
              '"name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, '
              '"computeMinor": 0}],\n"traceEvents": [\n')
    first = True
    for i, s, grid, ts, dur in kernels(n):
        launch = ('{"ph": "X", "cat": "cuda_runtime", "name": '
                  '"cudaLaunchKernel", "pid": 11, "tid": 11, "ts": %.3f, '
                  '"dur": 2, "args": {"correlation": %d}}'
                  % (ts - 5, i + 1))
        kern = ('{"ph": "X", "cat": "kernel", "name": "kern%d", "pid": 0, '
                '"tid": %d, "ts": %.3f, "dur": %.3f, "args": {"device": 0, '
                '"stream": %d, "correlation": %d, "registers per thread": '
                '32, "shared memory": 0, "grid": [%d, 1, 1], '
                '"block": [256, 1, 1]}}' % (s, 7 + s, ts, dur, 7 + s, i + 1,
                                             grid))
        out.write(('' if first else ',\n') + launch + ',\n' + kern)
        first = False
    out.write('\n]}\n')


def nsys(n, out):
    out.write('Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,'
              'BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),'
              'Throughput (MBps),SrcMemKd,DstMemKd,Device,Ctx,Strm,Name\n')
    for i, s, grid, ts, dur in kernels(n):
        out.write('%d,%d,%d,%d,1,1,256,1,1,32,0.000,0.000,,,,,'
                  'NVIDIA H100 80GB HBM3 (0),1,%d,kern%d\n'
                  % (ts * 1000, dur * 1000, i + 1, grid, 7 + s, s))


def nvprof(n, out):
    out.write('==1== NVPROF is profiling process 1, command: ./big\n'
              '==1== Profiling application: ./big\n'
              '==1== Profiling result:\n'
              '"Start","Duration","Grid X","Grid Y","Grid Z","Block X",'
              '"Block Y","Block Z","Registers Per Thread","Static SMem",'
              '"Dynamic SMem","Size","Throughput","Device","Context",'
              '"Stream","Name"\n'
              'us,us,,,,,,,,B,B,MB,GB/s,,,,\n')
    for i, s, grid, ts, dur in kernels(n):
        out.write('%.3f,%.3f,%d,1,1,256,1,1,32,0,0,,,'
                  '"NVIDIA H100 80GB HBM3 (0)","1","%d","kern%d"\n'
                  % (ts, dur, grid, 13 + s, s))


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ('kineto', 'nsys', 'nvprof'):
        sys.exit('usage: big_trace.py kineto|nsys|nvprof N OUT')
    with open(sys.argv[3], 'w') as out:
        globals()[sys.argv[1]](int(sys.argv[2]), out)


if __name__ == '__main__':
    main()
