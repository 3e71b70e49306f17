"""tests/test_python.py -- the Python binding (python/hqsim) against the
command line: for the same input and options, the binding's dicts must be
the document `hqsim ... --json -` prints, and a bad input must raise
HqsimError with the message the command line prints.

Run by `make check` as
    HQSIM=build/hqsim HQSIM_LIB=build/libhqsim.so python3 tests/test_python.py
(standard library only).
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import hqsim  # noqa: E402

HQSIM = os.environ.get("HQSIM", os.path.join(ROOT, "build", "hqsim"))
WORKERS = "traces/teaching/b-mps-lower-util-faster.json"
KINETO = "tests/data/import/kineto_2pid.json"
NSYS = "tests/data/import/nsys_gpu_trace_2024.csv"


def cli(*args):
    """The JSON `hqsim ARGS --json -` prints (from the project root)."""
    out = subprocess.run([HQSIM, *args, "--json", "-"], cwd=ROOT,
                         env=dict(os.environ, HQSIM_PROGRESS="0"),
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


class Binding(unittest.TestCase):
    def setUp(self):
        os.chdir(ROOT)  # the JSON names inputs as given

    def test_run_scenario(self):
        got = hqsim.run(WORKERS)
        self.assertEqual(got, cli("run", WORKERS))
        self.assertGreater(got["run"]["makespan_ms"], 0)

    def test_run_options(self):
        got = hqsim.run(WORKERS, mode="mps", processes=3, thread_pct=40,
                        no_jitter=True, seed=7)
        want = cli("run", WORKERS, "--mode", "mps", "--processes", "3",
                   "--thread-pct", "40", "--no-jitter", "--seed", "7")
        self.assertEqual(got, want)
        self.assertEqual(len(got["run"]["processes"]), 12)
        # ... and the options did something.
        self.assertNotEqual(got, hqsim.run(WORKERS))

    def test_compare_traces(self):
        got = hqsim.compare(KINETO, modes=["mps", "timeslice"], processes=2,
                            iterations=3)
        want = cli("compare", KINETO, "--modes", "mps,timeslice",
                   "--processes", "2", "--iterations", "3")
        self.assertEqual(got, want)
        self.assertEqual([r["mode"] for r in got["runs"]],
                         ["mps", "timeslice"])

    def test_compare_trace_options(self):
        got = hqsim.compare([NSYS], host_scale=0.5, as_recorded=True)
        want = cli("compare", NSYS, "--host-scale", "0.5", "--as-recorded")
        self.assertEqual(got, want)

    def test_sweep(self):
        got = hqsim.sweep(WORKERS, processes=[1, 2, 3],
                          modes="timeslice,mps", thread_pct="equal,50",
                          slo_p99_ms=20, threads=2)
        want = cli("sweep", WORKERS, "--processes", "1,2,3", "--modes",
                   "timeslice,mps", "--thread-pct", "equal,50",
                   "--slo-p99-ms", "20", "--threads", "1")
        self.assertEqual(got, want)
        # 3 N x (timeslice + mps at 2 percentages)
        self.assertEqual(len(got["configurations"]), 9)

    def test_input_error(self):
        bad = "tests/data/malformed/scn-startus-neg.json"
        with self.assertRaises(hqsim.HqsimError) as ctx:
            hqsim.run(bad)
        e = ctx.exception
        self.assertEqual(e.code, "invalid")
        self.assertIn(bad + ":8:", e.message)
        self.assertIn("field 'start_us'", e.message)
        # The command line reports the same message.
        out = subprocess.run([HQSIM, "run", bad], cwd=ROOT,
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 1)
        self.assertEqual(out.stderr.strip(), "hqsim: " + e.message)

    def test_option_errors(self):
        with self.assertRaises(hqsim.HqsimError) as ctx:
            hqsim.run(WORKERS, processes=0)
        self.assertEqual(ctx.exception.code, "usage")
        self.assertIn("processes", str(ctx.exception))
        with self.assertRaises(hqsim.HqsimError) as ctx:
            hqsim.run(WORKERS, quiet=True)  # the command line's alone
        self.assertEqual(ctx.exception.code, "usage")
        self.assertIn("'quiet'", str(ctx.exception))
        with self.assertRaises(hqsim.HqsimError) as ctx:
            hqsim.compare("no-such-file.json")
        self.assertEqual(ctx.exception.code, "io")

    def test_output_files(self):
        # The files the command line writes with the same options, byte
        # for byte, and the returned document is the JSON file's.
        with tempfile.TemporaryDirectory() as d:
            got = hqsim.compare(WORKERS, json=d + "/api.json",
                                csv=d + "/api.csv", processes=2)
            subprocess.run([HQSIM, "compare", WORKERS, "--processes", "2",
                            "--json", d + "/cli.json", "--csv",
                            d + "/cli.csv", "-q"], cwd=ROOT, check=True)
            names = sorted(os.listdir(d))
            api = [n for n in names if n.startswith("api")]
            self.assertEqual([n.replace("api", "cli") for n in api],
                             [n for n in names if n.startswith("cli")])
            self.assertGreaterEqual(len(api), 2)
            for n in api:
                with open(os.path.join(d, n), "rb") as a, \
                        open(os.path.join(d, n.replace("api", "cli")),
                             "rb") as c:
                    self.assertEqual(a.read(), c.read(), n)
            with open(d + "/api.json") as f:
                self.assertEqual(json.load(f), got)

    def test_progress(self):
        # On one thread, once per configuration as it finishes.
        seen = []
        hqsim.sweep(WORKERS, processes="1-3", modes="mps", threads=1,
                    progress=lambda done, total: seen.append((done, total)))
        self.assertEqual(seen, [(1, 3), (2, 3), (3, 3)])
        # A run: GPU ops, never going back, ending at all of them.
        seen = []
        got = hqsim.run(WORKERS, progress=lambda d, t: seen.append((d, t)))
        self.assertEqual(seen, sorted(seen))
        self.assertEqual(seen[-1][0], seen[-1][1])
        self.assertGreater(seen[-1][1], 0)
        self.assertEqual(got, cli("run", WORKERS))

    def test_progress_exception(self):
        # An exception in the callback stops the run at that call and is
        # raised again by the call; no output file is written.
        class Stop(Exception):
            pass
        seen = []

        def stop(done, total):
            seen.append((done, total))
            raise Stop("enough at %d of %d" % (done, total))
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(Stop) as ctx:
                hqsim.run(WORKERS, iterations=4000, json=d + "/r.json",
                          progress=stop)
            self.assertEqual(os.listdir(d), [])
        self.assertEqual(len(seen), 1)
        done, total = seen[0]
        self.assertTrue(0 < done < total)
        self.assertIn("enough at", str(ctx.exception))
        # A sweep stops before its next configuration.
        seen = []
        with self.assertRaises(Stop):
            hqsim.sweep(WORKERS, processes="1-3", modes="mps", threads=1,
                        progress=stop)
        self.assertEqual(seen, [(1, 3)])
        # The library is left as it was: the next call runs through.
        self.assertEqual(hqsim.run(WORKERS), cli("run", WORKERS))

    def test_validate(self):
        # `hqsim validate` on bundled measured data: the table's numbers,
        # row by row, and its summary line.
        data, pick = "traces/measured/h100", "^hq_df32_c(1|2|4)$|^cp_bidir$"
        got = hqsim.validate(data, filter=pick)
        out = subprocess.run([HQSIM, "validate", data, "--filter", pick],
                             cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.splitlines()
        table = [line.split() for line in out[3:3 + len(got["rows"])]]
        self.assertEqual(got["gpu"], "h100-sxm")
        self.assertEqual(len(got["rows"]), 4)
        for r, t in zip(got["rows"], table):
            role = "calib" if r["role"] == "calibration" else "valid"
            self.assertEqual([r["id"], r["category"], role,
                              str(r["processes"])], t[:4])
            self.assertEqual("%.3f" % r["measured_ms"], t[4])
            self.assertEqual("%.3f" % r["predicted_ms"], t[5])
            self.assertEqual("%+.1f%%" % (100 * r["error"]), t[6])
            self.assertIsNone(r["skipped"])
        p = got["prediction"]
        self.assertEqual(p["n"], 3)
        c = got["calibration"]
        self.assertIn("prediction : 3 experiments; makespan error median "
                      "%.1f%%, largest %.1f%%" % (100 * p["median_abs_error"],
                                                  100 * p["max_abs_error"]),
                      "\n".join(out))
        self.assertIn("calibration: 1 experiments; makespan error median "
                      "%.1f%%" % (100 * c["median_abs_error"]),
                      "\n".join(out))
        self.assertEqual(got["calibration"]["n"], 1)
        with self.assertRaises(hqsim.HqsimError) as ctx:
            hqsim.validate("tests/data/no-such-dir")
        self.assertEqual(ctx.exception.code, "io")
        self.assertIn("manifest.json", ctx.exception.message)

    def test_limits(self):
        try:
            hqsim.set_limit("ops", 10)
            with self.assertRaises(hqsim.HqsimError) as ctx:
                hqsim.run(WORKERS)
            self.assertIn("(limit 'ops' = 10;", ctx.exception.message)
            self.assertEqual(ctx.exception.code, "limit")
        finally:
            hqsim.reset_limits()
        self.assertGreater(hqsim.run(WORKERS)["run"]["makespan_ms"], 0)
        with self.assertRaises(hqsim.HqsimError) as ctx:
            hqsim.set_limit("no-such-limit", 1)
        self.assertEqual(ctx.exception.code, "usage")

    def test_import_replay(self):
        # `hqsim import FILES -o -`, as dicts.
        got = hqsim.import_trace([KINETO, NSYS], gpu="a100")
        out = subprocess.run([HQSIM, "import", KINETO, NSYS, "--gpu", "a100",
                              "-o", "-"], cwd=ROOT, capture_output=True,
                             text=True, check=True)
        self.assertEqual(got, json.loads(out.stdout))
        # `hqsim replay --each`: the table's numbers, row by row.
        rows = hqsim.replay([KINETO, NSYS], each=True)
        out = subprocess.run([HQSIM, "replay", KINETO, NSYS, "--each"],
                             cwd=ROOT, capture_output=True, text=True,
                             check=True)
        table = [line.split() for line in out.stdout.splitlines()[1:]]
        self.assertEqual(len(rows), len(table))
        for r, t in zip(rows, table):
            self.assertEqual([r["trace"], r["gpu"], str(r["ops"])], t[:3])
            self.assertEqual("%.3f" % r["recorded_ms"], t[3])
            self.assertEqual("%.3f" % r["simulated_ms"], t[4])
            self.assertEqual("%+.2f%%" % (100 * r["makespan_error"]), t[5])
        with self.assertRaises(hqsim.HqsimError) as ctx:
            hqsim.replay(KINETO, processes=2)
        self.assertEqual(ctx.exception.code, "usage")


if __name__ == "__main__":
    unittest.main(verbosity=2)
