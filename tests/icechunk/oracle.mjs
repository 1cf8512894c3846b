// tests/icechunk/oracle.mjs: the real Icechunk library, driven from the command line, for
// tests that build repositories with it and cross-check what tether's icechunk plugin reads
// and writes. Run it through ./icechunk-node. Every command prints one JSON value.
//
// DIR is a local directory or s3://BUCKET/PREFIX: a repository in the object store of
// TETHER_TEST_S3_ENDPOINT (tests/s3/with-cluster), with its static keys and region, path-style
// over plain HTTP. Or az://CONTAINER/PREFIX: one in the Azure Blob emulator of
// TETHER_TEST_AZURE_ENDPOINT (tests/azure/with-azurite), with its account and key.
//
//   create DIR [SPEC]             a new repository (spec 1 or 2, default 2) -> {"snapshot"}
//   write DIR BRANCH N [MESSAGE]  commit on BRANCH: the array /data (created on first use)
//                                 gets chunk N; also creates group /g<N> -> {"snapshot"}
//   write-many DIR BRANCH FROM COUNT
//                                 COUNT commits on BRANCH (chunk i % 500 for i from FROM), one
//                                 session each -> {"snapshots": [...]}, oldest first
//   branch DIR NAME SNAPSHOT      create a branch
//   reset DIR NAME SNAPSHOT       move a branch
//   tag DIR NAME SNAPSHOT         create a tag
//   delete-tag DIR NAME           delete a tag
//   refs DIR                      {"branches": {name: id}, "tags": {name: id}}
//   ancestry DIR SNAPSHOT         [{"id", "parent", "message", "written_at"}...] newest first
//   diff DIR FROM TO              Icechunk's diff of two snapshots
// For bench/run:
//   bench-arrays DIR N            N arrays in one commit, then a commit writing one chunk in
//                                 every tenth array and adding N/100 arrays -> {"from", "to"}
//   bench-time DIR BRANCH FROM TO REPEAT
//                                 best-of-REPEAT milliseconds, inside one process with the
//                                 library loaded: open + lookupBranch, ancestry of BRANCH,
//                                 diff FROM..TO -> {"open_ms", "ancestry_ms", "diff_ms", "ancestry_len"}
import { Repository, Storage } from '@earthmover/icechunk';

const [cmd, dir, ...args] = process.argv.slice(2);

async function storage() {
  const env = process.env;
  const az = /^az:\/\/([^/]+)\/?(.*)$/.exec(dir);
  if (az)
    return Storage.newAzureBlob(
      env.TETHER_TEST_AZURE_ACCOUNT,
      az[1],
      az[2].replace(/\/+$/, ''),
      { type: 'Static', field0: { type: 'AccessKey', field0: env.TETHER_TEST_AZURE_KEY } },
      { endpoint: env.TETHER_TEST_AZURE_ENDPOINT, allow_http: 'true' },
    );
  const s3 = /^s3:\/\/([^/]+)\/?(.*)$/.exec(dir);
  if (!s3) return Storage.newLocalFilesystem(dir);
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

async function open() {
  return Repository.open(await storage());
}

const enc = (v) => Buffer.from(JSON.stringify(v));
const arrayMeta = {
  zarr_format: 3,
  node_type: 'array',
  shape: [1000],
  data_type: 'int32',
  chunk_grid: { name: 'regular', configuration: { chunk_shape: [2] } },
  chunk_key_encoding: { name: 'default', configuration: { separator: '/' } },
  fill_value: 0,
  codecs: [{ name: 'bytes', configuration: { endian: 'little' } }],
};
const groupMeta = { zarr_format: 3, node_type: 'group', attributes: {} };

async function main() {
  switch (cmd) {
    case 'create': {
      const spec = Number(args[0] ?? 2);
      const repo = await Repository.create(await storage(), null, spec);
      return { snapshot: await repo.lookupBranch('main') };
    }
    case 'write': {
      const [branch, n, message] = args;
      const repo = await open();
      const session = await repo.writableSession(branch);
      const store = session.store;
      if (!(await store.exists('zarr.json'))) await store.set('zarr.json', enc(groupMeta));
      if (!(await store.exists('data/zarr.json'))) await store.set('data/zarr.json', enc(arrayMeta));
      await store.set(`data/c/${n}`, Buffer.from(new Int32Array([Number(n), Number(n) + 1]).buffer));
      await store.set(`g${n}/zarr.json`, enc(groupMeta));
      return { snapshot: await session.commit(message ?? `write ${n}`) };
    }
    case 'write-many': {
      const [branch, from, count] = args;
      const repo = await open();
      const snapshots = [];
      for (let i = Number(from); i < Number(from) + Number(count); i++) {
        const session = await repo.writableSession(branch);
        if (!(await session.store.exists('zarr.json'))) await session.store.set('zarr.json', enc(groupMeta));
        if (!(await session.store.exists('data/zarr.json'))) await session.store.set('data/zarr.json', enc(arrayMeta));
        await session.store.set(`data/c/${i % 500}`, Buffer.from(new Int32Array([i, i]).buffer));
        snapshots.push(await session.commit(`write ${i}`));
      }
      return { snapshots };
    }
    case 'branch':
      await (await open()).createBranch(args[0], args[1]);
      return {};
    case 'reset':
      await (await open()).resetBranch(args[0], args[1]);
      return {};
    case 'tag':
      await (await open()).createTag(args[0], args[1]);
      return {};
    case 'delete-tag':
      await (await open()).deleteTag(args[0]);
      return {};
    case 'refs': {
      const repo = await open();
      const branches = {};
      for (const b of await repo.listBranches()) branches[b] = await repo.lookupBranch(b);
      const tags = {};
      for (const t of await repo.listTags()) tags[t] = await repo.lookupTag(t);
      return { branches, tags };
    }
    case 'ancestry': {
      const repo = await open();
      return (await repo.ancestry({ snapshotId: args[0] })).map((s) => ({
        id: s.id,
        parent: s.parentId ?? null,
        message: s.message,
        written_at: s.writtenAt,
      }));
    }
    case 'diff':
      return (await open()).diff({ fromSnapshotId: args[0], toSnapshotId: args[1] });
    case 'bench-arrays': {
      const n = Number(args[0]);
      const repo = await open();
      let session = await repo.writableSession('main');
      let store = session.store;
      if (!(await store.exists('zarr.json'))) await store.set('zarr.json', enc(groupMeta));
      for (let i = 0; i < n; i++) await store.set(`a${i}/zarr.json`, enc(arrayMeta));
      const from = await session.commit(`${n} arrays`);
      session = await repo.writableSession('main');
      store = session.store;
      for (let i = 0; i < n; i += 10) await store.set(`a${i}/c/0`, Buffer.from(new Int32Array([i, i]).buffer));
      for (let i = n; i < n + n / 100; i++) await store.set(`a${i}/zarr.json`, enc(arrayMeta));
      const to = await session.commit('chunks and more arrays');
      return { from, to };
    }
    case 'bench-time': {
      const [branch, from, to, repeat] = args;
      const best = { open_ms: Infinity, ancestry_ms: Infinity, diff_ms: Infinity };
      let ancestryLen = 0;
      for (let i = 0; i < Number(repeat); i++) {
        let t = performance.now();
        const repo = await open();
        await repo.lookupBranch(branch);
        best.open_ms = Math.min(best.open_ms, performance.now() - t);
        t = performance.now();
        ancestryLen = (await repo.ancestry({ branch })).length;
        best.ancestry_ms = Math.min(best.ancestry_ms, performance.now() - t);
        t = performance.now();
        await repo.diff({ fromSnapshotId: from, toSnapshotId: to });
        best.diff_ms = Math.min(best.diff_ms, performance.now() - t);
      }
      return { ...best, ancestry_len: ancestryLen };
    }
    default:
      throw new Error(`unknown command '${cmd}'`);
  }
}

main().then(
  (out) => console.log(JSON.stringify(out)),
  (err) => {
    console.error(`oracle ${cmd}: ${err.message ?? err}`);
    process.exit(1);
  },
);
