/* gpu_map.c -- from the GPU a trace names to the closest hqsim model.
 *
 * hqsim ships models for k40, p100, p40, v100, titan-v, t4, a100, l4,
 * rtx2000-ada, h100-sxm and h200.  A trace that names one of these GPUs
 * gets that model; any other GPU gets the model of its architecture
 * generation (the per-SM limits -- registers, shared memory, warps and block
 * slots -- that decide occupancy are set per generation), and the reason
 * says so.  When the name is unknown, the compute capability decides.
 */
#include <string.h>

#include "import.h"

typedef struct {
    const char *pattern; /* case-insensitive regular expression */
    const char *model;
    const char *generation; /* NULL: the model is this GPU */
} GpuRule;

/* First match wins, so specific names come before families. */
static const GpuRule rules[] = {
    /* Blackwell: newer than any model; the newest stands in. */
    {"\\b(gb|b)(100|200|300)\\b|rtx (pro )?50[0-9]0|blackwell", "h200",
     "Blackwell (sm_100/sm_120), newer than every hqsim model; h200 is the "
     "newest"},
    {"\\bgh200\\b", "h100-sxm", "Hopper (sm_90), Grace Hopper"},
    {"\\bh200\\b", "h200", NULL},
    {"\\bh100\\b.*\\bsxm|\\bh100 80gb hbm3\\b", "h100-sxm", NULL},
    {"\\b(h100|h800|h20)\\b", "h100-sxm", "Hopper (sm_90)"},
    {"\\brtx 2000 ada\\b", "rtx2000-ada", NULL},
    {"\\bl4\\b", "l4", NULL},
    {"\\b(l40s?|l20)\\b", "l4", "Ada Lovelace (sm_89), data-centre"},
    {"\\bada\\b|rtx 40[0-9]0", "rtx2000-ada",
     "Ada Lovelace (sm_89), workstation/GeForce"},
    {"\\b(a100|a800)\\b", "a100", NULL},
    {"\\ba30\\b", "a100", "Ampere GA100 (sm_80)"},
    {"\\b(a10g?|a16|a2|a40|rtx a[0-9]000|a[0-9]000)\\b|rtx 30[0-9]0", "a100",
     "Ampere GA10x (sm_86)"},
    {"\\bt4\\b", "t4", NULL},
    {"rtx 20[0-9]0|titan rtx|quadro rtx|gtx 16[0-9]0|\\bt(400|600|1000)\\b",
     "t4", "Turing (sm_75)"},
    {"\\btitan v\\b", "titan-v", NULL},
    {"\\bv100\\b", "v100", NULL},
    {"\\bgv100\\b", "v100", "Volta (sm_70)"},
    {"\\bp100\\b", "p100", NULL},
    {"\\bgp100\\b", "p100", "Pascal GP100 (sm_60)"},
    {"\\bp40\\b", "p40", NULL},
    {"\\b(p4|p6|p2000|p4000|p5000|p6000)\\b|gtx 10[0-9]0|titan xp?\\b|"
     "titan x \\(pascal\\)",
     "p40", "Pascal GP10x (sm_61)"},
    {"gtx titan x\\b|gtx 9[0-9]0|gtx 750|\\bm(4|6|10|40|60)\\b|"
     "quadro m[0-9]+",
     "p40",
     "Maxwell (sm_5x): its per-SM limits equal Pascal sm_61's; note Maxwell "
     "preempts only at block boundaries"},
    {"\\bk(10|20|20x|40|40c|40m|80)\\b|gtx titan|titan (black|z)|gtx 7[0-9]0",
     "k40", "Kepler (sm_3x)"},
};

static const char *by_cc(int major, int minor, const char **why)
{
    static const struct {
        int major, minor; /* minor -1: any */
        const char *model, *gen;
    } t[] = {
        {3, -1, "k40", "Kepler (sm_3x)"},
        {5, -1, "p40", "Maxwell (sm_5x), per-SM limits as sm_61"},
        {6, 0, "p100", "Pascal (sm_60)"},
        {6, -1, "p40", "Pascal (sm_61)"},
        {7, 5, "t4", "Turing (sm_75)"},
        {7, -1, "v100", "Volta (sm_70)"},
        {8, 9, "l4", "Ada Lovelace (sm_89)"},
        {8, -1, "a100", "Ampere (sm_8x)"},
        {9, -1, "h100-sxm", "Hopper (sm_90)"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(t); i++)
        if (t[i].major == major && (t[i].minor < 0 || t[i].minor == minor)) {
            *why = t[i].gen;
            return t[i].model;
        }
    if (major >= 10) {
        *why = "compute capability 10+, newer than every hqsim model";
        return "h200";
    }
    return NULL;
}

const char *sim_import_gpu_model_for(const char *gpu_name, int cc_major,
                                     int cc_minor, const char **generation)
{
    const char *dummy;
    if (!generation)
        generation = &dummy;
    *generation = NULL;
    if (gpu_name && *gpu_name) {
        for (size_t i = 0; i < G_N_ELEMENTS(rules); i++)
            if (g_regex_match_simple(rules[i].pattern, gpu_name,
                                     G_REGEX_CASELESS, 0)) {
                *generation = rules[i].generation;
                return rules[i].model;
            }
    }
    if (cc_major > 0)
        return by_cc(cc_major, cc_minor, generation);
    return NULL;
}
