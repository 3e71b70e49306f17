/* kernel_class.c -- a bare kernel's class from its name.  See
 * kernel_class.h. */
#include "kernel_class.h"

#include <glib.h>
#include <string.h>

/* Ordered: the first row with a fragment found in the lower-cased name
 * wins, so "gemv" comes before "gemm" (cuBLAS names GEMVs "gemv2T",
 * "gemvx", "gemvNSP"; its "gemmSN" GEMV-like kernels stay GEMMs), the
 * CUDA-core FP32 GEMMs ("ffma", "simt", "sgemm", and xmma's
 * "_f32f32_f32f32_f32", whose "ffma" Kineto cuts off at 80 characters)
 * before the others, and "other" (the empty fragment) last.  The fragments cover the kernels of
 * the H100 ncu data (PyTorch 2.11, cuBLAS, cuDNN, CUTLASS, FlashAttention;
 * harness/bare_kernel_fit.py lists them per class). */
static const struct {
    SimKernelClass c;
    const char *name;
    const char *frag[10]; /* NULL-terminated */
} classes[] = {
    {SIM_KCLASS_GEMV, "gemv", {"gemv", NULL}},
    {SIM_KCLASS_SGEMM,
     "sgemm",
     {"ffma", "simt", "sgemm", "_f32f32_f32f32_f32", NULL}},
    {SIM_KCLASS_GEMM,
     "gemm",
     {"gemm", "xmma", "cutlass", "nvjet", "fmha", "conv", "attention", NULL}},
    {SIM_KCLASS_NORM,
     "norm",
     {"norm", "softmax", "reduce", "pool", "bn_fw", NULL}},
    {SIM_KCLASS_ELEMENTWISE,
     "elementwise",
     {"elementwise", "copy", "index", "nchwtonhwc", "nhwctonchw", "scal_kernel",
      "transpose", "fill", NULL}},
    {SIM_KCLASS_OTHER, "other", {"", NULL}},
};

SimKernelClass sim_kernel_class_of(const char *name)
{
    g_autofree char *low = g_ascii_strdown(name ? name : "", -1);
    for (size_t i = 0; i < G_N_ELEMENTS(classes); i++)
        for (const char *const *f = classes[i].frag; *f; f++)
            if (strstr(low, *f))
                return classes[i].c;
    return SIM_KCLASS_OTHER;
}

const char *sim_kernel_class_name(SimKernelClass c)
{
    for (size_t i = 0; i < G_N_ELEMENTS(classes); i++)
        if (classes[i].c == c)
            return classes[i].name;
    return "";
}

bool sim_kernel_class_parse(const char *s, SimKernelClass *c)
{
    for (size_t i = 0; i < G_N_ELEMENTS(classes); i++)
        if (strcmp(classes[i].name, s) == 0) {
            *c = classes[i].c;
            return true;
        }
    return false;
}
