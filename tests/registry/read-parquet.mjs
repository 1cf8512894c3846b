// tests/registry/read-parquet.mjs: reads the files of tests/registry/parquet_sample with real
// DuckDB and checks them against the rows the sample says it wrote.
//
//   node tests/registry/read-parquet.mjs DIR
//
// For every case in DIR/cases.json: DIR/NAME.parquet must open with read_parquet, have the
// case's columns in order with the DuckDB types of our logical types (text/json VARCHAR, int
// BIGINT, bool BOOLEAN, timestamp TIMESTAMP WITH TIME ZONE), ZSTD column chunks in at most one
// row group, and exactly the rows of DIR/NAME.jsonl (ints and timestamps, as epoch
// microseconds, compared as decimal text so nothing goes through a double). Exit 0 when all
// match, 1 with the differences, 77 when DuckDB (npm @duckdb/node-api, installed into
// tests/ducklake by its setup-runtime) is not there.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const SKIP = 77;
const runtime = join(here, '..', 'ducklake');

let duckdb;
try {
  // Resolve from tests/ducklake, where setup-runtime installs the one DuckDB we use.
  const entry = createRequire(join(runtime, 'package.json')).resolve('@duckdb/node-api');
  duckdb = await import(pathToFileURL(entry).href);
} catch (e) {
  console.error(`read-parquet: @duckdb/node-api is not usable (${e.message.split('\n')[0]}); ` +
    `run tests/ducklake/setup-runtime: skipped`);
  process.exit(SKIP);
}

const dir = process.argv[2];
if (!dir) {
  console.error('usage: read-parquet.mjs DIR');
  process.exit(2);
}

const DUCK_TYPE = { text: 'VARCHAR', json: 'VARCHAR', int: 'BIGINT', bool: 'BOOLEAN', timestamp: 'TIMESTAMP WITH TIME ZONE' };
const PARQUET_TYPE = { text: 'BYTE_ARRAY', json: 'BYTE_ARRAY', int: 'INT64', bool: 'BOOLEAN', timestamp: 'INT64' };
const CONVERTED = { text: 'UTF8', json: 'UTF8', int: 'INT_64', bool: null, timestamp: 'TIMESTAMP_MICROS' };

const q = (name) => '"' + name.replaceAll('"', '""') + '"';
const lit = (text) => "'" + text.replaceAll("'", "''") + "'";
const show = (v) => {
  const s = JSON.stringify(v);
  return s && s.length > 80 ? s.slice(0, 77) + '...' : s;
};

const instance = await duckdb.DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const all = async (sql) => (await conn.runAndReadAll(sql)).getRowsJS();

const problems = [];
const cases = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8'));
for (const c of cases) {
  const file = lit(join(dir, `${c.name}.parquet`));
  const fail = (what) => problems.push(`${c.name}: ${what}`);
  try {
    // Columns and their DuckDB types.
    const described = await all(`DESCRIBE SELECT * FROM read_parquet(${file})`);
    const got = described.map(([name, type]) => `${name} ${type}`).join(', ');
    const want = c.columns.map((col) => `${col.name} ${DUCK_TYPE[col.type]}`).join(', ');
    if (got !== want) fail(`columns\n    got  ${got}\n    want ${want}`);

    // What the footer says, as DuckDB decodes it.
    const schema = await all(`SELECT name, type, repetition_type, converted_type FROM parquet_schema(${file})`);
    schema.slice(1).forEach(([name, type, rep, conv], i) => {
      const col = c.columns[i];
      if (!col) return fail(`extra schema element ${name}`);
      const w = [col.name, PARQUET_TYPE[col.type], 'OPTIONAL', CONVERTED[col.type]];
      if (JSON.stringify([name, type, rep, conv]) !== JSON.stringify(w))
        fail(`schema element ${show([name, type, rep, conv])}, want ${show(w)}`);
    });
    const meta = await all(`SELECT DISTINCT row_group_id, compression FROM parquet_metadata(${file})`);
    if (meta.some(([rg, comp]) => rg !== 0n || comp !== 'ZSTD')) fail(`row groups / codecs ${show(meta.map(String))}`);

    // Every row, in file order.
    const cols = c.columns.map((col) => {
      if (col.type === 'int') return `CAST(${q(col.name)} AS VARCHAR)`;
      if (col.type === 'timestamp') return `CAST(epoch_us(${q(col.name)}) AS VARCHAR)`;
      return q(col.name);
    });
    const rows = await all(`SELECT ${cols.join(', ')} FROM read_parquet(${file}, file_row_number = true) ORDER BY file_row_number`);
    const expected = readFileSync(join(dir, `${c.name}.jsonl`), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
    if (rows.length !== c.rows || expected.length !== c.rows)
      fail(`${rows.length} rows read, ${expected.length} expected, the sample says ${c.rows}`);
    let shown = 0;
    for (let r = 0; r < Math.min(rows.length, expected.length); ++r) {
      for (let i = 0; i < c.columns.length; ++i) {
        const g = rows[r][i], w = expected[r][i];
        if (g !== w && shown++ < 10) fail(`row ${r} column ${c.columns[i].name}: got ${show(g)}, want ${show(w)}`);
      }
    }
    if (shown > 10) fail(`... ${shown - 10} more differing cells`);
    if (!problems.some((p) => p.startsWith(`${c.name}:`))) console.log(`ok ${c.name}: ${rows.length} rows, ${want}`);
  } catch (e) {
    fail(`DuckDB: ${e.message}`);
  }
}
conn.closeSync?.();
instance.closeSync?.();

if (problems.length) {
  for (const p of problems) console.error(`FAIL ${p}`);
  process.exit(1);
}
console.log(`read-parquet: ${cases.length} files read back by DuckDB ${duckdb.version?.() ?? ''}`.trim());
