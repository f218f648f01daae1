// Fault-injecting HTTP file server for plank's remote-read tests.
//
// Usage: node fault_server.mjs ROOT
//
// Listens on 127.0.0.1 on an ephemeral port and prints exactly one line
// "PORT <n>" on stdout once it is listening.  Files under ROOT are served at
// /<mode>/<name> (name may contain subdirectories; ".." is rejected), with
// GET and HEAD, one byte range per request, ETag and Last-Modified.
//
// Modes:
//   ok          normal
//   flaky500    first request per (method, path, Range) key answers 500, then normal
//   flaky503    same with 503
//   reset       first request per key: headers (full Content-Length) + half the
//               body, then the socket is destroyed; then normal
//   truncate    like reset, but the socket is ended gracefully (short body)
//   slow        normal bytes, written in 4 KiB pieces with a 1 ms pause between
//   stall       headers, then nothing; the connection stays open
//   always500   always 500
//   forbidden   always 403
//   change      first request for a path: real ETag/Last-Modified; every later
//               request for that path: a different (constant) ETag and
//               Last-Modified, as if the file had been replaced; bytes unchanged
//   change-after-<n>  like change, but the first <n> requests for a path get
//               the real validators (a file replaced in the middle of a read)
//   delay-<ms>  normal, but each response starts after <ms> milliseconds
//   norange     ignores Range: 200 with the whole file, every time
//   badrange    206 whose Content-Range (and bytes) start 1 byte after the
//               range asked (a server answering another range)
//   nocr        206 without Content-Range
//   sizechange  after the first request for a path, Content-Range names a
//               total 1 byte larger (same ETag: the size alone changed)
//
// Conditional headers are honoured against the validators a request would
// get: If-Match / If-Unmodified-Since -> 412, If-None-Match / If-Modified-Since
// -> 304 (GET/HEAD), If-Range mismatch -> whole file (200).
//
// Bookkeeping:
//   GET /_stats  -> {"requests":N,"bytes":B,"ranges":["a-b",...]}
//                   requests: file requests (any /<mode>/... URL, faulted or not)
//                   bytes: file-content body bytes actually written
//                   ranges: resolved "a-b" of each satisfiable Range request
//                           (last 10000)
//   GET /_reset  -> zeroes the counters and forgets the per-key state
//
// Dependency-free (Node built-ins only).

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const PIECE = 4096;
const MAX_RANGES_KEPT = 10000;

const root = process.argv[2];
if (!root) {
  process.stderr.write('usage: node fault_server.mjs ROOT\n');
  process.exit(2);
}
const ROOT = path.resolve(root);
if (!fs.existsSync(ROOT) || !fs.statSync(ROOT).isDirectory()) {
  process.stderr.write(`fault_server: ROOT ${ROOT} is not a directory\n`);
  process.exit(2);
}

let stats = { requests: 0, bytes: 0, ranges: [] };
let seenKeys = new Set(); // flaky / reset / truncate: keys already failed once
let seenPaths = new Set(); // change: paths already served once
let seenCounts = new Map(); // change-after-<n>: requests served per path

function resetState() {
  stats = { requests: 0, bytes: 0, ranges: [] };
  seenKeys = new Set();
  seenPaths = new Set();
  seenCounts = new Map();
}

function recordRange(a, b) {
  stats.ranges.push(`${a}-${b}`);
  if (stats.ranges.length > MAX_RANGES_KEPT) {
    stats.ranges.splice(0, stats.ranges.length - MAX_RANGES_KEPT);
  }
}

function sendSimple(res, status, text, extra = {}) {
  const body = Buffer.from(text + '\n');
  res.writeHead(status, {
    'Content-Type': 'text/plain',
    'Content-Length': body.length,
    ...extra,
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

// Returns null if the file name is not acceptable.
function resolveName(segments) {
  if (segments.length === 0) return null;
  const parts = [];
  for (const seg of segments) {
    let s;
    try {
      s = decodeURIComponent(seg);
    } catch {
      return null;
    }
    if (s === '' || s === '.' || s === '..' || s.includes('/') ||
        s.includes('\\') || s.includes('\0')) {
      return null;
    }
    parts.push(s);
  }
  const full = path.join(ROOT, ...parts);
  if (!full.startsWith(ROOT + path.sep)) return null;
  return full;
}

// Parse a Range header against a file size.
// Returns undefined: no/ignored Range; null: unsatisfiable; {start,end}.
function parseRange(header, size) {
  if (header === undefined) return undefined;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return undefined; // malformed or multiple ranges: ignore (RFC 9110)
  const [, a, b] = m;
  if (a === '' && b === '') return undefined;
  if (a === '') {
    const n = Number(b);
    if (n === 0 || size === 0) return null;
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(a);
  if (b !== '' && Number(b) < start) return undefined; // invalid: ignore
  if (start >= size) return null;
  const end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  return { start, end };
}

function etagMatches(list, etag) {
  if (list.trim() === '*') return true;
  const strip = t => t.trim().replace(/^W\//, '');
  return list.split(',').map(strip).includes(strip(etag));
}

// Write [start, start+len) of file to res.  opts.piece/opts.pauseMs throttle.
// Resolves once everything asked for has been handed to the socket.
function streamBody(res, file, start, len, opts = {}) {
  return new Promise(resolve => {
    if (len <= 0) return resolve();
    const rs = fs.createReadStream(file, {
      start,
      end: start + len - 1,
      highWaterMark: opts.piece || 64 * 1024,
    });
    let done = false;
    const finish = () => {
      if (!done) {
        done = true;
        resolve();
      }
    };
    rs.on('error', () => {
      res.destroy();
      finish();
    });
    res.on('close', () => {
      rs.destroy();
      finish();
    });
    rs.on('data', chunk => {
      rs.pause();
      const ok = res.write(chunk, () => {
        stats.bytes += chunk.length;
      });
      const next = () => {
        if (opts.pauseMs) setTimeout(() => rs.resume(), opts.pauseMs);
        else rs.resume();
      };
      if (ok) next();
      else res.once('drain', next);
    });
    rs.on('end', () => {
      // wait until the last write is flushed to the socket
      res.write('', finish);
    });
  });
}

async function serveFile(req, res, mode, file, urlPath) {
  let st;
  try {
    st = await fs.promises.stat(file);
  } catch {
    return sendSimple(res, 404, 'not found');
  }
  if (!st.isFile()) return sendSimple(res, 404, 'not found');

  const size = st.size;
  const mtimeSec = Math.floor(st.mtimeMs / 1000);
  // same shape as nginx's ETag: "<mtime hex>-<size hex>"
  let etag = `"${mtimeSec.toString(16)}-${size.toString(16)}"`;
  let lastModified = new Date(mtimeSec * 1000);

  const changeAfter = /^change-after-(\d+)$/.exec(mode || '');
  let replaced = false;
  if (changeAfter) {
    const seen = seenCounts.get(urlPath) || 0;
    seenCounts.set(urlPath, seen + 1);
    replaced = seen >= Number(changeAfter[1]);
  }
  if (replaced) {
    etag = `"${(mtimeSec + 3600).toString(16)}-${size.toString(16)}"`;
    lastModified = new Date((mtimeSec + 3600) * 1000);
  }
  if (mode === 'change') {
    if (seenPaths.has(urlPath)) {
      etag = `"${(mtimeSec + 3600).toString(16)}-${size.toString(16)}"`;
      lastModified = new Date((mtimeSec + 3600) * 1000);
    } else {
      seenPaths.add(urlPath);
    }
  }
  const lastModStr = lastModified.toUTCString();
  const validators = { ETag: etag, 'Last-Modified': lastModStr };

  // Conditional requests.
  const ifMatch = req.headers['if-match'];
  if (ifMatch !== undefined && !etagMatches(ifMatch, etag)) {
    return sendSimple(res, 412, 'precondition failed', validators);
  }
  const ius = req.headers['if-unmodified-since'];
  if (ifMatch === undefined && ius !== undefined) {
    const t = Date.parse(ius);
    if (!isNaN(t) && lastModified.getTime() > t) {
      return sendSimple(res, 412, 'precondition failed', validators);
    }
  }
  const inm = req.headers['if-none-match'];
  const ims = req.headers['if-modified-since'];
  let notModified = false;
  if (inm !== undefined) notModified = etagMatches(inm, etag);
  else if (ims !== undefined) {
    const t = Date.parse(ims);
    notModified = !isNaN(t) && lastModified.getTime() <= t;
  }
  if (notModified) {
    res.writeHead(304, validators);
    return res.end();
  }

  let range = mode === 'norange' ? undefined : parseRange(req.headers['range'], size);
  if (mode === 'badrange' && range && range.end + 1 < size) {
    range = { start: range.start + 1, end: range.end + 1 };
  }
  const ifRange = req.headers['if-range'];
  if (range !== undefined && ifRange !== undefined) {
    const s = ifRange.trim();
    const same = s.startsWith('"') || s.startsWith('W/')
      ? s === etag
      : Date.parse(s) === lastModified.getTime();
    if (!same) range = undefined;
  }
  if (range === null) {
    return sendSimple(res, 416, 'range not satisfiable', {
      'Content-Range': `bytes */${size}`,
      'Accept-Ranges': 'bytes',
      ...validators,
    });
  }

  const start = range ? range.start : 0;
  const len = range ? range.end - range.start + 1 : size;
  const headers = {
    'Content-Type': 'application/octet-stream',
    'Content-Length': len,
    'Accept-Ranges': 'bytes',
    ...validators,
  };
  let total = size;
  if (mode === 'sizechange') {
    if (seenPaths.has(urlPath)) total = size + 1;
    else seenPaths.add(urlPath);
  }
  if (range && mode !== 'nocr') {
    headers['Content-Range'] = `bytes ${range.start}-${range.end}/${total}`;
  }
  const status = range ? 206 : 200;
  const isHead = req.method === 'HEAD';

  const key = `${req.method} ${urlPath} ${req.headers['range'] ?? ''}`;
  const firstForKey = !seenKeys.has(key);

  if ((mode === 'reset' || mode === 'truncate') && firstForKey) {
    seenKeys.add(key);
    res.writeHead(status, headers);
    res.flushHeaders();
    if (!isHead) await streamBody(res, file, start, Math.floor(len / 2));
    const sock = res.socket;
    if (sock) {
      // the half body has been handed to the socket by now
      if (mode === 'reset') {
        // give the client a moment to read the half body, then send a
        // TCP RST (SO_LINGER 0) rather than a FIN
        await new Promise(r => setTimeout(r, 20));
        if (sock.resetAndDestroy) sock.resetAndDestroy();
        else sock.destroy();
      } else {
        sock.end(); // FIN: the client sees a short body
      }
    }
    return;
  }
  if (mode === 'stall') {
    res.writeHead(status, headers);
    res.flushHeaders();
    return; // never finishes
  }

  res.writeHead(status, headers);
  if (isHead) return res.end();
  const opts = mode === 'slow' ? { piece: PIECE, pauseMs: 1 } : {};
  await streamBody(res, file, start, len, opts);
  res.end();
}

async function handle(req, res) {
  // Use the raw request path: no URL normalisation, so ".." stays visible
  // and is rejected below instead of being resolved away.
  const pathname = req.url.split('?')[0];

  if (pathname === '/_stats') {
    return sendSimple(res, 200, JSON.stringify(stats), {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-store',
    });
  }
  if (pathname === '/_reset') {
    resetState();
    return sendSimple(res, 200, '{"reset":true}', {
      'Content-Type': 'application/json',
    });
  }

  const segs = pathname.split('/').slice(1);
  const mode = segs[0];
  const known = ['ok', 'flaky500', 'flaky503', 'reset', 'truncate', 'slow',
    'stall', 'always500', 'forbidden', 'change'];
  const delay = /^delay-(\d+)$/.exec(mode || '');
  if (!known.includes(mode) && !delay && !/^change-after-\d+$/.test(mode || '') &&
      !['norange', 'badrange', 'nocr', 'sizechange'].includes(mode)) {
    return sendSimple(res, 404, `unknown mode ${mode}`);
  }
  stats.requests++;

  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return sendSimple(res, 405, 'method not allowed', { Allow: 'GET, HEAD' });
  }
  const file = resolveName(segs.slice(1));
  if (!file) return sendSimple(res, 400, 'bad file name');

  // Resolve the range early for bookkeeping.
  if (req.headers['range'] !== undefined) {
    try {
      const st = fs.statSync(file);
      const r = st.isFile() ? parseRange(req.headers['range'], st.size) : null;
      if (r) recordRange(r.start, r.end);
    } catch {
      /* missing file: 404 below */
    }
  }

  if (mode === 'always500') return sendSimple(res, 500, 'internal error (always500)');
  if (mode === 'forbidden') return sendSimple(res, 403, 'forbidden');
  if (mode === 'flaky500' || mode === 'flaky503') {
    const key = `${req.method} ${pathname} ${req.headers['range'] ?? ''}`;
    if (!seenKeys.has(key)) {
      seenKeys.add(key);
      return mode === 'flaky500'
        ? sendSimple(res, 500, 'internal error (flaky500, first try)')
        : sendSimple(res, 503, 'unavailable (flaky503, first try)',
          { 'Retry-After': '0' });
    }
  }
  if (delay) {
    const ms = Math.min(Number(delay[1]), 60000);
    await new Promise(r => setTimeout(r, ms));
  }
  return serveFile(req, res, mode, file, pathname);
}

const server = http.createServer((req, res) => {
  handle(req, res).catch(err => {
    process.stderr.write(`fault_server: ${err && err.stack}\n`);
    if (!res.headersSent) sendSimple(res, 500, 'server error');
    else res.destroy();
  });
});
server.keepAliveTimeout = 30000;
server.headersTimeout = 35000;
server.requestTimeout = 0;

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`PORT ${server.address().port}\n`);
});

const stop = () => {
  server.closeAllConnections?.();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
