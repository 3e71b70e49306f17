"""hqsim -- simulate how processes share an NVIDIA GPU, from Python.

A ctypes binding over libhqsim.so (include/hqsim.h); standard library only.

    import hqsim
    r = hqsim.compare("traces/default.json", processes=4)
    for run in r["runs"]:
        print(run["mode"], run["throughput_per_s"], run["latency_p99_ms"])

run(), compare() and sweep() take one file or a list of files (a scenario,
or profiler traces that together make one workload) and the command line's
long options as keyword arguments, '-' written '_' (thread_pct=50,
no_jitter=True, processes=[1, 2, 4] for a sweep).  They return the
document `hqsim run|compare|sweep --json FILE` writes for the same input,
as plain dicts and lists.  Errors raise HqsimError, whose message names the
file, line and field.  Output options write files as the command line does
(json="out.json", picture="t.png", report="r.html"; sweep: plot=...).
progress=f calls f(done, total) as the work goes (GPU ops of the run under
way; a sweep's configurations); an exception f raises stops the work (a
sweep once the configurations under way finish) and is raised again by
the call, with no result and no output file.  set_limit("ops", "5M")
raises one of the process-wide work limits (`hqsim --limit ops=5M`),
reset_limits() restores them.  validate(DIR) is `hqsim validate DIR`:
measured experiments replayed and compared, as dicts.

The library is found through $HQSIM_LIB (a path to libhqsim.so), else
build/libhqsim.so of the source tree this package sits in, else the
system's libhqsim.so.1.
"""
import ctypes
import json
import os

__all__ = ["run", "compare", "sweep", "import_trace", "replay", "validate",
           "HqsimError", "version", "set_limit", "reset_limits"]

# include/hqsim.h's HqsimErrorCode, in order.
_CODES = ["io", "parse", "invalid", "unsupported", "deadlock", "nofit",
          "usage", "limit", "cancelled"]


class HqsimError(Exception):
    """A failure reported by libhqsim.

    message: what went wrong, naming the file, line and field where there
    is one ("x.json:8: process 'a': field 'start_us': ...").
    code: "io", "parse", "invalid", "unsupported", "deadlock", "nofit",
    "usage" (a bad option), "limit" or "cancelled" (stopped by a progress
    callback).
    """

    def __init__(self, message, code):
        super().__init__(message)
        self.message = message
        self.code = code


class _GError(ctypes.Structure):
    _fields_ = [("domain", ctypes.c_uint32), ("code", ctypes.c_int),
                ("message", ctypes.c_char_p)]


_GErrorP = ctypes.POINTER(_GError)
# include/hqsim.h's HqsimProgressStopFn: FALSE stops the work.
_PROGRESS = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64,
                             ctypes.c_void_p)


def _find_library():
    env = os.environ.get("HQSIM_LIB")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    tree = os.path.join(here, "..", "..", "build", "libhqsim.so")
    return tree if os.path.exists(tree) else "libhqsim.so.1"


def _load():
    lib = ctypes.CDLL(_find_library())
    # (name, result type, argument types): include/hqsim.h.
    vp, cp, cpp = ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(
        ctypes.c_char_p)
    err = ctypes.POINTER(_GErrorP)
    sigs = [
        ("hqsim_version", cp, []),
        ("hqsim_options_new", vp, []),
        ("hqsim_options_free", None, [vp]),
        ("hqsim_options_set", ctypes.c_int, [vp, cp, cp, err]),
        ("hqsim_options_set_progress_stop", None, [vp, _PROGRESS, vp]),
        ("hqsim_limit_set", ctypes.c_int, [cp, cp, err]),
        ("hqsim_limits_reset", None, []),
        ("hqsim_run", vp, [cpp, vp, err]),
        ("hqsim_compare", vp, [cpp, vp, err]),
        ("hqsim_result_json", vp, [vp]),
        ("hqsim_result_free", None, [vp]),
        ("hqsim_sweep", vp, [cpp, vp, err]),
        ("hqsim_sweep_json", vp, [vp]),
        ("hqsim_sweep_free", None, [vp]),
        ("hqsim_import", vp, [cpp, vp, err]),
        ("hqsim_replay", vp, [cpp, vp, err]),
        ("hqsim_validate", vp, [cp, vp, err]),
        ("hqsim_validation_json", vp, [vp]),
        ("hqsim_validation_free", None, [vp]),
        ("hqsim_free", None, [vp]),
        # GLib's, reached through libhqsim's dependencies.
        ("g_error_free", None, [_GErrorP]),
    ]
    for name, res, args in sigs:
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


_lib = _load()


def version():
    """The library's API version ("1.2")."""
    return _lib.hqsim_version().decode()


def _raise(gerror):
    e = gerror.contents
    msg = e.message.decode("utf-8", "replace")
    code = _CODES[e.code] if 0 <= e.code < len(_CODES) else str(e.code)
    _lib.g_error_free(gerror)
    raise HqsimError(msg, code)


def _text(value):
    """An option value as the command line reads it."""
    if value is True or value is False:
        return "1" if value else "0"
    if isinstance(value, (list, tuple)):
        return ",".join(_text(v) for v in value)
    return os.fspath(value) if hasattr(value, "__fspath__") else str(value)


def _files(files):
    if isinstance(files, (str, bytes)) or hasattr(files, "__fspath__"):
        files = [files]
    paths = [os.fsencode(f) for f in files]
    arr = (ctypes.c_char_p * (len(paths) + 1))(*paths, None)
    return arr


def set_limit(name, value):
    """Set work limit @name ("ops", "events"...; `hqsim --help` lists
    them) to @value (5000000 or "5M"), for every later call in this
    process."""
    err = _GErrorP()
    if not _lib.hqsim_limit_set(name.encode(), _text(value).encode(),
                                ctypes.byref(err)):
        _raise(err)


def reset_limits():
    """Every work limit back to its default."""
    _lib.hqsim_limits_reset()


def _json_of(p):
    """The JSON text @p (transfer full) as dicts; frees it."""
    try:
        return json.loads(ctypes.string_at(p).decode())
    finally:
        _lib.hqsim_free(p)


class _Progress:
    """The C callback around progress=f: an exception f raises is kept,
    and the callback returns FALSE, which stops the work (ctypes would
    otherwise print the exception and go on)."""

    def __init__(self, f):
        self.f, self.raised = f, None
        self.hook = _PROGRESS(self._call)  # alive as long as this object

    def _call(self, done, total, _):
        try:
            self.f(done, total)
            return 1
        except BaseException as e:  # KeyboardInterrupt stops it too
            self.raised = e
            return 0


def _call(entry, to_json, free, files, options):
    """Set @options, call @entry on @files, return its JSON as dicts
    (@to_json and @free None: @entry returns the JSON text itself)."""
    opts = _lib.hqsim_options_new()
    progress = options.pop("progress", None)
    hook = _Progress(progress) if progress else None
    try:
        err = _GErrorP()
        if hook:
            _lib.hqsim_options_set_progress_stop(opts, hook.hook, None)
        for name, value in options.items():
            if value is None:
                continue
            key = name.replace("_", "-").encode()
            if not _lib.hqsim_options_set(opts, key, _text(value).encode(),
                                          ctypes.byref(err)):
                _raise(err)
        handle = entry(files, opts, ctypes.byref(err))
        if hook and hook.raised:
            # The callback's exception, not the "cancelled" it caused.
            if handle and free:
                free(handle)
            elif handle:
                _lib.hqsim_free(handle)
            if not handle:
                _lib.g_error_free(err)
            raise hook.raised
        if not handle:
            _raise(err)
        if to_json is None:
            return _json_of(handle)
        try:
            return _json_of(to_json(handle))
        finally:
            free(handle)
    finally:
        _lib.hqsim_options_free(opts)


def run(files, mode=None, **options):
    """`hqsim run FILES --mode MODE ...`: the run's JSON summary.

    mode: "scenario" (default: as each process says), "timeslice" or "mps".
    """
    return _call(_lib.hqsim_run, _lib.hqsim_result_json,
                 _lib.hqsim_result_free, _files(files), dict(options, mode=mode))


def compare(files, modes=None, **options):
    """`hqsim compare FILES --modes M1,M2 ...`: one run per mode ("runs")
    and the ratios of the last to the first.  modes: a list or "a,b"
    (default timeslice, mps)."""
    return _call(_lib.hqsim_compare, _lib.hqsim_result_json,
                 _lib.hqsim_result_free, _files(files), dict(options, modes=modes))


def sweep(files, **options):
    """`hqsim sweep FILES ...`: every configuration of processes x modes x
    thread_pct x connections x gpu x workload (each file is one workload),
    its per-process rows, and the objectives' answers (slo_p99_ms,
    slo_throughput).  List options take lists: processes=[1, 2, 4] or
    "1-8"."""
    return _call(_lib.hqsim_sweep, _lib.hqsim_sweep_json,
                 _lib.hqsim_sweep_free, _files(files), options)


def import_trace(files, **options):
    """`hqsim import FILES -o -`: the native scenario of the traces (several
    files: several processes), as dicts.  Options: gpu, format,
    process=[pid or name, ...], launch_latency_us, from_ms, to_ms,
    pin_held."""
    return _call(_lib.hqsim_import, None, None, _files(files), options)


def replay(files, **options):
    """`hqsim replay FILES`: simulate the traces as recorded and compare
    with the recording; a list with one dict per replay (each=True: one
    per file) of trace, gpu, ops, recorded_ms, simulated_ms,
    makespan_error, median_end_error, worst_end_error.  Options: gpu,
    as_recorded, pin_held, each."""
    return _call(_lib.hqsim_replay, None, None, _files(files), options)


def validate(dir, **options):
    """`hqsim validate DIR`: replay every measured experiment of the data
    set @dir (a folder with a manifest.json, e.g. traces/measured/h100 of
    the source tree) and compare with the measurements.  A dict: dir, gpu,
    rows (one per experiment, in the manifest's order: id, category,
    measures, role "prediction" or "calibration", skipped (None, or why
    it was not replayed), processes, ops, iterations, measured_ms,
    predicted_ms, error (median over iterations of predicted / measured -
    1), end_error, ends, ends_within10) and the summaries "prediction"
    and "calibration" (n, over5, over15, within10, ends, ends_within10,
    median_abs_error, max_abs_error, median_end_error).  Options: gpu,
    models_dir, filter (a regular expression on ids),
    measured_block_times."""
    return _call(_lib.hqsim_validate, _lib.hqsim_validation_json,
                 _lib.hqsim_validation_free, os.fsencode(dir), options)
