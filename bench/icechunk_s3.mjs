// bench/icechunk_s3.mjs: real Icechunk's side of bench/run's icechunk-s3 section. Run it
// through tests/icechunk/icechunk-node (it loads @earthmover/icechunk from tests/icechunk's
// node_modules). URI is s3://BUCKET/PREFIX in the gateway of TETHER_TEST_S3_ENDPOINT (static
// keys from TETHER_TEST_S3_*, path-style over plain HTTP). Every command prints one JSON value.
//
//   create URI ARRAYS     a spec-2 repository whose first commit holds the group /arrays with
//                         ARRAYS int32 arrays of 100 chunks of 1,000 values (4 KB, every chunk
//                         written: real chunk objects, not inlined) -> {"snapshot"}
//   grow URI COMMITS      COMMITS commits on main, one session each: 5 chunks rewritten across
//                         2 arrays; every 25th also adds an array, every 40th changes an
//                         array's attributes -> {"tip", "commits"}
//   time URI FROM TO N    N rounds inside this process, each on a fresh Storage and
//                         Repository (as a new tether process starts cold): open (open +
//                         main's tip), ancestry (open + every snapshot of main), diff (open +
//                         diff FROM..TO); milliseconds of each round, the open alone, and what
//                         they found -> {"open_ms": [...], "ancestry_ms": [...], "ancestry_only_ms",
//                         "diff_ms", "diff_only_ms", "ancestry_len", "diff_nodes"}
//   once URI OP FROM TO   OP (open, ancestry or diff, each with its open) once, for the
//                         whole-process wall time -> {"n"}
import { createRequire } from 'node:module';

const require = createRequire(new URL('../tests/icechunk/package.json', import.meta.url));
const { Repository, Storage } = require('@earthmover/icechunk');

const [cmd, uri, ...args] = process.argv.slice(2);

function storage() {
  const s3 = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri ?? '');
  if (!s3) throw new Error(`not an s3://BUCKET/PREFIX URI: ${uri}`);
  const env = process.env;
  return Storage.newS3(
    s3[1],
    s3[2].replace(/\/+$/, ''),
    {
      type: 'Static',
      field0: { accessKeyId: env.TETHER_TEST_S3_ACCESS_KEY_ID, secretAccessKey: env.TETHER_TEST_S3_SECRET_ACCESS_KEY },
    },
    { endpointUrl: env.TETHER_TEST_S3_ENDPOINT, allowHttp: true, forcePathStyle: true, region: env.TETHER_TEST_S3_REGION },
  );
}

const open = async () => Repository.open(await storage());
const enc = (v) => Buffer.from(JSON.stringify(v));
const groupMeta = (attributes = {}) => ({ zarr_format: 3, node_type: 'group', attributes });
const arrayMeta = (attributes = {}) => ({
  zarr_format: 3,
  node_type: 'array',
  shape: [100000],
  data_type: 'int32',
  chunk_grid: { name: 'regular', configuration: { chunk_shape: [1000] } },
  chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
  fill_value: 0,
  codecs: [{ name: 'bytes', configuration: { endian: 'little' } }],
  attributes,
});
const chunk = (seed) => {
  const a = new Int32Array(1000);
  for (let i = 0; i < a.length; i++) a[i] = (seed * 7919 + i * 104729) | 0;
  return Buffer.from(a.buffer);
};

// The number of nodes a diff touches (paths named in any of its lists).
function touched(d) {
  const paths = new Set([
    ...d.newGroups, ...d.newArrays, ...d.deletedGroups, ...d.deletedArrays, ...d.updatedGroups, ...d.updatedArrays,
    ...Object.keys(d.updatedChunks ?? {}),
  ]);
  return paths.size;
}

async function timed(fn) {
  const t = performance.now();
  const out = await fn();
  return [performance.now() - t, out];
}

async function main() {
  switch (cmd) {
    case 'create': {
      const n = Number(args[0]);
      const repo = await Repository.create(await storage(), null, 2);
      const session = await repo.writableSession('main');
      const store = session.store;
      await store.set('zarr.json', enc(groupMeta({ title: 'bench' })));
      await store.set('arrays/zarr.json', enc(groupMeta()));
      const writes = [];
      for (let a = 0; a < n; a++) {
        await store.set(`arrays/a${a}/zarr.json`, enc(arrayMeta({ units: 'K' })));
        for (let c = 0; c < 100; c++) writes.push(store.set(`arrays/a${a}/c/${c}`, chunk(a * 100 + c)));
      }
      await Promise.all(writes);
      return { snapshot: await session.commit(`${n} arrays of 100 chunks`) };
    }
    case 'grow': {
      const count = Number(args[0]);
      const repo = await open();
      let arrays = 0;
      while (await (await repo.readonlySession({ branch: 'main' })).store.exists(`arrays/a${arrays}/zarr.json`)) arrays++;
      let tip = '';
      for (let i = 1; i <= count; i++) {
        const session = await repo.writableSession('main');
        const store = session.store;
        const writes = [];
        for (let k = 0; k < 5; k++) {
          const a = (i * 2 + (k % 2)) % arrays;
          writes.push(store.set(`arrays/a${a}/c/${(i * 13 + k * 29) % 100}`, chunk(i * 10 + k)));
        }
        await Promise.all(writes);
        if (i % 25 === 0) await store.set(`arrays/a${arrays++}/zarr.json`, enc(arrayMeta()));
        if (i % 40 === 0) await store.set(`arrays/a${i % arrays}/zarr.json`, enc(arrayMeta({ units: 'K', revision: i })));
        tip = await session.commit(`step ${i}`);
      }
      return { tip, commits: count };
    }
    case 'time': {
      const [from, to, rounds] = args;
      const out = { open_ms: [], ancestry_ms: [], ancestry_only_ms: [], diff_ms: [], diff_only_ms: [] };
      for (let i = 0; i < Number(rounds); i++) {
        let [ms] = await timed(async () => (await open()).lookupBranch('main'));
        out.open_ms.push(ms);
        let repo;
        let only;
        [ms] = await timed(async () => {
          repo = await open();
          let list;
          [only, list] = await timed(() => repo.ancestry({ branch: 'main' }));
          out.ancestry_len = list.length;
        });
        out.ancestry_ms.push(ms);
        out.ancestry_only_ms.push(only);
        [ms] = await timed(async () => {
          repo = await open();
          let d;
          [only, d] = await timed(() => repo.diff({ fromSnapshotId: from, toSnapshotId: to }));
          out.diff_nodes = touched(d);
        });
        out.diff_ms.push(ms);
        out.diff_only_ms.push(only);
      }
      return out;
    }
    case 'once': {
      const [op, from, to] = args;
      const repo = await open();
      if (op === 'open') return { n: (await repo.lookupBranch('main')).length };
      if (op === 'ancestry') return { n: (await repo.ancestry({ branch: 'main' })).length };
      if (op === 'diff') return { n: touched(await repo.diff({ fromSnapshotId: from, toSnapshotId: to })) };
      throw new Error(`unknown operation '${op}'`);
    }
    default:
      throw new Error(`unknown command '${cmd}'`);
  }
}

main().then(
  (out) => console.log(JSON.stringify(out)),
  (err) => {
    console.error(`icechunk_s3 ${cmd}: ${err.message ?? err}`);
    process.exit(1);
  },
);
