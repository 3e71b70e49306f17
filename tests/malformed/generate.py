#!/usr/bin/env python3
"""Generate tests/data/malformed/: small bad inputs, each with its expected
error in MANIFEST.  Run from anywhere; rewrites the folder.

MANIFEST, one case a line, tab-separated:
    FILE  ARGS  LINE  PHRASE
FILE is run as `hqsim run FILE -q ARGS` (ARGS: extra options, '-' for
none); the test (tests/test_e2e_malformed.c) wants a non-zero exit that is
not a crash, within seconds, and an error that names FILE:LINE: (LINE '-'
when the error has no line, e.g. a limit over the whole run) and contains
PHRASE (the field, column or reason).

Classes covered: every numeric scenario field given a negative, fractional,
huge, infinite (1e999), string, null and boolean value; unknown and
duplicate fields; unknown op, stream, direction; events never recorded;
truncation at many points; control bytes, NUL bytes, invalid and truncated
UTF-8; nesting past the parser's limit; limits (repeats, nested repeats,
iterations, replicas, arrivals, placements, grid blocks, gzip bomb, JSON
values);
CUDA grid/block dimensions; importer rows with bad numbers, units, NaN,
infinities, negative and absurd times, and missing columns (nvprof, nsys
CSV, ncu CSV, Kineto).
"""
import gzip
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'data', 'malformed')
cases = []  # (file, args, line, phrase)


def emit(name, data, line, phrase, args='-'):
    if isinstance(data, str):
        data = data.encode('utf-8', 'surrogateescape')
    with open(os.path.join(OUT, name), 'wb') as f:
        f.write(data)
    cases.append((name, args, str(line), phrase))


# ---------------------------------------------------------------- scenario
# A small valid scenario as a tree; render() prints one field per line and
# records each field's line so that expected lines follow the layout.
class Raw(str):
    """A token written as is (e.g. 1e999, NaN, a control byte)."""


def base():
    kernel = {'op': 'kernel', 'name': 'k{i}', 'stream': 's', 'grid': [4, 2, 1],
              'block': [128, 1, 1], 'regs_per_thread': 32,
              'static_smem_bytes': 0, 'dynamic_smem_bytes': 1024,
              'duration_us': 10, 'sm_intensity': 1, 'mem_intensity': 0.5,
              'at_us': 0, 'api_us': 2}
    copy = {'op': 'copy', 'stream': 's', 'dir': 'h2d', 'bytes': 4096,
            'pinned': True, 'duration_us': 3}
    return {
        'hqsim_scenario': 1, 'gpu': 'h100-sxm', 'seed': 7,
        'processes': [{
            'name': 'a', 'start_us': 0, 'mps': False,
            'active_thread_pct': 100, 'device_mem_mib': 16,
            'mps_mem_limit_mib': 0, 'connections': 8, 'replicas': 1,
            'iterations': 2,
            'streams': [{'name': 's', 'priority': 0},
                        {'name': 't', 'count': 2}],
            'ops': [kernel, copy,
                    {'op': 'host_gap', 'duration_us': 5},
                    {'op': 'event_record', 'event': 'e', 'stream': 's'},
                    {'op': 'event_wait', 'event': 'e', 'stream': 't0'},
                    {'op': 'repeat', 'count': 2,
                     'ops': [dict(kernel, stream='t1')]},
                    {'op': 'stream_sync', 'stream': 's'}]}]}


def render(tree):
    """JSON text, one field per line; returns (text, {path: line})."""
    lines, where = [], {}

    def scalar(v):
        if isinstance(v, Raw):
            return str(v)
        if v is True:
            return 'true'
        if v is False:
            return 'false'
        if v is None:
            return 'null'
        if isinstance(v, str):
            return '"%s"' % v
        if isinstance(v, list) and all(not isinstance(x, (dict, list))
                                       for x in v):
            return '[' + ', '.join(scalar(x) for x in v) + ']'
        return repr(v)

    def walk(v, path, indent, prefix, comma):
        pad = '  ' * indent
        if isinstance(v, dict):
            where[path] = len(lines) + 1
            lines.append(pad + prefix + '{')
            items = list(v.items())
            for i, (k, x) in enumerate(items):
                walk(x, path + (k,), indent + 1, '"%s": ' % k,
                     i + 1 < len(items))
            lines.append(pad + '}' + (',' if comma else ''))
        elif isinstance(v, list) and any(isinstance(x, (dict, list))
                                         for x in v):
            where[path] = len(lines) + 1
            lines.append(pad + prefix + '[')
            for i, x in enumerate(v):
                walk(x, path + (i,), indent + 1, '', i + 1 < len(v))
            lines.append(pad + ']' + (',' if comma else ''))
        else:
            where[path] = len(lines) + 1
            lines.append(pad + prefix + scalar(v) + (',' if comma else ''))
    walk(tree, (), 0, '', False)
    return '\n'.join(lines) + '\n', where


def get(tree, path):
    for p in path:
        tree = tree[p]
    return tree


def put(tree, path, value):
    get(tree, path[:-1])[path[-1]] = value


def drop(tree, path):
    del get(tree, path[:-1])[path[-1]]


P = ('processes', 0)
K = P + ('ops', 0)
C = P + ('ops', 1)
# field path -> (kind, allowed range).  kind: int, num, bool
FIELDS = {
    ('seed',): 'int',
    P + ('start_us',): 'num', P + ('active_thread_pct',): 'num',
    P + ('device_mem_mib',): 'num', P + ('mps_mem_limit_mib',): 'num',
    P + ('connections',): 'int', P + ('replicas',): 'int',
    P + ('iterations',): 'int', P + ('mps',): 'bool',
    P + ('streams', 0, 'priority'): 'int', P + ('streams', 1, 'count'): 'int',
    K + ('regs_per_thread',): 'int', K + ('static_smem_bytes',): 'int',
    K + ('dynamic_smem_bytes',): 'int', K + ('duration_us',): 'num',
    K + ('sm_intensity',): 'num', K + ('mem_intensity',): 'num',
    K + ('at_us',): 'num', K + ('api_us',): 'num',
    C + ('bytes',): 'int', C + ('duration_us',): 'num', C + ('pinned',): 'bool',
    P + ('ops', 2, 'duration_us'): 'num', P + ('ops', 5, 'count'): 'int',
}
BAD = {  # token -> which kinds reject it
    '-1': ('int', 'num'), '2.5': ('int',), '1e999': ('int', 'num', 'bool'),
    '1e300': ('int', 'num'), '"x"': ('int', 'num', 'bool'),
    'null': ('int', 'num', 'bool'), 'true': ('int', 'num'), '0.000001e-300': (),
}
TAG = {'-1': 'neg', '2.5': 'frac', '1e999': 'inf', '1e300': 'huge',
       '"x"': 'str', 'null': 'null', 'true': 'bool'}
# some fields accept some of these (e.g. 0 <= at_us, -1 priority)
ACCEPTS = {(P + ('streams', 0, 'priority'), '-1'),
           (('seed',), 'true')}


def scenario_cases():
    n = 0
    for path, kind in FIELDS.items():
        for tok, kinds in BAD.items():
            if kind not in kinds or (path, tok) in ACCEPTS:
                continue
            t = base()
            put(t, path, Raw(tok))
            text, where = render(t)
            field = path[-1]
            name = 'scn-%s-%s.json' % (field.replace('_', ''), TAG[tok])
            if os.path.exists(os.path.join(OUT, name)):
                name = name.replace('.json', '-%d.json' % n)
            emit(name, text, where[path], "field '%s'" % field)
            n += 1
    # kernel grid and block: CUDA's dimension limits
    for path, val, phrase in [
            (K + ('grid',), Raw('[2147483648, 1, 1]'), "field 'grid'"),
            (K + ('grid',), Raw('[1, 65536, 1]'), "field 'grid'"),
            (K + ('grid',), Raw('[1, 1, 0]'), "field 'grid'"),
            (K + ('grid',), Raw('[1, 2, 3, 4]'), "field 'grid'"),
            (K + ('block',), Raw('[1, 1, 65]'), "field 'block'"),
            (K + ('block',), Raw('[1025, 1, 1]'), "field 'block'"),
            (K + ('block',), Raw('"big"'), "field 'block'"),
            (K + ('grid',), Raw('[]'), "field 'grid'")]:
        t = base()
        put(t, path, val)
        text, where = render(t)
        emit('scn-dim-%s-%d.json' % (path[-1], n), text, where[path], phrase)
        n += 1
    # unknown and duplicate fields, unknown names
    for path, key in [((), 'extra'), (P, 'iteration'), (K, 'grid_x'),
                      (C, 'size'), (P + ('streams', 0), 'prio')]:
        t = base()
        get(t, path)[key] = 1
        text, where = render(t)
        emit('scn-unknown-%s.json' % key, text, where[path + (key,)],
             "unknown field '%s'" % key)
    for path, val, phrase, tag in [
            (K + ('op',), 'kernal', "'kernal' is not one of", 'op'),
            (K + ('stream',), 'nope', "no stream named 'nope'", 'stream'),
            (C + ('dir',), 'h2h', "'h2h' is not one of", 'dir'),
            (P + ('ops', 4, 'event'), 'never', "never recorded", 'event')]:
        t = base()
        put(t, path, val)
        text, where = render(t)
        line = where[path] if tag != 'event' else where[path[:-1]]
        emit('scn-name-%s.json' % tag, text, line, phrase)
    for path, phrase, tag in [
            (K + ('duration_us',), 'exactly one of', 'nodur'),
            (K + ('name',), "missing field 'name'", 'noname'),
            (P + ('streams',), "field 'streams'", 'nostreams'),
            (('processes',), "field 'processes'", 'noprocs'),
            (('hqsim_scenario',), "missing field 'traceEvents'", 'nover')]:
        t = base()
        drop(t, path)
        text, where = render(t)
        emit('scn-missing-%s.json' % tag, text, where[path[:-1]], phrase)
    t = base()
    text, where = render(t)
    dup = text.replace('"seed": 7,', '"seed": 7,\n  "seed": 8,')
    emit('scn-dup-seed.json', dup, where[('seed',)] + 1,
         "field 'seed' given twice")
    # limits: each names the limit and the option
    for tag, path, val, line_path, phrase in [
            ('iterations', P + ('iterations',), 1000000000, None,
             "--limit work=N"),
            ('repeat', P + ('ops', 5, 'count'), 100000000,
             P + ('ops', 5, 'count'), "field 'count': 100000000 rounds of "
             "this repeat expand to 200000000 ops and rounds (nested "
             "repeats multiplied out), with the 5 before it more than "
             "2000000 ops after expanding repeats (use \"iterations\" for "
             "long loops) (limit 'ops' = 2000000; raise it with --limit "
             "ops=N)"),
            ('replicas', P + ('replicas',), 4096, None, "--limit work=N")]:
        t = base()
        put(t, path, val)
        if tag == 'replicas':
            put(t, P + ('iterations',), 1000)
        text, where = render(t)
        emit('scn-limit-%s.json' % tag, text,
             where[line_path] if line_path else '-', phrase)
    t = base()
    inner = get(t, P + ('ops', 5))
    inner['count'] = 10000
    inner['ops'] = [{'op': 'repeat', 'count': 10000, 'ops': inner['ops']}]
    text, where = render(t)
    # Refused before expanding: the outer repeat's count names the product.
    emit('scn-limit-nested.json', text, where[P + ('ops', 5, 'count')],
         "field 'count': 10000 rounds of this repeat expand to 200010000 "
         "ops and rounds (nested repeats multiplied out), with the 5 before "
         "it more than 500000 ops", '--limit ops=500000')
    # An empty repeat: its rounds count, so it cannot spin either.
    t = base()
    put(t, P + ('ops', 5, 'count'), 100000000)
    put(t, P + ('ops', 5, 'ops'), [])
    text, where = render(t)
    emit('scn-limit-empty-repeat.json', text, where[P + ('ops', 5, 'count')],
         "field 'count': 100000000 rounds of this repeat expand to "
         "100000000 ops and rounds")
    t = base()
    get(t, P)['arrivals'] = {'rate_per_s': 1000, 'count': 100000000}
    text, where = render(t)
    emit('scn-limit-arrivals.json', text, '-', "--limit work=N")
    # placements: the engine's cost floor, checked before the run
    t = base()
    put(t, P + ('iterations',), 200)
    text, where = render(t)
    emit('scn-limit-placements.json', text, '-', "--limit placements=N",
         '--limit placements=1000')
    t = base()
    put(t, K + ('grid',), [2147483647, 65535, 65535])
    text, where = render(t)
    emit('scn-limit-blocks.json', text, where[K], "--limit blocks=N")
    t = base()
    put(t, K + ('duration_us',), 1e12)
    put(t, P + ('iterations',), 100)
    text, where = render(t)
    emit('scn-limit-simtime.json', text, '-', "--limit sim_time_s=N")
    text, where = render(base())
    emit('scn-limit-values.json', '[' + '0,' * 3000 + '0]', 1,
         "--limit json_values=N", '--limit json_values=1000')
    emit('scn-limit-gzip.json.gz', gzip.compress(text.encode() + b' ' * 3000000, mtime=0),
         '-', "--limit inflated_bytes=N", '--limit inflated_bytes=1000000')
    # syntax: truncation, bytes cJSON and the line scanner must agree on
    text, where = render(base())
    for cut in (1, 10, 50, 120, 300, 500, len(text) // 2, len(text) - 2):
        part = text[:cut]
        emit('scn-trunc-%d.json' % cut, part, part.count('\n') + 1,
             'ends early')
    for b in (1, 7, 11, 12, 27, 31):
        # a control byte between tokens is whitespace to cJSON
        bad = text.replace('"gpu"', chr(b) + '"gpu"').replace(
            '"iterations": 2', '"iterations": -2')
        emit('scn-ctl-%02x.json' % b, bad, where[P + ('iterations',)],
             "field 'iterations'")
    for b in (1, 9, 10, 13, 27, 31):
        # inside a string JSON forbids them; cJSON would take them
        bad = text.replace('"k{i}"', '"k%s{i}"' % chr(b), 1)
        emit('scn-strctl-%02x.json' % b, bad, where[K + ('name',)],
             "field 'name': a raw control byte 0x%02x inside a string; "
             "JSON needs it escaped" % b)
    bad = text.replace('"seed"', '"se\x1fed"', 1)
    emit('scn-keyctl.json', bad, where[('seed',)],
         'a raw control byte 0x1f inside a field name')
    emit('scn-nul.json', text.replace('"seed"', '\0"seed"'),
         where[('seed',)], 'NUL byte')
    emit('scn-bad-utf8.json', text.replace('"k{i}"', '"k\udcff"'),
         where[K + ('name',)], 'not valid UTF-8')
    emit('scn-trunc-utf8.json', text.encode() + b'\xe2\x82', text.count('\n') + 1,
         'middle of a UTF-8 character')
    emit('scn-nested.json', '[' * 1200 + ']' * 1200, 1, 'nested more than')
    emit('scn-trailing.json', text + '}', text.count('\n') + 1, 'syntax error')
    emit('scn-not-object.json', '[1, 2]\n', 1, 'must be an object')
    emit('scn-empty.json', '', '-', 'file is empty')
    emit('scn-comment.json', '// c\n' + text, 1, 'unrecognized content')


# ---------------------------------------------------------------- traces
NVPROF_HEAD = '''==1== NVPROF is profiling process 1, command: ./a
==1== Profiling application: ./a
==1== Profiling result:
"Start","Duration","Grid X","Grid Y","Grid Z","Block X","Block Y","Block Z","Registers Per Thread","Static SMem","Dynamic SMem","Size","Throughput","SrcMemType","DstMemType","Device","Context","Stream","Name","Correlation_ID"
us,us,,,,,,,,KB,KB,KB,GB/s,,,,,,,
'''
NVPROF_ROWS = [
    ['100.0', '50.0', '', '', '', '', '', '', '', '', '', '1024.0', '20.0',
     '"Pageable"', '"Device"', '"Tesla V100-SXM2-16GB (0)"', '"1"', '"13"',
     '"[CUDA memcpy HtoD]"', '11'],
    ['200.0', '100.0', '80', '2', '1', '256', '1', '1', '32', '1.5', '2.0',
     '', '', '', '', '"Tesla V100-SXM2-16GB (0)"', '"1"', '"13"', '"k(int)"',
     '13']]
NVPROF_COLS = ['Start', 'Duration', 'Grid X', 'Grid Y', 'Grid Z', 'Block X',
               'Block Y', 'Block Z', 'Registers Per Thread', 'Static SMem',
               'Dynamic SMem', 'Size']

NSYS_HEAD = ('Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,'
             'Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MBps),'
             'SrcMemKd,DstMemKd,Device,Ctx,Strm,Name\n')
NSYS_ROWS = [
    ['1000', '2000', '1', '', '', '', '', '', '', '', '', '', '2.000',
     '1000.0', 'Pageable', 'Device', 'NVIDIA A100-SXM4-40GB (0)', '1', '7',
     '[CUDA memcpy HtoD]'],
    ['5000', '1000', '3', '64', '1', '1', '128', '1', '1', '32', '0.001',
     '0.000', '', '', '', '', 'NVIDIA A100-SXM4-40GB (0)', '1', '7', 'kernelB']]
NSYS_COLS = NSYS_HEAD.strip().split(',')[:13]  # CorrId: any id

NCU_HEAD = ('"ID","Process ID","Process Name","Host Name","Kernel Name",'
            '"Context","Stream","Block Size","Grid Size","Device","CC",'
            '"gpu__time_duration.sum","launch__registers_per_thread",'
            '"launch__shared_mem_per_block_static",'
            '"launch__shared_mem_per_block_dynamic"\n'
            '"","","","","","","","","","","","nsecond","register/thread",'
            '"byte/block","byte/block"\n')
NCU_ROW = ['"0"', '"1"', '"python"', '"h"', '"w13_kernel"', '"1"', '"7"',
           '"(256, 1, 1)"', '"(5, 20, 1)"', '"0"', '"7.0"', '"40,000"',
           '"32"', '"2,048"', '"0"']
NCU_COLS = {0: 'ID', 7: 'Block Size', 8: 'Grid Size',
            11: 'gpu__time_duration.sum', 12: 'launch__registers_per_thread',
            13: 'launch__shared_mem_per_block_static'}

BAD_NUMS = {'neg': '-5', 'nan': 'nan', 'inf': 'inf', 'huge': '1e300',
            'word': 'abc', 'hex': '0x10', 'big': '18446744073709551617'}


def csv_cases():
    for ci, col in enumerate(NVPROF_COLS):
        for tag, tok in BAD_NUMS.items():
            if col in ('Static SMem', 'Dynamic SMem', 'Size') and ci != 11 \
                    and tag in ('word',):
                pass
            row = list(NVPROF_ROWS[1] if ci != 11 else NVPROF_ROWS[0])
            if row[ci] == '':
                continue
            row[ci] = tok
            other = NVPROF_ROWS[0] if ci != 11 else NVPROF_ROWS[1]
            text = NVPROF_HEAD + ','.join(other) + '\n' + ','.join(row) + '\n'
            emit('nvprof-%s-%s.csv' % (col.replace(' ', '').lower(), tag),
                 text, 7, "column '%s'" % col)
    for ci, col in enumerate(NSYS_COLS):
        for tag, tok in BAD_NUMS.items() if col != 'CorrId' else ():
            row = list(NSYS_ROWS[1] if ci not in (12,) else NSYS_ROWS[0])
            if row[ci] == '' or (tag == 'neg' and ci in ()):
                continue
            row[ci] = tok
            text = NSYS_HEAD + ','.join(NSYS_ROWS[0] if ci != 12 else
                                        NSYS_ROWS[1]) + '\n' + ','.join(row) + '\n'
            safe = col.split(' ')[0].replace('/', '')
            emit('nsys-%s-%s.csv' % (safe.lower(), tag), text, 3,
                 "column '%s'" % col.split(' (')[0])
    for ci, col in NCU_COLS.items():
        for tag, tok in BAD_NUMS.items():
            row = list(NCU_ROW)
            row[ci] = '"(%s, 1, 1)"' % tok if ci in (7, 8) else '"%s"' % tok
            emit('ncu-%s-%s.csv' % (col.split('_')[-1].replace(' ', '').lower()
                                    .replace('.', ''), tag),
                 NCU_HEAD + ','.join(row) + '\n', 3, col if ci not in (0,)
                 else "column 'ID'")


def kineto_event(**over):
    ev = {'ph': '"X"', 'cat': '"kernel"', 'name': '"a"', 'pid': '0',
          'tid': '7', 'ts': '1005', 'dur': '10'}
    args = {'device': '0', 'context': '1', 'stream': '7', 'correlation': '1',
            'registers per thread': '8', 'shared memory': '0',
            'grid': '[1, 1, 1]', 'block': '[32, 1, 1]'}
    for k, v in over.items():
        k = k.replace('_', ' ')
        if k in args:
            args[k] = v
        else:
            ev[k] = v
    body = ', '.join('"%s": %s' % kv for kv in ev.items())
    a = ', '.join('"%s": %s' % kv for kv in args.items())
    return '{%s,\n "args": {%s}}' % (body, a)


def kineto_cases():
    launch = ('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", '
              '"pid": 11, "tid": 11, "ts": 1000, "dur": 2, "args": {"cbid": 1,'
              ' "correlation": 1}}')
    # (ids -- pid, tid, stream -- may be any number or name: not here)
    for field, key in [('ts', 'ts'), ('dur', 'dur'), ('grid', 'args.grid'),
                       ('block', 'args.block'),
                       ('registers_per_thread', 'registers per thread'),
                       ('shared_memory', 'shared memory')]:
        for tag, tok in [('neg', '-5'), ('huge', '1e300'), ('inf', '1e999'),
                         ('str', '"x"'), ('null', 'null')]:
            if (field, tag) == ('ts', 'neg'):
                continue  # times before the profiler's epoch are fine
            if field in ('grid', 'block'):
                tok = '[%s, 1, 1]' % tok
            text = ('{"traceEvents": [\n' + launch + ',\n' +
                    kineto_event(**{field: tok}) + '\n]}\n')
            emit('kineto-%s-%s.json' % (field.replace('_', ''), tag), text, 3,
                 key)
    for b in (1, 9, 10, 31):
        text = ('{"traceEvents": [\n' + launch + ',\n' +
                kineto_event(name='"a%sb"' % chr(b)) + '\n]}\n')
        emit('kineto-strctl-%02x.json' % b, text, 3,
             "field 'name': a raw control byte 0x%02x inside a string; JSON "
             "needs it escaped" % b)


# Rows each importer accepts that the native format, CUDA or the GPU
# model then refuses: the error names the row's line (or table row) and
# the field, as for a scenario's op.
def imported_op_cases():
    def nv(ci_vals):
        row = list(NVPROF_ROWS[1])
        for ci, v in ci_vals:
            row[ci] = v
        return NVPROF_HEAD + ','.join(NVPROF_ROWS[0]) + '\n' + ','.join(row) + '\n'
    def ns(ci_vals):
        row = list(NSYS_ROWS[1])
        for ci, v in ci_vals:
            row[ci] = v
        return NSYS_HEAD + ','.join(NSYS_ROWS[0]) + '\n' + ','.join(row) + '\n'
    def nc(ci_vals):
        row = list(NCU_ROW)
        for ci, v in ci_vals:
            row[ci] = v
        return NCU_HEAD + ','.join(row) + '\n'
    def kn(**over):
        launch = ('{"ph": "X", "cat": "cuda_runtime", "name": '
                  '"cudaLaunchKernel", "pid": 11, "tid": 11, "ts": 1000, '
                  '"dur": 2, "args": {"cbid": 1, "correlation": 1}}')
        return ('{"traceEvents": [\n' + launch + ',\n' +
                kineto_event(**over) + '\n]}\n')
    # A CSV's rows name the column as the file spells it (its title,
    # without a unit); a tuple column also the dimension; Kineto's 'grid'
    # is a field of its own.
    grid_y = "field 'grid': dimension y is 70000; CUDA allows 1 to 65535"
    col_y = "column '%s' is 70000; CUDA allows 1 to 65535"
    col_z = "column '%s' is 65; CUDA allows 1 to 64"
    threads = 'threads per block: 2048 exceeds the maximum of 1024 on %s'
    static48 = ('static shared memory per block: %d bytes exceeds the '
                '49152-byte (48 KiB) static limit of every architecture')
    for name, text, line, phrase in [
            ('imp-nvprof-gridy.csv', nv([(3, '70000')]), 7,
             "process 'a[1]' op 2 (kernel): " + col_y % 'Grid Y'),
            ('imp-nvprof-blockz.csv', nv([(7, '65')]), 7,
             "process 'a[1]' op 2 (kernel): " + col_z % 'Block Z'),
            ('imp-nvprof-threads.csv', nv([(5, '512'), (6, '4')]), 7,
             "process 'a[1]' op 2 (kernel 'k(int)'): " + threads % 'v100'),
            ('imp-nvprof-smem-format.csv', nv([(9, '100000')]), 7,
             "process 'a[1]' op 2 (kernel): column 'Static SMem': "
             "102400000 bytes is beyond the format's 16777216 bytes"),
            ('imp-nvprof-smem-static.csv', nv([(9, '64')]), 7,
             "process 'a[1]' op 2 (kernel 'k(int)'): " + static48 % 65536),
            ('imp-nvprof-gap.csv', nv([(0, '1e15')]), 7,
             "process 'a[1]' op 1 (host_gap): the host is idle "),
            ('imp-nsys-grdy.csv', ns([(4, '70000')]), 3,
             "op 1 (kernel): " + col_y % 'GrdY'),
            ('imp-nsys-blkz.csv', ns([(8, '65')]), 3,
             "op 1 (kernel): " + col_z % 'BlkZ'),
            ('imp-nsys-dsmem-format.csv', ns([(11, '20')]), 3,
             "op 1 (kernel): column 'DymSMem': 20000000 bytes is beyond the "
             "format's 16777216 bytes"),
            ('imp-nsys-threads.csv', ns([(6, '512'), (7, '4')]), 3,
             "op 1 (kernel 'kernelB'): " + threads % 'a100'),
            ('imp-nsys-smem-static.csv', ns([(10, '0.065536')]), 3,
             "op 1 (kernel 'kernelB'): " + static48 % 65536),
            ('imp-ncu-grid.csv', nc([(8, '"(1, 70000, 1)"')]), 3,
             "process 'python[1]' op 0 (kernel): column 'Grid Size': "
             "dimension y is 70000; CUDA allows 1 to 65535"),
            ('imp-ncu-block.csv', nc([(7, '"(1, 1, 65)"')]), 3,
             "process 'python[1]' op 0 (kernel): column 'Block Size': "
             "dimension z is 65; CUDA allows 1 to 64"),
            ('imp-ncu-threads.csv', nc([(7, '"(512, 4, 1)"')]), 3,
             "process 'python[1]' op 0 (kernel 'w13_kernel'): " +
             threads % 'v100'),
            ('imp-ncu-smem-static.csv', nc([(13, '"65,536"')]), 3,
             "process 'python[1]' op 0 (kernel 'w13_kernel'): " +
             static48 % 65536),
            ('imp-kineto-grid.json', kn(grid='[1, 70000, 1]'), 3,
             "op 0 (kernel): " + grid_y),
            ('imp-kineto-threads.json', kn(block='[512, 4, 1]'), 3,
             "op 0 (kernel 'a'): " + threads % 'h100-sxm'),
            ('imp-kineto-smem.json', kn(shared_memory='300000'), 3,
             "op 0 (kernel 'a'): shared memory per block: 300000 bytes "
             "(0 static + 300000 dynamic) exceeds the maximum of 232448 "
             "bytes on h100-sxm")]:
        emit(name, text, line, phrase)


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.unlink(os.path.join(OUT, f))
    scenario_cases()
    csv_cases()
    kineto_cases()
    imported_op_cases()
    with open(os.path.join(OUT, 'MANIFEST'), 'w') as f:
        f.write('# file\targs\tline\tphrase  (tests/malformed/generate.py)\n')
        for c in cases:
            f.write('\t'.join(c) + '\n')
    print('%d cases' % len(cases), file=sys.stderr)


if __name__ == '__main__':
    main()
