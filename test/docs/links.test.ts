import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { anchorsOf, checkLinks, githubSlug, headingText, linksOf, type LinkFileSystem } from './markdown-links.js';

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

const repoFs: LinkFileSystem = {
  exists: (path) => existsSync(join(root, path)),
  read: (path) => {
    try {
      return readFileSync(join(root, path), 'utf8');
    } catch {
      return undefined;
    }
  },
};

function docPages(): string[] {
  return readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
}

/** An in-memory repository for testing the checker itself. */
function memoryFs(files: Record<string, string>, dirs: string[] = []): LinkFileSystem {
  return {
    exists: (path) => path in files || dirs.includes(path),
    read: (path) => files[path],
  };
}

const readme = (): string => readFileSync(join(root, 'README.md'), 'utf8');

describe('documentation links', () => {
  it('every relative link in README.md and docs/*.md names an existing file and heading', () => {
    const files = ['README.md', ...docPages()];
    expect(files.length).toBeGreaterThan(8);
    const broken = checkLinks(files, repoFs).map((b) => `${b.file}:${b.line}: ${b.target}: ${b.reason}`);
    expect(broken).toEqual([]);
  });

  it('the README links to every page in docs/, and the docs index lists every page', () => {
    const fromReadme = new Set(linksOf(readme()).map((l) => l.target.split('#')[0]));
    const index = readFileSync(join(root, 'docs/README.md'), 'utf8');
    const fromIndex = new Set(linksOf(index).map((l) => l.target.split('#')[0]));
    for (const page of docPages()) {
      expect(fromReadme, `README.md links to ${page}`).toContain(page);
      if (page !== 'docs/README.md') expect(fromIndex, `docs/README.md links to ${page}`).toContain(page.slice('docs/'.length));
    }
  });

  it('the README is the front door: at most 300 lines', () => {
    expect(readme().split('\n').length - (readme().endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(300);
  });

  it('the README shows the test command .ci/run runs (npm test) and the quick-start command', () => {
    const ci = readFileSync(join(root, '.ci/run'), 'utf8');
    expect(ci).toMatch(/^npm test\b/m);
    const lines = readme().split('\n');
    expect(lines).toContain('npm test');
    expect(lines).toContain('npm ci && npm start');
  });

  it('the package ships docs/ (package.json has no files list, or one that names docs)', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files?: string[] };
    if (pkg.files !== undefined) expect(pkg.files.some((f) => /^\.?\/?docs\/?(\*\*)?$/.test(f))).toBe(true);
    const npmignore = join(root, '.npmignore');
    if (existsSync(npmignore)) expect(readFileSync(npmignore, 'utf8')).not.toMatch(/^\/?docs\/?$/m);
  });

  it('zonesim --help names documentation files that exist', async () => {
    const out: string[] = [];
    const code = await main(['--help'], { stdout: (s) => out.push(s), stderr: () => {}, cwd: root });
    expect(code).toBe(0);
    const named = [...out.join('').matchAll(/docs\/[\w-]+\.md/g)].map((m) => m[0]);
    expect(named).toContain('docs/cli.md');
    expect(named).toContain('docs/scenario-format.md');
    for (const path of named) expect(existsSync(join(root, path)), path).toBe(true);
  });
});

describe('GitHub heading anchors', () => {
  it.each([
    ['Quick start', 'quick-start'],
    ['`zonesim run <scenario>`', 'zonesim-run-scenario'],
    ['`zonesim merge <parts..>`', 'zonesim-merge-parts'],
    ['`--set path=value`', '--set-pathvalue'],
    ['Summary JSON (`run --json`, `summary.json`)', 'summary-json-run---json-summaryjson'],
    ['Several seeds (`--seeds K`)', 'several-seeds---seeds-k'],
    ['zonesim additions', 'zonesim-additions'],
    ['What **is** [ported](x.md)', 'what-is-ported'],
    ['snake_case and Ünïcode', 'snake_case-and-ünïcode'],
  ])('the heading %j has the anchor #%s', (source, anchor) => {
    expect(githubSlug(headingText(source))).toBe(anchor);
  });

  it('repeated headings get -1, -2 suffixes, and headings in fenced code are not headings', () => {
    const md = ['# Title', '## Options', 'text', '## Options', '```sh', '# Options', '```', '## Options', '## Options-1 x'].join('\n');
    expect([...anchorsOf(md)]).toEqual(['title', 'options', 'options-1', 'options-2', 'options-1-x']);
  });

  it('a setext heading and an explicit <a id> are anchors too', () => {
    expect(anchorsOf('Setext Title\n============\n\n<a id="custom"></a>\n')).toEqual(new Set(['setext-title', 'custom']));
  });
});

describe('the link checker', () => {
  const page = [
    '# Page',
    '## Exit codes',
    'See [codes](#exit-codes), [the other page](other.md#options), [a folder](../scenarios/) and [home](https://example.com/x#y).',
    '`[not a link](missing.md)` and',
    '```',
    '[also not a link](missing.md)',
    '```',
  ].join('\n');

  it('accepts links whose file and heading exist', () => {
    const fs = memoryFs({ 'docs/page.md': page, 'docs/other.md': '# Other\n## Options\n' }, ['scenarios']);
    expect(linksOf(page).map((l) => l.target)).toEqual(['#exit-codes', 'other.md#options', '../scenarios/', 'https://example.com/x#y']);
    expect(checkLinks(['docs/page.md'], fs)).toEqual([]);
  });

  it('reports a missing file, a missing anchor and a missing heading in the same page, with their lines', () => {
    const broken = [
      '# Broken',
      'A [gone page](gone.md) and [a gone heading](other.md#flags).',
      'And [here](#nowhere), [an image](img/x.png), [out](../../etc/passwd).',
    ].join('\n');
    const fs = memoryFs({ 'docs/broken.md': broken, 'docs/other.md': '# Other\n## Options\n' });
    expect(checkLinks(['docs/broken.md'], fs)).toEqual([
      { file: 'docs/broken.md', line: 2, target: 'gone.md', reason: 'no file docs/gone.md' },
      { file: 'docs/broken.md', line: 2, target: 'other.md#flags', reason: 'no heading #flags in docs/other.md' },
      { file: 'docs/broken.md', line: 3, target: '#nowhere', reason: 'no heading #nowhere in docs/broken.md' },
      { file: 'docs/broken.md', line: 3, target: 'img/x.png', reason: 'no file docs/img/x.png' },
      { file: 'docs/broken.md', line: 3, target: '../../etc/passwd', reason: 'points outside the repository' },
    ]);
  });

  it('checks the anchor of a repeated heading by its suffix', () => {
    const fs = memoryFs({
      'a.md': '[second](b.md#run-1) [third](b.md#run-2)',
      'b.md': '## run\n## run\n',
    });
    expect(checkLinks(['a.md'], fs)).toEqual([
      { file: 'a.md', line: 1, target: 'b.md#run-2', reason: 'no heading #run-2 in b.md' },
    ]);
  });

  it('rejects an anchor into a file that is not Markdown', () => {
    const fs = memoryFs({ 'a.md': '[line](s.yaml#top)', 's.yaml': 'x: 1\n' });
    expect(checkLinks(['a.md'], fs)).toEqual([
      { file: 'a.md', line: 1, target: 's.yaml#top', reason: '#top in s.yaml, which is not Markdown' },
    ]);
  });
});
