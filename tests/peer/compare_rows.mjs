// compare_rows.mjs: plank's `cat --format jsonl` lines against a peer's
// rows (duckdb_jsonl.mjs, hyparquet_jsonl.mjs): the value comparison shared
// by compare_corpus.mjs (the parquet-testing corpus) and ecosystem_read.mjs
// (files written by arrow-rs, DuckDB and Polars). Values are parsed with
// parseJsonKeepNumbers, so numbers compare by their text unless the peer
// column's hint says how (floats by the value of the column's type,
// truncated time fractions, nested values along the peer's shape).
import * as fmt from './jsonl_format.mjs';
import { INT96_UNDEFINED } from './hyparquet_jsonl.mjs';

const MAX_REPORT = Number(process.env.PEER_MAX_MISMATCHES || 10);

// Canonical text of a value parsed with parseJsonKeepNumbers (numbers as text).
export function canon(v) {
    if (v === null || typeof v !== 'object') return JSON.stringify(v);
    if ('num' in v && Object.keys(v).length === 1) return v.num;
    if (Array.isArray(v)) return '[' + v.map(canon).join(',') + ']';
    return '{' + (v.__keys || Object.keys(v)).map((k) => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}';
}

export const isNum = (v) => v !== null && typeof v === 'object' && typeof v.num === 'string';

// Returns null when equal, else a short reason. `hint` from the peer column.
function compareValue(a, b, hint) {
    if (b && typeof b === 'object' && !isNum(b) && INT96_UNDEFINED in b) return 'undefined';
    switch (hint.cmp) {
    case 'float': case 'double': case 'half': {
        if (isNum(a) && isNum(b)) {
            const x = fmt.roundTo(Number(a.num), hint.cmp), y = fmt.roundTo(Number(b.num), hint.cmp);
            if (!Object.is(x, y)) return 'value';
            return a.num === b.num ? null : 'text';
        }
        return canon(a) === canon(b) ? null : 'value';
    }
    case 'truncfrac': {
        // Timestamps/times whose last `digits` fraction digits the peer lacks.
        if (typeof a === 'string' && typeof b === 'string') {
            const cut = (s) => s.replace(new RegExp(`(\\.\\d+?)\\d{${hint.digits}}(Z?)$`), '$1$2');
            return cut(a) === cut(b) ? null : 'value';
        }
        return canon(a) === canon(b) ? null : 'value';
    }
    case 'nested':
        return compareShaped(a, b, hint.shape);
    case 'decimal-as-double':
        if (typeof a === 'string' && isNum(b)) return Math.abs(Number(a) - Number(b.num)) <= Math.abs(Number(b.num)) * 1e-15 ? null : 'value';
        return canon(a) === canon(b) ? null : 'value';
    default:
        return canon(a) === canon(b) ? null : 'value';
    }
}

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !isNum(v);

// Compares parsed nested values along the peer's shape; leaves by their hint.
// Returns null when equal, 'text' when only float texts differ, else a reason.
function compareShaped(a, b, shape) {
    if (shape.kind === 'leaf') return compareValue(a, b, shape.hint || { cmp: 'exact' });
    if (a === null || b === null) return a === b ? null : 'value';
    let text = null;
    const merge = (why) => { if (why && why !== 'text') return why; if (why) text = 'text'; return null; };
    if (shape.kind === 'list' || shape.kind === 'map') {
        if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return 'value';
        for (let i = 0; i < a.length; i++) {
            let why;
            if (shape.kind === 'list') why = merge(compareShaped(a[i], b[i], shape.element));
            else if (!isObj(a[i]) || !isObj(b[i]) || (a[i].__keys || []).join(',') !== 'key,value') why = 'value';
            else why = merge(compareShaped(a[i].key, b[i].key, shape.key)) || merge(compareShaped(a[i].value, b[i].value, shape.value));
            if (why) return why;
        }
        return text;
    }
    if (!isObj(a) || !isObj(b)) return 'value';
    const names = shape.fields.map((f) => f.name);
    if ((a.__keys || []).join('\u0000') !== names.join('\u0000')) return 'value';
    for (const f of shape.fields) {
        const why = merge(compareShaped(a[f.name], b[f.name], f.shape));
        if (why) return why;
    }
    return text;
}

// Compares plank's jsonl text with a peer result; returns { ok, notes, problems }.
export function compareRows(plankText, peer, label, nestedNames, skipCells) {
    const problems = [], notes = [];
    const plankLines = plankText.split('\n').filter((l) => l.length > 0);
    if (plankLines.length !== peer.lines.length) {
        problems.push(`row count: plank ${plankLines.length}, ${label} ${peer.lines.length}`);
    }
    const n = Math.min(plankLines.length, peer.lines.length);
    let textDiffs = 0, undefinedValues = 0, keyProblem = false;
    const mismatchCount = new Map();
    for (let i = 0; i < n; i++) {
        let pr;
        try {
            pr = fmt.parseJsonKeepNumbers(plankLines[i]);
        } catch (e) {
            problems.push(`row ${i}: plank line is not valid JSON (${e.message}): ${plankLines[i].slice(0, 200)}`);
            break;
        }
        const dr = fmt.parseJsonKeepNumbers(peer.lines[i]);
        if (!keyProblem) {
            const pk = pr.__keys || [];
            const want = peer.columns.map((c) => c.name);
            const flatInPlank = pk.filter((k) => !nestedNames.includes(k));
            const dup = pk.length !== new Set(pk).size;
            if (dup || flatInPlank.join('\u0000') !== want.join('\u0000')) {
                problems.push(`keys: plank [${pk.join(", ")}], ${label} columns [${want.join(', ')}]`);
                keyProblem = true;
            }
        }
        for (const c of peer.columns) {
            if (!(c.name in pr)) continue;
            if (c.hint.cmp === 'nested') c.hint.shape = c.shape;
            if (skipCells && skipCells.has(`${i}\u0000${c.name}`)) continue;
            const why = compareValue(pr[c.name], dr[c.name], c.hint);
            if (why === null) continue;
            if (why === 'text') { textDiffs++; if (textDiffs <= 3) notes.push(`float text differs (same value) row ${i} ${c.name}: plank ${canon(pr[c.name])}, ${label} ${canon(dr[c.name])}`); continue; }
            if (why === 'undefined') { undefinedValues++; notes.push(`row ${i} ${c.name}: INT96 with nanoseconds outside one day (${canon(dr[c.name])}), not compared; plank ${canon(pr[c.name])}`); continue; }
            const k = mismatchCount.get(c.name) || 0;
            mismatchCount.set(c.name, k + 1);
            if (k < MAX_REPORT) problems.push(`row ${i} column ${JSON.stringify(c.name)} (${c.desc.physical || 'nested'}/${c.desc.logical.kind}): plank ${canon(pr[c.name]).slice(0, 400)} != ${label} ${canon(dr[c.name]).slice(0, 400)}`);
        }
    }
    for (const [name, k] of mismatchCount) if (k > MAX_REPORT) problems.push(`column ${JSON.stringify(name)}: ${k} mismatching values in all`);
    if (textDiffs > 3) notes.push(`${textDiffs} float texts differ from the shortest round-trip form (values equal)`);
    return { problems, notes };
}
