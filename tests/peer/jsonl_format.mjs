// jsonl_format.mjs: the `plank cat --format jsonl` value formats, written
// independently of plank (from the format description only), plus a JSON
// parser that keeps number tokens as text so 64-bit integers compare exactly.
//
// A column is described by a small record built from a peer's view of the
// Parquet schema (DuckDB's parquet_schema() or hyparquet's footer):
//   { name, physical, typeLength, logical: { kind, scale, precision, unit,
//     utc, bitWidth, signed } }
// where kind is one of NONE STRING ENUM JSON BSON DECIMAL DATE TIME TIMESTAMP
// INTEGER UNKNOWN UUID FLOAT16 INTERVAL GEOMETRY GEOGRAPHY UNRECOGNIZED.

// ---- effective logical type from the legacy ConvertedType ---------------------

// Maps a ConvertedType name (as both peers spell it) to the effective logical
// type, the way LogicalTypes.md describes the legacy annotations.
export function logicalFromConverted(ct, scale, precision) {
    switch (ct) {
    case 'UTF8': return { kind: 'STRING' };
    case 'ENUM': return { kind: 'ENUM' };
    case 'JSON': return { kind: 'JSON' };
    case 'BSON': return { kind: 'BSON' };
    case 'DECIMAL': return { kind: 'DECIMAL', scale: scale ?? 0, precision: precision ?? 0 };
    case 'DATE': return { kind: 'DATE' };
    case 'TIME_MILLIS': return { kind: 'TIME', unit: 'MILLIS', utc: true };
    case 'TIME_MICROS': return { kind: 'TIME', unit: 'MICROS', utc: true };
    case 'TIMESTAMP_MILLIS': return { kind: 'TIMESTAMP', unit: 'MILLIS', utc: true };
    case 'TIMESTAMP_MICROS': return { kind: 'TIMESTAMP', unit: 'MICROS', utc: true };
    case 'INTERVAL': return { kind: 'INTERVAL' };
    default: {
        const m = /^(U?)INT_(8|16|32|64)$/.exec(ct || '');
        if (m) return { kind: 'INTEGER', bitWidth: Number(m[2]), signed: m[1] === '' };
        return { kind: 'NONE' };
    }
    }
}

// ---- integers, decimals, dates, times -------------------------------------------

export function fmtUnsigned(v, bitWidth) {
    return BigInt.asUintN(bitWidth, BigInt(v)).toString();
}

// Big-endian two's complement bytes -> BigInt.
export function bigFromBytesBE(bytes) {
    if (bytes.length === 0) return 0n;
    let v = 0n;
    for (const b of bytes) v = (v << 8n) | BigInt(b);
    return BigInt.asIntN(bytes.length * 8, v);
}

// "-12.30" for unscaled -1230 with scale 2; exactly `scale` fraction digits.
export function fmtDecimal(unscaled, scale) {
    const neg = unscaled < 0n;
    let digits = (neg ? -unscaled : unscaled).toString();
    if (scale > 0) {
        digits = digits.padStart(scale + 1, '0');
        digits = digits.slice(0, digits.length - scale) + '.' + digits.slice(digits.length - scale);
    }
    return JSON.stringify((neg ? '-' : '') + digits);
}

const floorDiv = (a, b) => { const q = a / b; return (a % b !== 0n && ((a < 0n) !== (b < 0n))) ? q - 1n : q; };

// Proleptic Gregorian civil date from days since 1970-01-01 (H. Hinnant's
// public-domain civil_from_days algorithm, re-derived here in BigInt).
export function civilFromDays(days) {
    const z = BigInt(days) + 719468n;
    const era = floorDiv(z, 146097n);
    const doe = z - era * 146097n;
    const yoe = (doe - doe / 1460n + doe / 36524n - doe / 146096n) / 365n;
    const doy = doe - (365n * yoe + yoe / 4n - yoe / 100n);
    const mp = (5n * doy + 2n) / 153n;
    const d = doy - (153n * mp + 2n) / 5n + 1n;
    const m = mp < 10n ? mp + 3n : mp - 9n;
    const y = yoe + era * 400n + (m <= 2n ? 1n : 0n);
    return { y, m, d };
}

const pad = (v, n) => String(v).padStart(n, '0');

function fmtYear(y) {
    return y < 0n ? '-' + pad(-y, 4) : pad(y, 4);
}

export function fmtDate(days) {
    const { y, m, d } = civilFromDays(days);
    return JSON.stringify(`${fmtYear(y)}-${pad(m, 2)}-${pad(d, 2)}`);
}

export const UNIT_PER_SECOND = { MILLIS: 1000n, MICROS: 1000000n, NANOS: 1000000000n };
export const UNIT_DIGITS = { MILLIS: 3, MICROS: 6, NANOS: 9 };

function hms(secOfDay) {
    const h = secOfDay / 3600n, mi = (secOfDay / 60n) % 60n, s = secOfDay % 60n;
    return `${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}`;
}

// value: BigInt count of `unit` since midnight.
export function fmtTime(value, unit) {
    const per = UNIT_PER_SECOND[unit];
    const v = BigInt(value);
    const sec = floorDiv(v, per), frac = v - sec * per;
    return JSON.stringify(`${hms(sec)}.${pad(frac, UNIT_DIGITS[unit])}`);
}

// value: BigInt count of `unit` since the epoch; negative values floor.
export function fmtTimestamp(value, unit, utc) {
    const per = UNIT_PER_SECOND[unit];
    const v = BigInt(value);
    const sec = floorDiv(v, per), frac = v - sec * per;
    const days = floorDiv(sec, 86400n), sod = sec - days * 86400n;
    const { y, m, d } = civilFromDays(days);
    return JSON.stringify(`${fmtYear(y)}-${pad(m, 2)}-${pad(d, 2)}T${hms(sod)}.${pad(frac, UNIT_DIGITS[unit])}${utc ? 'Z' : ''}`);
}

// ---- strings, bytes ---------------------------------------------------------------

// UTF-8 decoding where every byte that does not start a complete, valid
// (shortest-form, non-surrogate, <= U+10FFFF) sequence becomes one U+FFFD.
export function utf8Replace(bytes) {
    let out = '';
    let i = 0;
    const n = bytes.length;
    while (i < n) {
        const b = bytes[i];
        let len = 0, cp = 0, min = 0;
        if (b < 0x80) { out += String.fromCharCode(b); i++; continue; }
        if (b >= 0xc2 && b <= 0xdf) { len = 2; cp = b & 0x1f; min = 0x80; }
        else if (b >= 0xe0 && b <= 0xef) { len = 3; cp = b & 0x0f; min = 0x800; }
        else if (b >= 0xf0 && b <= 0xf4) { len = 4; cp = b & 0x07; min = 0x10000; }
        let ok = len > 0 && i + len <= n;
        for (let k = 1; ok && k < len; k++) {
            const c = bytes[i + k];
            if ((c & 0xc0) !== 0x80) ok = false;
            else cp = (cp << 6) | (c & 0x3f);
        }
        if (ok && (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))) ok = false;
        if (!ok) { out += '\ufffd'; i++; continue; }
        out += String.fromCodePoint(cp);
        i += len;
    }
    return out;
}

export const fmtString = (s) => JSON.stringify(s);
export const fmtBase64 = (bytes) => JSON.stringify(Buffer.from(bytes).toString('base64'));

export function fmtUuidBytes(bytes) {
    const h = Buffer.from(bytes).toString('hex');
    return JSON.stringify(`${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`);
}

export function fmtInterval(months, days, millis) {
    return `{"months":${months},"days":${days},"millis":${millis}}`;
}

// ---- floating point -------------------------------------------------------------

// Exact binary value of a finite IEEE number of the given format as
// { neg, m (BigInt), e } with value = m * 2^e, plus its neighbours' distance
// for the round-trip interval. Formats: mantissa bits and exponent bias.
const FORMATS = {
    double: { mant: 52, expBits: 11, bias: 1023 },
    float: { mant: 23, expBits: 8, bias: 127 },
    half: { mant: 10, expBits: 5, bias: 15 },
};

// Bits of x (already a value of that format) as a BigInt.
function bitsOf(x, fmt) {
    if (fmt === 'double') {
        const b = new BigUint64Array(new Float64Array([x]).buffer);
        return b[0];
    }
    if (fmt === 'float') {
        const b = new Uint32Array(new Float32Array([x]).buffer);
        return BigInt(b[0]);
    }
    return BigInt(halfBitsFromValue(x));
}

// Bits of a half-precision value that is exactly representable (x came from
// a half, so no rounding is involved).
function halfBitsFromValue(x) {
    const sign = (x < 0 || Object.is(x, -0)) ? 0x8000 : 0;
    const a = Math.abs(x);
    if (a === 0) return sign;
    if (a === Infinity) return sign | 0x7c00;
    let e = Math.floor(Math.log2(a));
    if (2 ** e > a) e--;
    if (2 ** (e + 1) <= a) e++;
    if (e < -14) return sign | Math.round(a / 2 ** -24); // subnormal
    return sign | ((e + 15) << 10) | Math.round((a / 2 ** e - 1) * 1024);
}

export function halfToNumber(bits) {
    const s = bits & 0x8000 ? -1 : 1, e = (bits >> 10) & 0x1f, f = bits & 0x3ff;
    if (e === 0) return s * f * 2 ** -24;
    if (e === 31) return f ? NaN : s * Infinity;
    return s * (1 + f / 1024) * 2 ** (e - 15);
}

// Decomposes the positive finite value with these bits into m * 2^e.
function decompose(bits, f) {
    const mantMask = (1n << BigInt(f.mant)) - 1n;
    const expMask = (1n << BigInt(f.expBits)) - 1n;
    const bexp = Number((bits >> BigInt(f.mant)) & expMask);
    const frac = bits & mantMask;
    if (bexp === 0) return { m: frac, e: 1 - f.bias - f.mant };
    return { m: frac | (1n << BigInt(f.mant)), e: bexp - f.bias - f.mant };
}

// Does the decimal D * 10^k (D >= 0 BigInt) round to the positive finite
// value with `bits` in format f (round to nearest, ties to even)?
function roundsTo(D, k, bits, f) {
    const x = decompose(bits, f);
    const expMax = (1n << BigInt(f.expBits)) - 1n;
    const absBits = bits & ((1n << BigInt(f.mant + f.expBits)) - 1n);
    // Neighbours below and above (the one above the largest finite value is
    // where infinity would start: max + ulp).
    const lo = absBits === 0n ? null : decompose(absBits - 1n, f);
    const hiBits = absBits + 1n;
    let hi;
    if ((hiBits >> BigInt(f.mant)) === expMax) hi = { m: (x.m + 1n), e: x.e };
    else hi = decompose(hiBits, f);
    // Everything on a common scale: value * 2^S * 10^T with S, T >= 0 making all integers.
    const minE = Math.min(x.e, hi.e, lo ? lo.e : x.e) - 1; // -1 for the midpoint halves
    const S = BigInt(Math.max(0, -minE));
    const T = BigInt(Math.max(0, -k));
    const scaleBin = (v) => (v.m << (BigInt(v.e) + S)) * 10n ** T;
    const dec = D * 10n ** (BigInt(k) + T) * (1n << S);
    const xv = scaleBin(x);
    const hv = scaleBin(hi);
    const lv = lo ? scaleBin(lo) : -xv; // below zero: symmetric, any value down to 0 is fine
    const midHi = (xv + hv) / 2n, midLo = (xv + lv) / 2n; // exact: S has one spare bit
    const even = (x.m & 1n) === 0n;
    if (dec > midLo && dec < midHi) return true;
    return even && (dec === midLo || dec === midHi);
}

// Exact decimal digits of m * 2^e (m > 0): { digits, exp } with value =
// 0.digits * 10^exp ... expressed as digits string and the decimal exponent of
// the first digit (value = d.ddd * 10^exp10).
function exactDecimal(m, e) {
    let num, pow10 = 0;
    if (e >= 0) num = m << BigInt(e);
    else { num = m * 5n ** BigInt(-e); pow10 = e; } // m * 2^e = m*5^-e * 10^e
    const digits = num.toString();
    return { digits, exp10: digits.length - 1 + pow10 };
}

// Rounds a digit string to p significant digits, half to even on the exact value.
function roundDigits(digits, exp10, p) {
    if (digits.length <= p) return { digits, exp10 };
    const keep = digits.slice(0, p), rest = digits.slice(p);
    let up;
    if (rest[0] > '5') up = true;
    else if (rest[0] < '5') up = false;
    else if (/[1-9]/.test(rest.slice(1))) up = true;
    else up = (Number(keep[keep.length - 1]) % 2) === 1;
    if (!up) return { digits: keep, exp10 };
    const r = (BigInt(keep) + 1n).toString();
    if (r.length > p) return { digits: r.slice(0, p), exp10: exp10 + 1 };
    return { digits: r, exp10 };
}

// C's %.{p}g rendering of the rounded digits (no '#': trailing zeros stripped).
function renderG(neg, digits, exp10, p) {
    let d = digits.padEnd(p, '0');
    let s;
    if (exp10 < -4 || exp10 >= p) {
        let mant = d[0] + (p > 1 ? '.' + d.slice(1) : '');
        if (mant.includes('.')) mant = mant.replace(/0+$/, '').replace(/\.$/, '');
        const ae = Math.abs(exp10);
        s = `${mant}e${exp10 < 0 ? '-' : '+'}${ae < 10 ? '0' + ae : ae}`;
    } else if (exp10 >= 0) {
        const ip = d.slice(0, exp10 + 1), fp = d.slice(exp10 + 1);
        s = fp ? `${ip}.${fp}` : ip;
        if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
    } else {
        s = '0.' + '0'.repeat(-exp10 - 1) + d;
        s = s.replace(/0+$/, '').replace(/\.$/, '');
    }
    return (neg ? '-' : '') + s;
}

const MAX_DIGITS = { double: 17, float: 9, half: 5 };

// Shortest %.{p}g text that reads back as the same value of the format, as a
// JSON token ("NaN"/"Infinity"/"-Infinity" as strings, -0 as -0).
export function fmtFloat(x, fmt) {
    if (Number.isNaN(x)) return '"NaN"';
    if (x === Infinity) return '"Infinity"';
    if (x === -Infinity) return '"-Infinity"';
    if (x === 0) return Object.is(x, -0) ? '-0' : '0';
    const f = FORMATS[fmt];
    const bits = bitsOf(Math.abs(x), fmt);
    const { m, e } = decompose(bits, f);
    const ex = exactDecimal(m, e);
    for (let p = 1; p <= MAX_DIGITS[fmt]; p++) {
        const r = roundDigits(ex.digits, ex.exp10, p);
        const k = r.exp10 - (r.digits.length - 1);
        if (p === MAX_DIGITS[fmt] || roundsTo(BigInt(r.digits), k, bits, f)) {
            return renderG(x < 0, r.digits, r.exp10, p);
        }
    }
    throw new Error('unreachable');
}

// Rounds a JS number to the nearest value of the format (for comparisons).
export function roundTo(x, fmt) {
    if (fmt === 'float') return Math.fround(x);
    if (fmt === 'half') return halfToNumber(roundHalfBits(x));
    return x;
}

function roundHalfBits(x) {
    if (Number.isNaN(x)) return 0x7e00;
    const sign = (x < 0 || Object.is(x, -0)) ? 0x8000 : 0;
    const a = Math.abs(x);
    if (a >= 65520) return sign | 0x7c00;
    // Quantum of the binade (subnormals share the 2^-24 quantum).
    let e = a === 0 ? -25 : Math.floor(Math.log2(a));
    if (a !== 0 && 2 ** e > a) e--;
    const q = 2 ** (Math.max(e, -14) - 10);
    let n = a / q; // exact: a power-of-two division
    const fl = Math.floor(n), diff = n - fl;
    n = diff > 0.5 || (diff === 0.5 && fl % 2 === 1) ? fl + 1 : fl;
    return sign | halfBitsFromValue(n * q);
}

// ---- a JSON parser that keeps number text ----------------------------------------

// Parses one JSON text; numbers become { num: "<text>" } so that 64-bit
// integers and float texts survive exactly. Throws on malformed input.
export function parseJsonKeepNumbers(text) {
    let i = 0;
    const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
    const fail = (what) => { throw new Error(`bad JSON at ${i}: ${what}`); };
    function value() {
        ws();
        const c = text[i];
        if (c === '{') {
            i++; const o = {}; const keys = [];
            ws();
            if (text[i] === '}') { i++; return withKeys(o, keys); }
            for (;;) {
                ws(); if (text[i] !== '"') fail('key');
                const k = str(); ws();
                if (text[i++] !== ':') fail('colon');
                if (Object.prototype.hasOwnProperty.call(o, k)) keys.push(k); // duplicate: keep order
                else keys.push(k);
                o[k] = value(); ws();
                if (text[i] === ',') { i++; continue; }
                if (text[i] === '}') { i++; return withKeys(o, keys); }
                fail('object');
            }
        }
        if (c === '[') {
            i++; const a = []; ws();
            if (text[i] === ']') { i++; return a; }
            for (;;) {
                a.push(value()); ws();
                if (text[i] === ',') { i++; continue; }
                if (text[i] === ']') { i++; return a; }
                fail('array');
            }
        }
        if (c === '"') return str();
        if (text.startsWith('true', i)) { i += 4; return true; }
        if (text.startsWith('false', i)) { i += 5; return false; }
        if (text.startsWith('null', i)) { i += 4; return null; }
        const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
        if (!m) fail('value');
        i += m[0].length;
        return { num: m[0] };
    }
    function str() {
        const m = /^"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/.exec(text.slice(i));
        if (!m) fail('string');
        i += m[0].length;
        return JSON.parse(m[0]);
    }
    function withKeys(o, keys) {
        Object.defineProperty(o, '__keys', { value: keys, enumerable: false });
        return o;
    }
    const v = value(); ws();
    if (i !== text.length) fail('trailing text');
    return v;
}

// ---- command line of the peer printers ---------------------------------------------

// `NAME FILE [--columns a,b]`: prints the lines of run(file, columns) and the
// peer's notes (lossy columns, nested columns left out) on stderr.
export function peerMain(name, run) {
    const args = process.argv.slice(2);
    let file = null, columns = null;
    for (let i = 0; i < args.length; i++) {
        if (args[i] === '--columns') columns = (args[++i] || '').split(',');
        else file = args[i];
    }
    if (!file) {
        process.stderr.write(`usage: ${name}.mjs FILE [--columns a,b]\n`);
        process.exit(2);
    }
    Promise.resolve(run(file, columns)).then((res) => {
        for (const c of res.columns) if (c.hint.lossy) process.stderr.write(`note: ${c.name}: ${c.hint.lossy}\n`);
        if (res.nested.length) process.stderr.write(`note: nested columns not printed: ${res.nested.join(', ')}\n`);
        process.stdout.write(res.lines.map((l) => l + '\n').join(''));
    }).catch((e) => {
        process.stderr.write(`${name}: ${e.message}\n`);
        process.exit(1);
    });
}
