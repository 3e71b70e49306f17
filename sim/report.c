/* report.c -- text, JSON and CSV views of results.  See report.h. */
#include "report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#include "error.h"
#include "outfile.h"

static const char *status_name(SimProcStatus s)
{
    switch (s) {
    case SIM_PROC_OK: return "ok";
    case SIM_PROC_NOT_STARTED: return "refused";
    default: return "killed";
    }
}

static double ms(SimTime t)
{
    return sim_time_to_ms(t);
}

double sim_result_total_throughput(const SimResult *r)
{
    double t = 0;
    for (uint32_t i = 0; i < r->n_procs; i++)
        t += sim_proc_throughput(&r->procs[i]);
    return t;
}

SimTime sim_result_latency_pct(const SimResult *r, double pct)
{
    g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(SimTime));
    for (uint32_t i = 0; i < r->n_procs; i++)
        g_array_append_vals(all, r->procs[i].latency_ns->data,
                            r->procs[i].latency_ns->len);
    return sim_percentile(all, pct);
}

static SimTime mean_time(const GArray *a)
{
    return sim_time_mean(a);
}

SimTime sim_result_latency_mean(const SimResult *r)
{
    g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(SimTime));
    for (uint32_t i = 0; i < r->n_procs; i++)
        g_array_append_vals(all, r->procs[i].latency_ns->data,
                            r->procs[i].latency_ns->len);
    return mean_time(all);
}

static SimTime proc_span(const SimProcResult *p)
{
    return p->end_ns > p->start_ns ? p->end_ns - p->start_ns : 0;
}

/* ------------------------------------------------------------------------
 * Text
 * ------------------------------------------------------------------------ */

static void text_gpu(const SimResult *r, const GpuModel *m, GString *o)
{
    g_string_append_printf(
        o,
        "GPU\n"
        "  GPU-Util (nvidia-smi)    %5.1f%%   (share of time with >= 1 kernel "
        "running; max %.0f%% over %.0f ms samples)\n"
        "  SM-active                %5.1f%%   (mean over %u SMs of time with "
        ">= 1 warp resident)\n"
        "  achieved occupancy       %5.1f%%   (resident warps / %u per SM)\n"
        "  context switches         %u\n",
        100 * r->gpu_util, 100 * r->gpu_util_max_sample, ms(r->nvml_period_ns),
        100 * r->sm_active, r->sm_count, 100 * r->achieved_occupancy,
        r->max_warps_per_sm, (unsigned)r->context_switches);
    g_string_append_printf(o,
                           "  copy engines busy        h2d %.3f ms, d2h %.3f "
                           "ms, d2d %.3f ms\n",
                           ms(r->copy_busy_ns[SIM_COPY_H2D]),
                           ms(r->copy_busy_ns[SIM_COPY_D2H]),
                           ms(r->copy_busy_ns[SIM_COPY_D2D]));
    uint64_t alloc = 0, total = 0;
    for (uint32_t i = 0; i < r->n_procs; i++) {
        alloc += r->procs[i].mem_alloc_bytes;
        total += r->procs[i].mem_bytes;
    }
    g_string_append_printf(
        o,
        "  device memory (peak)     %.0f of %.0f MiB: "
        "%.0f MiB allocations + %.0f MiB contexts (%.0f "
        "MiB per own context; MPS: %.0f per client, %.0f "
        "for the server)\n",
        r->device_mem_used_bytes / 1048576.0, r->device_mem_bytes / 1048576.0,
        alloc / 1048576.0, (total - alloc) / 1048576.0,
        m->context_mem_bytes / 1048576.0, m->mps_client_mem_bytes / 1048576.0,
        m->mps_server_mem_bytes / 1048576.0);
}

char **sim_report_caveats(const SimScenario *sc, const GpuModel *m)
{
    GPtrArray *w = g_ptr_array_new();
    if (!m->calibrated)
        g_ptr_array_add(
            w,
            g_strdup_printf(
                "GPU model '%s' is not calibrated on hardware: its parameters "
                "come from documentation and from the calibrated H100's values "
                "by stated rules; its errors are unmeasured (expected errors "
                "by "
                "field: README, \"GPU models\")",
                m->name));
    if (sc->gpu_mapping)
        g_ptr_array_add(w, g_strdup(sc->gpu_mapping));
    if (sc->clock_note)
        g_ptr_array_add(w, g_strdup(sc->clock_note));
    g_ptr_array_add(w, NULL);
    return (char **)g_ptr_array_free(w, FALSE);
}

/* The model's calibration and the trace's GPU mapping, one line each
 * (sim_report_caveats). */
static void text_caveats(const GpuModel *m, const SimScenario *sc, GString *o)
{
    g_auto(GStrv) w = sim_report_caveats(sc, m);
    g_string_append_printf(o, "GPU model %s: %s\n", m->name,
                           m->calibrated ? "calibrated on hardware"
                                         : "NOT calibrated");
    for (char **s = w; *s; s++)
        g_string_append_printf(o, "warning: %s\n", *s);
}

void sim_report_text(const SimResult *r, const GpuModel *m,
                     const SimScenario *sc, GString *o)
{
    g_string_append_printf(o, "hqsim run: %s (%s) on %s (%s), mode %s\n",
                           sc->source, sc->format, m->name, m->display_name,
                           r->mode);
    text_caveats(m, sc, o);
    g_string_append_printf(o, "makespan %.3f ms; %llu events\n\n",
                           ms(r->makespan_ns), (unsigned long long)r->events);
    g_string_append(o, "Processes\n");
    g_string_append_printf(o,
                           "  %-16s %-8s %-7s %8s %6s %11s %10s %10s %10s "
                           "%10s %12s %8s %5s\n",
                           "name", "context", "status", "kernels", "iters",
                           "makespan_ms", "p50_ms", "p90_ms", "p99_ms",
                           "mean_ms", "iters_per_s", "mem_MiB", "SMs");
    for (uint32_t i = 0; i < r->n_procs; i++) {
        const SimProcResult *p = &r->procs[i];
        g_string_append_printf(
            o,
            "  %-16s %-8s %-7s %8llu %6u %11.3f %10.3f %10.3f %10.3f %10.3f "
            "%12.2f %8.0f %5u\n",
            p->name,
            p->status == SIM_PROC_NOT_STARTED ? "-"
            : p->mps                          ? "mps"
                                              : "own",
            status_name(p->status), (unsigned long long)p->kernels,
            p->iterations_done, ms(proc_span(p)),
            ms(sim_percentile(p->latency_ns, 50)),
            ms(sim_percentile(p->latency_ns, 90)),
            ms(sim_percentile(p->latency_ns, 99)), ms(mean_time(p->latency_ns)),
            sim_proc_throughput(p), p->mem_bytes / 1048576.0, p->sm_limit);
        if (p->status_reason)
            g_string_append_printf(o, "    %s\n", p->status_reason);
    }
    g_string_append(o, "\nStreams\n");
    g_string_append_printf(o,
                           "  %-16s %-12s %5s %4s %7s %10s %11s %10s "
                           "%10s\n",
                           "process", "stream", "queue", "prio", "ops",
                           "busy_ms", "span_ms", "p50_ms", "p99_ms");
    uint32_t shown = 0;
    for (uint32_t i = 0; i < r->n_procs; i++) {
        const SimProcResult *p = &r->procs[i];
        for (uint32_t s = 0; s < p->n_streams; s++) {
            const SimStreamResult *st = &p->streams[s];
            if (!st->ops)
                continue;
            if (shown++ == 40) {
                g_string_append(o, "  ... (more streams in --json and "
                                   "--csv)\n");
                break;
            }
            g_string_append_printf(
                o, "  %-16s %-12s %5u %4d %7llu %10.3f %11.3f %10.3f %10.3f\n",
                p->name, st->name, st->queue, st->priority,
                (unsigned long long)st->ops, ms(st->busy_ns),
                ms(st->last_end_ns - st->first_start_ns),
                ms(sim_percentile(st->latency_ns, 50)),
                ms(sim_percentile(st->latency_ns, 99)));
        }
        if (shown > 40)
            break;
    }
    g_string_append_c(o, '\n');
    text_gpu(r, m, o);
    if (r->notes->len) {
        g_string_append(o, "\nNotes\n");
        for (guint i = 0; i < r->notes->len; i++)
            g_string_append_printf(
                o, "  - %s\n", (const char *)g_ptr_array_index(r->notes, i));
    }
}

/* ------------------------------------------------------------------------
 * JSON
 * ------------------------------------------------------------------------ */

static cJSON *json_run(const SimResult *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "gpu", r->gpu_name);
    cJSON_AddStringToObject(o, "mode", r->mode);
    cJSON_AddNumberToObject(o, "makespan_ms", ms(r->makespan_ns));
    cJSON_AddNumberToObject(o, "events", (double)r->events);
    cJSON_AddNumberToObject(o, "throughput_per_s",
                            sim_result_total_throughput(r));
    cJSON_AddNumberToObject(o, "latency_p50_ms",
                            ms(sim_result_latency_pct(r, 50)));
    cJSON_AddNumberToObject(o, "latency_p90_ms",
                            ms(sim_result_latency_pct(r, 90)));
    cJSON_AddNumberToObject(o, "latency_p99_ms",
                            ms(sim_result_latency_pct(r, 99)));
    cJSON_AddNumberToObject(o, "latency_mean_ms",
                            ms(sim_result_latency_mean(r)));
    cJSON *g = cJSON_AddObjectToObject(o, "gpu_metrics");
    /* Names as the tools that measure them: nvidia-smi's utilization.gpu
     * (as a fraction), DCGM's sm_active and sm_occupancy. */
    cJSON_AddNumberToObject(g, "utilization.gpu", r->gpu_util);
    cJSON_AddNumberToObject(g, "utilization.gpu_max_sample",
                            r->gpu_util_max_sample);
    cJSON_AddNumberToObject(g, "nvml_sample_period_ms", ms(r->nvml_period_ns));
    cJSON_AddNumberToObject(g, "sm_active", r->sm_active);
    cJSON_AddNumberToObject(g, "sm_occupancy", r->achieved_occupancy);
    cJSON_AddNumberToObject(g, "context_switches", (double)r->context_switches);
    cJSON_AddNumberToObject(g, "copy_busy_h2d_ms",
                            ms(r->copy_busy_ns[SIM_COPY_H2D]));
    cJSON_AddNumberToObject(g, "copy_busy_d2h_ms",
                            ms(r->copy_busy_ns[SIM_COPY_D2H]));
    cJSON_AddNumberToObject(g, "copy_busy_d2d_ms",
                            ms(r->copy_busy_ns[SIM_COPY_D2D]));
    cJSON_AddNumberToObject(g, "device_mem_used_mib",
                            r->device_mem_used_bytes / 1048576.0);
    cJSON_AddNumberToObject(g, "device_mem_mib",
                            r->device_mem_bytes / 1048576.0);
    cJSON *samples = cJSON_AddArrayToObject(g, "utilization.gpu_samples");
    for (guint i = 0; i < r->util_samples->len; i++)
        cJSON_AddItemToArray(samples, cJSON_CreateNumber(g_array_index(
                                          r->util_samples, double, i)));
    cJSON *procs = cJSON_AddArrayToObject(o, "processes");
    for (uint32_t i = 0; i < r->n_procs; i++) {
        const SimProcResult *p = &r->procs[i];
        cJSON *po = cJSON_CreateObject();
        cJSON_AddStringToObject(po, "name", p->name);
        cJSON_AddStringToObject(po, "status", status_name(p->status));
        if (p->status_reason)
            cJSON_AddStringToObject(po, "reason", p->status_reason);
        cJSON_AddBoolToObject(po, "mps", p->mps);
        cJSON_AddNumberToObject(po, "context", p->ctx);
        cJSON_AddNumberToObject(po, "connections", p->connections);
        cJSON_AddNumberToObject(po, "sm_limit", p->sm_limit);
        cJSON_AddNumberToObject(po, "active_thread_pct", p->active_thread_pct);
        cJSON_AddNumberToObject(po, "mem_mib", p->mem_bytes / 1048576.0);
        cJSON_AddNumberToObject(po, "mem_alloc_mib",
                                p->mem_alloc_bytes / 1048576.0);
        cJSON_AddNumberToObject(po, "mem_context_mib",
                                (p->mem_bytes - p->mem_alloc_bytes) /
                                    1048576.0);
        cJSON_AddNumberToObject(po, "start_ms", ms(p->start_ns));
        cJSON_AddNumberToObject(po, "end_ms", ms(p->end_ns));
        cJSON_AddNumberToObject(po, "makespan_ms", ms(proc_span(p)));
        cJSON_AddNumberToObject(po, "kernels", (double)p->kernels);
        cJSON_AddNumberToObject(po, "copies", (double)p->copies);
        cJSON_AddNumberToObject(po, "iterations", p->iterations_done);
        cJSON_AddNumberToObject(po, "throughput_per_s", sim_proc_throughput(p));
        cJSON_AddNumberToObject(po, "latency_p50_ms",
                                ms(sim_percentile(p->latency_ns, 50)));
        cJSON_AddNumberToObject(po, "latency_p90_ms",
                                ms(sim_percentile(p->latency_ns, 90)));
        cJSON_AddNumberToObject(po, "latency_p99_ms",
                                ms(sim_percentile(p->latency_ns, 99)));
        cJSON_AddNumberToObject(po, "latency_mean_ms",
                                ms(mean_time(p->latency_ns)));
        cJSON *streams = cJSON_AddArrayToObject(po, "streams");
        for (uint32_t s = 0; s < p->n_streams; s++) {
            const SimStreamResult *st = &p->streams[s];
            cJSON *so = cJSON_CreateObject();
            cJSON_AddStringToObject(so, "name", st->name);
            cJSON_AddNumberToObject(so, "priority", st->priority);
            cJSON_AddNumberToObject(so, "queue", st->queue);
            cJSON_AddNumberToObject(so, "ops", (double)st->ops);
            cJSON_AddNumberToObject(so, "busy_ms", ms(st->busy_ns));
            cJSON_AddNumberToObject(so, "first_start_ms",
                                    ms(st->first_start_ns));
            cJSON_AddNumberToObject(so, "last_end_ms", ms(st->last_end_ns));
            cJSON_AddNumberToObject(so, "latency_p50_ms",
                                    ms(sim_percentile(st->latency_ns, 50)));
            cJSON_AddNumberToObject(so, "latency_p99_ms",
                                    ms(sim_percentile(st->latency_ns, 99)));
            cJSON_AddItemToArray(streams, so);
        }
        cJSON_AddItemToArray(procs, po);
    }
    cJSON *notes = cJSON_AddArrayToObject(o, "notes");
    for (guint i = 0; i < r->notes->len; i++)
        cJSON_AddItemToArray(
            notes, cJSON_CreateString(g_ptr_array_index(r->notes, i)));
    return o;
}

static void json_header(cJSON *o, const GpuModel *m, const SimScenario *sc)
{
    cJSON_AddStringToObject(o, "hqsim_result", "1");
    cJSON_AddStringToObject(o, "source", sc->source);
    cJSON_AddStringToObject(o, "format", sc->format);
    cJSON_AddStringToObject(o, "gpu_model", m->name);
    cJSON_AddStringToObject(o, "gpu_display_name", m->display_name);
    cJSON_AddBoolToObject(o, "gpu_calibrated", m->calibrated);
    if (sc->gpu_recorded)
        cJSON_AddStringToObject(o, "gpu_recorded", sc->gpu_recorded);
    else
        cJSON_AddNullToObject(o, "gpu_recorded");
    if (sc->gpu_mapping)
        cJSON_AddStringToObject(o, "gpu_mapping", sc->gpu_mapping);
    else
        cJSON_AddNullToObject(o, "gpu_mapping");
    g_auto(GStrv) w = sim_report_caveats(sc, m);
    cJSON *arr = cJSON_AddArrayToObject(o, "warnings");
    for (char **s = w; *s; s++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(*s));
}

char *sim_report_json(const SimResult *r, const GpuModel *m,
                      const SimScenario *sc)
{
    cJSON *o = cJSON_CreateObject();
    json_header(o, m, sc);
    cJSON_AddItemToObject(o, "run", json_run(r));
    char *s = cJSON_Print(o);
    cJSON_Delete(o);
    char *out = g_strconcat(s, "\n", NULL);
    cJSON_free(s);
    return out;
}

/* ------------------------------------------------------------------------
 * CSV
 * ------------------------------------------------------------------------ */

static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

bool sim_report_csv(const SimResult *r, const GpuModel *m, const char *path,
                    GError **error)
{
    SimOutFile *of = sim_out_open(path, error);
    if (!of)
        return false;
    FILE *f = sim_out_stream(of);
    fputs("process,stream,op,iteration,kind,name,context,queue,issue_us,"
          "start_us,end_us,duration_us,blocks,sms_used,sms,aborted,gpu,"
          "gpu_calibrated\n",
          f);
    for (guint i = 0; i < r->ops->len; i++) {
        const SimOpRecord *o = &g_array_index(r->ops, SimOpRecord, i);
        const SimProcResult *p = &r->procs[o->proc];
        csv_field(f, p->name);
        fputc(',', f);
        csv_field(f, p->streams[o->stream].name);
        fprintf(f, ",%u,%u,%s,", o->op_index, o->iteration,
                sim_op_kind_name(o->kind));
        csv_field(f, o->name);
        fprintf(f, ",%u,%d,%.3f,%.3f,%.3f,%.3f,%llu,%u,", o->ctx, o->queue,
                o->issue_ns / 1e3, o->start_ns / 1e3, o->end_ns / 1e3,
                (o->end_ns - o->start_ns) / 1e3, (unsigned long long)o->blocks,
                o->sms_used);
        if (o->sm_set != SIM_NO_INDEX) {
            g_autofree char *set = sim_sm_set_format(r, o->sm_set);
            csv_field(f, set);
        }
        fprintf(f, ",%d,", o->aborted ? 1 : 0);
        csv_field(f, m->name);
        fputs(m->calibrated ? ",yes\n" : ",no\n", f);
    }
    return sim_out_commit(of, error);
}

/* ------------------------------------------------------------------------
 * Comparison
 * ------------------------------------------------------------------------ */

static double ratio(double a, double b)
{
    return b != 0 ? a / b : NAN;
}

void sim_report_compare_text(SimResult *const *runs, uint32_t n,
                             const GpuModel *m, const SimScenario *sc,
                             GString *o)
{
    g_string_append_printf(o, "hqsim compare: %s (%s) on %s (%s)\n", sc->source,
                           sc->format, m->name, m->display_name);
    text_caveats(m, sc, o);
    g_string_append_c(o, '\n');
    g_string_append_printf(o, "  %-26s", "");
    for (uint32_t i = 0; i < n; i++)
        g_string_append_printf(o, " %14s", runs[i]->mode);
    if (n > 1)
        g_string_append_printf(o, "   %s/%s", runs[n - 1]->mode, runs[0]->mode);
    g_string_append_c(o, '\n');
#define ROW(label, fmt, expr)                                                  \
    do {                                                                       \
        g_string_append_printf(o, "  %-26s", label);                           \
        double first = 0, last = 0;                                            \
        for (uint32_t i = 0; i < n; i++) {                                     \
            const SimResult *r = runs[i];                                      \
            double v = (expr);                                                 \
            if (i == 0)                                                        \
                first = v;                                                     \
            last = v;                                                          \
            g_string_append_printf(o, " " fmt, v);                             \
        }                                                                      \
        if (n > 1)                                                             \
            g_string_append_printf(o, "   %.3fx", ratio(last, first));         \
        g_string_append_c(o, '\n');                                            \
    } while (0)
    ROW("makespan (ms)", "%14.3f", ms(r->makespan_ns));
    ROW("throughput (iters/s)", "%14.2f", sim_result_total_throughput(r));
    ROW("latency p50 (ms)", "%14.3f", ms(sim_result_latency_pct(r, 50)));
    ROW("latency p90 (ms)", "%14.3f", ms(sim_result_latency_pct(r, 90)));
    ROW("latency p99 (ms)", "%14.3f", ms(sim_result_latency_pct(r, 99)));
    ROW("latency mean (ms)", "%14.3f", ms(sim_result_latency_mean(r)));
    ROW("GPU-Util, nvidia-smi (%)", "%14.1f", 100 * r->gpu_util);
    ROW("SM-active (%)", "%14.1f", 100 * r->sm_active);
    ROW("achieved occupancy (%)", "%14.1f", 100 * r->achieved_occupancy);
    ROW("context switches", "%14.0f", (double)r->context_switches);
    ROW("device memory (MiB)", "%14.0f", r->device_mem_used_bytes / 1048576.0);
#undef ROW
    g_string_append(o, "\nPer process: makespan_ms / p99_ms\n");
    for (uint32_t p = 0; p < runs[0]->n_procs; p++) {
        g_string_append_printf(o, "  %-26s", runs[0]->procs[p].name);
        for (uint32_t i = 0; i < n; i++) {
            const SimProcResult *pr = &runs[i]->procs[p];
            if (pr->status != SIM_PROC_OK)
                g_string_append_printf(o, " %14s", status_name(pr->status));
            else
                g_string_append_printf(o, " %6.1f/%7.1f", ms(proc_span(pr)),
                                       ms(sim_percentile(pr->latency_ns, 99)));
        }
        g_string_append_c(o, '\n');
    }
    for (uint32_t i = 0; i < n; i++)
        for (guint j = 0; j < runs[i]->notes->len; j++) {
            if (i == 0 && j == 0)
                g_string_append(o, "\nNotes\n");
            g_string_append_printf(
                o, "  - [%s] %s\n", runs[i]->mode,
                (const char *)g_ptr_array_index(runs[i]->notes, j));
        }
}

char *sim_report_compare_json(SimResult *const *runs, uint32_t n,
                              const GpuModel *m, const SimScenario *sc)
{
    cJSON *o = cJSON_CreateObject();
    json_header(o, m, sc);
    cJSON *arr = cJSON_AddArrayToObject(o, "runs");
    for (uint32_t i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, json_run(runs[i]));
    if (n > 1) {
        const SimResult *a = runs[0], *b = runs[n - 1];
        cJSON *rt = cJSON_AddObjectToObject(o, "ratios_last_over_first");
        cJSON_AddNumberToObject(rt, "makespan",
                                ratio(ms(b->makespan_ns), ms(a->makespan_ns)));
        cJSON_AddNumberToObject(rt, "throughput",
                                ratio(sim_result_total_throughput(b),
                                      sim_result_total_throughput(a)));
        cJSON_AddNumberToObject(rt, "latency_p99",
                                ratio((double)sim_result_latency_pct(b, 99),
                                      (double)sim_result_latency_pct(a, 99)));
        cJSON_AddNumberToObject(rt, "gpu_util",
                                ratio(b->gpu_util, a->gpu_util));
        cJSON_AddNumberToObject(rt, "sm_active",
                                ratio(b->sm_active, a->sm_active));
    }
    char *s = cJSON_Print(o);
    cJSON_Delete(o);
    char *out = g_strconcat(s, "\n", NULL);
    cJSON_free(s);
    return out;
}
