/**
 * The mutation run's configuration cannot rot silently: `npm run mutate` is not in CI, so this test
 * (fast, no Stryker run) checks that stryker.config.mjs and vitest.mutation.config.ts load, that every
 * file they name exists, that each group's files are still reached by a test the mutation run keeps,
 * and that the test files the run leaves out are exactly those docs/contributing.md names.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import mutationVitest, { EXCLUDED_TESTS } from '../../vitest.mutation.config.js';

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

interface StrykerModule {
  MUTATE_GROUPS: Record<string, string[]>;
  default: { mutate: string[]; vitest: { configFile: string } };
}

// A URL string rather than a literal specifier: the config is plain JavaScript without type declarations.
const stryker = (await import(pathToFileURL(join(root, 'stryker.config.mjs')).href)) as StrykerModule;

/** Every file under `dir` (relative to the repository), with forward slashes. */
function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .map((path) => `${dir}/${path.split('\\').join('/')}`)
    .sort();
}

/** The glob forms the configs use: `**` for any folders (or none), `*` within one path segment. */
function globRegExp(glob: string): RegExp {
  const body = glob
    .split(/(\*\*\/|\*\*|\*)/)
    .map((part) =>
      part === '**/' ? '(?:.*/)?' : part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${body}$`);
}

const matching = (glob: string, files: string[]): string[] => files.filter((file) => globRegExp(glob).test(file));

const sources = filesUnder('src');
const testFiles = filesUnder('test').filter((file) => file.endsWith('.test.ts'));
const keptTests = testFiles.filter((file) => !EXCLUDED_TESTS.some((glob) => globRegExp(glob).test(file)));

/** The backticked test paths of the mutation-testing paragraph in docs/contributing.md. */
function documentedExclusions(): string[] {
  const text = readFileSync(join(root, 'docs/contributing.md'), 'utf8');
  const start = text.indexOf('- **Mutation testing**');
  const end = text.indexOf('\n- **', start + 1);
  const section = text.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/`(test\/[^`]+)`/g)].map((m) => m[1]!).filter((path) => path !== 'test/docs/mutation-config.test.ts');
}

describe('the mutation configuration', () => {
  it('globs as Stryker and vitest do for the forms the configs use', () => {
    expect(matching('src/sentinel/**/*.ts', ['src/sentinel/sph.ts', 'src/sentinel/flow/a.ts', 'src/sentinels.ts'])).toEqual([
      'src/sentinel/sph.ts',
      'src/sentinel/flow/a.ts',
    ]);
    expect(matching('src/a/*.ts', ['src/a/b.ts', 'src/a/c/d.ts', 'src/a/b.tsx'])).toEqual(['src/a/b.ts']);
    expect(matching('test/cli/**', ['test/cli/x.test.ts', 'test/cli/y/z.test.ts', 'test/client.test.ts'])).toEqual([
      'test/cli/x.test.ts',
      'test/cli/y/z.test.ts',
    ]);
  });

  it('mutates every group, and each group entry names existing TypeScript sources', () => {
    const groups = Object.entries(stryker.MUTATE_GROUPS);
    expect(groups.length).toBeGreaterThan(0);
    for (const [group, globs] of groups) {
      for (const glob of globs) {
        expect(matching(glob, sources).filter((file) => file.endsWith('.ts')), `${group}: ${glob}`).not.toEqual([]);
      }
    }
    // Without ZONESIM_MUTATE_GROUP (unset in the test environment) the run covers every group.
    expect(stryker.default.mutate).toEqual(groups.flatMap(([, globs]) => globs));
  });

  it('names each source file in one group at most', () => {
    const groupOf = new Map<string, string>();
    for (const [group, globs] of Object.entries(stryker.MUTATE_GROUPS)) {
      for (const file of globs.flatMap((glob) => matching(glob, sources))) {
        expect(groupOf.get(file), `${file} in ${groupOf.get(file)} and ${group}`).toBeUndefined();
        groupOf.set(file, group);
      }
    }
  });

  it('runs vitest.mutation.config.ts, which leaves out exactly EXCLUDED_TESTS', () => {
    expect(stryker.default.vitest.configFile).toBe('vitest.mutation.config.ts');
    expect(mutationVitest.test?.exclude).toEqual(['**/node_modules/**', ...EXCLUDED_TESTS]);
  });

  it('leaves out only test files that exist, and keeps the rest', () => {
    for (const glob of EXCLUDED_TESTS) expect(matching(glob, testFiles), glob).not.toEqual([]);
    expect(keptTests.length).toBeGreaterThan(testFiles.length / 2);
  });

  it('leaves out exactly the test files docs/contributing.md names', () => {
    expect([...documentedExclusions()].sort()).toEqual([...EXCLUDED_TESTS].sort());
  });

  it('keeps, for every group, a test that imports one of its files', () => {
    const imports = keptTests.map((file) => readFileSync(join(root, file), 'utf8'));
    for (const [group, globs] of Object.entries(stryker.MUTATE_GROUPS)) {
      const modules = globs.flatMap((glob) => matching(glob, sources)).map((file) => `${file.slice(0, -'.ts'.length)}.js'`);
      const imported = modules.filter((module) => imports.some((text) => text.includes(module)));
      expect(imported, group).not.toEqual([]);
    }
  });
});
