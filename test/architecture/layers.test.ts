import { describe, expect, it } from 'vitest';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  allowedImports,
  filesOutsideLayers,
  folderGraph,
  importCircles,
  importSpecifiers,
  layerViolations,
  LAYERS,
  NOT_LAYERS,
  readImportGraph,
  type ImportGraph,
} from './import-graph.js';

const src = join(dirname(dirname(dirname(fileURLToPath(import.meta.url)))), 'src');
const graph = readImportGraph(src);

const graphOf = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges).map(([from, to]) => [from, new Set(to)]));

describe('layers of src/', () => {
  it('every module sits in one of the layer folders', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(filesOutsideLayers(graph).filter((f) => !NOT_LAYERS.includes(f.split('/')[0]!))).toEqual([]);
  });

  it('no module imports a folder its layer may not import', () => {
    expect(layerViolations(graph)).toEqual([]);
  });

  it('the Dubbo port imports nothing of ours outside src/dubbo/ and src/engine/', () => {
    const outside = [...graph].flatMap(([from, to]) =>
      from.startsWith('dubbo/') ? [...to].filter((t) => !t.startsWith('dubbo/') && !t.startsWith('engine/')).map((t) => `${from} -> ${t}`) : [],
    );
    expect(outside).toEqual([]);
  });

  it('no import circle between files', () => {
    expect(importCircles(graph)).toEqual([]);
  });

  it('no import circle between folders', () => {
    expect(importCircles(folderGraph(graph))).toEqual([]);
  });
});

describe('the import-graph checks themselves', () => {
  it('read static, type-only, re-exported and dynamic imports, and skip packages, comments and strings', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      "export { c } from './c.js';",
      "export * from './d.js';",
      "const e = await import('./e.js');",
      "import { z } from 'zod';",
      "// import { f } from './f.js';",
      "const g = \"import { g } from './g.js'\";",
    ].join('\n');
    expect(importSpecifiers(text).sort()).toEqual(['../b.js', './a.js', './c.js', './d.js', './e.js']);
  });

  it('find an import of a higher layer, and of a lower one a narrowed layer may not use', () => {
    const g = graphOf({
      'dubbo/url.ts': ['engine/random.ts', 'world/network.ts'],
      'world/network.ts': ['model/types.ts', 'stack/consumer-stack.ts'],
      'metrics/recorder.ts': ['model/types.ts'],
      'cli/main.ts': ['dubbo/url.ts', 'world/network.ts'],
    });
    expect(layerViolations(g)).toEqual(['dubbo/url.ts -> world/network.ts', 'metrics/recorder.ts -> model/types.ts', 'world/network.ts -> stack/consumer-stack.ts']);
  });

  it('find circles between files (a self-import too) and between folders, and nothing in a chain', () => {
    expect(importCircles(graphOf({ 'a/x.ts': ['a/y.ts'], 'a/y.ts': ['a/z.ts'], 'a/z.ts': ['a/x.ts'], 'a/w.ts': ['a/w.ts'] }))).toEqual([
      ['a/w.ts'],
      ['a/x.ts', 'a/y.ts', 'a/z.ts'],
    ]);
    expect(importCircles(graphOf({ 'a/x.ts': ['a/y.ts'], 'a/y.ts': ['b/z.ts'], 'b/z.ts': [] }))).toEqual([]);
    expect(importCircles(folderGraph(graphOf({ 'a/x.ts': ['b/y.ts'], 'b/y.ts': [], 'b/z.ts': ['a/w.ts'], 'a/w.ts': [] })))).toEqual([['a', 'b']]);
  });

  it('let each layer import only those below it, and the narrowed ones only what they name', () => {
    const allowed = allowedImports();
    expect(LAYERS.map((l) => l.folder)).toEqual(['engine', 'metrics', 'model', 'world', 'dubbo', 'sentinel', 'stack', 'scenario', 'analysis', 'inputs', 'report', 'parallel', 'plugins', 'cli']);
    expect([...allowed.get('engine')!]).toEqual([]);
    expect([...allowed.get('dubbo')!]).toEqual(['engine']);
    expect([...allowed.get('sentinel')!]).toEqual(['engine']);
    expect([...allowed.get('world')!]).toEqual(['engine', 'metrics', 'model']);
    expect([...allowed.get('stack')!]).toEqual(['engine', 'metrics', 'model', 'world', 'dubbo', 'sentinel']);
    expect(allowed.get('cli')!.size).toBe(LAYERS.length - 1);
  });
});
