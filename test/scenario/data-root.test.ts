// Data files stay inside the scenario's folder tree (or --data-root), symlinks followed, and errors
// about a data file never quote it (issue 37, audit 3 defect 1): the scenario layer's side.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePrometheusHistogram, parseSamplesCsv } from '../../src/scenario/data-files.js';
import { dataFileReader, withDataAccess } from '../../src/scenario/data-root.js';
import { loadScenarioFile, ScenarioError } from '../../src/scenario/load.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const TOKEN = 'npm_FAKETOKEN0123456789';

/** dir/s/ (the scenario's folder, with data/rt.csv and an inward link), dir/secret.txt and dir/s/out.csv -> ../secret.txt. */
function layout() {
  const dir = tempDir('zs-root-');
  mkdirSync(join(dir, 's', 'data'), { recursive: true });
  writeFileSync(join(dir, 'secret.txt'), `${TOKEN}\n`);
  writeFileSync(join(dir, 's', 'data', 'rt.csv'), 'rt\n1\n2\n');
  symlinkSync('../secret.txt', join(dir, 's', 'out.csv'));
  symlinkSync('data/rt.csv', join(dir, 's', 'in.csv'));
  return { dir, scenario: join(dir, 's', 'scenario.yaml') };
}

/** What reading `abs` gives: the text, or the reason it was refused. */
function attempt(read: (abs: string) => string, abs: string): string {
  try {
    return `text: ${read(abs)}`;
  } catch (e) {
    return `refused: ${(e as Error).message}`;
  }
}

describe('dataFileReader: where data files may be read from', () => {
  it('reads a file below the scenario\'s folder, also through a link that stays inside', () => {
    const { dir, scenario } = layout();
    const read = dataFileReader(scenario, undefined);
    expect(attempt(read, join(dir, 's', 'data', 'rt.csv'))).toBe('text: rt\n1\n2\n');
    expect(attempt(read, join(dir, 's', 'in.csv'))).toBe('text: rt\n1\n2\n');
    expect(attempt(read, join(dir, 's', 'data', '..', 'data', 'rt.csv'))).toBe('text: rt\n1\n2\n');
  });

  it('refuses a path that leaves the folder by .., an absolute path elsewhere, and a link that leads out', () => {
    const { dir, scenario } = layout();
    const read = dataFileReader(scenario, undefined);
    const outside = `refused: it is outside the scenario's folder ${join(dir, 's')} (a data file must be in it or below it; --data-root DIR names another folder)`;
    expect(attempt(read, join(dir, 's', '..', 'secret.txt'))).toBe(outside);
    expect(attempt(read, join(dir, 'secret.txt'))).toBe(outside);
    expect(attempt(read, join(dir, 's', 'out.csv'))).toBe(
      `refused: it leads through a symbolic link outside the scenario's folder ${join(dir, 's')} (a data file must be in it or below it; --data-root DIR names another folder)`,
    );
  });

  it('says the same of a missing file outside as of an existing one (no probing for files), "no such file" inside', () => {
    const { dir, scenario } = layout();
    const read = dataFileReader(scenario, undefined);
    expect(attempt(read, join(dir, 'nowhere.txt'))).toBe(attempt(read, join(dir, 'secret.txt')));
    expect(attempt(read, join(dir, 's', 'nowhere.csv'))).toBe('refused: no such file');
  });

  it('takes --data-root instead of the scenario\'s folder', () => {
    const { dir, scenario } = layout();
    expect(attempt(dataFileReader(scenario, dir), join(dir, 'secret.txt'))).toBe(`text: ${TOKEN}\n`);
    expect(attempt(dataFileReader(scenario, dir), join(dir, 's', 'out.csv'))).toBe(`text: ${TOKEN}\n`);
    // The root replaces the scenario's folder: a sibling folder of the root is outside it.
    mkdirSync(join(dir, 'other'));
    expect(attempt(dataFileReader(scenario, join(dir, 'other')), join(dir, 's', 'data', 'rt.csv'))).toBe(
      `refused: it is outside ${join(dir, 'other')}, the --data-root folder`,
    );
  });

  it('compares real paths: a scenario reached through a linked folder reads its own files', () => {
    const { dir } = layout();
    symlinkSync(join(dir, 's'), join(dir, 'alias'));
    const read = dataFileReader(join(dir, 'alias', 'scenario.yaml'), undefined);
    expect(attempt(read, join(dir, 'alias', 'data', 'rt.csv'))).toBe('text: rt\n1\n2\n');
    expect(attempt(read, join(dir, 'alias', 'out.csv'))).toMatch(/^refused: it leads through a symbolic link outside/);
  });
});

describe('loading a scenario', () => {
  const scenarioText = (file: string) =>
    [
      'zones: { zoneA: {} }',
      'services:',
      '  S:',
      '    methods:',
      `      m: { serviceTime: { dist: samples, file: ${JSON.stringify(file)} } }`,
      'providers: [{ service: S, zone: zoneA }]',
      'consumers: [{ zone: zoneA, rate: 10/s, calls: { S.m: 1 } }]',
      '',
    ].join('\n');

  function errorOf(f: () => unknown): string {
    try {
      f();
    } catch (e) {
      if (e instanceof ScenarioError) return e.format();
      throw e;
    }
    throw new Error('expected a ScenarioError');
  }

  it('reports a refused data file at the field that names it, without reading it', () => {
    const { dir, scenario } = layout();
    writeFileSync(scenario, scenarioText('../secret.txt'));
    const text = errorOf(() => loadScenarioFile(scenario));
    expect(text).toBe(
      `${scenario}:5:48: services.S.methods.m.serviceTime.file: cannot read the data file ${join(dir, 'secret.txt')}: it is outside the scenario's folder ${join(dir, 's')} (a data file must be in it or below it; --data-root DIR names another folder)`,
    );
    expect(text).not.toContain(TOKEN);
  });

  it('names the --set that gave the path, and keeps the scenario file\'s folder as the root', () => {
    const { dir, scenario } = layout();
    writeFileSync(scenario, scenarioText('data/rt.csv'));
    const set = `services.S.methods.m.serviceTime.file=${join(dir, 'secret.txt')}`;
    expect(errorOf(() => loadScenarioFile(scenario, [set]))).toMatch(
      new RegExp(`^${scenario}:1:1: services\\.S\\.methods\\.m\\.serviceTime\\.file: cannot read the data file .*: it is outside the scenario's folder .* \\(from --set ${set.replace(/[.[\]]/g, '\\$&')}\\)$`),
    );
    expect(loadScenarioFile(scenario, ['services.S.methods.m.serviceTime.file=in.csv']).services.S!.methods.m!.serviceTime).toMatchObject({ values: Float64Array.of(1, 2) });
  });

  it('with a data root, reads the file and reports bad data by position without quoting it', () => {
    const { dir, scenario } = layout();
    writeFileSync(join(dir, 'credentials'), `[default]\naws_access_key_id = ${TOKEN}\n`);
    writeFileSync(scenario, scenarioText('../credentials'));
    const text = errorOf(() => withDataAccess({ root: dir }, () => loadScenarioFile(scenario)));
    expect(text).toBe(
      `${join(dir, 'credentials')}:2:1: services.S.methods.m.serviceTime: the column: expected a number, found text that is not one (43 characters)\n` +
        `  hint: named at ${scenario}:5:48 (services.S.methods.m.serviceTime.file)`,
    );
  });
});

describe('errors about data never quote the file', () => {
  // Hostile files: the token in a header, a cell, a quoted field, metric names, label values, le and counts.
  const csvCases: Array<[string, string, string | undefined]> = [
    ['the header row, column asked for', `user,${TOKEN}\n1,2\n`, 'x'],
    ['a header row of several columns, none asked for', `user,${TOKEN}\n1,2\n`, undefined],
    ['a cell', `rt\n1\n${TOKEN}\n`, undefined],
    ['a cell of the asked column', `rt,k\n1,2\nx,${TOKEN}\n`, 'k'],
    ['a cell with a unit suffix', `rt\n${TOKEN}ms\n`, undefined],
    ['a quote inside a field', `rt\n1\n${TOKEN}"x"\n`, undefined],
    ['a closing quote followed by text', `rt\n"${TOKEN}"x\n`, undefined],
    ['a quote never closed', `rt\n"${TOKEN}\n`, undefined],
    ['a single header-only line', `${TOKEN}\n`, undefined],
  ];
  it.each(csvCases)('CSV: %s', (_name, text, column) => {
    const found = parseSamplesCsv(text, { column });
    expect(found.ok).toBe(false);
    if (found.ok) return;
    expect(found.message).not.toContain(TOKEN);
    expect(found.message).not.toContain(TOKEN.slice(4, 12));
    expect(found.at?.line).toBeGreaterThan(0);
  });

  const promCases: Array<[string, string, { metric: string; labels?: Record<string, string> }]> = [
    ['another metric name', `${TOKEN}_bucket{le="1"} 1\n`, { metric: 'rt_seconds' }],
    ['a label value', `rt_seconds_bucket{k="${TOKEN}",le="1"} 1\n`, { metric: 'rt_seconds', labels: { k: 'a' } }],
    ['several series told apart by a label value', `rt_seconds_bucket{k="${TOKEN}",le="1"} 1\nrt_seconds_bucket{k="b",le="1"} 1\n`, { metric: 'rt_seconds' }],
    ['le', `rt_seconds_bucket{le="${TOKEN}"} 1\n`, { metric: 'rt_seconds' }],
    ['a count', `rt_seconds_bucket{le="1"} ${TOKEN}\n`, { metric: 'rt_seconds' }],
    ['a malformed line', `rt_seconds_bucket{le="1" ${TOKEN}\n`, { metric: 'rt_seconds' }],
  ];
  it.each(promCases)('Prometheus: %s', (_name, text, opts) => {
    const found = parsePrometheusHistogram(text, opts);
    expect(found.ok).toBe(false);
    if (found.ok) return;
    expect(found.message).not.toContain(TOKEN);
    expect(found.message).not.toContain(TOKEN.slice(4, 12));
  });
});
