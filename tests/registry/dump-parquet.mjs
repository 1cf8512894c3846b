// tests/registry/dump-parquet.mjs: prints every row of DIR/<table>.parquet, as DuckDB reads
// it, for each table of DIR/schema.json: one JSON object per table, `{"table": [rows...]}`,
// with columns typed as DuckDB sees them (`types`). Timestamps become epoch microseconds and
// integers decimal text, so nothing goes through a double. Exit 77 without DuckDB.
//
//   node tests/registry/dump-parquet.mjs DIR
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
let duckdb;
try {
  const entry = createRequire(join(here, '..', 'ducklake', 'package.json')).resolve('@duckdb/node-api');
  duckdb = await import(pathToFileURL(entry).href);
} catch (e) {
  console.error(`dump-parquet: @duckdb/node-api is not usable (${e.message.split('\n')[0]}): skipped`);
  process.exit(77);
}
const dir = process.argv[2];
const schema = JSON.parse(readFileSync(join(dir, 'schema.json'), 'utf8'));
const instance = await duckdb.DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const all = async (sql) => (await conn.runAndReadAll(sql)).getRowsJS();
const q = (name) => '"' + name.replaceAll('"', '""') + '"';
const lit = (text) => "'" + text.replaceAll("'", "''") + "'";

const out = { types: {}, rows: {} };
for (const [table, def] of Object.entries(schema.tables)) {
  const file = lit(join(dir, `${table}.parquet`));
  const described = await all(`DESCRIBE SELECT * FROM read_parquet(${file})`);
  out.types[table] = described.map((r) => [r[0], r[1]]);
  const select = def.columns.map((c) => {
    if (c.type === 'timestamp') return `CAST(epoch_us(${q(c.name)}) AS VARCHAR)`;
    if (c.type === 'int') return `CAST(${q(c.name)} AS VARCHAR)`;
    return q(c.name);
  });
  const rows = await all(`SELECT ${select.join(', ')} FROM read_parquet(${file})`);
  out.rows[table] = rows.map((r) => Object.fromEntries(def.columns.map((c, i) => [c.name, r[i]])));
}
process.stdout.write(JSON.stringify(out));
