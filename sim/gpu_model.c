/* gpu_model.c -- loading and querying GPU model files.  See gpu_model.h.
 *
 * The loader is driven by model_fields[]: one row per JSON field with its
 * type, where it lands in GpuModel, and its valid range.  Every row is
 * required, and every field must have an entry in the file's "source"
 * object, so no value can enter a model without a stated provenance.
 */
#include "gpu_model.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "json.h"

typedef enum {
    F_U32,     /* uint32_t */
    F_U64_MIB, /* uint64_t bytes, given in MiB */
    F_U32_KIB, /* uint32_t bytes, given in KiB */
    F_F64,     /* double */
    F_TIME_US, /* SimTime ns, given in microseconds (fractions allowed) */
    F_TIME_MS, /* SimTime ns, given in milliseconds */
    F_BOOL,
    F_ENUM,
} FieldType;

typedef struct {
    const char *key;
    FieldType type;
    size_t offset;
    double min, max;
    const char *const *names; /* F_ENUM */
} FieldSpec;

/* The policies' names, indexed by their enums: the one place they are
 * spelled (the engine's ops tables, engine_sm.c placements and
 * engine_ctx.c preemptions, are indexed by the same enums). */
static const char *const placement_names[] = {"most-free", "fill-first",
                                              "round-robin", "most-room", NULL};
static const char *const preemption_names[] = {"instruction", "block", NULL};
static const char *const rounding_names[] = {"down", "up", "nearest", NULL};
/* The same as words in messages ("rounded to nearest"). */
static const char *const rounding_phrases[] = {"down", "up", "to nearest",
                                               NULL};
static const char *const mps_assign_names[] = {"dynamic", "static", NULL};

#define OFF(f) offsetof(GpuModel, f)

static const FieldSpec model_fields[] = {
    {"sm_count", F_U32, OFF(sm_count), 1, SIM_MAX_SMS, NULL},
    {"sms_per_tpc", F_U32, OFF(sms_per_tpc), 1, 4, NULL},
    {"max_threads_per_sm", F_U32, OFF(max_threads_per_sm), 32, 4096, NULL},
    {"max_warps_per_sm", F_U32, OFF(max_warps_per_sm), 1, 128, NULL},
    {"max_blocks_per_sm", F_U32, OFF(max_blocks_per_sm), 1, 64, NULL},
    {"max_threads_per_block", F_U32, OFF(max_threads_per_block), 32, 4096,
     NULL},
    {"regs_per_sm", F_U32, OFF(regs_per_sm), 1024, 1 << 20, NULL},
    {"max_regs_per_block", F_U32, OFF(max_regs_per_block), 1024, 1 << 20, NULL},
    {"max_regs_per_thread", F_U32, OFF(max_regs_per_thread), 16, 1024, NULL},
    {"reg_alloc_unit_regs", F_U32, OFF(reg_alloc_unit_regs), 1, 4096, NULL},
    {"reg_subpartitions", F_U32, OFF(reg_subpartitions), 1,
     SIM_MAX_SUBPARTITIONS, NULL},
    {"warp_alloc_granularity", F_U32, OFF(warp_alloc_granularity), 1, 8, NULL},
    {"smem_per_sm_kib", F_U32_KIB, OFF(smem_per_sm_bytes), 1, 1024, NULL},
    {"max_smem_per_block_kib", F_U32_KIB, OFF(max_smem_per_block_bytes), 1,
     1024, NULL},
    {"smem_alloc_granularity_bytes", F_U32, OFF(smem_alloc_granularity_bytes),
     1, 4096, NULL},
    {"smem_reserved_per_block_bytes", F_U32, OFF(smem_reserved_per_block_bytes),
     0, 65536, NULL},
    {"max_resident_grids", F_U32, OFF(max_resident_grids), 1, 4096, NULL},
    {"connections_default", F_U32, OFF(connections_default), 1, 128, NULL},
    {"connections_max", F_U32, OFF(connections_max), 1, 128, NULL},
    {"stream_priority_levels", F_U32, OFF(stream_priority_levels), 1, 64, NULL},
    {"placement", F_ENUM, OFF(placement), 0, 0, placement_names},
    {"sm_saturation_warps", F_F64, OFF(sm_saturation_warps), 0.5, 1024, NULL},
    {"sm_full_speed_warps", F_F64, OFF(sm_full_speed_warps), 0.5, 1024, NULL},
    {"sm_release_staggered", F_BOOL, OFF(sm_release_staggered), 0, 0, NULL},
    {"sm_block_end_spread", F_F64, OFF(sm_block_end_spread), 0, 0.95, NULL},
    {"sm_late_start_warps", F_F64, OFF(sm_late_start_warps), 0, 1024, NULL},
    {"sm_late_start_tick_us", F_TIME_US, OFF(sm_late_start_tick_ns), 0, 1e4,
     NULL},
    {"sm_late_start_phase_min", F_F64, OFF(sm_late_start_phase_min), 0, 1,
     NULL},
    {"sm_age_priority_warps", F_F64, OFF(sm_age_priority_warps), 0, 1024, NULL},
    {"sm_issue_share_saturated", F_F64, OFF(sm_issue_share_saturated), 0.01, 1,
     NULL},
    {"sm_issue_share_max", F_F64, OFF(sm_issue_share_max), 0, 1, NULL},
    {"sm_ilp_room_exponent", F_F64, OFF(sm_ilp_room_exponent), 0, 16, NULL},
    {"sm_greedy_warp_share", F_F64, OFF(sm_greedy_warp_share), 0.01, 1, NULL},
    {"submit_latency_us", F_TIME_US, OFF(submit_latency_ns), 0, 1e5, NULL},
    {"kernel_launch_latency_us", F_TIME_US, OFF(kernel_launch_latency_ns), 0,
     1e5, NULL},
    {"kernel_fixed_us", F_TIME_US, OFF(kernel_fixed_ns), 0, 1e4, NULL},
    {"launch_api_us", F_TIME_US, OFF(launch_api_ns), 0, 1e5, NULL},
    {"copy_api_us", F_TIME_US, OFF(copy_api_ns), 0, 1e5, NULL},
    {"sync_api_us", F_TIME_US, OFF(sync_api_ns), 0, 1e5, NULL},
    {"event_api_us", F_TIME_US, OFF(event_api_ns), 0, 1e5, NULL},
    {"graph_launch_api_us", F_TIME_US, OFF(graph_launch_api_ns), 0, 1e5, NULL},
    {"graph_node_api_us", F_TIME_US, OFF(graph_node_api_ns), 0, 1e3, NULL},
    {"graph_launch_latency_us", F_TIME_US, OFF(graph_launch_latency_ns), 0, 1e5,
     NULL},
    {"graph_wait_latency_us", F_TIME_US, OFF(graph_wait_latency_ns), 0, 1e5,
     NULL},
    {"graph_node_spacing_us", F_TIME_US, OFF(graph_node_spacing_ns), 0, 1e4,
     NULL},
    {"graph_node_spacing_sliced_us", F_TIME_US,
     OFF(graph_node_spacing_sliced_ns), 0, 1e4, NULL},
    {"graph_to_memset_us", F_TIME_US, OFF(graph_to_memset_ns), 0, 1e4, NULL},
    {"graph_from_memset_us", F_TIME_US, OFF(graph_from_memset_ns), 0, 1e4,
     NULL},
    {"graph_memset_slow_max_kib", F_U32_KIB, OFF(graph_memset_slow_max_bytes),
     0, 1 << 20, NULL},
    {"graph_branch_stagger_us", F_TIME_US, OFF(graph_branch_stagger_ns), 0, 1e4,
     NULL},
    {"profiler_kernel_us", F_TIME_US, OFF(profiler_kernel_ns), 0, 1e3, NULL},
    {"mps_client_api_us", F_TIME_US, OFF(mps_client_api_ns), 0, 1e4, NULL},
    {"mps_client_sync_us", F_TIME_US, OFF(mps_client_sync_ns), 0, 1e4, NULL},
    {"mps_client_launch_us", F_TIME_US, OFF(mps_client_launch_ns), 0, 1e4,
     NULL},
    {"mps_client_node_us", F_TIME_US, OFF(mps_client_node_ns), 0, 1e4, NULL},
    {"mps_client_kernel_us", F_TIME_US, OFF(mps_client_kernel_ns), 0, 1e4,
     NULL},
    {"mps_func_fetch_us", F_TIME_US, OFF(mps_func_fetch_ns), 0, 1e4, NULL},
    {"mps_func_xreload_us", F_TIME_US, OFF(mps_func_xreload_ns), 0, 1e4, NULL},
    {"mps_func_busy_us", F_TIME_US, OFF(mps_func_busy_ns), 0, 1e4, NULL},
    {"mps_fend_hold_us", F_TIME_US, OFF(mps_fend_hold_ns), 0, 1e4, NULL},
    {"mps_mem_load_us", F_TIME_US, OFF(mps_mem_load_ns), 0, 1e4, NULL},
    {"mps_mem_load_half", F_F64, OFF(mps_mem_load_half), 0, 100, NULL},
    {"mps_mem_trip_share", F_F64, OFF(mps_mem_trip_share), 0, 10, NULL},
    {"l2_evict_mb", F_F64, OFF(l2_evict_mb), 0, 1e4, NULL},
    {"l2_evict_shape", F_F64, OFF(l2_evict_shape), 0.1, 10, NULL},
    {"l2_miss_ratio", F_F64, OFF(l2_miss_ratio), 1, 100, NULL},
    {"l2_reuse_share", F_F64, OFF(l2_reuse_share), 0, 100, NULL},
    {"l2_served_default", F_F64, OFF(l2_served_default), 0, 1, NULL},
    {"mps_copy_handoff_us", F_TIME_US, OFF(mps_copy_handoff_ns), 0, 1e4, NULL},
    {"mps_func_evict_us", F_TIME_US, OFF(mps_func_evict_ns), 0, 1e4, NULL},
    {"mps_func_evict_lru", F_U32, OFF(mps_func_evict_lru), 1, SIM_MAX_FUNC_LRU,
     NULL},
    {"preemption", F_ENUM, OFF(preemption), 0, 0, preemption_names},
    {"timeslice_us", F_TIME_US, OFF(timeslice_ns), 1, 1e7, NULL},
    {"context_switch_us", F_TIME_US, OFF(context_switch_ns), 0, 1e6, NULL},
    {"context_switch_idle_us", F_TIME_US, OFF(context_switch_idle_ns), 0, 1e6,
     NULL},
    {"idle_yield_us", F_TIME_US, OFF(idle_yield_ns), 0, 1e7, NULL},
    {"context_state_gbps", F_F64, OFF(context_state_gbps), 1, 1e5, NULL},
    {"context_resume_us", F_TIME_US, OFF(context_resume_ns), 0, 1e5, NULL},
    {"context_mem_mib", F_U64_MIB, OFF(context_mem_bytes), 0, 1 << 20, NULL},
    {"mps_supported", F_BOOL, OFF(mps_supported), 0, 0, NULL},
    {"mps_volta", F_BOOL, OFF(mps_volta), 0, 0, NULL},
    {"mps_max_clients", F_U32, OFF(mps_max_clients), 1, 1024, NULL},
    {"mps_connections_default", F_U32, OFF(mps_connections_default), 1, 128,
     NULL},
    {"mps_connection_budget", F_U32, OFF(mps_connection_budget), 1, 65536,
     NULL},
    {"mps_min_tpcs", F_U32, OFF(mps_min_tpcs), 1, 256, NULL},
    {"mps_pct_rounding", F_ENUM, OFF(mps_pct_rounding), 0, 0, rounding_names},
    {"mps_sm_assign", F_ENUM, OFF(mps_sm_assign), 0, 0, mps_assign_names},
    {"mps_server_mem_mib", F_U64_MIB, OFF(mps_server_mem_bytes), 0, 1 << 20,
     NULL},
    {"mps_client_mem_mib", F_U64_MIB, OFF(mps_client_mem_bytes), 0, 1 << 20,
     NULL},
    {"device_mem_mib", F_U64_MIB, OFF(device_mem_bytes), 1, 1 << 24, NULL},
    {"copy_engines_h2d", F_U32, OFF(copy_engines_h2d), 1, 16, NULL},
    {"copy_engines_d2h", F_U32, OFF(copy_engines_d2h), 1, 16, NULL},
    {"h2d_bandwidth_gbps", F_F64, OFF(h2d_bandwidth_gbps), 0.01, 1e4, NULL},
    {"d2h_bandwidth_gbps", F_F64, OFF(d2h_bandwidth_gbps), 0.01, 1e4, NULL},
    {"d2d_bandwidth_gbps", F_F64, OFF(d2d_bandwidth_gbps), 0.01, 1e5, NULL},
    {"pageable_bandwidth_factor", F_F64, OFF(pageable_bandwidth_factor), 0.01,
     1, NULL},
    {"copy_duplex_factor", F_F64, OFF(copy_duplex_factor), 0.05, 1, NULL},
    {"copy_latency_us", F_TIME_US, OFF(copy_latency_ns), 0, 1e5, NULL},
    {"dram_bandwidth_gbps", F_F64, OFF(dram_bandwidth_gbps), 1, 1e5, NULL},
    {"dram_achievable_gbps", F_F64, OFF(dram_achievable_gbps), 0, 1e5, NULL},
    {"dram_curve_exponent", F_F64, OFF(dram_curve_exponent), 0.5, 64, NULL},
    {"dram_launch_latency_us", F_TIME_US, OFF(dram_launch_latency_ns), 0, 1e4,
     NULL},
    {"dram_sm_gbps_max", F_F64, OFF(dram_sm_gbps_max), 0, 1e5, NULL},
    {"dram_sm_half_warps", F_F64, OFF(dram_sm_half_warps), 0, 4096, NULL},
    {"nvml_sample_period_ms", F_TIME_MS, OFF(nvml_sample_period_ns), 1, 1e4,
     NULL},
    {"sm_clock_mhz", F_U32, OFF(sm_clock_mhz), 100, 10000, NULL},
};

/* Fields that are not in model_fields[] because they need their own code. */
static const char *const special_fields[] = {"schema",
                                             "name",
                                             "display_name",
                                             "calibrated",
                                             "compute_capability",
                                             "smem_carveouts_kib",
                                             "smem_carveouts_rule_skips_kib",
                                             "sm_ilp_saturation_warps",
                                             "mps_func_lru_weight",
                                             "bare_kernel_classes",
                                             "dispatch_order",
                                             "source",
                                             "host_cores",
                                             "host_wake_us",
                                             NULL};

#define MODEL_SCHEMA "hqsim-gpu-model-1"

static bool load_field(const SimJsonDoc *doc, const cJSON *root,
                       const FieldSpec *f, GpuModel *m, GError **error)
{
    char *base = (char *)m + f->offset;
    switch (f->type) {
    case F_U32: {
        uint32_t v = 0;
        if (!sim_json_get_u32(doc, root, f->key, NULL, true, (uint32_t)f->min,
                              (uint32_t)f->max, &v, error))
            return false;
        *(uint32_t *)base = v;
        return true;
    }
    case F_U32_KIB: {
        double v = 0;
        if (!sim_json_get_double(doc, root, f->key, NULL, true, f->min, f->max,
                                 &v, error))
            return false;
        *(uint32_t *)base = (uint32_t)llround(v * 1024.0);
        return true;
    }
    case F_U64_MIB: {
        double v = 0;
        if (!sim_json_get_double(doc, root, f->key, NULL, true, f->min, f->max,
                                 &v, error))
            return false;
        *(uint64_t *)base = (uint64_t)llround(v * 1048576.0);
        return true;
    }
    case F_F64: {
        double v = 0;
        if (!sim_json_get_double(doc, root, f->key, NULL, true, f->min, f->max,
                                 &v, error))
            return false;
        *(double *)base = v;
        return true;
    }
    case F_TIME_US:
    case F_TIME_MS: {
        double v = 0;
        if (!sim_json_get_double(doc, root, f->key, NULL, true, f->min, f->max,
                                 &v, error))
            return false;
        double scale = f->type == F_TIME_US ? 1e3 : 1e6;
        *(SimTime *)base = (SimTime)llround(v * scale);
        return true;
    }
    case F_BOOL: {
        bool v = false;
        if (!sim_json_get_bool(doc, root, f->key, NULL, true, &v, error))
            return false;
        *(bool *)base = v;
        return true;
    }
    case F_ENUM: {
        int v = 0;
        if (!sim_json_get_enum(doc, root, f->key, NULL, true, f->names, &v,
                               error))
            return false;
        *(int *)base = v;
        return true;
    }
    }
    g_assert_not_reached();
}

static bool load_carveouts(const SimJsonDoc *doc, const cJSON *root,
                           GpuModel *m, GError **error)
{
    const cJSON *a =
        cJSON_GetObjectItemCaseSensitive(root, "smem_carveouts_kib");
    if (!a)
        return sim_json_fail(doc, root, error,
                             "missing field 'smem_carveouts_kib'");
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1 ||
        cJSON_GetArraySize(a) > SIM_MAX_CARVEOUTS)
        return sim_json_fail(doc, a, error,
                             "field 'smem_carveouts_kib': expected an array "
                             "of 1 to %d sizes in KiB",
                             SIM_MAX_CARVEOUTS);
    const cJSON *it;
    uint32_t prev = 0;
    m->n_smem_carveouts = 0;
    cJSON_ArrayForEach(it, a)
    {
        uint64_t v;
        if (!sim_json_number_u64(doc, it, "smem_carveouts_kib", NULL, 0, 1024,
                                 &v, error))
            return false;
        if (m->n_smem_carveouts > 0 && v <= prev)
            return sim_json_fail(doc, it, error,
                                 "field 'smem_carveouts_kib': sizes must be "
                                 "increasing");
        prev = (uint32_t)v;
        m->smem_carveouts_kib[m->n_smem_carveouts++] = (uint32_t)v;
    }
    if ((uint64_t)prev * 1024 != m->smem_per_sm_bytes)
        return sim_json_fail(doc, a, error,
                             "field 'smem_carveouts_kib': the largest "
                             "carveout (%u KiB) must equal smem_per_sm_kib",
                             prev);
    return true;
}

/* "smem_carveouts_rule_skips_kib" (optional): listed carveouts that the
 * size rule passes over (the driver chose them for kernels only Nsight
 * Compute tells: measured, not derived; smem_config.c). */
static bool load_rule_skips(const SimJsonDoc *doc, const cJSON *root,
                            GpuModel *m, GError **error)
{
    const char *key = "smem_carveouts_rule_skips_kib";
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
    m->smem_rule_skips = 0;
    if (!a)
        return true;
    if (!cJSON_IsArray(a))
        return sim_json_fail(doc, a, error,
                             "field '%s': expected an array of sizes in KiB",
                             key);
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
    {
        uint64_t v;
        if (!sim_json_number_u64(doc, it, key, NULL, 0, 1024, &v, error))
            return false;
        uint32_t i = 0;
        while (i < m->n_smem_carveouts && m->smem_carveouts_kib[i] != v)
            i++;
        if (i == m->n_smem_carveouts)
            return sim_json_fail(doc, it, error,
                                 "field '%s': %llu KiB is not in "
                                 "smem_carveouts_kib",
                                 key, (unsigned long long)v);
        if (i + 1 == m->n_smem_carveouts)
            return sim_json_fail(doc, it, error,
                                 "field '%s': the largest carveout (%llu "
                                 "KiB) cannot be skipped",
                                 key, (unsigned long long)v);
        m->smem_rule_skips |= 1u << i;
    }
    return true;
}

/* "sm_ilp_saturation_warps" (optional): the saturated rate of ILP 2, 4,
 * 8, ... warps, each family alone (lone-warp speeds per SM), measured;
 * each at most the ILP-1 curve's (a warp of more ILP is never lighter than
 * an ILP-1 warp). */
static bool load_ilp_saturation(const SimJsonDoc *doc, const cJSON *root,
                                GpuModel *m, GError **error)
{
    const char *key = "sm_ilp_saturation_warps";
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
    m->n_sm_ilp_saturation_warps = 0;
    if (!a)
        return true;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1 ||
        cJSON_GetArraySize(a) > SIM_MAX_ILP_SAT)
        return sim_json_fail(doc, a, error,
                             "field '%s': expected an array of 1 to %d "
                             "rates (ILP 2, 4, 8, ...)",
                             key, SIM_MAX_ILP_SAT);
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
    {
        if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) ||
            it->valuedouble < 0.5 || it->valuedouble > m->sm_saturation_warps)
            return sim_json_fail(doc, it, error,
                                 "field '%s': rates must be numbers in "
                                 "[0.5, sm_saturation_warps (%g)]",
                                 key, m->sm_saturation_warps);
        m->sm_ilp_saturation_warps[m->n_sm_ilp_saturation_warps++] =
            it->valuedouble;
    }
    return true;
}

/* "bare_kernel_classes" (optional): {"gemv": {"issue_pct_per_warp": x,
 * "dram_pct_per_warp": y}, ...} with every class of kernel_class.h but
 * "none", each value in [0, 100]. */
static bool load_bare_classes(const SimJsonDoc *doc, const cJSON *root,
                              GpuModel *m, GError **error)
{
    const char *key = "bare_kernel_classes";
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, key);
    m->has_bare_classes = false;
    if (!o)
        return true;
    if (!cJSON_IsObject(o))
        return sim_json_fail(doc, o, error,
                             "field '%s': expected an object of kernel "
                             "classes",
                             key);
    const cJSON *it;
    cJSON_ArrayForEach(it, o)
    {
        SimKernelClass c;
        if (!sim_kernel_class_parse(it->string, &c))
            return sim_json_fail(doc, it, error,
                                 "field '%s': '%s' is not a kernel class "
                                 "(gemv, sgemm, gemm, norm, elementwise, "
                                 "other)",
                                 key, it->string);
    }
    for (int c = SIM_KCLASS_NONE + 1; c < SIM_KCLASS_N; c++) {
        const char *name = sim_kernel_class_name((SimKernelClass)c);
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, name);
        if (!cJSON_IsObject(e))
            return sim_json_fail(doc, e ? e : o, error,
                                 "field '%s': class '%s' missing (an object "
                                 "with issue_pct_per_warp and "
                                 "dram_pct_per_warp)",
                                 key, name);
        if (!sim_json_get_double(doc, e, "issue_pct_per_warp", key, true, 0,
                                 100, &m->bare_issue_pct_per_warp[c], error) ||
            !sim_json_get_double(doc, e, "dram_pct_per_warp", key, true, 0, 100,
                                 &m->bare_dram_pct_per_warp[c], error))
            return false;
    }
    m->has_bare_classes = true;
    return true;
}

/* "host_wake_us" (optional): [[gap_us, cost_us], ...], 1 to
 * SIM_MAX_HOST_WAKE points, gaps strictly increasing and positive, costs
 * in [0, 1e5] us (sim_gpu_model_host_wake reads them). */
static bool load_host_wake(const SimJsonDoc *doc, const cJSON *root,
                           GpuModel *m, GError **error)
{
    const char *key = "host_wake_us";
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
    m->n_host_wake = 0;
    if (!a)
        return true;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1 ||
        cJSON_GetArraySize(a) > SIM_MAX_HOST_WAKE)
        return sim_json_fail(doc, a, error,
                             "field '%s': expected an array of 1 to %d "
                             "[gap_us, cost_us] points",
                             key, SIM_MAX_HOST_WAKE);
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
    {
        const cJSON *g = cJSON_GetArrayItem(it, 0);
        const cJSON *c = cJSON_GetArrayItem(it, 1);
        if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2 ||
            !cJSON_IsNumber(g) || !cJSON_IsNumber(c) ||
            !isfinite(g->valuedouble) || !isfinite(c->valuedouble) ||
            g->valuedouble <= 0 || g->valuedouble > 1e7 || c->valuedouble < 0 ||
            c->valuedouble > 1e5)
            return sim_json_fail(doc, it, error,
                                 "field '%s': each point must be [gap_us, "
                                 "cost_us], gap in (0, 1e7], cost in "
                                 "[0, 1e5]",
                                 key);
        SimTime gap = (SimTime)llround(g->valuedouble * 1e3);
        uint32_t n = m->n_host_wake;
        if (n && gap <= m->host_wake_gap_ns[n - 1])
            return sim_json_fail(doc, it, error,
                                 "field '%s': gaps must increase (%g us "
                                 "after %g us)",
                                 key, g->valuedouble,
                                 m->host_wake_gap_ns[n - 1] / 1e3);
        m->host_wake_gap_ns[n] = gap;
        m->host_wake_cost_ns[n] = (SimTime)llround(c->valuedouble * 1e3);
        m->n_host_wake = n + 1;
    }
    return true;
}

/* "mps_func_lru_weight": the share of mps_func_fetch a kernel pays at
 * each LRU distance of its function, 0, 1, ...; the last entry stands for
 * every larger distance (and a function the client has not run yet). */
static bool load_lru_weights(const SimJsonDoc *doc, const cJSON *root,
                             GpuModel *m, GError **error)
{
    const char *key = "mps_func_lru_weight";
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!a)
        return sim_json_fail(doc, root, error, "missing field '%s'", key);
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1 ||
        cJSON_GetArraySize(a) > SIM_MAX_FUNC_LRU)
        return sim_json_fail(doc, a, error,
                             "field '%s': expected an array of 1 to %d "
                             "weights (LRU distance 0, 1, ...)",
                             key, SIM_MAX_FUNC_LRU);
    const cJSON *it;
    m->n_mps_func_lru_weight = 0;
    cJSON_ArrayForEach(it, a)
    {
        if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) ||
            it->valuedouble < 0 || it->valuedouble > 100)
            return sim_json_fail(doc, it, error,
                                 "field '%s': weights must be numbers in "
                                 "[0, 100]",
                                 key);
        m->mps_func_lru_weight[m->n_mps_func_lru_weight++] = it->valuedouble;
    }
    return true;
}

static bool load_dispatch_order(const SimJsonDoc *doc, const cJSON *root,
                                GpuModel *m, GError **error)
{
    m->dispatch_order = g_new(uint32_t, m->sm_count);
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "dispatch_order");
    if (!a || cJSON_IsString(a)) {
        /* Default (gpu-scheduling-rules.md S8, after Olmedo et al.): even SM
         * ids first, then odd, i.e. one SM per TPC before the second. A
         * string names a rule: "even-odd" (that default) or "linear". */
        bool linear = a && strcmp(a->valuestring, "linear") == 0;
        if (a && !linear && strcmp(a->valuestring, "even-odd") != 0)
            return sim_json_fail(doc, a, error,
                                 "field 'dispatch_order': '%s' is not "
                                 "'even-odd', 'linear' or an array of SM ids",
                                 a->valuestring);
        uint32_t k = 0;
        if (linear) {
            for (uint32_t i = 0; i < m->sm_count; i++)
                m->dispatch_order[k++] = i;
        } else {
            for (uint32_t i = 0; i < m->sm_count; i += 2)
                m->dispatch_order[k++] = i;
            for (uint32_t i = 1; i < m->sm_count; i += 2)
                m->dispatch_order[k++] = i;
        }
        return true;
    }
    if (!cJSON_IsArray(a) || (uint32_t)cJSON_GetArraySize(a) != m->sm_count)
        return sim_json_fail(doc, a, error,
                             "field 'dispatch_order': expected an array of "
                             "all %u SM ids",
                             m->sm_count);
    g_autofree bool *seen = g_new0(bool, m->sm_count);
    uint32_t k = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
    {
        uint64_t v;
        if (!sim_json_number_u64(doc, it, "dispatch_order", NULL, 0,
                                 m->sm_count - 1, &v, error))
            return false;
        if (seen[v])
            return sim_json_fail(doc, it, error,
                                 "field 'dispatch_order': SM %llu listed "
                                 "twice",
                                 (unsigned long long)v);
        seen[v] = true;
        m->dispatch_order[k++] = (uint32_t)v;
    }
    return true;
}

static bool check_sources(const SimJsonDoc *doc, const cJSON *root, GpuModel *m,
                          GError **error)
{
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(root, "source");
    if (!cJSON_IsObject(src))
        return sim_json_fail(doc, src ? src : root, error,
                             "missing object 'source' (a provenance for "
                             "every field)");
    m->sources = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    const cJSON *it;
    cJSON_ArrayForEach(it, src)
    {
        if (!cJSON_IsString(it) || !it->valuestring[0])
            return sim_json_fail(doc, it, error,
                                 "source '%s': expected a non-empty string",
                                 it->string);
        bool known = false;
        for (size_t i = 0; i < G_N_ELEMENTS(model_fields); i++)
            known |= strcmp(model_fields[i].key, it->string) == 0;
        for (const char *const *s = special_fields; *s; s++)
            known |= strcmp(*s, it->string) == 0;
        if (!known)
            return sim_json_fail(doc, it, error, "source '%s': no such field",
                                 it->string);
        g_hash_table_replace(m->sources, g_strdup(it->string),
                             g_strdup(it->valuestring));
    }
    for (size_t i = 0; i < G_N_ELEMENTS(model_fields); i++)
        if (!g_hash_table_contains(m->sources, model_fields[i].key))
            return sim_json_fail(doc, src, error,
                                 "source: no provenance for field '%s'",
                                 model_fields[i].key);
    static const char *const sourced_special[] = {"compute_capability",
                                                  "smem_carveouts_kib",
                                                  "mps_func_lru_weight", NULL};
    for (const char *const *s = sourced_special; *s; s++)
        if (!g_hash_table_contains(m->sources, *s))
            return sim_json_fail(doc, src, error,
                                 "source: no provenance for field '%s'", *s);
    if (m->has_bare_classes &&
        !g_hash_table_contains(m->sources, "bare_kernel_classes"))
        return sim_json_fail(doc, src, error,
                             "source: no provenance for field '%s'",
                             "bare_kernel_classes");
    if (m->n_sm_ilp_saturation_warps &&
        !g_hash_table_contains(m->sources, "sm_ilp_saturation_warps"))
        return sim_json_fail(doc, src, error,
                             "source: no provenance for field '%s'",
                             "sm_ilp_saturation_warps");
    if (m->n_host_wake && !g_hash_table_contains(m->sources, "host_wake_us"))
        return sim_json_fail(doc, src, error,
                             "source: no provenance for field '%s'",
                             "host_wake_us");
    return true;
}

/* Cross-field consistency: what no single range check can catch. */
static bool check_consistency(const SimJsonDoc *doc, const cJSON *root,
                              const GpuModel *m, GError **error)
{
#define REQUIRE(cond, ...)                                                     \
    do {                                                                       \
        if (!(cond))                                                           \
            return sim_json_fail(doc, root, error, __VA_ARGS__);               \
    } while (0)
    REQUIRE(m->max_threads_per_sm == m->max_warps_per_sm * 32,
            "max_threads_per_sm (%u) must be 32 x max_warps_per_sm (%u)",
            m->max_threads_per_sm, m->max_warps_per_sm);
    REQUIRE(m->max_threads_per_block <= m->max_threads_per_sm,
            "max_threads_per_block exceeds max_threads_per_sm");
    REQUIRE(m->max_regs_per_block <= m->regs_per_sm,
            "max_regs_per_block exceeds regs_per_sm");
    REQUIRE(m->max_smem_per_block_bytes <= m->smem_per_sm_bytes,
            "max_smem_per_block_kib exceeds smem_per_sm_kib");
    /* A block of the largest allowed size, with its reservation, must fit
     * on an SM, or the occupancy calculator could accept a block that no SM
     * can hold (e.g. 228 KiB per block on a 228 KiB SM with 1 KiB reserved:
     * the per-block maximum is 227). */
    REQUIRE((uint64_t)m->max_smem_per_block_bytes +
                    m->smem_reserved_per_block_bytes <=
                m->smem_per_sm_bytes,
            "max_smem_per_block_kib (%g) plus smem_reserved_per_block_bytes "
            "(%u) exceeds smem_per_sm_kib (%g)",
            m->max_smem_per_block_bytes / 1024.0,
            m->smem_reserved_per_block_bytes, m->smem_per_sm_bytes / 1024.0);
    REQUIRE(m->connections_default <= m->connections_max,
            "connections_default exceeds connections_max");
    REQUIRE(m->mps_connections_default <= m->connections_max,
            "mps_connections_default exceeds connections_max");
    REQUIRE(m->sm_count % m->sms_per_tpc == 0,
            "sm_count (%u) is not a multiple of sms_per_tpc (%u)", m->sm_count,
            m->sms_per_tpc);
    REQUIRE(m->regs_per_sm % m->reg_subpartitions == 0,
            "regs_per_sm is not divisible by reg_subpartitions");
#undef REQUIRE
    return true;
}

GpuModel *sim_gpu_model_load(const char *path, GError **error)
{
    g_autoptr(SimJsonDoc) doc = sim_json_doc_load(path, error);
    if (!doc)
        return NULL;
    const cJSON *root = doc->root;
    if (!cJSON_IsObject(root)) {
        sim_json_fail(doc, root, error, "expected a JSON object");
        return NULL;
    }
    /* Unknown keys: everything must be a table row or a special field. */
    g_autoptr(GPtrArray) allowed = g_ptr_array_new();
    for (size_t i = 0; i < G_N_ELEMENTS(model_fields); i++)
        g_ptr_array_add(allowed, (gpointer)model_fields[i].key);
    for (const char *const *s = special_fields; *s; s++)
        g_ptr_array_add(allowed, (gpointer)*s);
    g_ptr_array_add(allowed, NULL);
    if (!sim_json_check_keys(doc, root, (const char *const *)allowed->pdata,
                             NULL, error))
        return NULL;

    g_autoptr(GpuModel) m = g_new0(GpuModel, 1);
    m->path = g_strdup(path);
    const char *schema = NULL, *name = NULL, *display = NULL, *cc = NULL;
    if (!sim_json_get_string(doc, root, "schema", NULL, true, &schema, error))
        return NULL;
    if (strcmp(schema, MODEL_SCHEMA) != 0) {
        sim_json_fail(doc, cJSON_GetObjectItemCaseSensitive(root, "schema"),
                      error, "field 'schema': expected '%s', got '%s'",
                      MODEL_SCHEMA, schema);
        return NULL;
    }
    if (!sim_json_get_string(doc, root, "name", NULL, true, &name, error) ||
        !sim_json_get_string(doc, root, "display_name", NULL, true, &display,
                             error) ||
        !sim_json_get_bool(doc, root, "calibrated", NULL, true, &m->calibrated,
                           error) ||
        !sim_json_get_string(doc, root, "compute_capability", NULL, true, &cc,
                             error) ||
        /* optional: the machine's CPU cores (engine_host.c); 0: unlimited */
        !sim_json_get_u32(doc, root, "host_cores", NULL, false, 1, 1u << 20,
                          &m->host_cores, error))
        return NULL;
    m->name = g_strdup(name);
    m->display_name = g_strdup(display);
    if (sscanf(cc, "%d.%d", &m->cc_major, &m->cc_minor) != 2 ||
        m->cc_major < 1 || m->cc_major > 20 || m->cc_minor < 0 ||
        m->cc_minor > 9) {
        sim_json_fail(
            doc, cJSON_GetObjectItemCaseSensitive(root, "compute_capability"),
            error,
            "field 'compute_capability': expected \"MAJOR.MINOR\", "
            "got '%s'",
            cc);
        return NULL;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(model_fields); i++)
        if (!load_field(doc, root, &model_fields[i], m, error))
            return NULL;
    if (!load_carveouts(doc, root, m, error) ||
        !load_rule_skips(doc, root, m, error) ||
        !load_ilp_saturation(doc, root, m, error) ||
        !load_host_wake(doc, root, m, error) ||
        !load_lru_weights(doc, root, m, error) ||
        !load_bare_classes(doc, root, m, error) ||
        !load_dispatch_order(doc, root, m, error) ||
        !check_sources(doc, root, m, error) ||
        !check_consistency(doc, root, m, error))
        return NULL;
    return g_steal_pointer(&m);
}

const char *sim_models_dir(void)
{
    const char *env = g_getenv("HQSIM_MODELS");
    if (env && *env)
        return env;
    /* Compiled in, in search order: the install prefix's data folder
     * (set when building for `make install`), then the source tree. */
    static const char *const compiled[] = {
#ifdef HQSIM_DATADIR
        HQSIM_DATADIR "/models",
#endif
#ifdef HQSIM_SOURCE_DIR
        HQSIM_SOURCE_DIR "/models",
#endif
        NULL,
    };
    for (const char *const *d = compiled; *d; d++)
        if (g_file_test(*d, G_FILE_TEST_IS_DIR))
            return *d;
    return "models";
}

GpuModel *sim_gpu_model_find(const char *name_or_path, const char *models_dir,
                             GError **error)
{
    if (strchr(name_or_path, '/') || g_str_has_suffix(name_or_path, ".json"))
        return sim_gpu_model_load(name_or_path, error);
    const char *dir = models_dir ? models_dir : sim_models_dir();
    g_autofree char *file = g_strconcat(name_or_path, ".json", NULL);
    g_autofree char *path = g_build_filename(dir, file, NULL);
    if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
        g_auto(GStrv) names = sim_gpu_model_list(dir, NULL);
        g_autofree char *list = names ? g_strjoinv(", ", names) : g_strdup("");
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "no GPU model '%s' in %s (known: %s)", name_or_path, dir,
                    list);
        return NULL;
    }
    return sim_gpu_model_load(path, error);
}

static gint cmp_str(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **sim_gpu_model_list(const char *dir, GError **error)
{
    GError *local = NULL;
    g_autoptr(GDir) d = g_dir_open(dir, 0, &local);
    if (!d) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_IO, "%s", local->message);
        g_error_free(local);
        return NULL;
    }
    GPtrArray *names = g_ptr_array_new();
    const char *f;
    while ((f = g_dir_read_name(d)))
        if (g_str_has_suffix(f, ".json"))
            g_ptr_array_add(names, g_strndup(f, strlen(f) - 5));
    g_ptr_array_sort(names, cmp_str);
    g_ptr_array_add(names, NULL);
    return (char **)g_ptr_array_free(names, FALSE);
}

void sim_gpu_model_free(GpuModel *m)
{
    if (!m)
        return;
    g_free(m->name);
    g_free(m->display_name);
    g_free(m->path);
    g_free(m->dispatch_order);
    if (m->sources)
        g_hash_table_unref(m->sources);
    g_free(m);
}

GpuModel *sim_gpu_model_copy(const GpuModel *m)
{
    GpuModel *c = g_new(GpuModel, 1);
    *c = *m;
    c->name = g_strdup(m->name);
    c->display_name = g_strdup(m->display_name);
    c->path = g_strdup(m->path);
    c->dispatch_order =
        g_memdup2(m->dispatch_order, sizeof(uint32_t) * m->sm_count);
    if (m->sources)
        c->sources = g_hash_table_ref(m->sources);
    return c;
}

/* exp(@x), remembered: the engine asks the issue-rate curve and the
 * priority weight (engine_issue.c) at every change of an SM's load, and
 * loads repeat (sums of the same blocks' warps).  A direct-mapped table per thread (sweeps run engines on several
 * threads), keyed by the argument's bits, so a hit returns exactly what
 * exp() returned for the same argument. */
#define EXP_MEMO_SIZE 1024 /* a power of two */
double sim_gpu_model_memo_exp(double x)
{
    static _Thread_local struct {
        uint64_t key;
        double value;
        bool set;
    } memo[EXP_MEMO_SIZE];
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    const uint32_t i =
        (uint32_t)((bits * 0x9e3779b97f4a7c15ull) >> 54) & (EXP_MEMO_SIZE - 1);
    if (!memo[i].set || memo[i].key != bits) {
        memo[i].key = bits;
        memo[i].value = exp(x);
        memo[i].set = true;
    }
    return memo[i].value;
}

/* The issue-rate curve (see gpu_model.h): T(L) = L up to L0 warps, then
 * Tmax - (Tmax - L0) exp(-(L - L0) / (Tmax - L0)): continuous with slope 1
 * at L0, rising to Tmax.  With L0 >= Tmax the knee is hard: min(L, Tmax). */
static double issue_rate_at(double L, double L0, double Tmax)
{
    if (L <= L0 || L0 >= Tmax)
        return MIN(L, Tmax);
    return Tmax - (Tmax - L0) * sim_gpu_model_memo_exp(-(L - L0) / (Tmax - L0));
}

double sim_gpu_model_issue_rate(const GpuModel *m, double L)
{
    return issue_rate_at(L, m->sm_full_speed_warps, m->sm_saturation_warps);
}

double sim_gpu_model_issue_rate_knee(const GpuModel *m, double L, double knee)
{
    const double L0 = m->sm_full_speed_warps, Tmax = m->sm_saturation_warps;
    return issue_rate_at(L, MAX(L0, MIN(knee, Tmax)), Tmax);
}

/* Ts_ilp from the measured table: linear in log2(ilp) between ILP 1 (the
 * curve's Ts) and the entries at ILP 2, 4, ..., the last beyond them. */
static double ilp_saturation_measured(const GpuModel *m, uint32_t ilp)
{
    const uint32_t n = m->n_sm_ilp_saturation_warps;
    const double x = log2((double)ilp);
    if (x >= n)
        return m->sm_ilp_saturation_warps[n - 1];
    const uint32_t i = (uint32_t)x; /* between ILP 2^i and 2^(i+1) */
    const double lo =
        i ? m->sm_ilp_saturation_warps[i - 1] : m->sm_saturation_warps;
    return lo + (x - i) * (m->sm_ilp_saturation_warps[i] - lo);
}

double sim_gpu_model_ilp_warp_load(const GpuModel *m, uint32_t ilp)
{
    const double a = m->sm_ilp_room_exponent;
    const double L0 = m->sm_full_speed_warps, Tmax = m->sm_saturation_warps;
    if (ilp <= 1)
        return 1;
    if (m->n_sm_ilp_saturation_warps)
        return Tmax / ilp_saturation_measured(m, ilp);
    if (a <= 0 || L0 >= Tmax)
        return 1;
    return Tmax / (L0 + (Tmax - L0) * pow((double)ilp, -a));
}

SimTime sim_gpu_model_host_wake(const GpuModel *m, SimTime gap)
{
    SimTime g0 = 0, c0 = 0;
    for (uint32_t i = 0; i < m->n_host_wake; i++) {
        SimTime g1 = m->host_wake_gap_ns[i], c1 = m->host_wake_cost_ns[i];
        if (gap <= g1)
            return c0 +
                   (SimTime)llround((double)((int64_t)c1 - (int64_t)c0) *
                                    (double)(gap - g0) / (double)(g1 - g0));
        g0 = g1;
        c0 = c1;
    }
    return c0; /* held beyond the last point (0 without a table) */
}

double sim_gpu_model_warp_speed(const GpuModel *m, double L)
{
    return L > 0 ? sim_gpu_model_issue_rate(m, L) / L : 1.0;
}

double sim_gpu_model_load_for_share(const GpuModel *m, double share)
{
    const double L0 = m->sm_full_speed_warps, Tmax = m->sm_saturation_warps;
    const double most = (double)m->max_warps_per_sm;
    double T = MIN(share, 1.0) * Tmax;
    if (T <= MIN(L0, Tmax))
        return T;
    if (L0 >= Tmax) /* hard knee: the whole capacity at Tmax warps */
        return Tmax;
    double left = (Tmax - T) / (Tmax - L0);
    if (left <= 1e-12)
        return most;
    return MIN(most, L0 - (Tmax - L0) * log(left));
}

uint32_t sim_gpu_model_mps_sm_limit(const GpuModel *m, double pct)
{
    double tpcs = pct / 100.0 * m->sm_count / m->sms_per_tpc;
    double r;
    /* A small tolerance keeps 50% of 132 SMs (exactly 33 TPCs) from
     * rounding to 34 through floating-point noise. */
    switch (m->mps_pct_rounding) {
    case SIM_ROUND_DOWN: r = floor(tpcs + 1e-9); break;
    case SIM_ROUND_UP: r = ceil(tpcs - 1e-9); break;
    default: r = floor(tpcs + 0.5); break;
    }
    uint32_t total_tpcs = m->sm_count / m->sms_per_tpc;
    if (r < m->mps_min_tpcs)
        r = m->mps_min_tpcs;
    if (r > total_tpcs)
        r = total_tpcs;
    return (uint32_t)r * m->sms_per_tpc;
}

uint32_t sim_gpu_model_mps_client_limit(const GpuModel *m, uint32_t connections)
{
    /* Before Volta, clients share the server's connections, so their own
     * setting uses up nothing (gpu-scheduling-rules.md §1.3). */
    if (!m->mps_volta)
        return m->mps_max_clients;
    /* Each client takes its connections (channels) from the server's
     * budget, and the server keeps one client's worth for itself: measured
     * on an H100, 48 clients at 2 connections, 31 at 4, 15 at 8 with a
     * budget of 128 (traces/measured/h100/FINDINGS.md §9). */
    if (connections == 0)
        connections = m->mps_connections_default;
    uint64_t n = m->mps_connection_budget / connections;
    n = n > 0 ? n - 1 : 0;
    return (uint32_t)MIN(n, m->mps_max_clients);
}

/* One line of sim_gpu_model_describe: @key, its value @val and the source
 * the model file gives for it (none: empty). */
static void describe_row(const GpuModel *m, GString *out, const char *key,
                         const char *val)
{
    const char *src = m->sources ? g_hash_table_lookup(m->sources, key) : NULL;
    g_string_append_printf(out, "  %-32s %-10s %s\n", key, val, src ? src : "");
}

void sim_gpu_model_describe(const GpuModel *m, GString *out)
{
    g_string_append_printf(out, "%s  (%s)%s\n", m->name, m->display_name,
                           m->calibrated ? "  [calibrated on hardware]" : "");
    g_string_append_printf(out, "  file: %s\n", m->path);
    const char *cc_src =
        m->sources ? g_hash_table_lookup(m->sources, "compute_capability")
                   : NULL;
    g_string_append_printf(out, "  %-32s %d.%d   %s\n", "compute_capability",
                           m->cc_major, m->cc_minor, cc_src ? cc_src : "");
    g_autoptr(GString) carve = g_string_new(NULL);
    for (uint32_t i = 0; i < m->n_smem_carveouts; i++)
        g_string_append_printf(carve, "%s%u", i ? "," : "",
                               m->smem_carveouts_kib[i]);
    describe_row(m, out, "smem_carveouts_kib", carve->str);
    if (m->smem_rule_skips) {
        g_string_truncate(carve, 0);
        for (uint32_t i = 0; i < m->n_smem_carveouts; i++)
            if (m->smem_rule_skips & (1u << i))
                g_string_append_printf(carve, "%s%u", carve->len ? "," : "",
                                       m->smem_carveouts_kib[i]);
        describe_row(m, out, "smem_carveouts_rule_skips_kib", carve->str);
    }
    g_string_truncate(carve, 0);
    for (uint32_t i = 0; i < m->n_mps_func_lru_weight; i++)
        g_string_append_printf(carve, "%s%g", i ? "," : "",
                               m->mps_func_lru_weight[i]);
    describe_row(m, out, "mps_func_lru_weight", carve->str);
    if (m->n_host_wake) {
        g_string_truncate(carve, 0);
        for (uint32_t i = 0; i < m->n_host_wake; i++)
            g_string_append_printf(carve, "%s%g:%g", i ? "," : "",
                                   m->host_wake_gap_ns[i] / 1e3,
                                   m->host_wake_cost_ns[i] / 1e3);
        describe_row(m, out, "host_wake_us", carve->str);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(model_fields); i++) {
        const FieldSpec *f = &model_fields[i];
        const char *base = (const char *)m + f->offset;
        char val[64];
        switch (f->type) {
        case F_U32:
            snprintf(val, sizeof val, "%u", *(const uint32_t *)base);
            break;
        case F_U32_KIB:
            snprintf(val, sizeof val, "%g", *(const uint32_t *)base / 1024.0);
            break;
        case F_U64_MIB:
            snprintf(val, sizeof val, "%g",
                     *(const uint64_t *)base / 1048576.0);
            break;
        case F_F64:
            snprintf(val, sizeof val, "%g", *(const double *)base);
            break;
        case F_TIME_US:
            snprintf(val, sizeof val, "%g", *(const SimTime *)base / 1e3);
            break;
        case F_TIME_MS:
            snprintf(val, sizeof val, "%g", *(const SimTime *)base / 1e6);
            break;
        case F_BOOL:
            snprintf(val, sizeof val, "%s",
                     *(const bool *)base ? "true" : "false");
            break;
        case F_ENUM:
            snprintf(val, sizeof val, "%s", f->names[*(const int *)base]);
            break;
        }
        describe_row(m, out, f->key, val);
    }
}

const char *sim_gpu_model_rounding_phrase(const GpuModel *m)
{
    g_assert((size_t)m->mps_pct_rounding < G_N_ELEMENTS(rounding_phrases) - 1);
    return rounding_phrases[m->mps_pct_rounding];
}
