/* cmd_occupancy.c -- `hqsim occupancy`: the occupancy calculator for one
 * kernel on one GPU model (blocks per SM, the limiting resource, and what
 * each resource allows), as text or JSON.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "error.h"
#include "gpu_model.h"
#include "occupancy.h"

static const char occupancy_description[] =
    "Computes how many blocks of a kernel fit on one SM of a GPU model, by\n"
    "the rules of CUDA's cuda_occupancy.h: warps per block, registers\n"
    "allocated per warp and per register-file sub-partition, shared memory\n"
    "(static + dynamic + the per-block reservation, rounded up to the\n"
    "allocation granularity) against the largest carveout, and block slots.\n"
    "\n"
    "BYTES may end in K (x 1024).  --regs 0 (the default) means unknown and\n"
    "is treated as 32 registers per thread.  A kernel that exceeds a\n"
    "per-block maximum (threads, registers, shared memory) is an error.\n"
    "\n"
    "Example:\n"
    "  hqsim occupancy --gpu h100-sxm --block 256 --regs 64 "
    "--smem-static 16K";

/* Parse a decimal count in [min, max], with an optional K/KiB suffix
 * (x 1024) when @allow_k.  @what names the option in messages. */
static bool parse_count(const char *what, const char *s, bool allow_k,
                        uint64_t min, uint64_t max, uint64_t *out,
                        GError **error)
{
    g_autofree char *num = g_strstrip(g_strdup(s));
    uint64_t scale = 1;
    size_t len = strlen(num);
    if (allow_k && len > 3 && g_str_has_suffix(num, "KiB")) {
        num[len - 3] = '\0';
        scale = 1024;
    } else if (allow_k && len > 1 &&
               (num[len - 1] == 'K' || num[len - 1] == 'k')) {
        num[len - 1] = '\0';
        scale = 1024;
    }
    guint64 v = 0;
    g_autoptr(GError) local = NULL;
    if (!g_ascii_string_to_unsigned(num, 10, 0, max / scale, &v, &local)) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "%s: '%s' is not a whole number from %llu to %llu", what, s,
                    (unsigned long long)min, (unsigned long long)max);
        return false;
    }
    v *= scale;
    if (v < min) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "%s: '%s' must be at least %llu", what, s,
                    (unsigned long long)min);
        return false;
    }
    *out = v;
    return true;
}

/* "N" or "X,Y,Z" (also "X,Y"); every dimension at least 1. */
static bool parse_block(const char *s, uint32_t block[3], GError **error)
{
    g_auto(GStrv) parts = g_strsplit(s, ",", -1);
    guint n = g_strv_length(parts);
    if (n < 1 || n > 3) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_USAGE,
                    "--block: '%s' is not N or X,Y,Z", s);
        return false;
    }
    block[0] = block[1] = block[2] = 1;
    for (guint i = 0; i < n; i++) {
        uint64_t v = 0;
        if (!parse_count("--block", parts[i], false, 1, 65536, &v, error))
            return false;
        block[i] = (uint32_t)v;
    }
    return true;
}

static void print_text(const GpuModel *m, const SimKernelSpec *k,
                       const SimOccupancy *o)
{
    const SimBlockNeeds *n = &o->needs;
    uint32_t threads = k->block[0] * k->block[1] * k->block[2];
    uint32_t regs = k->regs_per_thread ? k->regs_per_thread : 32;
    printf("GPU          %s (%s), cc %d.%d, %u SMs\n", m->name, m->display_name,
           m->cc_major, m->cc_minor, m->sm_count);
    printf("Block        %ux%ux%u = %u threads, %u registers/thread%s, "
           "shared memory %u static + %u dynamic bytes\n",
           k->block[0], k->block[1], k->block[2], threads, regs,
           k->regs_per_thread ? "" : " (unknown, assumed)",
           k->static_smem_bytes, k->dynamic_smem_bytes);
    printf("Allocated    %u warp%s, %u registers per warp, %u bytes of "
           "shared memory (incl. %u reserved, %u-byte granularity)\n",
           n->warps, n->warps == 1 ? "" : "s", n->regs_per_warp, n->smem_bytes,
           m->smem_reserved_per_block_bytes, m->smem_alloc_granularity_bytes);
    printf("\nBlocks per SM allowed by each resource:\n");
    uint32_t sub = m->regs_per_sm / m->reg_subpartitions;
    for (int l = 0; l < SIM_LIMIT_N; l++) {
        char why[160];
        switch ((SimOccLimit)l) {
        case SIM_LIMIT_WARPS:
            snprintf(why, sizeof why, "%u warps per SM / %u per block",
                     m->max_warps_per_sm, n->warps);
            break;
        case SIM_LIMIT_BLOCKS:
            snprintf(why, sizeof why, "%u block slots per SM",
                     m->max_blocks_per_sm);
            break;
        case SIM_LIMIT_REGS:
            snprintf(why, sizeof why,
                     "%u sub-partitions x %u warps (%u regs / %u per warp) "
                     "/ %u per block",
                     m->reg_subpartitions, sub / n->regs_per_warp, sub,
                     n->regs_per_warp, n->warps);
            break;
        case SIM_LIMIT_SMEM:
            snprintf(why, sizeof why, "%u bytes per SM / %u per block",
                     m->smem_per_sm_bytes, n->smem_bytes);
            break;
        case SIM_LIMIT_N: why[0] = '\0'; break;
        }
        printf("  %-14s %5u   %s%s\n", sim_occ_limit_name((SimOccLimit)l),
               o->limit[l], why,
               (SimOccLimit)l == o->limiter ? "   <- limiter" : "");
    }
    printf("\nBlocks per SM  %u, limited by %s\n", o->blocks_per_sm,
           sim_occ_limit_name(o->limiter));
    printf("Occupancy      %u of %u warps = %.1f%%\n", o->active_warps,
           m->max_warps_per_sm, 100.0 * o->occupancy);
}

static void print_json(const GpuModel *m, const SimKernelSpec *k,
                       const SimOccupancy *o)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "gpu", m->name);
    g_autofree char *cc = g_strdup_printf("%d.%d", m->cc_major, m->cc_minor);
    cJSON_AddStringToObject(root, "compute_capability", cc);
    const int block[3] = {(int)k->block[0], (int)k->block[1], (int)k->block[2]};
    cJSON_AddItemToObject(root, "block", cJSON_CreateIntArray(block, 3));
    cJSON_AddNumberToObject(root, "threads_per_block",
                            (double)k->block[0] * k->block[1] * k->block[2]);
    cJSON_AddNumberToObject(root, "regs_per_thread",
                            k->regs_per_thread ? k->regs_per_thread : 32);
    cJSON_AddBoolToObject(root, "regs_assumed", k->regs_per_thread == 0);
    cJSON_AddNumberToObject(root, "smem_static_bytes", k->static_smem_bytes);
    cJSON_AddNumberToObject(root, "smem_dynamic_bytes", k->dynamic_smem_bytes);
    cJSON_AddNumberToObject(root, "warps_per_block", o->needs.warps);
    cJSON_AddNumberToObject(root, "regs_per_warp", o->needs.regs_per_warp);
    cJSON_AddNumberToObject(root, "smem_per_block_bytes", o->needs.smem_bytes);
    /* Keys are the limit names with '_' for ' ' ("shared_memory"). */
    cJSON *limits = cJSON_AddObjectToObject(root, "limits");
    for (int l = 0; l < SIM_LIMIT_N; l++) {
        g_autofree char *key = g_strdup(sim_occ_limit_name((SimOccLimit)l));
        g_strdelimit(key, " ", '_');
        cJSON_AddNumberToObject(limits, key, o->limit[l]);
    }
    cJSON_AddNumberToObject(root, "blocks_per_sm", o->blocks_per_sm);
    cJSON_AddStringToObject(root, "limiter", sim_occ_limit_name(o->limiter));
    cJSON_AddNumberToObject(root, "active_warps", o->active_warps);
    cJSON_AddNumberToObject(root, "max_warps_per_sm", m->max_warps_per_sm);
    cJSON_AddNumberToObject(root, "occupancy", o->occupancy);
    char *text = cJSON_Print(root);
    puts(text);
    cJSON_free(text);
    cJSON_Delete(root);
}

int sim_cmd_occupancy(int argc, char **argv)
{
    g_autofree char *gpu = NULL;
    g_autofree char *dir = NULL;
    g_autofree char *block_s = NULL;
    g_autofree char *regs_s = NULL;
    g_autofree char *smem_static_s = NULL;
    g_autofree char *smem_dynamic_s = NULL;
    gboolean json = FALSE;
    const GOptionEntry entries[] = {
        {"gpu", 'g', 0, G_OPTION_ARG_STRING, &gpu,
         "GPU model name (see 'hqsim models') or model file (required)",
         "NAME"},
        {"block", 'b', 0, G_OPTION_ARG_STRING, &block_s,
         "threads per block, as N or X,Y,Z (required)", "N|X,Y,Z"},
        {"regs", 'r', 0, G_OPTION_ARG_STRING, &regs_s,
         "registers per thread (default 0: unknown, treated as 32)", "N"},
        {"smem-static", 0, 0, G_OPTION_ARG_STRING, &smem_static_s,
         "static shared memory per block (default 0)", "BYTES"},
        {"smem-dynamic", 0, 0, G_OPTION_ARG_STRING, &smem_dynamic_s,
         "dynamic shared memory per block (default 0)", "BYTES"},
        {"json", 'j', 0, G_OPTION_ARG_NONE, &json,
         "print the result as a JSON object", NULL},
        {"models-dir", 0, 0, G_OPTION_ARG_FILENAME, &dir,
         "look GPU model names up in DIR instead of the bundled models/",
         "DIR"},
        G_OPTION_ENTRY_NULL};
    int status = 0;
    if (!sim_cli_parse("occupancy", "", occupancy_description, entries, &argc,
                       &argv, &status))
        return status;

    g_autoptr(GError) error = NULL;
    if (argc > 1)
        g_set_error(&error, SIM_ERROR, SIM_ERROR_USAGE,
                    "occupancy: unexpected argument '%s'", argv[1]);
    else if (!gpu)
        g_set_error(&error, SIM_ERROR, SIM_ERROR_USAGE,
                    "occupancy: --gpu NAME is required (see 'hqsim models')");
    else if (!block_s)
        g_set_error(&error, SIM_ERROR, SIM_ERROR_USAGE,
                    "occupancy: --block N|X,Y,Z is required");
    if (error)
        return sim_cli_report_error(error);

    SimKernelSpec k;
    memset(&k, 0, sizeof k);
    k.name = "kernel";
    k.grid[0] = k.grid[1] = k.grid[2] = 1;
    uint64_t regs = 0, smem_static = 0, smem_dynamic = 0;
    /* Ranges here only keep the numbers in 32 bits; the calculator checks
     * them against the model's limits and names the limit it breaks. */
    if (!parse_block(block_s, k.block, &error) ||
        (regs_s &&
         !parse_count("--regs", regs_s, false, 0, 65535, &regs, &error)) ||
        (smem_static_s && !parse_count("--smem-static", smem_static_s, true, 0,
                                       UINT32_MAX, &smem_static, &error)) ||
        (smem_dynamic_s && !parse_count("--smem-dynamic", smem_dynamic_s, true,
                                        0, UINT32_MAX, &smem_dynamic, &error)))
        return sim_cli_report_error(error);
    k.regs_per_thread = (uint32_t)regs;
    k.static_smem_bytes = (uint32_t)smem_static;
    k.dynamic_smem_bytes = (uint32_t)smem_dynamic;

    g_autoptr(GpuModel) m = sim_gpu_model_find(gpu, dir, &error);
    if (!m)
        return sim_cli_report_error(error);
    SimOccupancy o;
    if (!sim_occupancy(m, &k, &o, &error))
        return sim_cli_report_error(error);
    if (json)
        print_json(m, &k, &o);
    else
        print_text(m, &k, &o);
    return 0;
}
