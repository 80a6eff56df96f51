// check's text at estate size: past ROUTE_PAIRS_SHOWN (consumer group, service) pairs a phase lists the pairs
// with the fewest providers left, in report order, under a line that says so; the JSON (the report) keeps all.
import { describe, expect, it } from 'vitest';
import type { CheckPhase, CheckReport, CheckRoute } from '../../src/analysis/check.js';
import type { Scenario } from '../../src/model/types.js';
import { formatCheckReport, MAX_WARNINGS_PER_KIND, ROUTE_PAIRS_SHOWN } from '../../src/report/check-format.js';

const SCENARIO = { name: 'estate', consumers: [] } as unknown as Scenario;

/** One route of consumer group `g` (zoneA) to service S: `providers` in the directory, `up` of them up, `after` left by the tag router. */
function route(g: number, providers: number, up: number, after: number, forbidden = false): CheckRoute {
  return {
    consumer: `w${String(g).padStart(3, '0')}`,
    zone: 'zoneA',
    service: 'com.seed.S',
    methods: ['call'],
    variant: 'no attachments',
    attachments: {},
    providers,
    providersUp: up,
    forbidden,
    providersAfter: after,
    trace: [{ router: 'tag', before: providers, after }],
  };
}

function phase(routes: CheckRoute[]): CheckPhase {
  return { fromMs: 0, toMs: 30_000, probeMs: 29_999, events: [], routes };
}

function report(phases: CheckPhase[], strategies: CheckReport['strategies'] = []): CheckReport {
  return { problems: [], phases, warnings: [], strategies };
}

/** The consumer groups of the pair heads printed (lines `  wNNN (zoneA) -> ...`). */
function heads(text: string, indent = '  '): string[] {
  return [...text.matchAll(new RegExp(`^${indent}(w\\d{3}) \\(zoneA\\) -> `, 'gm'))].map((m) => m[1]!);
}

describe('check text: routes of a phase at estate size', () => {
  it('lists every pair up to the cap, with no title', () => {
    const text = formatCheckReport(SCENARIO, report([phase(Array.from({ length: ROUTE_PAIRS_SHOWN }, (_, g) => route(g, 200, 200, 200)))]));
    expect(heads(text)).toHaveLength(ROUTE_PAIRS_SHOWN);
    expect(text).not.toContain('fewest providers left');
  });

  it('past the cap, lists the pairs with the fewest providers left (none, then share kept, then up), in report order', () => {
    const n = ROUTE_PAIRS_SHOWN + 30;
    const routes = Array.from({ length: n }, (_, g) => route(g, 200, 200, 200));
    // Worse than the rest, each in its own way; listed in report order, not by how bad.
    routes[40] = route(40, 200, 200, 0); // no provider left
    routes[7] = route(7, 200, 200, 50, true); // forbidden: keeps none
    routes[33] = route(33, 200, 200, 100); // half kept
    routes[2] = route(2, 200, 190, 200); // all kept, 10 down
    routes[45] = route(45, 0, 0, 0); // an empty directory
    const text = formatCheckReport(SCENARIO, report([phase(routes)]));
    expect(text).toContain(`  the ${ROUTE_PAIRS_SHOWN} of ${n} consumer group and service pairs with the fewest providers left (every route in --json)\n`);
    const shown = heads(text);
    expect(shown).toHaveLength(ROUTE_PAIRS_SHOWN);
    // The five worse pairs, then the first untouched ones by report order fill the cap; printed in report order.
    const untouched = Array.from({ length: n }, (_, g) => g).filter((g) => ![40, 7, 33, 2, 45].includes(g));
    const expected = [40, 7, 33, 2, 45, ...untouched.slice(0, ROUTE_PAIRS_SHOWN - 5)].sort((a, b) => a - b);
    expect(shown).toEqual(expected.map((g) => `w${String(g).padStart(3, '0')}`));
    expect(text).toContain('  w040 (zoneA) -> com.seed.S: 200 providers\n    call [no attachments]: tag 0  <-- NO PROVIDER');
  });

  it('caps a strategy\'s differing routes the same way', () => {
    const n = ROUTE_PAIRS_SHOWN + 5;
    const asWritten = phase(Array.from({ length: n }, (_, g) => route(g, 200, 200, 200)));
    const strategy = phase(Array.from({ length: n }, (_, g) => route(g, 200, 200, g === 12 ? 0 : 199)));
    const text = formatCheckReport(SCENARIO, report([asWritten], [{ name: 'strict', description: '', phases: [strategy] }]));
    const block = text.slice(text.indexOf('strategy strict'));
    expect(block).toContain(`    the ${ROUTE_PAIRS_SHOWN} of ${n} consumer group and service pairs with the fewest providers left (every route in --json)\n`);
    const shown = heads(block, '    ');
    expect(shown).toHaveLength(ROUTE_PAIRS_SHOWN);
    expect(shown).toContain('w012');
  });
});

describe('check text: warnings at estate size', () => {
  const warning = (g: number, kind: 'loadbalance-without-actives' | 'no-provider-group') =>
    ({ kind, consumer: `w${String(g).padStart(3, '0')}`, zone: 'zoneA', service: 'com.seed.S', message: `w${String(g).padStart(3, '0')} ${kind}` }) as CheckReport['warnings'][number];

  it('lists the first MAX_WARNINGS_PER_KIND of each kind and counts the rest; every kind up to the cap in full', () => {
    const many = Array.from({ length: MAX_WARNINGS_PER_KIND + 580 }, (_, g) => warning(g, 'loadbalance-without-actives'));
    const few = Array.from({ length: 3 }, (_, g) => warning(g, 'no-provider-group'));
    const text = formatCheckReport(SCENARIO, { ...report([]), warnings: [...many, ...few] });
    expect(text).toContain(`warnings (${MAX_WARNINGS_PER_KIND + 583}):`);
    const listed = [...text.matchAll(/^ {2}w(\d{3}) (\S+)$/gm)].map((m) => `${m[1]} ${m[2]}`);
    expect(listed).toEqual([
      ...Array.from({ length: MAX_WARNINGS_PER_KIND }, (_, g) => `${String(g).padStart(3, '0')} loadbalance-without-actives`),
      '000 no-provider-group',
      '001 no-provider-group',
      '002 no-provider-group',
    ]);
    expect(text).toContain('  ... and 580 more loadbalance-without-actives warnings (every one in --json)\n');
    expect(text).not.toContain('more no-provider-group');
  });
});
