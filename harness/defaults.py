#!/usr/bin/env python3
"""harness/defaults.py -- honest defaults for the GPU models nobody has
calibrated (issue 16, item 4).

For every model in models/ whose "calibrated" is false, the values no
document gives for that GPU are set by the rules below: the calibrated
H100's measured value (models/h100-sxm.json), scaled where a documented
property of the GPU says how, or a published measurement of that GPU.
Each value's source names its rule; the README's "GPU models" section
states the expected error of each class.  Documented limits (occupancy,
SM counts, clocks, memory, copy bandwidths from posted bandwidthTest
outputs) are left alone.  Standard library only; rerun after changing the
H100 model:

    python3 harness/defaults.py            # rewrites the uncalibrated models
    python3 harness/defaults.py --check    # exit 1 if a model is not up to date
                                           # (or a calibrated model measured
                                           # other than a rule it can test)
    ... --models DIR                       # another folder of models
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, '..', 'models')
H100 = 'h100-sxm'

# Host-side costs: measured on the H100's host (FINDINGS.md §6 and the
# graph/MPS experiments); the H200 campaign on another host moved them by
# up to 35%.  They belong to the host, driver and CUDA version more than to
# the GPU, so the H100's values stand for every GPU.
HOST_FIELDS = ['kernel_launch_latency_us', 'launch_api_us', 'submit_latency_us',
               'copy_api_us', 'sync_api_us', 'event_api_us',
               'graph_launch_api_us', 'graph_node_api_us',
               'graph_launch_latency_us', 'graph_wait_latency_us',
               'graph_node_spacing_us', 'graph_to_memset_us',
               'graph_from_memset_us', 'graph_memset_slow_max_kib',
               'graph_branch_stagger_us', 'profiler_kernel_us',
               'mps_client_api_us', 'mps_client_sync_us',
               'mps_client_launch_us', 'mps_client_node_us',
               'mps_client_kernel_us', 'mps_func_fetch_us', 'mps_func_xreload_us',
               'mps_copy_handoff_us', 'mps_func_evict_us', 'mps_func_evict_lru',
               'mps_func_lru_weight']

# Warp schedulers per SM (NVIDIA architecture whitepapers and tuning
# guides): four on every SM since Kepler, but two on GP100 (its SM has two
# processing blocks of 32 cores, one warp scheduler each: Pascal GP100
# whitepaper, quoted at https://github.com/yszheda/wiki/wiki/GPGPU).
SCHEDULERS = {'p100': 2}

# The H100's context-switch state rate per SM and clock: 990 GB/s over 132
# SMs at 1980 MHz is 3.79 bytes per SM-cycle, the H200's 1040 GB/s 3.98; the
# H200's faster DRAM did not speed it up, so the rate scales with the SMs
# that save their state, not with DRAM (README "Against an H200").
STATE_BYTES_PER_SM_CYCLE = 3.9

# Pageable copies are staged through a pinned buffer by the host
# (Programming Guide, asynchronous transfers): they run at the host's
# staging rate, 0.2 x 54.9 = 11 GB/s on the H100's host (0.23 x 55.5 = 12.8
# on the H200's), whatever the link; never faster than pinned.
PAGEABLE_HOST_GBPS = 11.0

# Device memory of a context: a fixed part plus the local memory (thread
# stacks) the driver reserves for every thread the GPU can hold at once
# (cudaLimitStackSize, 1 KiB per thread by default: CUDA Runtime API,
# cudaDeviceSetLimit).  On the H100, 524 MiB = 260 fixed + 132 SMs x 2048
# threads x 1 KiB (264 MiB).
CTX_FIXED_MIB = 260.0

# The smallest SM set the driver gives an MPS client.  The CUDA 13
# Programming Guide documents, per architecture, the minimum SM partition of
# a green context (Table 30, gpu-scheduling-rules.md §3.1): 2 SMs from
# compute capability 7.5, 4 from 8.0, 8 from 9.0.  The H100 measured 8 SMs
# for 1-7% (4 TPCs, mps_pct*, FINDINGS.md §9) and the H200 the same: what
# that table gives for 9.0.  Volta has no green contexts: one TPC, the MPS
# granularity seen on a GPU before Hopper (an RTX 2080, 7.5, where the
# table's minimum is one TPC too; gpu-scheduling-rules.md §6.3 [RLSCOPE]);
# before Volta MPS has no active thread percentage and the field has no
# effect.
MIN_PARTITION_SMS = [(9.0, 8), (8.0, 4), (7.5, 2)]


def rules(m, h):
    """(field, value, source) for every field a rule sets on model @m,
    given the calibrated H100 model @h."""
    name, cc = m['name'], float(m['compute_capability'])
    hs = h['source']
    out = []
    for f in HOST_FIELDS:
        out.append((f, h[f], 'rule host: the calibrated H100 value (%s); a '
                    'host, driver and CUDA cost more than a GPU one, not '
                    'measured on this GPU (the H200 on another host '
                    'differed by up to 35%%)' % hs[f].split(';')[0]))
    gsp = cc >= 7.5
    if gsp:
        out.append(('timeslice_us', h['timeslice_us'],
                    'rule slice: the calibrated H100 value (2090 us per '
                    'slice, ts2_small, FINDINGS.md §8); Turing and later '
                    'GPUs schedule runlists in the same GSP firmware '
                    '(gpu-scheduling-rules.md §5.2), whose slice is not the '
                    'open driver\'s 1024 us default; not measured on this '
                    'GPU'))
    else:
        out.append(('timeslice_us', 1024.0,
                    'rule slice: pre-Turing GPUs are scheduled by the kernel '
                    'driver, whose default TSG timeslice is 1024 us '
                    '(kfifoChannelGroupGetDefaultTimeslice_GV100, GM107 the '
                    'same; gpu-scheduling-rules.md §5.2 [OGKM-fifo]); not '
                    'measured on this GPU'))
    if gsp:
        out.append(('context_switch_us', h['context_switch_us'],
                    'rule switch: the calibrated H100 value (152 us with one '
                    'small block resident, ts2_small, FINDINGS.md §8; the '
                    'H200 measured 153): the fixed part of a switch, done by '
                    'the GSP firmware of Turing and later GPUs, taken as the '
                    'same on every one; not measured on this GPU'))
        out.append(('context_switch_idle_us', h['context_switch_idle_us'],
                    'rule switch: the calibrated H100 value (143.6 us from an '
                    'idle context\'s last kernel end to the other\'s resume, '
                    'less idle_yield_us, ts_idle, FINDINGS.md §8; the H200 '
                    'measured 143.5): a switch out of a context with nothing '
                    'resident to preempt; not measured on this GPU'))
        out.append(('context_resume_us', h['context_resume_us'],
                    'rule switch: the calibrated H100 value (~190 us lost per '
                    'resume, ts_vs_fma, FINDINGS.md §8; the H200 measured '
                    '180); not measured on this GPU'))
    else:
        out.append(('context_switch_us', 10.0,
                    'rule switch: a published Titan V measurement bounds the '
                    'cost of a driver-scheduled switch (Volta and earlier): '
                    'two time-sliced copies of a 3518 ms one-block kernel '
                    'took 6854 / 6838 ms, no more than twice one alone, so '
                    'a switch with little resident state costs ~1% of a '
                    '1024 us slice or less (traces/titanv-1block.json; the '
                    'H100 firmware\'s 152 us would give 9.9 s); not measured '
                    'on this GPU'))
        out.append(('context_switch_idle_us', 10.0,
                    'rule switch: the bound of context_switch_us (the Titan V '
                    'measurement), which no measurement splits by what the '
                    'outgoing context holds; not measured on this GPU'))
        out.append(('context_resume_us', 0.0,
                    'rule switch: the same Titan V measurement leaves no '
                    'room for a resume penalty on driver-scheduled GPUs '
                    '(Volta and earlier; Kepler preempts at block '
                    'boundaries, restoring no warp state); not measured on '
                    'this GPU'))
    state = STATE_BYTES_PER_SM_CYCLE * m['sm_count'] * m['sm_clock_mhz'] / 1e3
    state = round(min(state, m['dram_achievable_gbps']), 1)
    out.append(('context_state_gbps', state,
                'rule state: %.1f bytes per SM and cycle, the H100 and H200 '
                'measured rate (990 GB/s and 1040 GB/s over 132 SMs at 1980 '
                'MHz, FINDINGS.md §8), x %d SMs x %d MHz%s; not measured on '
                'this GPU' % (STATE_BYTES_PER_SM_CYCLE, m['sm_count'],
                              m['sm_clock_mhz'],
                              ', capped at dram_achievable_gbps'
                              if state == round(m['dram_achievable_gbps'], 1)
                              else '')))
    out.append(('idle_yield_us', h['idle_yield_us'],
                'rule switch: the calibrated H100 value (a context out of '
                'work gives the GPU up almost at once, ts_idle, FINDINGS.md '
                '§8); a Jetson report saw 0.8-1 ms under its own driver '
                '(gpu-scheduling-rules.md §5.4 [FORUM-181203]); not measured '
                'on this GPU'))
    sched = SCHEDULERS.get(name, 4)
    k = sched / 4.0
    src = ('rule issue: the calibrated H100 curve (ILP-1 FMA: full speed up '
           'to 4 warps, saturated at 7.9, 57.9%% of issue slots busy; '
           'contention/, FINDINGS.md §16) for an SM of %d warp schedulers '
           '(H100: 4)%s; not measured on this GPU'
           % (sched, ', warps scaled by %g' % k if k != 1 else ''))
    out.append(('sm_full_speed_warps', round(h['sm_full_speed_warps'] * k, 2),
                src))
    out.append(('sm_saturation_warps', round(h['sm_saturation_warps'] * k, 2),
                src))
    out.append(('sm_issue_share_saturated', h['sm_issue_share_saturated'], src))
    out.append(('sm_issue_share_max', h['sm_issue_share_max'],
                'rule issue: the H100\'s measured ceiling (ILP-4 FMA keeps '
                '97.6%% of issue slots busy, i_ncu, FINDINGS.md §16, §19) for '
                'an SM of %d warp schedulers (H100: 4); not measured on this '
                'GPU' % sched))
    out.append(('sm_age_priority_warps',
                round(h['sm_age_priority_warps'] * k, 2),
                'rule issue: the calibrated H100 value (older blocks issue '
                'first once an SM holds more than ~18 warps, ct_i1_w8..w32 '
                'and part J, FINDINGS.md §17; greedy-then-oldest is the '
                'warp-scheduling policy GPU simulators assume since Fermi) '
                'for an SM of %d warp schedulers%s; not measured on this GPU'
                % (sched, ', scaled by %g' % k if k != 1 else '')))
    out.append(('sm_block_end_spread', h['sm_block_end_spread'],
                'rule issue: the H100\'s value (off: blocks placed together '
                'end together; FINDINGS.md §23); not measured on this GPU'))
    for f in ('sm_late_start_warps', 'sm_late_start_tick_us',
              'sm_late_start_phase_min'):
        out.append((f, 0,
                    'rule late: off (0): the H100\'s late starts of timer '
                    'blocks beyond ~36 resident warps per SM, at ticks of '
                    '2^15 SM cycles (FINDINGS.md §14, §29), are a property '
                    'of its SM\'s block launch not measured on this GPU '
                    '(blocks that fit start at once)'))
    out.append(('sm_release_staggered', h['sm_release_staggered'],
                'rule issue: the calibrated H100 behaviour (a finished '
                'wave\'s SMs free one by one and a waiting kernel piles onto '
                'the first, part J, FINDINGS.md §17); not measured on this '
                'GPU'))
    if name == 'a100':
        out.append(('copy_duplex_factor', 0.72,
                    'published measurement: nvbandwidth on A100 PCIe Gen4 '
                    'hosts, 25-26 GB/s each way alone, 12-13 GB/s H2D + 24 '
                    'GB/s D2H at once (https://github.com/NVIDIA/nvbandwidth/'
                    'issues/11; an A100-SXM4-80GB host ~11 + ~25 GB/s, '
                    'issues/53): 36.5 / 51 = 0.72 of the two alone'))
    else:
        out.append(('copy_duplex_factor', h['copy_duplex_factor'],
                    'rule copies: the calibrated H100 value (each direction '
                    'at ~0.87 of its bandwidth while both run, cp_bidir, '
                    'FINDINGS.md §7; the H200 measured 0.92, an A100 host '
                    '0.72 in nvbandwidth); not measured on this GPU'))
    out.append(('copy_latency_us', h['copy_latency_us'],
                'rule copies: the calibrated H100 value (a 4 KiB copy takes '
                '4.3 / 3.3 us H2D / D2H, copies, FINDINGS.md §7; the H200 '
                'measured 3.8); gpu-scheduling-rules.md §7.2 gives 5-10 us '
                'for older links; not measured on this GPU'))
    pg = round(min(1.0, PAGEABLE_HOST_GBPS / m['h2d_bandwidth_gbps']), 2)
    out.append(('pageable_bandwidth_factor', pg,
                'rule copies: pageable copies run at the host\'s staging '
                'rate, 11 GB/s on the H100\'s host (0.2 x 54.9 GB/s, copies, '
                'FINDINGS.md §7), over this GPU\'s %.1f GB/s pinned, at most '
                '1; a host property, not measured with this GPU'
                % m['h2d_bandwidth_gbps']))
    threads = m['sm_count'] * m['max_threads_per_sm']
    ctx = round(CTX_FIXED_MIB + threads / 1024.0)
    out.append(('context_mem_mib', ctx,
                'rule memory: 260 MiB (the H100\'s measured 524 MiB less its '
                'thread stacks) + 1 KiB of stack per resident thread '
                '(cudaLimitStackSize default) x %d SMs x %d threads = %d '
                'MiB; depends on driver and CUDA version (lazy loading); not '
                'measured on this GPU' % (m['sm_count'],
                                          m['max_threads_per_sm'], ctx)))
    out.append(('mps_server_mem_mib', h['mps_server_mem_mib'],
                'rule memory: the calibrated H100 value (MPS server 66 MiB, '
                'mem_mps_n*, FINDINGS.md §10); not measured on this GPU'))
    out.append(('mps_client_mem_mib', ctx - 8,
                'rule memory: context_mem_mib less 8 MiB, as measured on the '
                'H100 (516 of 524 MiB: MPS saves no context memory there, '
                'FINDINGS.md §10); not measured on this GPU'))
    out.append(('nvml_sample_period_ms', h['nvml_sample_period_ms'],
                'rule nvml: the calibrated H100 value (200 ms, util_pattern, '
                'FINDINGS.md §11; the H200 the same), inside NVML\'s '
                'documented 1/6 s to 1 s per product (gpu-scheduling-rules.md '
                '§9 [NVML]); not measured on this GPU'))
    out.append(('mps_min_tpcs', min_tpcs(m, cc), min_tpcs_source(m, cc)))
    return out


def min_tpcs(m, cc):
    sms = next((n for c, n in MIN_PARTITION_SMS if cc >= c), 0)
    return max(1, sms // m['sms_per_tpc'])


def min_tpcs_source(m, cc):
    n = min_tpcs(m, cc)
    if cc >= MIN_PARTITION_SMS[-1][0]:
        return ('rule mps-min: the smallest SM partition of a green context '
                'on compute capability %s, %d SMs (CUDA 13 Programming Guide '
                'Table 30, gpu-scheduling-rules.md §3.1) = %d TPC%s of %d '
                'SMs; the H100 (9.0) measured the 8 SMs that table gives for '
                '9.0 (1-7%% give 4 TPCs, mps_pct*, FINDINGS.md §9), the H200 '
                'the same; not measured on this GPU'
                % (m['compute_capability'], n * m['sms_per_tpc'], n,
                   's' if n > 1 else '', m['sms_per_tpc']))
    if cc >= 7.0:
        return ('rule mps-min: one TPC; Volta has no green contexts to '
                'document a minimum, and one TPC is the MPS granularity seen '
                'before Hopper (RTX 2080, gpu-scheduling-rules.md §6.3 '
                '[RLSCOPE]); the H100 measured 4 (FINDINGS.md §9); not '
                'measured on this GPU')
    return ('rule mps-min: one TPC, without effect: MPS before Volta has no '
            'active thread percentage (gpu-scheduling-rules.md §6)')


# Rules that calibrated models can test: (field, rule).  --check fails if
# a calibrated model measured another value than its rule gives.
CHECKED_ON_CALIBRATED = [('mps_min_tpcs', min_tpcs)]


def rule_misses(m):
    cc = float(m['compute_capability'])
    return ['rule for %s gives %s on %s, which measured %s'
            % (f, rule(m, cc), m['name'], m[f])
            for f, rule in CHECKED_ON_CALIBRATED if rule(m, cc) != m[f]]


def apply(m, h):
    for field, value, src in rules(m, h):
        assert field in m, (m['name'], field)
        if isinstance(m[field], int) and not isinstance(m[field], bool):
            value = int(round(value))
        elif isinstance(m[field], float):
            value = float(value)
        m[field] = value
        m['source'][field] = src
    return m


def main():
    args = sys.argv[1:]
    check = '--check' in args
    models = MODELS
    if '--models' in args:
        models = args[args.index('--models') + 1]
    h = json.load(open(os.path.join(models, H100 + '.json')))
    stale, misses = [], []
    for f in sorted(os.listdir(models)):
        if not f.endswith('.json'):
            continue
        path = os.path.join(models, f)
        text = open(path).read()
        m = json.loads(text)
        if m.get('calibrated'):
            misses += rule_misses(m)
            continue
        new = json.dumps(apply(m, h), indent=2, ensure_ascii=False) + '\n'
        if new == text:
            continue
        stale.append(f)
        if not check:
            open(path, 'w').write(new)
    for miss in misses:
        print('measured against its rule: %s' % miss, file=sys.stderr)
    if misses:
        return 1
    if check and stale:
        print('not up to date: %s (run python3 harness/defaults.py)'
              % ', '.join(stale), file=sys.stderr)
        return 1
    print('%s: %s' % ('stale' if check else 'rewrote',
                      ', '.join(stale) or 'nothing'), file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
