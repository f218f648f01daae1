// S3 test server for plank's remote-read tests: s3rver (npm) behind a small
// front end that verifies AWS Signature Version 4.
//
// Usage: node s3_server.mjs ROOT DATADIR
//
// * s3rver keeps its objects in DATADIR (the bucket's old contents there are
//   removed first).  Bucket "plank-test" is created and every regular file
//   under ROOT is stored as key = its path relative to ROOT ("/" separated).
// * Listens on 127.0.0.1, ephemeral port; prints "PORT <n>" on stdout when
//   ready.
// * Credentials: access key S3RVER, secret S3RVER (s3rver's defaults).
//   Region: us-east-1 (override with env S3_REGION), service "s3".
//
// Why a front end: s3rver 3.7.1 verifies only V2 signatures; for SigV4 it
// checks that the access key exists, that x-amz-content-sha256 is present and
// well formed and that the date is within 15 minutes, but it never computes
// the signature ("Signature version 4 calculation is unimplemented"), and it
// serves unsigned requests.  The front end here:
//   - refuses unsigned requests (403 AccessDenied);
//   - verifies SigV4 in the Authorization header and in presigned query
//     strings (X-Amz-Signature): canonical request over method, URI path,
//     query, every header listed in SignedHeaders, x-amz-content-sha256;
//     answers 403 SignatureDoesNotMatch (with StringToSign and
//     CanonicalRequest in the XML body, as AWS does) on mismatch;
//   - checks access key, credential scope (date, region, "s3",
//     "aws4_request"), clock skew (15 min), that host and every x-amz-*
//     header present are signed, and for body-less requests that a hex
//     x-amz-content-sha256 is the hash of the empty body;
//   - passes V2 ("AWS key:sig") requests to s3rver, which verifies them.
// Then it rewrites the request to path style for s3rver:
//   - virtual-hosted style: Host "<bucket>.localhost[:port]" (also
//     "<bucket>.s3.localhost") becomes path /<bucket>/<key> (s3rver itself
//     only recognises "<bucket>.s3[.-...].<serviceEndpoint>" hosts and would
//     treat "plank-test.localhost" as a bucket named "plank-test.localhost");
//   - suffix ranges "bytes=-n" are turned into "bytes=a-b" (s3rver 3.7.1
//     would serve the first n+1 bytes instead of the last n);
//   - and s3rver's store is patched so that a range ending at byte 0
//     ("bytes=0-0") returns one byte (3.7.1 returns the whole object).

import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
let S3rver, S3Object;
try {
  S3rver = require('s3rver');
  S3Object = require('s3rver/lib/models/object');
} catch (e) {
  process.stderr.write(`s3_server: cannot load s3rver (npm ci at the repo root?): ${e.message}\n`);
  process.exit(3);
}

const BUCKET = 'plank-test';
const ACCESS_KEY = 'S3RVER';
const SECRET_KEY = 'S3RVER';
const REGION = process.env.S3_REGION || 'us-east-1';
const SERVICE = 's3';
const MAX_SKEW_MS = 15 * 60 * 1000;
const EMPTY_SHA256 = crypto.createHash('sha256').update('').digest('hex');

const [rootArg, dataArg] = process.argv.slice(2);
if (!rootArg || !dataArg) {
  process.stderr.write('usage: node s3_server.mjs ROOT DATADIR\n');
  process.exit(2);
}
const ROOT = path.resolve(rootArg);
const DATADIR = path.resolve(dataArg);
if (!fs.existsSync(ROOT) || !fs.statSync(ROOT).isDirectory()) {
  process.stderr.write(`s3_server: ROOT ${ROOT} is not a directory\n`);
  process.exit(2);
}
fs.mkdirSync(DATADIR, { recursive: true });
fs.rmSync(path.join(DATADIR, BUCKET), { recursive: true, force: true });

// ---------------------------------------------------------------- s3rver

const s3rver = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory: DATADIR,
  serviceEndpoint: 'localhost',
  vhostBuckets: true,
  configureBuckets: [{ name: BUCKET }],
});
const store = s3rver.store;

// s3rver 3.7.1 FilesystemStore.getObject treats options.end === 0 as "no
// end" (`options.end || Infinity`).  Same logic, with that fixed.
store.getObject = async function getObject(bucket, key, options) {
  try {
    const metadata = await this.getMetadata(bucket, key);
    const lastByte = Math.max(0, Number(metadata['content-length']) - 1);
    const ranged = !!options &&
      (options.start !== undefined || options.end !== undefined);
    const range = {
      start: (options && options.start) || 0,
      end: Math.min(
        options && options.end !== undefined ? options.end : Infinity,
        lastByte,
      ),
    };
    if (range.start < 0 || range.end < range.start ||
        (ranged && range.start > lastByte) ||
        (ranged && Number(metadata['content-length']) === 0)) {
      const object = new S3Object(bucket, key, null, metadata);
      if (ranged) object.range = range;
      return object;
    }
    const content = await new Promise((resolve, reject) => {
      const stream = fs
        .createReadStream(this.getResourcePath(bucket, key, 'object'), range)
        .on('error', reject)
        .on('open', () => resolve(stream));
    });
    const object = new S3Object(bucket, key, content, metadata);
    if (ranged) object.range = range;
    return object;
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw err;
  }
};

function* walk(dir, rel = '') {
  for (const ent of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, ent.name);
    const key = rel ? `${rel}/${ent.name}` : ent.name;
    let st;
    try {
      st = fs.statSync(full); // follows symlinks
    } catch {
      continue;
    }
    if (st.isDirectory()) yield* walk(full, key);
    else if (st.isFile()) yield { full, key, st };
  }
}

async function upload() {
  let n = 0;
  for (const { full, key, st } of walk(ROOT)) {
    const objectPath = store.getResourcePath(BUCKET, key, 'object');
    fs.mkdirSync(path.dirname(objectPath), { recursive: true });
    fs.copyFileSync(full, objectPath);
    fs.utimesSync(objectPath, st.atime, st.mtime);
    const hash = crypto.createHash('md5');
    for await (const chunk of fs.createReadStream(full)) hash.update(chunk);
    const md5 = hash.digest('hex');
    await store.putMetadata(BUCKET, key,
      { 'content-type': 'application/octet-stream' }, md5);
    n++;
  }
  return n;
}

// ---------------------------------------------------------------- SigV4

const sha256hex = data => crypto.createHash('sha256').update(data).digest('hex');
const hmac = (key, data) => crypto.createHmac('sha256', key).update(data).digest();

function uriEncode(s, keepSlash) {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-._~]/.test(c) || (keepSlash && c === '/')) out += c;
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

function safeDecode(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function canonicalUri(rawPath) {
  // S3: no normalisation, no double encoding.
  return rawPath.split('/').map(seg => uriEncode(safeDecode(seg), false)).join('/') || '/';
}

function canonicalQuery(rawQuery, drop) {
  if (!rawQuery) return '';
  const pairs = [];
  for (const part of rawQuery.split('&')) {
    if (part === '') continue;
    const i = part.indexOf('=');
    const name = safeDecode(i < 0 ? part : part.slice(0, i));
    const value = safeDecode(i < 0 ? '' : part.slice(i + 1));
    if (drop && name === drop) continue;
    pairs.push([uriEncode(name, false), uriEncode(value, false)]);
  }
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 :
    a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return pairs.map(([n, v]) => `${n}=${v}`).join('&');
}

function headerValues(req) {
  const m = new Map();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i].toLowerCase();
    const value = req.rawHeaders[i + 1].trim().replace(/\s+/g, ' ');
    if (!m.has(name)) m.set(name, []);
    m.get(name).push(value);
  }
  return m;
}

function parseAmzDate(s) {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s || '');
  if (!m) return NaN;
  return Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
}

class S3Err extends Error {
  constructor(status, code, message, extra = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.extra = extra;
  }
}

const xmlEscape = s => String(s).replace(/[<>&'"]/g, c =>
  ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]);

function sendError(req, res, err) {
  let body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error>' +
    `<Code>${err.code}</Code><Message>${xmlEscape(err.message)}</Message>`;
  for (const [k, v] of Object.entries(err.extra)) {
    body += `<${k}>${xmlEscape(v)}</${k}>`;
  }
  body += `<RequestId>${crypto.randomBytes(8).toString('hex').toUpperCase()}</RequestId></Error>`;
  const buf = Buffer.from(body);
  res.writeHead(err.status, {
    'Content-Type': 'application/xml',
    'Content-Length': buf.length,
  });
  res.end(req.method === 'HEAD' ? undefined : buf);
}

// Verifies a SigV4 request; throws S3Err on failure.
function verifyV4(req, rawPath, rawQuery, query) {
  const headers = headerValues(req);
  const presigned = query.has('X-Amz-Algorithm');
  let credential, signedHeadersStr, signature, amzDate, payloadHash;

  if (presigned) {
    if (query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') {
      throw new S3Err(400, 'AuthorizationQueryParametersError',
        'X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
    }
    for (const p of ['X-Amz-Credential', 'X-Amz-Signature', 'X-Amz-Date',
      'X-Amz-SignedHeaders', 'X-Amz-Expires']) {
      if (!query.has(p)) {
        throw new S3Err(400, 'AuthorizationQueryParametersError',
          `Query-string authentication version 4 requires ${p}`);
      }
    }
    credential = query.get('X-Amz-Credential');
    signedHeadersStr = query.get('X-Amz-SignedHeaders');
    signature = query.get('X-Amz-Signature');
    amzDate = query.get('X-Amz-Date');
    payloadHash = headers.get('x-amz-content-sha256')?.[0] || 'UNSIGNED-PAYLOAD';
  } else {
    const auth = req.headers['authorization'];
    const sp = auth.indexOf(' ');
    const fields = new Map();
    for (const part of auth.slice(sp + 1).split(',')) {
      const p = part.trim();
      const i = p.indexOf('=');
      if (i > 0) fields.set(p.slice(0, i), p.slice(i + 1));
    }
    for (const f of ['Credential', 'SignedHeaders', 'Signature']) {
      if (!fields.has(f)) {
        throw new S3Err(400, 'AuthorizationHeaderMalformed',
          `The authorization header is malformed; missing ${f}.`);
      }
    }
    credential = fields.get('Credential');
    signedHeadersStr = fields.get('SignedHeaders');
    signature = fields.get('Signature');
    amzDate = headers.get('x-amz-date')?.[0];
    if (amzDate === undefined) {
      throw new S3Err(403, 'AccessDenied',
        'AWS authentication requires a valid Date or x-amz-date header');
    }
    payloadHash = headers.get('x-amz-content-sha256')?.[0];
    if (payloadHash === undefined) {
      throw new S3Err(400, 'InvalidRequest',
        'Missing required header for this request: x-amz-content-sha256');
    }
  }

  const [accessKey, scopeDate, region, service, terminator, ...rest] =
    credential.split('/');
  if (accessKey !== ACCESS_KEY) {
    throw new S3Err(403, 'InvalidAccessKeyId',
      'The AWS Access Key Id you provided does not exist in our records.',
      { AWSAccessKeyId: accessKey });
  }
  if (rest.length || terminator !== 'aws4_request' || service !== SERVICE) {
    throw new S3Err(400, 'AuthorizationHeaderMalformed',
      `The authorization header is malformed; incorrect credential scope '${credential}'`);
  }
  if (region !== REGION) {
    throw new S3Err(400, 'AuthorizationHeaderMalformed',
      `The authorization header is malformed; the region '${region}' is wrong; expecting '${REGION}'`,
      { Region: REGION });
  }
  const t = parseAmzDate(amzDate);
  if (isNaN(t)) {
    throw new S3Err(403, 'AccessDenied',
      `X-Amz-Date must be in the ISO8601 Long Format "yyyyMMdd'T'HHmmss'Z'": ${amzDate}`);
  }
  if (scopeDate !== amzDate.slice(0, 8)) {
    throw new S3Err(400, 'AuthorizationHeaderMalformed',
      `Invalid credential date "${scopeDate}". This date is not the same as X-Amz-Date: "${amzDate.slice(0, 8)}".`);
  }
  const now = Date.now();
  if (presigned) {
    const expires = Number(query.get('X-Amz-Expires'));
    if (!(expires >= 0 && expires <= 604800)) {
      throw new S3Err(400, 'AuthorizationQueryParametersError',
        'X-Amz-Expires must be between 0 and 604800 seconds');
    }
    if (now > t + expires * 1000) {
      throw new S3Err(403, 'AccessDenied', 'Request has expired');
    }
    if (t - now > MAX_SKEW_MS) {
      throw new S3Err(403, 'AccessDenied', 'Request is not valid yet');
    }
  } else if (Math.abs(now - t) > MAX_SKEW_MS) {
    throw new S3Err(403, 'RequestTimeTooSkewed',
      'The difference between the request time and the current time is too large.',
      { RequestTime: amzDate, ServerTime: new Date(now).toISOString() });
  }

  if (!/^(UNSIGNED-PAYLOAD|STREAMING-[A-Z0-9-]+|[0-9a-f]{64})$/.test(payloadHash)) {
    throw new S3Err(400, 'InvalidArgument',
      'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, or a valid sha256 value.',
      { ArgumentName: 'x-amz-content-sha256', ArgumentValue: payloadHash });
  }
  const hasBody = req.headers['transfer-encoding'] !== undefined ||
    Number(req.headers['content-length'] || 0) > 0;
  if (!hasBody && /^[0-9a-f]{64}$/.test(payloadHash) && payloadHash !== EMPTY_SHA256) {
    throw new S3Err(400, 'XAmzContentSHA256Mismatch',
      "The provided 'x-amz-content-sha256' header does not match what was computed.",
      { ClientComputedContentSHA256: payloadHash, S3ComputedContentSHA256: EMPTY_SHA256 });
  }

  const signedHeaders = signedHeadersStr.split(';');
  if (!signedHeaders.includes('host')) {
    throw new S3Err(403, 'AccessDenied', 'The host header must be signed (SignedHeaders lacks host).');
  }
  const unsigned = [...headers.keys()].filter(h => h.startsWith('x-amz-') && !signedHeaders.includes(h));
  if (unsigned.length) {
    throw new S3Err(403, 'AccessDenied',
      'There were headers present in the request which were not signed',
      { HeadersNotSigned: unsigned.join(', ') });
  }

  const canonicalHeaders = signedHeaders
    .map(h => `${h}:${(headers.get(h) || []).join(',')}\n`).join('');
  const canonicalRequest = [
    req.method,
    canonicalUri(rawPath),
    canonicalQuery(rawQuery, presigned ? 'X-Amz-Signature' : null),
    canonicalHeaders,
    signedHeadersStr,
    payloadHash,
  ].join('\n');
  const scope = `${scopeDate}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256hex(canonicalRequest)].join('\n');
  let key = hmac('AWS4' + SECRET_KEY, scopeDate);
  key = hmac(key, region);
  key = hmac(key, service);
  key = hmac(key, 'aws4_request');
  const expected = crypto.createHmac('sha256', key).update(stringToSign).digest('hex');
  if (expected !== signature) {
    throw new S3Err(403, 'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      { AWSAccessKeyId: accessKey, StringToSign: stringToSign, SignatureProvided: signature,
        CanonicalRequest: canonicalRequest });
  }
}

// ---------------------------------------------------------------- front end

const koaHandler = s3rver.callback();
let port = 0;

async function handle(req, res) {
  const q = req.url.indexOf('?');
  const rawPath = q < 0 ? req.url : req.url.slice(0, q);
  const rawQuery = q < 0 ? '' : req.url.slice(q + 1);
  const query = new URLSearchParams(rawQuery);
  // s3rver maps keys straight onto DATADIR paths: keep ".." out.
  if (rawPath.split('/').some(seg => ['.', '..'].includes(safeDecode(seg)))) {
    throw new S3Err(400, 'InvalidURI', 'Couldn\'t parse the specified URI.');
  }

  const auth = req.headers['authorization'];
  if (auth !== undefined && /^AWS4-HMAC-SHA256 /.test(auth)) {
    if (query.has('X-Amz-Algorithm')) {
      throw new S3Err(400, 'InvalidArgument', 'Only one auth mechanism allowed');
    }
    verifyV4(req, rawPath, rawQuery, query);
    // Verified here; s3rver's own (weaker) V4 header checks are redundant.
    delete req.headers['authorization'];
  } else if (auth === undefined && query.has('X-Amz-Algorithm')) {
    verifyV4(req, rawPath, rawQuery, query);
  } else if (auth === undefined && !query.has('Signature')) {
    throw new S3Err(403, 'AccessDenied', 'Access Denied');
  }
  // else: V2 header or V2 query -> s3rver verifies it.

  // Virtual-hosted style -> path style.
  const host = (req.headers['host'] || '').toLowerCase().replace(/:\d+$/, '');
  const vm = /^(.+?)(\.s3)?\.localhost\.?$/.exec(host);
  let pathStyle = rawPath;
  if (vm) pathStyle = `/${vm[1]}${rawPath.startsWith('/') ? '' : '/'}${rawPath}`;
  req.url = pathStyle + (q < 0 ? '' : req.url.slice(q));
  req.headers['host'] = `127.0.0.1:${port}`;

  // Suffix range -> absolute range (s3rver 3.7.1 mishandles "bytes=-n").
  const range = req.headers['range'];
  const sm = /^\s*bytes\s*=\s*-\s*(\d+)\s*$/i.exec(range || '');
  if (sm && (req.method === 'GET' || req.method === 'HEAD')) {
    const segs = pathStyle.split('/').slice(1);
    const bucket = safeDecode(segs[0] || '');
    const key = segs.slice(1).map(safeDecode).join('/');
    let size;
    try {
      size = Number((await store.getMetadata(bucket, key))['content-length']);
    } catch {
      size = undefined; // missing: let s3rver answer NoSuchKey/NoSuchBucket
    }
    if (size !== undefined) {
      const n = Number(sm[1]);
      if (n === 0 || size === 0) {
        throw new S3Err(416, 'InvalidRange', 'The requested range is not satisfiable',
          { RangeRequested: range, ActualObjectSize: size });
      }
      req.headers['range'] = `bytes=${Math.max(0, size - n)}-${size - 1}`;
    }
  }
  return koaHandler(req, res);
}

const server = http.createServer((req, res) => {
  handle(req, res).catch(err => {
    if (!(err instanceof S3Err)) {
      process.stderr.write(`s3_server: ${err && err.stack}\n`);
      err = new S3Err(500, 'InternalError', String(err && err.message));
    }
    if (res.headersSent) res.destroy();
    else sendError(req, res, err);
  });
});
server.keepAliveTimeout = 30000;
server.headersTimeout = 35000;

await s3rver.configureBuckets();
const count = await upload();
server.listen(0, '127.0.0.1', () => {
  port = server.address().port;
  process.stderr.write(`s3_server: ${count} objects in bucket ${BUCKET}\n`);
  process.stdout.write(`PORT ${port}\n`);
});

const stop = () => {
  server.closeAllConnections?.();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
