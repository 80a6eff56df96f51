import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseScenario, parseScenarioWithRaw } from '../../src/scenario/load.js';
import { repetitionList, substitute } from '../../src/scenario/templates.js';
import { cli } from '../helpers/cli.js';
import { scenarioErrorOf } from '../helpers/scenario-error.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

// Line numbers below are this text's (line 1 is `name: estate`).
const ESTATE = `name: estate
x-trade: &trade
  threads: 100
  count: 10
  params: { app: "trade-{i}" }
x-ref: &ref { timeout: 500ms, retries: 0 }
zones: { zoneA: {}, zoneB: {} }
services:
  com.example.Order0: { methods: { get: { serviceTime: 5ms } } }
  com.example.Order1: { methods: { get: { serviceTime: 5ms } } }
  com.example.Order2: { methods: { get: { serviceTime: 5ms } } }
providers:
  - { name: edge, service: com.example.Order0, zone: zoneB, count: 2 }
  - name: "trade-{i:03}"
    repeat: 3
    services: ["com.example.Order{i}"]
    zone: zoneA
    exports:
      "com.example.Order{i}": { executes: 7, params: { shard: "s{i}" } }
    <<: *trade
consumers:
  - application: "web-{i}"
    repeat: 2
    zone: zoneA
    instances: 5
    rate: 100/s
    calls: { "com.example.Order{i}.get": 1 }
    reference: { "com.example.Order{i}": *ref }
`;

describe('repeat: N expands a group into N groups (SPEC 2.12)', () => {
  it('substitutes {i} (0-based) and {i:03} in names, services, exports keys, params, calls and reference keys', () => {
    const s = parseScenario(ESTATE, 'estate.yaml');
    expect(s.providers.map((g) => g.name)).toEqual(['edge', 'trade-000', 'trade-001', 'trade-002']);
    expect(s.providers.slice(1).map((g) => g.services)).toEqual([['com.example.Order0'], ['com.example.Order1'], ['com.example.Order2']]);
    const g2 = s.providers[3]!;
    expect(Object.keys(g2.exports)).toEqual(['com.example.Order2']);
    expect(g2.exports['com.example.Order2']!.executes).toBe(7);
    expect(g2.exports['com.example.Order2']!.params).toEqual({ shard: 's2' });
    // Merged from the x- anchor, substituted too.
    expect(s.providers.slice(1).map((g) => [g.count, g.threads, g.params.app])).toEqual([
      [10, 100, 'trade-0'],
      [10, 100, 'trade-1'],
      [10, 100, 'trade-2'],
    ]);
    expect(s.consumers.map((c) => [c.application, Object.keys(c.calls), Object.keys(c.reference)])).toEqual([
      ['web-0', ['com.example.Order0.get'], ['com.example.Order0']],
      ['web-1', ['com.example.Order1.get'], ['com.example.Order1']],
    ]);
    // An alias as a whole value (`*ref`) keeps its fields in every repetition.
    expect(s.consumers.map((c) => [c.reference['com.example.Order' + c.application.slice(4)]!.timeoutMs, c.reference['com.example.Order' + c.application.slice(4)]!.retries])).toEqual([
      [500, 0],
      [500, 0],
    ]);
  });

  it('gives the same scenario as the groups written out by hand, and nothing changes without repeat', () => {
    const byHand = ESTATE.replace(/  - name: "trade-\{i:03\}"[\s\S]*?<<: \*trade\n/, () =>
      [0, 1, 2]
        .map(
          (i) => `  - name: trade-00${i}
    services: [com.example.Order${i}]
    zone: zoneA
    exports:
      com.example.Order${i}: { executes: 7, params: { shard: s${i} } }
    threads: 100
    count: 10
    params: { app: trade-${i} }
`,
        )
        .join(''),
    ).replace(/  - application: "web-\{i\}"[\s\S]*$/, () =>
      [0, 1]
        .map(
          (i) => `  - application: web-${i}
    zone: zoneA
    instances: 5
    rate: 100/s
    calls: { com.example.Order${i}.get: 1 }
    reference: { com.example.Order${i}: { timeout: 500ms, retries: 0 } }
`,
        )
        .join(''),
    );
    expect(byHand).not.toContain('repeat');
    const { templates, ...expanded } = parseScenario(ESTATE, 'estate.yaml');
    expect(templates).toEqual({ providers: { groups: 4, repeats: [3] }, consumers: { groups: 2, repeats: [2] } });
    expect(parseScenario(byHand, 'estate.yaml')).toEqual(expanded);
    // Without repeat, {i} is text like any other.
    const plain = parseScenario(ESTATE.replace('    repeat: 3\n', '').replace(/"com\.example\.Order\{i\}"/g, 'com.example.Order1'), 'estate.yaml');
    expect(plain.providers[1]!.name).toBe('trade-{i:03}');
    expect(plain.templates).toEqual({ providers: { groups: 2, repeats: [] }, consumers: { groups: 2, repeats: [2] } });
  });

  it('pads {i:0W} to W digits and leaves longer numbers whole', () => {
    expect(substitute('a-{i:03}-{i}', 7)).toBe('a-007-7');
    expect(substitute('{i:02}', 123)).toBe('123');
    expect(repetitionList([0, 1, 2, 3, 7])).toBe('0..3, 7');
    expect(repetitionList([5, 1, 3])).toBe('1, 3, 5');
  });
});

describe('top-level x-* keys', () => {
  it('are ignored, so anchors can live there (merge keys and plain aliases)', () => {
    const s = parseScenario(ESTATE, 'estate.yaml');
    expect(s.providers[1]!.threads).toBe(100);
    expect(parseScenarioWithRaw(ESTATE, 'estate.yaml').rawText).toBe(ESTATE);
  });

  it('other unknown top-level keys keep their error, with did-you-mean and where anchors may live', () => {
    const e = scenarioErrorOf(ESTATE.replace('x-ref:', 'servces: 1\nx-ref:'));
    expect(e.issues).toHaveLength(1);
    expect(e.format()).toBe(
      'x.yaml:6:1: servces: unknown field "servces"; did you mean "services"?\n' +
        '  hint: top-level keys starting with x- are ignored (a home for YAML anchors: x-defaults: &defaults {...})',
    );
  });
});

describe('errors in templates point at the template', () => {
  it("a bad field in a repeated group: the template's line and field, and the repetitions", () => {
    const e = scenarioErrorOf(ESTATE.replace('executes: 7', 'executes: -1'));
    expect(e.format()).toBe('x.yaml:19:43: providers[1].exports["com.example.Order{i}"].executes: (repeat i=0..2) expected an integer >= 0, found -1');
  });

  it('a problem in one repetition only names that repetition', () => {
    // Order3 is not declared: only i=3 is wrong.
    const e = scenarioErrorOf(ESTATE.replace('repeat: 3', 'repeat: 4'));
    const lines = e.format().split('\n');
    expect(lines[0]).toBe(
      'x.yaml:16:16: providers[1].services[0]: (repeat i=3) expected a service declared under services (com.example.Order0, com.example.Order1, com.example.Order2), found "com.example.Order3"; did you mean "com.example.Order0"?',
    );
    expect(lines.every((l) => !l.includes('i=0') && !l.includes('i=1') && !l.includes('i=2'))).toBe(true);
  });

  it('a problem whose message names the repeated group is one problem, the group named as its template', () => {
    // Executor isolation is a 3.2+ feature: each repetition runs 2.7, and the message names its group.
    const e = scenarioErrorOf(ESTATE.replace('"com.example.Order{i}": { executes: 7,', '"com.example.Order{i}": { executor: { threads: 5 }, executes: 7,').replace('name: estate', "name: estate\ndubbo: '2.7'"));
    expect(e.issues).toHaveLength(1);
    expect(e.format()).toBe(
      'x.yaml:20:43: providers[1].exports["com.example.Order{i}"].executor: (repeat i=0..2) executor isolation (executor-management-mode: isolation) ' +
        "is first in Dubbo 3.2.0; providers[1] (trade-{i:03}) runs dubbo '2.7' (2.7.23)\n" +
        "  hint: give providers[1] (trade-{i:03}) dubbo: '3.3', or do without the feature",
    );
  });

  it("a field merged from an x- anchor is reported at the anchor's line", () => {
    const e = scenarioErrorOf(ESTATE.replace('threads: 100', 'threads: 0'));
    expect(e.format()).toBe('x.yaml:3:12: providers[1].threads: (repeat i=0..2) expected an integer >= 1, found 0');
  });

  it('a name without {i} is an error at the name, instead of one duplicate-name error per repetition', () => {
    const e = scenarioErrorOf(ESTATE.replace('name: "trade-{i:03}"', 'name: trade'));
    expect(e.format()).toBe(
      'x.yaml:14:11: providers[1].name: a group with repeat: 3 needs {i} (or {i:03}) in its name, else its 3 groups share one name\n  hint: e.g. name: trade-{i}',
    );
  });

  it('a written group named like a repetition: the other group is named as its template and repetition', () => {
    const e = scenarioErrorOf(ESTATE.replace('name: edge', 'name: trade-001'));
    expect(e.format().split('\n')[0]).toBe('x.yaml:14:11: providers[1].name: (repeat i=1) provider group name "trade-001" is already used by providers[0]');
    // Named from the other side: the repetition is named with the group.
    const other = scenarioErrorOf(ESTATE.replace('name: edge', 'name: trade-001').replace(/(  - \{ name: trade-001[^\n]*\n)([\s\S]*?<<: \*trade\n)/, '$2$1'));
    expect(other.format().split('\n')[0]).toMatch(/^x\.yaml:20:13: providers\[1\]\.name: provider group name "trade-001" is already used by providers\[0\] \(repeat i=1\)$/);
  });

  it.each([
    ['0', 'expected an integer from 1 to 10000, found 0'],
    ['1.5', 'expected an integer from 1 to 10000, found 1.5'],
    ['20000', 'expected an integer from 1 to 10000, found 20000'],
    ['many', 'expected an integer from 1 to 10000, found "many"'],
  ])('repeat: %s is refused at the field', (value, message) => {
    const e = scenarioErrorOf(ESTATE.replace('repeat: 2', `repeat: ${value}`));
    expect(e.format()).toBe(`x.yaml:23:13: consumers[0].repeat: ${message}`);
  });

  it('a malformed placeholder and a key that two repetitions share are named', () => {
    expect(scenarioErrorOf(ESTATE.replace('"web-{i}"', '"web-{i:3}"')).format()).toContain(
      'x.yaml:22:18: consumers[0].application: expected {i} or {i:0W} such as {i:03} (W digits, zero-padded), found {i:3}',
    );
    const clash = scenarioErrorOf(ESTATE.replace('{ shard: "s{i}" }', '{ "s{i}": a, s1: b }'));
    expect(clash.format()).toContain('x.yaml:19:67: providers[1].exports["com.example.Order{i}"].params.s1: with i=1 the key becomes "s1", which the map already has');
  });
});

describe('--set on templates: paths address the file as written, before expansion', () => {
  it('a field of the template changes every repetition; repeat and the name can be set', () => {
    const s = parseScenario(ESTATE, 'estate.yaml', ['providers[1].count=4', 'providers[1].repeat=2', 'providers[1].name=t{i}']);
    expect(s.providers.map((g) => [g.name, g.count])).toEqual([
      ['edge', 2],
      ['t0', 4],
      ['t1', 4],
    ]);
    // Five repetitions, but only three services: the repetitions past them are named at the template's line.
    const e = scenarioErrorOf(ESTATE, 'x.yaml', ['providers[1].repeat=5']);
    expect(e.format().split('\n')[0]).toMatch(/^x\.yaml:16:16: providers\[1\]\.services\[0\]: \(repeat i=3\) expected a service declared under services .*found "com\.example\.Order3"/);
    expect(e.format()).toMatch(/\(repeat i=4\)/);
  });

  it('a --set inside a merged anchor changes only the template it names, and the scenario as run keeps the template', () => {
    const { scenario, rawText } = parseScenarioWithRaw(ESTATE, 'estate.yaml', ['providers[1].threads=50']);
    expect(scenario.providers.map((g) => g.threads)).toEqual([200, 50, 50, 50]);
    expect(rawText).toContain('repeat: 3');
    expect(parseScenario(rawText, 'estate.yaml')).toEqual(scenario);
  });

  it('a bad value from --set names the --set and the repetitions', () => {
    expect(scenarioErrorOf(ESTATE, 'x.yaml', ['providers[1].count=-1']).format()).toBe(
      'x.yaml:1:1: providers[1].count: (repeat i=0..2) expected an integer >= 0, found -1 (from --set providers[1].count=-1)',
    );
  });

  it('an index past the written list says that --set indexes groups as written', () => {
    expect(scenarioErrorOf(ESTATE, 'x.yaml', ['providers[3].count=1']).format()).toBe(
      'x.yaml: --set providers[3].count=1: providers[3] is past the end of a list of 2 (--set indexes the groups as written, before repeat: expands them; write to the template, or give the group its own entry)',
    );
  });
});

describe('--dry-run prints the groups after expansion', () => {
  it('as text and as JSON', async () => {
    const file = join(tempDir('zs-templates-'), 'estate.yaml');
    writeFileSync(file, ESTATE.replace('repeat: 3', 'repeat: 3\n    count: 4').replace('  count: 10\n', ''));
    const text = await cli(['run', file, '--dry-run']);
    expect(text.err).toBe('');
    expect(text.code).toBe(0);
    // 2 instances of edge + 3 x 4 of the template; 2 x 5 consumer instances.
    expect(text.out).toContain('  groups         providers: 4 groups (from 1 template x 3 and 1 group as written), 14 instances; consumers: 2 groups (from 1 template x 2), 10 instances\n');
    const json = await cli(['run', file, '--dry-run', '--json']);
    const doc = JSON.parse(json.out) as { simulations: Array<{ groups: unknown }> };
    expect(doc.simulations[0]!.groups).toEqual({
      providers: { groups: 4, templates: [3], asWritten: 1, instances: 14 },
      consumers: { groups: 2, templates: [2], asWritten: 0, instances: 10 },
    });
  });

  it('says nothing of groups for a file without templates', async () => {
    const text = await cli(['run', 'scenarios/dual-zone-baseline.yaml', '--dry-run']);
    expect(text.code).toBe(0);
    expect(text.out).not.toContain('groups  ');
  });
});

describe('--no-plugins names a plugin of a repeated group at its template', () => {
  it('file, line and path as written', async () => {
    const file = join(tempDir('zs-templates-'), 'estate.yaml');
    writeFileSync(file, ESTATE.replace('x-ref: &ref { timeout: 500ms, retries: 0 }', 'x-ref: &ref { timeout: 500ms, loadbalance: ./lb.js }'));
    const r = await cli(['run', file, '--dry-run', '--no-plugins']);
    expect(r.code).toBe(2);
    // Both repetitions name it through the alias `*ref`: one line, at the anchor, with the template's path.
    expect(r.err).toContain(`${file}:6:44: consumers[0].reference["com.example.Order{i}"].loadbalance: loadbalance plugin "./lb.js" named, but plugins are disabled`);
    expect(r.err.trim().split("\n")).toHaveLength(1);
  });
});

describe('errors of an estate written with templates, at its size', () => {
  // 300 services; a consumer template whose 250 repetitions call services that do not exist (s300 .. s549).
  const estate = (repeat: number) => {
    const services = Array.from({ length: 300 }, (_, i) => `  com.big.s${String(i).padStart(3, '0')}.Api: { methods: { get: { serviceTime: 1ms } } }`).join('\n');
    return `name: big
duration: 10s
zones: { zoneA: { cidr: 10.0.0.0/16 } }
services:
${services}
providers:
  - { name: "p{i:03}", repeat: 300, service: "com.big.s{i:03}.Api", zone: zoneA, count: 1 }
consumers:
  - { application: "c{i:03}", repeat: ${repeat}, zone: zoneA, instances: 1, rate: 1/s, calls: { "com.big.s{i:03}.Api.get": 1 } }
`;
  };

  it('lists 20 of the declared names and counts the rest, and suggests one for the first 200 unknown names only', () => {
    expect(() => scenarioErrorOf(estate(300))).toThrow('expected a ScenarioError');
    const e = scenarioErrorOf(estate(550));
    // One issue per repetition past the 300 services (each names another service).
    expect(e.issues).toHaveLength(250);
    const [first] = e.issues;
    expect(first!.message).toMatch(
      /^\(repeat i=300\) expected a service declared under services \(com\.big\.s000\.Api, com\.big\.s001\.Api, .*, com\.big\.s019\.Api and 280 more\), found "com\.big\.s300\.Api" in "com\.big\.s300\.Api\.get"; did you mean "com\.big\.s[0-9]{3}\.Api"\?$/,
    );
    const suggested = e.issues.filter((i) => i.message.includes('did you mean'));
    expect(suggested).toHaveLength(200);
    // Those are the first 200 (repetitions 300 to 499); the last 50 name the list without a suggestion.
    expect(e.issues.slice(200).every((i) => i.message.endsWith(`in "${i.message.match(/found "([^"]+)"/)![1]}.get"`))).toBe(true);
  });
});
