// tests/icechunk/oracle.mjs: the real Icechunk library, driven from the command line, for
// tests that build repositories with it and cross-check what tether's icechunk plugin reads
// and writes. Run it through ./icechunk-node. Every command prints one JSON value.
//
//   create DIR [SPEC]             a new repository (spec 1 or 2, default 2) -> {"snapshot"}
//   write DIR BRANCH N [MESSAGE]  commit on BRANCH: the array /data (created on first use)
//                                 gets chunk N; also creates group /g<N> -> {"snapshot"}
//   write-many DIR BRANCH FROM COUNT
//                                 COUNT commits on BRANCH (chunks FROM..FROM+COUNT-1), one
//                                 session each -> {"snapshots": [...]}, oldest first
//   branch DIR NAME SNAPSHOT      create a branch
//   reset DIR NAME SNAPSHOT       move a branch
//   tag DIR NAME SNAPSHOT         create a tag
//   delete-tag DIR NAME           delete a tag
//   refs DIR                      {"branches": {name: id}, "tags": {name: id}}
//   ancestry DIR SNAPSHOT         [{"id", "parent", "message", "written_at"}...] newest first
//   diff DIR FROM TO              Icechunk's diff of two snapshots
import { Repository, Storage } from '@earthmover/icechunk';

const [cmd, dir, ...args] = process.argv.slice(2);

async function open() {
  return Repository.open(await Storage.newLocalFilesystem(dir));
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
      const repo = await Repository.create(await Storage.newLocalFilesystem(dir), null, spec);
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
        await session.store.set(`data/c/${i}`, Buffer.from(new Int32Array([i, i]).buffer));
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
