/**
 * The import graph of `src/` and the layer rules it must follow (STYLE.md, docs/architecture.md): which
 * folder may import which, and no import circle between files or folders. A plain scan of each file's
 * import specifiers (static `import` / `export ... from`, `import type`, and dynamic `import('...')`),
 * read with TypeScript's own pre-processor so that comments and strings never count. Only relative
 * specifiers are ours; packages are not part of the rules.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * The layers from the bottom up. Each folder may import the folders listed before it, except where
 * `only` narrows that: the model and metrics sit on the engine alone, the world on engine, metrics and
 * model, and the Dubbo port on the engine alone (no world, no model, no file format).
 */
export const LAYERS: ReadonlyArray<{ folder: string; only?: readonly string[] }> = [
  { folder: 'engine' },
  { folder: 'metrics', only: ['engine'] },
  { folder: 'model', only: ['engine'] },
  { folder: 'world', only: ['engine', 'metrics', 'model'] },
  { folder: 'dubbo', only: ['engine'] },
  { folder: 'sentinel', only: ['engine'] },
  { folder: 'stack' },
  { folder: 'scenario' },
  { folder: 'analysis' },
  { folder: 'inputs' },
  { folder: 'report' },
  { folder: 'parallel' },
  { folder: 'plugins' },
  { folder: 'cli' },
];

/** Folders under src/ that hold no module of ours (ambient declarations of untyped packages). */
export const NOT_LAYERS: readonly string[] = ['types'];

/** Which folders each folder may import (besides itself). */
export function allowedImports(layers: typeof LAYERS = LAYERS): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  layers.forEach((layer, i) => {
    const below = layers.slice(0, i).map((l) => l.folder);
    out.set(layer.folder, new Set(layer.only ?? below));
  });
  return out;
}

/** File (path relative to src/, `/`-separated) -> the files of ours it imports. */
export type ImportGraph = Map<string, Set<string>>;

/** The relative import specifiers of one module's text: static, type-only, re-exports and dynamic imports. */
export function importSpecifiers(text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((name) => name.startsWith('.'));
}

/** Reads every `.ts` module under `srcDir` (declaration files aside) into its import graph. */
export function readImportGraph(srcDir: string): ImportGraph {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) files.push(path);
    }
  };
  walk(srcDir);
  const key = (path: string): string => relative(srcDir, path).split(sep).join('/');
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const targets = importSpecifiers(readFileSync(file, 'utf8')).map((s) => key(resolve(dirname(file), s.replace(/\.js$/, '.ts'))));
    graph.set(key(file), new Set(targets));
  }
  return graph;
}

/** The top-level folder of a file of the graph (`dubbo` for `dubbo/router/router.ts`). */
export function folderOf(file: string): string {
  return file.split('/')[0]!;
}

/** Every import that leaves its folder for one it may not import, as `from -> to` lines. */
export function layerViolations(graph: ImportGraph, allowed: Map<string, Set<string>> = allowedImports()): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    const own = folderOf(from);
    for (const to of targets) {
      const other = folderOf(to);
      if (other !== own && !allowed.get(own)?.has(other)) out.push(`${from} -> ${to}`);
    }
  }
  return out.sort();
}

/** Files that sit in no known layer (a new top-level folder, or a file directly under src/). */
export function filesOutsideLayers(graph: ImportGraph, layers: typeof LAYERS = LAYERS): string[] {
  const known = new Set(layers.map((l) => l.folder));
  return [...graph.keys()].filter((f) => !f.includes('/') || !known.has(folderOf(f))).sort();
}

/**
 * The import circles of a graph: its strongly connected components with more than one node (or a node
 * importing itself), each sorted, found with Tarjan's algorithm. Imports of nodes outside the graph
 * (a package's declaration file) are left out.
 */
export function importCircles(graph: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.has(v)) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The graph between folders: an edge wherever a file of one imports a file of another. */
export function folderGraph(graph: ImportGraph): ImportGraph {
  const out: ImportGraph = new Map();
  for (const [from, targets] of graph) {
    const own = folderOf(from);
    const edges = out.get(own) ?? out.set(own, new Set()).get(own)!;
    for (const to of targets) if (folderOf(to) !== own) edges.add(folderOf(to));
  }
  return out;
}
