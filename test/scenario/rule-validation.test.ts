import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/scenario/load.js';
import { scenarioErrorOf } from '../helpers/scenario-error.js';

const base = `zones: { dc: { cidr: 10.0.0.0/24 } }
services: { S: { methods: { m: { serviceTime: 1ms } } } }
providers: [{ service: S, zone: dc }]
consumers:
  - application: a
    zone: dc
    rate: 10/s
    calls: { S.m: 1 }
`;

const errorOf = (text: string): string => scenarioErrorOf(text).format();

describe('routing rules and attachment expressions are checked when the file loads', () => {
  it('reports a condition rule that does not parse, at the rule, with Dubbo\'s parse message', () => {
    expect(errorOf(`${base}routers:\n  - { type: condition, rule: "host = => == x" }\n`)).toMatch(
      /^x\.yaml:10:30: routers\[0\]\.rule: expected a valid condition rule: Illegal route rule "== x"/,
    );
  });

  it('reports a tag rule without tags', () => {
    expect(errorOf(`${base}routers:\n  - type: tag\n    rule: "tags: []"\n`)).toMatch(/^x\.yaml:11:11: routers\[0\]\.rule: expected a valid tag rule/);
  });

  it('reports a rule pushed by a fault the same way', () => {
    expect(errorOf(`${base}faults:\n  - { at: 1s, rule: { add: { type: condition, rule: "host == x" } } }\n`)).toMatch(
      /faults\[0\]\.rule\.add\.rule: expected a valid condition rule/,
    );
  });

  it('reports an attachment expression it cannot evaluate', () => {
    expect(errorOf(base.replace('calls: { S.m: 1 }', 'calls: { S.m: 1 }\n    attachments: { dubbo.tag: { value: x, when: "user % 3" } }'))).toMatch(
      /consumers\[0\]\.attachments\["dubbo\.tag"\]\.when: expected an expression such as "userId % 1000 < 5"/,
    );
  });

  it('accepts valid rules and expressions', () => {
    const s = parseScenario(
      `${base.replace('calls: { S.m: 1 }', 'calls: { S.m: 1 }\n    attachments: { dubbo.tag: { value: x, when: "userId % 100 < 5" } }')}routers:\n  - { type: condition, rule: "=> host != 10.9.*", force: true }\n`,
      'x.yaml',
    );
    expect(s.routers).toHaveLength(1);
  });
});
