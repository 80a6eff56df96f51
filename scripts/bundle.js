// Bundles the compiled CLI (dist/, from tsc) into dist/bundle/ with rolldown: the entry points the bin, the
// worker threads and the benchmark load, plus chunks for what the commands import on demand. Node then reads
// a few files instead of some 165 of ours and several hundred of the dependencies', which took about 40% of a
// command's start-up (module resolution, file reads, one compile per file). The code is the same; only the
// files it lives in change. Run by `npm run build` after tsc.
//
// Kept outside the bundle: piscina (its worker thread loads its own file by path, then ours). Every path
// the code resolves from `import.meta.url` still works from dist/bundle/: version.ts reads
// ../../package.json, worker-pool.ts finds `./sim-worker.js` beside it (an entry here), report.ts resolves
// uPlot through node_modules. yargs is bundled: its locale files are then not found, so its messages stay in
// English (main.ts also asks for English).
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const dist = join(root, 'dist');
const out = join(dist, 'bundle');

/** Entry name (file name in dist/bundle/) -> compiled module. */
export const ENTRIES = {
  main: 'cli/main.js',
  'out-of-memory': 'parallel/out-of-memory.js',
  'sim-worker': 'parallel/sim-worker.js',
  'plugin-worker': 'plugins/plugin-worker.js',
  'scenario-load': 'scenario/load.js',
  'scenario-run': 'scenario/run.js',
};

const EXTERNAL = ['piscina'];

rmSync(out, { recursive: true, force: true });
const bundle = await rolldown({
  input: Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, join(dist, file)])),
  platform: 'node',
  external: (id) => EXTERNAL.some((e) => id === e || id.startsWith(`${e}/`)),
  logLevel: 'warn',
});
// keepNames: a few messages name a class (`loadbalance.constructor.name` in failfast's, as Dubbo's does).
await bundle.write({ dir: out, format: 'esm', keepNames: true, chunkFileNames: '[name]-[hash].js' });
await bundle.close();
