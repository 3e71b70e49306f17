/* workload_file.h -- a workload file: several traces (or scenarios) as one
 * workload, each with its copies, name, MPS active thread percentage and
 * device memory.
 *
 *   {"hqsim_workload": 1,
 *    "description": "two inference servers beside one trainer",
 *    "parts": [
 *      {"file": "infer.json.gz", "count": 2, "name": "infer",
 *       "thread_pct": 30, "mps": true, "mem_mib": 2048},
 *      {"file": "train.json.gz", "name": "train", "thread_pct": 70}]}
 *
 * file is relative to the workload file's folder; count (default 1) copies
 * the part's processes as --processes does (NAME#0, NAME#1, ...); name
 * renames them (NAME, or NAME:ORIGINAL when the part has several);
 * thread_pct, in (0, 100], is what each of them asks of MPS when the
 * command's --thread-pct (or sweep's -t) leaves it to the workload; mps
 * makes them MPS clients in mode "scenario"; mem_mib sets their device
 * memory.  Each part goes through the same preparation (plan/prepare.h
 * steps 1-6, with the command's options) as a file given alone; the
 * command's --mem-mib then applies to the whole workload, and steps 7-8
 * (retarget, --processes N) to the whole workload too, so all parts must
 * have been recorded on (or name) the same GPU.
 */
#ifndef PLAN_WORKLOAD_FILE_H
#define PLAN_WORKLOAD_FILE_H

#include <glib.h>
#include <stdbool.h>

#include "prepare.h"
#include "scenario.h"

/* Whether @path is a regular file whose first 4 KiB hold the key
 * "hqsim_workload" (never blocks: FIFOs and devices are not read). */
bool prep_is_workload(const char *path);

/* Load and prepare every part of the workload file @path, and join them.
 * Errors name the file, line and field.
 * Returns: (transfer full) (nullable). */
SimScenario *prep_workload_load(const char *path, const PrepOptions *o,
                                GError **error);

#endif /* PLAN_WORKLOAD_FILE_H */
