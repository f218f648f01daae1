// bench/arrow_read.mjs ROUNDS SAMPLES NAME=FILE...: the rounds of
// bench/run_arrow_read.sh (which builds plank and makes the files), then
// the tables. bench/arrow_read.mjs --table SAMPLES prints the tables again
// from a samples file.
//
// For each file, ROUNDS rounds; each round takes one sample of every
// reader, one after the other, so the samples of a round see the same
// machine load (2 shared cores here):
//   columns, arrow     plank bench read FILE [--arrow] --repeat R --json
//                      (a new process per sample; the median of the R runs
//                      plank reports, each: open, read every column, close)
//   physical           bench_physical FILE R (decompress every page plus one
//                      memcpy of the decompressed bytes; the median of R)
// R is PLANK_REPEAT (default 3): the peers answer from warm processes (a
// warm-up round, then one call per sample), so plank's sample is taken warm
// too, not from a process's first run (fresh memory, faults).
//   polars             Polars readParquet, POLARS_MAX_THREADS=1
//   duckdb             DuckDB threads=1, max() of every column (strlen of strings)
//   duckdb_select      DuckDB threads=1, SELECT * materialised (not Arrow, see
//                      bench/peers_read.mjs)
//   columns_every100, arrow_every100   --rows every:100
//   columns_range, arrow_range         --rows range:N/2:N/100 (N the row count)
// The peers live in two long-lived processes (bench/peers_read.mjs), one
// for Polars and one for DuckDB, that time their own calls.
// Environment: PLANK (the plank binary), PHYSICAL (bench_physical), WARMUP
// (0: no unrecorded warm-up round before each file's rounds).
// Every sample is one JSON line of SAMPLES (truncated first); the first line
// says when, on which commit and with which arguments.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const REPEAT = String(Math.max(1, Number(process.env.PLANK_REPEAT ?? 3)));

// ---- the tables ------------------------------------------------------------

const LABELS = {
  columns: 'plank column reader',
  arrow: 'plank Arrow stream',
  arrow_mmap: 'plank Arrow stream, memory_map (--mmap)',
  physical: 'physical limit (decompress + 1 memcpy)',
  polars: 'Polars readParquet',
  duckdb: 'DuckDB max() of every column',
  duckdb_select: 'DuckDB SELECT * (materialised, not Arrow)',
  columns_every100: 'plank column reader, every:100',
  arrow_every100: 'plank Arrow stream, every:100',
  columns_range: 'plank column reader, range N/2 + N/100',
  arrow_range: 'plank Arrow stream, range N/2 + N/100',
};
const ORDER = Object.keys(LABELS);
// Compressed files: the DuckDB target is looser (decompression is shared work).
const COMPRESSED = new Set(['duckdb', 'zstd']);

function median(v) {
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function printTables(samples) {
  const meta = samples.find(s => s.meta)?.meta;
  if (meta) {
    console.log(`SF ${meta.sf}, ${meta.rounds} rounds, commit ${meta.commit}` +
                `${meta.dirty ? ' (+ uncommitted changes)' : ''}, ${meta.date}, ` +
                `load average at start ${meta.loadavg}`);
  }
  const files = [...new Set(samples.filter(s => s.file).map(s => s.file))];
  for (const file of files) {
    const mine = samples.filter(s => s.file === file && !s.meta);
    const stat = {};
    for (const what of ORDER) {
      const t = mine.filter(s => s.what === what).map(s => s.seconds);
      if (t.length) stat[what] = { med: median(t) * 1e3, best: Math.min(...t) * 1e3, n: t.length };
    }
    const rows = mine.find(s => s.rows)?.rows;
    console.log();
    console.log(`### ${file} (${rows} rows, ${fs.existsSync(mine[0].path) ? (fs.statSync(mine[0].path).size / 1e6).toFixed(1) + ' MB' : mine[0].path})`);
    console.log();
    console.log('| reader | median ms | best ms | samples |');
    console.log('|---|---:|---:|---:|');
    for (const what of ORDER) {
      const s = stat[what];
      if (s) console.log(`| ${LABELS[what]} | ${s.med.toFixed(1)} | ${s.best.toFixed(1)} | ${s.n} |`);
    }
    console.log();
    console.log('| ratio | target | of medians | of bests | met (medians) |');
    console.log('|---|---:|---:|---:|---|');
    const duckTarget = COMPRESSED.has(file) ? 0.65 : 0.5;
    const ratios = [
      ['arrow / columns', 'arrow', 'columns', 1.15],
      ['arrow / DuckDB', 'arrow', 'duckdb', duckTarget],
      ['arrow / Polars', 'arrow', 'polars', 0.35],
      ['arrow / physical', 'arrow', 'physical', null],
      ['arrow mmap / Polars', 'arrow_mmap', 'polars', 0.35],
      ['arrow mmap / DuckDB', 'arrow_mmap', 'duckdb', duckTarget],
      ['arrow / DuckDB SELECT *', 'arrow', 'duckdb_select', null],
      ['every:100 arrow / columns', 'arrow_every100', 'columns_every100', null],
      ['range arrow / columns', 'arrow_range', 'columns_range', null],
    ];
    for (const [label, a, b, target] of ratios) {
      if (!stat[a] || !stat[b]) continue;
      const rm = stat[a].med / stat[b].med, rb = stat[a].best / stat[b].best;
      const met = target == null ? '' : rm <= target ? 'yes' : 'no';
      console.log(`| ${label} | ${target == null ? '' : '<= ' + target} | ${rm.toFixed(3)} | ` +
                  `${rb.toFixed(3)} | ${met} |`);
    }
  }
}

if (process.argv[2] === '--table') {
  const lines = fs.readFileSync(process.argv[3], 'utf8').trim().split('\n');
  printTables(lines.map(l => JSON.parse(l)));
  process.exit(0);
}

// ---- the rounds ------------------------------------------------------------

const [roundsArg, samplesPath, ...pairs] = process.argv.slice(2);
const rounds = Number(roundsArg);
const plank = process.env.PLANK, physical = process.env.PHYSICAL;
const warmup = process.env.WARMUP !== '0';
if (!(rounds >= 1) || !samplesPath || !pairs.length || !plank || !physical) {
  console.error('usage: PLANK=... PHYSICAL=... arrow_read.mjs ROUNDS SAMPLES NAME=FILE...\n' +
                '       arrow_read.mjs --table SAMPLES');
  process.exit(2);
}
const files = pairs.map(p => {
  const i = p.indexOf('=');
  return { name: p.slice(0, i), path: p.slice(i + 1) };
});

// A peer process: send a command, await its one-line answer.
function startPeer(role, env) {
  const child = spawn(process.execPath, ['--expose-gc', `${here}/peers_read.mjs`, role],
                      { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout });
  const waiting = [];
  lines.on('line', l => waiting.shift()?.resolve(JSON.parse(l)));
  child.on('exit', code => {
    for (const w of waiting.splice(0)) w.reject(new Error(`${role} peer exited (${code})`));
  });
  return {
    ask(...cmd) {
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin.write(JSON.stringify(cmd) + '\n');
      });
    },
    close() { child.stdin.end(); },
  };
}

function git(...args) {
  try {
    return execFileSync('git', args, { cwd: here, encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

const out = fs.openSync(samplesPath, 'w');
const record = s => fs.writeSync(out, JSON.stringify(s) + '\n');
const samples = [];
const meta = {
  date: new Date().toISOString(), commit: git('rev-parse', '--short', 'HEAD'),
  dirty: git('status', '--porcelain', '--untracked-files=no') !== '',
  sf: process.env.SF ?? null, rounds, warmup, repeat: Number(REPEAT), loadavg: os.loadavg().map(x => x.toFixed(2)).join(' '),
  plank, physical, node: process.version,
};
record({ meta });
samples.push({ meta });

const polars = startPeer('polars', { POLARS_MAX_THREADS: '1' });
const duckdb = startPeer('duckdb', {});

function plankRead(path, extra) {
  // One thread, like the peers (the Arrow stream's default is every core).
  const t = extra.includes('--arrow') ? ['--threads', '1'] : [];
  const o = execFileSync(plank, ['bench', 'read', path, ...extra, ...t, '--repeat', REPEAT, '--json'],
                         { encoding: 'utf8', maxBuffer: 1 << 26 });
  const r = JSON.parse(o.trim().split('\n').pop());
  return { seconds: r.median_seconds, rows: r.rows, checksum: r.checksum, slots: r.slots,
           bytes: r.decoded_bytes };
}
function physicalRead(path) {
  const r = JSON.parse(execFileSync(physical, [path, REPEAT], { encoding: 'utf8' }).trim());
  return { seconds: r.median_seconds, rows: r.rows, checksum: r.checksum,
           bytes: r.decompressed_bytes };
}
async function peer(p, ...cmd) {
  const r = await p.ask(...cmd);
  if (r.error) throw new Error(`${cmd[0]} ${cmd[1]}: ${r.error}`);
  return r;
}

let failed = false;
try {
  for (const f of files) {
    const meta1 = JSON.parse(execFileSync(plank, ['meta', f.path, '--json'],
                                          { encoding: 'utf8', maxBuffer: 1 << 26 }));
    const n = meta1.num_rows;
    const every = ['--rows', 'every:100'];
    const range = ['--rows', `range:${Math.floor(n / 2)}:${Math.floor(n / 100)}`];
    const steps = [
      ['columns', () => plankRead(f.path, [])],
      ['arrow', () => plankRead(f.path, ['--arrow'])],
      ['arrow_mmap', () => plankRead(f.path, ['--arrow', '--mmap'])],
      ['physical', () => physicalRead(f.path)],
      ['polars', () => peer(polars, 'polars', f.path)],
      ['duckdb', () => peer(duckdb, 'agg', f.path)],
      ['duckdb_select', () => peer(duckdb, 'select', f.path)],
      ['columns_every100', () => plankRead(f.path, every)],
      ['arrow_every100', () => plankRead(f.path, [...every, '--arrow'])],
      ['columns_range', () => plankRead(f.path, range)],
      ['arrow_range', () => plankRead(f.path, [...range, '--arrow'])],
    ];
    const seen = {};
    // Round 0 warms up (the peers' first call, the file's pages) and is not
    // recorded; WARMUP=0 skips it.
    for (let round = warmup ? 0 : 1; round <= rounds; round++) {
      const line = [];
      for (const [what, fn] of steps) {
        const r = await fn();
        // Each reader reads all of the file's rows (plank's selective reads:
        // their slots), and gives the same checksum (DuckDB: the same
        // aggregates) in every round.
        if (r.rows != null && r.rows !== n)
          throw new Error(`${what} ${f.name}: ${r.rows} rows, the footer says ${n}`);
        const key = r.checksum ?? r.result;
        if (key != null && seen[what] != null && seen[what] !== key)
          throw new Error(`${what} ${f.name}: round ${round} gives ${key}, before ${seen[what]}`);
        seen[what] = key;
        const s = { file: f.name, path: f.path, round, what, ...r };
        if (round > 0) {
          record(s);
          samples.push(s);
        }
        line.push(`${what} ${(r.seconds * 1e3).toFixed(1)}`);
      }
      console.error(`${f.name} ${round ? `round ${round}/${rounds}` : 'warm-up'}: ` +
                    `${line.join(', ')} ms`);
    }
  }
} catch (e) {
  console.error(`arrow_read: ${e.message}`);
  failed = true;
} finally {
  polars.close();
  duckdb.close();
  fs.closeSync(out);
}
if (failed) process.exit(1);
printTables(samples);
