/* prepare.h -- the one preparation pipeline of the simulate commands.
 *
 * `run`, `compare` and `sweep` turn their input files into the scenario the
 * engine runs through these two calls, so every option means the same in
 * every command and `sweep` gives, configuration for configuration, the
 * numbers `run` gives (tests/test_e2e_prepare.c checks it):
 *
 *   prep_load     once per workload, independent of the GPU it will run on:
 *     1. load the scenario or traces (formats detected from content); a
 *        workload file (plan/workload_file.h) takes each of its parts
 *        through steps 1-6, then joins them;
 *     2. traces: infer each op's time alone from its recorded time on the
 *        model of the GPU it was recorded on (unless --as-recorded);
 *     3. device memory: --mem-mib overrides what the trace says;
 *     4. --loop-request: loop one representative request; the request is
 *        picked by its *recorded* GPU work, before any retargeting, so the
 *        same request is looped whatever GPU the workload then runs on.
 *        On a timed trace of one process this cut comes before step 2,
 *        and step 2 infers the kept request alone (one run of it, against
 *        its own recorded times): the other requests' times alone would
 *        never be used, and the whole recording costs its number of
 *        requests times as much; the per-request spread rows are then
 *        their recorded times over the kept one's.  With several
 *        processes the whole recording is inferred first, as they ran
 *        side by side (their kept requests started together would contend
 *        as no recorded request did);
 *     5. --iterations;
 *     6. --host-scale;
 *     7. --request-spread: per-request rows from measured latencies;
 *     8. --arrival-rate: open loop, Poisson, --iterations requests.
 *   prep_target   once per (workload, GPU, N):
 *     9. retarget: if the workload was recorded on (or names) another model
 *        than the target, rescale its work (sim/retarget.h);
 *    10. replicate: N copies of each process (--processes N);
 *    11. --arrival-times: recorded arrival times, one list per process.
 *
 * `replay` does not use it: an identity replay simulates the recording
 * itself on the recorded GPU, with none of these what-if rewrites.
 */
#ifndef PLAN_PREPARE_H
#define PLAN_PREPARE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "gpu_model.h"
#include "result.h"
#include "scenario.h"

typedef struct {
    const char *models_dir;    /* nullable: the bundled models */
    bool as_recorded;          /* take recorded durations as times alone */
    bool recorded_clocks;      /* traces recorded apart keep their recorded
                               offsets (SimImportOptions) */
    bool bare_classes;         /* kernels without ncu data: their class's
                               issue share (SimImportOptions) */
    bool loop_request;         /* loop one representative request */
    uint32_t iterations;       /* 0: as the workload says (100 with
                               loop_request) */
    double host_scale;         /* 0 or 1: host time unchanged */
    const char *mem_mib;       /* --mem-mib: "MIB" for every process or
                               "NAME=MIB,..." (nullable) */
    const char *spread;        /* --request-spread FILE: {"latencies_us":
                               [...]} of one process alone (nullable) */
    double arrival_rate;       /* --arrival-rate: Poisson requests/s per
                               process (0: closed loop) */
    const char *arrival_times; /* --arrival-times FILE: {"processes":
                               [[us, ...], ...]}, list i for process i
                               after replication (nullable) */
    uint32_t sm_sample;        /* the solo-time inference's rounds simulate
                               1 SM in M (SimOptions.sm_sample); 0 or 1:
                               every SM */
} PrepOptions;

/* Steps 1-8 on @n files (several make one workload).
 * Returns: (transfer full) (nullable). */
SimScenario *prep_load(char *const *files, int n, const PrepOptions *o,
                       GError **error);

/* prep_load, and into *@solo_run (nullable) the result of step 2's final
 * round when it ran and steps 3-8 changed nothing: a run of the returned
 * scenario with sim_options_init's defaults on the model of the GPU the
 * trace was recorded on (import/replay.h), so a caller that would run the
 * same need not simulate again; else NULL.
 * Returns: (transfer full) (nullable); *@solo_run (transfer full). */
SimScenario *prep_load_run(char *const *files, int n, const PrepOptions *o,
                           SimResult **solo_run, GError **error);

/* Steps 9-11: a copy of @base (from prep_load) for GPU @to with @n_copies
 * copies of each process (0 or 1: as loaded).  If the work was rescaled,
 * *@note (nullable) gets a sentence saying so, else NULL.
 * Returns: (transfer full) (nullable). */
SimScenario *prep_target(const SimScenario *base, const GpuModel *to,
                         uint32_t n_copies, const PrepOptions *o, char **note,
                         GError **error);

/* Parse a --mem-mib value and set the device memory of the processes it
 * names in @sc (a name matches the process, the name before a trace's
 * "[pid]", and copies NAME#k).
 * Fails naming the item for a malformed value or an unknown process. */
bool prep_set_memory(SimScenario *sc, const char *spec, GError **error);

#endif /* PLAN_PREPARE_H */
