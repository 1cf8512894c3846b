// tests/ducklake/check-dumps.mjs: checks with real DuckDB that the SQLite conversions of the
// DuckLake fixtures (sqlite/*.sql) hold exactly the rows of the genuine DuckDB-file catalogs
// they were made from (duckdb/*.db.gz), and that their DDL follows the stated type mapping
// (DuckDB's sqlite extension mapping; docs/backends.md#ducklake).
//
//   node tests/ducklake/check-dumps.mjs [FIXTURES]
//
// FIXTURES defaults to $TETHER_DUCKLAKE_FIXTURES, else ../shared/fixtures/ducklake beside
// the source tree. For each duckdb/NAME.db.gz: gunzip to a temporary file, open it read-only
// with DuckDB (npm @duckdb/node-api, installed by `npm ci` here, which scripts/install-deps
// runs), load sqlite/NAME.sql with the sqlite3 CLI into a temporary database, and compare
// every ducklake_* table: the same tables, the same columns in the same order with the
// mapped types and constraints, and the same rows. Values are compared after normalising
// what the conversion changes: booleans (true = 1), UUIDs (text), timestamps (as instants,
// to the microsecond), NULLs. Exit 0 when everything matches, 1 with the differences, 77
// when DuckDB or the fixtures are missing.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const SKIP = 77;

let duckdb;
try {
  duckdb = await import('@duckdb/node-api');
} catch (e) {
  console.error(`check-dumps: @duckdb/node-api is not usable (${e.message.split('\n')[0]}); ` +
    `run \`npm ci\` in ${here} (scripts/install-deps does): skipped`);
  process.exit(SKIP);
}

const fixtures = resolve(process.argv[2] ?? process.env.TETHER_DUCKLAKE_FIXTURES ??
  join(here, '..', '..', '..', 'shared', 'fixtures', 'ducklake'));
if (!existsSync(join(fixtures, 'duckdb')) || !existsSync(join(fixtures, 'sqlite'))) {
  console.error(`check-dumps: no DuckLake fixtures in ${fixtures} (set TETHER_DUCKLAKE_FIXTURES): skipped`);
  process.exit(SKIP);
}
try {
  execFileSync('sqlite3', ['-version'], { stdio: 'ignore' });
} catch {
  console.error('check-dumps: the sqlite3 CLI is missing: skipped');
  process.exit(SKIP);
}

// ---- SQLite side -----------------------------------------------------------------------------

function sqliteJson(db, sql) {
  const out = execFileSync('sqlite3', ['-json', db, sql], { encoding: 'utf8', maxBuffer: 1 << 28 });
  return out.trim() === '' ? [] : JSON.parse(out);
}

const q = (name) => '"' + name.replaceAll('"', '""') + '"';
const lit = (text) => "'" + text.replaceAll("'", "''") + "'";

// Rows as [typeof, text] pairs: JSON numbers would lose BIGINTs above 2^53.
function sqliteRows(db, table, columns) {
  const cols = columns.map((c, i) => `typeof(${q(c)}) AS t${i}, CAST(${q(c)} AS TEXT) AS v${i}, hex(${q(c)}) AS h${i}`);
  return sqliteJson(db, `SELECT ${cols.join(', ')} FROM ${q(table)} ORDER BY rowid`).map((r) =>
    columns.map((_, i) => ({ type: r[`t${i}`], text: r[`v${i}`], hex: r[`h${i}`] })));
}

// ---- DuckDB side -----------------------------------------------------------------------------

const TIMESTAMPS = new Set(['TIMESTAMP WITH TIME ZONE', 'TIMESTAMPTZ', 'TIMESTAMP']);
const INTEGERS = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT',
  'UINTEGER', 'UBIGINT', 'UHUGEINT']);

// The SQLite declared type DuckDB's sqlite extension gives a DuckDB column type.
function sqliteTypeOf(duckType) {
  if (INTEGERS.has(duckType) || duckType === 'BOOLEAN') return 'BIGINT';
  if (duckType === 'FLOAT' || duckType === 'DOUBLE') return 'DOUBLE';
  if (duckType === 'BLOB') return 'BLOB';
  return 'VARCHAR';
}

// One DuckDB value as a text select expression that keeps it exact.
function duckExpr(name, type) {
  if (TIMESTAMPS.has(type)) return `CAST(epoch_us(${q(name)}) AS VARCHAR)`;
  if (type === 'BLOB') return `hex(${q(name)})`;
  return `CAST(${q(name)} AS VARCHAR)`;
}

// ---- normalising -----------------------------------------------------------------------------

// DuckDB's TIMESTAMPTZ text ("2026-04-08 09:11:49.644489+00", any offset, optional 'T') to
// microseconds since the epoch, or null when it is not one.
function parseInstant(text) {
  const m = /^(\d{4,})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(?:([+-])(\d\d)(?::?(\d\d))?(?::?(\d\d))?|Z)?$/.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, sign, oh, om, os] = m;
  const days = BigInt(Date.UTC(Number(y), Number(mo) - 1, Number(d)) / 86400000);
  let us = ((days * 24n + BigInt(h)) * 60n + BigInt(mi)) * 60n + BigInt(s);
  us = us * 1000000n + BigInt((frac ?? '').padEnd(6, '0').slice(0, 6));
  if (sign) {
    const off = (BigInt(oh) * 3600n + BigInt(om ?? 0) * 60n + BigInt(os ?? 0)) * 1000000n;
    us = sign === '+' ? us - off : us + off;
  }
  return us;
}

// A comparable key for a DuckDB value of `type` (text from duckExpr) and the same for the
// SQLite value, or an explanation of why the SQLite value cannot stand for it.
function duckKey(text, type) {
  if (text === null) return 'null';
  if (type === 'BOOLEAN') return text === 'true' ? 'int:1' : 'int:0';
  if (INTEGERS.has(type)) return `int:${BigInt(text)}`;
  if (TIMESTAMPS.has(type)) return `us:${BigInt(text)}`;
  if (type === 'UUID') return `text:${text.toLowerCase()}`;
  if (type === 'FLOAT' || type === 'DOUBLE') return `num:${Number(text)}`;
  if (type === 'BLOB') return `hex:${text}`;
  return `text:${text}`;
}

function sqliteKey(v, type) {
  if (v.type === 'null') return 'null';
  if (type === 'BOOLEAN' || INTEGERS.has(type)) return v.type === 'integer' ? `int:${BigInt(v.text)}` : `${v.type}:${v.text}`;
  if (TIMESTAMPS.has(type)) {
    const us = v.type === 'text' ? parseInstant(v.text) : null;
    return us === null ? `unparsed:${v.text}` : `us:${us}`;
  }
  if (type === 'UUID') return v.type === 'text' ? `text:${v.text.toLowerCase()}` : `${v.type}:${v.text}`;
  if (type === 'FLOAT' || type === 'DOUBLE') return `num:${Number(v.text)}`;
  if (type === 'BLOB') return v.type === 'blob' ? `hex:${v.hex}` : `${v.type}:${v.text}`;
  return v.type === 'text' ? `text:${v.text}` : `${v.type}:${v.text}`;
}

// ---- comparing one catalog -------------------------------------------------------------------

function showRow(columns, raw) {
  return '(' + columns.map((c, i) => `${c}=${raw[i] === null ? 'NULL' : JSON.stringify(raw[i])}`).join(', ') + ')';
}

async function checkCatalog(name, gz, dump, tmp) {
  const problems = [];
  const dbFile = join(tmp, `${name}.duckdb`);
  writeFileSync(dbFile, gunzipSync(readFileSync(gz)));
  const sqliteFile = join(tmp, `${name}.sqlite`);
  execFileSync('sqlite3', [sqliteFile], { input: readFileSync(dump) });

  const instance = await duckdb.DuckDBInstance.create(dbFile, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  const duckRows = async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJS();
  try {
    const duckTables = (await duckRows(
      "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' AND table_name LIKE 'ducklake%' ORDER BY table_name"))
      .map((r) => r.table_name);
    const liteTables = sqliteJson(sqliteFile,
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'ducklake%' ORDER BY name").map((r) => r.name);
    for (const t of duckTables) if (!liteTables.includes(t)) problems.push(`table ${t} is missing from the dump`);
    for (const t of liteTables) if (!duckTables.includes(t)) problems.push(`table ${t} is in the dump but not in DuckDB`);

    for (const table of duckTables.filter((t) => liteTables.includes(t))) {
      const duckCols = await duckRows(`SELECT name, type, "notnull", pk FROM pragma_table_info(${lit(table)}) ORDER BY cid`);
      const liteCols = sqliteJson(sqliteFile, `SELECT name, type, "notnull", pk FROM pragma_table_info(${lit(table)}) ORDER BY cid`);
      const names = duckCols.map((c) => c.name);
      if (names.join(',') !== liteCols.map((c) => c.name).join(',')) {
        problems.push(`${table}: columns differ: duckdb (${names.join(', ')}) dump (${liteCols.map((c) => c.name).join(', ')})`);
        continue;
      }
      duckCols.forEach((c, i) => {
        const l = liteCols[i];
        if (sqliteTypeOf(c.type) !== l.type.toUpperCase())
          problems.push(`${table}.${c.name}: DuckDB type ${c.type} should be ${sqliteTypeOf(c.type)} in SQLite, the dump has ${l.type}`);
        // DuckDB reports a PRIMARY KEY column NOT NULL by itself; SQLite does not.
        if ((!c.pk && Boolean(c.notnull) !== Boolean(l.notnull)) || Boolean(c.pk) !== Boolean(l.pk))
          problems.push(`${table}.${c.name}: constraints differ (duckdb notnull=${c.notnull} pk=${c.pk}, dump notnull=${l.notnull} pk=${l.pk})`);
      });
      const types = duckCols.map((c) => c.type);

      const reader = await conn.runAndReadAll(
        `SELECT ${duckCols.map((c) => duckExpr(c.name, c.type)).join(', ')} FROM ${q(table)} ORDER BY rowid`);
      const duckRaw = reader.getRowsJS();
      const duck = duckRaw.map((row) => row.map((v, i) => duckKey(v, types[i])));
      const liteRaw = sqliteRows(sqliteFile, table, names);
      const lite = liteRaw.map((row) => row.map((v, i) => sqliteKey(v, types[i])));
      const liteShown = liteRaw.map((row) => row.map((v) => (v.type === 'null' ? null : v.text)));

      const same = duck.length === lite.length && duck.every((r, i) => r.join('\u0001') === lite[i].join('\u0001'));
      if (same) continue;
      // Not equal in order: say which rows are missing or extra (as multisets), and when the
      // row counts agree, which columns of which row differ.
      const count = new Map();
      duck.forEach((r) => count.set(r.join('\u0001'), (count.get(r.join('\u0001')) ?? 0) + 1));
      const extra = [];
      lite.forEach((r, i) => {
        const k = r.join('\u0001');
        if (count.get(k)) count.set(k, count.get(k) - 1);
        else extra.push(i);
      });
      const missing = [];
      const left = new Map(count);
      duck.forEach((r, i) => {
        const k = r.join('\u0001');
        if (left.get(k)) {
          left.set(k, left.get(k) - 1);
          missing.push(i);
        }
      });
      if (missing.length === 0 && extra.length === 0) {
        console.log(`  note: ${name} ${table}: same rows in another order`);
        continue;
      }
      if (missing.length === extra.length) {
        missing.forEach((di, n) => {
          const li = extra[n];
          const diffs = names.filter((_, c) => duck[di][c] !== lite[li][c]).map((c) => {
            const ci = names.indexOf(c);
            return `${c}: duckdb ${JSON.stringify(duckRaw[di][ci])} (${duck[di][ci]}) vs dump ${JSON.stringify(liteShown[li][ci])} (${lite[li][ci]})`;
          });
          problems.push(`${table} row ${di + 1}: ${diffs.join('; ')}`);
        });
      } else {
        for (const i of missing) problems.push(`${table}: row missing from the dump ${showRow(names, duckRaw[i])}`);
        for (const i of extra) problems.push(`${table}: row in the dump but not in DuckDB ${showRow(names, liteShown[i])}`);
      }
    }
    return { problems, tables: duckTables.length };
  } finally {
    conn.closeSync?.();
    instance.closeSync?.();
  }
}

// ---- main ------------------------------------------------------------------------------------

const catalogs = readdirSync(join(fixtures, 'duckdb')).filter((f) => f.endsWith('.db.gz')).sort();
if (catalogs.length === 0) {
  console.error(`check-dumps: no duckdb/*.db.gz in ${fixtures}: skipped`);
  process.exit(SKIP);
}
const tmp = mkdtempSync(join(tmpdir(), 'tether-check-dumps.'));
let failed = 0;
try {
  for (const file of catalogs) {
    const name = file.slice(0, -'.db.gz'.length);
    const dump = join(fixtures, 'sqlite', `${name}.sql`);
    if (!existsSync(dump)) {
      console.log(`FAIL ${name}: no sqlite/${name}.sql`);
      failed++;
      continue;
    }
    const { problems, tables } = await checkCatalog(name, join(fixtures, 'duckdb', file), dump, tmp);
    if (problems.length === 0) {
      console.log(`ok ${name} (${tables} tables)`);
    } else {
      failed++;
      console.log(`FAIL ${name}:`);
      for (const p of problems) console.log(`  ${p}`);
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
console.log(failed === 0 ? `check-dumps: all ${catalogs.length} dumps match their DuckDB catalogs`
  : `check-dumps: ${failed} of ${catalogs.length} dumps differ`);
process.exit(failed === 0 ? 0 : 1);
