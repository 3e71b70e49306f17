#!/usr/bin/env python3
"""bench/big_trace.py FORMAT N OUT [STREAMS] -- a synthetic profiler trace
of N kernels, for the import benchmarks (make bench; README "Performance").

FORMAT: kineto (PyTorch profiler JSON: a cuda_runtime launch and a kernel
event per kernel), nsys (nsys stats --report cuda_gpu_trace CSV), sqlite
(an Nsight Systems SQLite export, `nsys export --type sqlite`: the kernel
and runtime-API tables the importer reads, with a cudaLaunchKernel row per
kernel as Kineto's) or nvprof (nvprof --print-gpu-trace CSV).  One
process, STREAMS streams (default 4) used round-robin; each kernel (33 to
264 blocks of 256 threads, 20 to 199 us, from a fixed linear congruential
generator, as bench/overlap_trace.sh) starts when the previous kernel of
its stream ends, so several streams overlap all the time (and one stream
runs its kernels one at a time).
"""
import sys

STREAMS = 4


def kernels(n):
    seed = 12345
    t = [1000.0] * STREAMS  # per-stream clock, us
    for i in range(n):
        seed = (seed * 1103515245 + 12345) % 2147483648
        grid = 33 + (seed % 8) * 33
        seed = (seed * 1103515245 + 12345) % 2147483648
        dur = 20 + seed % 180
        s = i % STREAMS
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


def sqlite(n, path):
    import os
    import sqlite3
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript('''
        CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY,
                                value TEXT NOT NULL);
        CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
        CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL,
            id INTEGER NOT NULL, name TEXT, computeMajor INTEGER,
            computeMinor INTEGER);
        CREATE TABLE TARGET_INFO_CUDA_STREAM (streamId INTEGER NOT NULL,
            hwId INTEGER NOT NULL, vmId INTEGER NOT NULL,
            processId INTEGER NOT NULL, contextId INTEGER NOT NULL,
            priority INTEGER NOT NULL, flag INTEGER NOT NULL);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL,
            end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
            globalTid INTEGER, correlationId INTEGER,
            nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL,
            end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
            contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
            correlationId INTEGER, globalPid INTEGER,
            demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL,
            registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
            gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,
            blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
            blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL,
            dynamicSharedMemory INTEGER NOT NULL);
    ''')
    pid = 11 << 24  # globalPid: the process id sits in bits 24-47
    db.executemany('INSERT INTO StringIds VALUES (?, ?)',
                   [(s + 1, 'kern%d' % s) for s in range(STREAMS)] +
                   [(5, 'cudaLaunchKernel_v7000')])
    db.execute("INSERT INTO META_DATA_EXPORT VALUES "
               "('EXPORT_SCHEMA_VERSION', '3.11.0')")
    db.execute("INSERT INTO TARGET_INFO_GPU VALUES "
               "(0, 0, 'NVIDIA H100 80GB HBM3', 9, 0)")
    db.executemany('INSERT INTO TARGET_INFO_CUDA_STREAM VALUES '
                   '(?, ?, 0, 11, 1, 0, 1)',
                   [(7 + s, 7 + s) for s in range(STREAMS)])
    runtime, kern = [], []
    for i, s, grid, ts, dur in kernels(n):
        t = int(ts * 1000)
        runtime.append((t - 5000, t - 3000, 1, pid + 11, i + 1, 5, 0))
        kern.append((t, t + int(dur * 1000), 0, 1, 7 + s, i + 1, pid,
                     s + 1, s + 1, 32, grid, 1, 1, 256, 1, 1, 0, 0))
    db.executemany('INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES '
                   '(?, ?, ?, ?, ?, ?, ?)', runtime)
    db.executemany('INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES '
                   '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
                   kern)
    db.commit()
    db.close()


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
    global STREAMS
    formats = ('kineto', 'nsys', 'sqlite', 'nvprof')
    if len(sys.argv) not in (4, 5) or sys.argv[1] not in formats:
        sys.exit('usage: big_trace.py kineto|nsys|sqlite|nvprof N OUT '
                 '[STREAMS]')
    if len(sys.argv) == 5:
        STREAMS = int(sys.argv[4])
        if not 1 <= STREAMS <= 4:
            sys.exit('big_trace.py: STREAMS must be 1 to 4')
    if sys.argv[1] == 'sqlite':  # a database, not a text
        sqlite(int(sys.argv[2]), sys.argv[3])
        return
    with open(sys.argv[3], 'w') as out:
        globals()[sys.argv[1]](int(sys.argv[2]), out)


if __name__ == '__main__':
    main()
