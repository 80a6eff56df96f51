/**
 * Dubbo Admin condition rules read from YAML (ConditionRuleParser, AbstractRouterRule.parseFromMap0):
 * the common fields with their defaults and Java's Boolean.parseBoolean, the integer fields, which
 * configVersion picks the v3.0 or v3.1 model, v3.0 items (null and scalar items), v3.1 from/to with
 * weights, and the message naming the field for each shape that is not a rule.
 */
import { describe, expect, it } from 'vitest';
import { loadRuleYaml, parseConditionRuleYaml, parseRouterRuleMeta } from '../../../../src/dubbo/router/condition/condition-rule-parser.js';
import { RouterRuleError } from '../../../../src/dubbo/router/router-rule-error.js';

const ONE = 'conditions: ["=> region = beijing"]';

describe('the common fields (AbstractRouterRule)', () => {
  it('takes Dubbo’s defaults: force false, runtime true, enabled true, priority 0, valid true', () => {
    expect(parseRouterRuleMeta({}, 'rule')).toEqual({
      configVersion: undefined,
      scope: undefined,
      key: undefined,
      force: false,
      runtime: true,
      enabled: true,
      priority: 0,
      valid: true,
    });
  });

  it('keeps the defaults for null fields', () => {
    expect(parseConditionRuleYaml(`force: ~\nruntime: ~\nenabled: ~\npriority: ~\nvalid: ~\nscope: ~\n${ONE}`)).toMatchObject({
      force: false,
      runtime: true,
      enabled: true,
      priority: 0,
      valid: true,
      scope: undefined,
    });
  });

  it('reads booleans as Boolean.parseBoolean of their text: only "true", in any case, is true', () => {
    expect(parseConditionRuleYaml(`force: "TRUE"\nruntime: "True"\n${ONE}`)).toMatchObject({ force: true, runtime: true });
    expect(parseConditionRuleYaml(`force: 1\nruntime: "no"\nenabled: "off"\nvalid: nope\n${ONE}`)).toMatchObject({
      force: false,
      runtime: false,
      enabled: false,
      valid: false,
    });
  });

  it('reads scalar fields as text', () => {
    expect(parseConditionRuleYaml(`configVersion: v3.0\nscope: service\nkey: 42\n${ONE}`)).toMatchObject({
      configVersion: 'v3.0',
      scope: 'service',
      key: '42',
    });
  });

  it('reads an integer priority, signed or padded', () => {
    expect(parseConditionRuleYaml(`priority: 12\n${ONE}`).priority).toBe(12);
    expect(parseConditionRuleYaml(`priority: -3\n${ONE}`).priority).toBe(-3);
    expect(parseConditionRuleYaml(`priority: "+7"\n${ONE}`).priority).toBe(7);
    expect(parseConditionRuleYaml(`priority: " 5 "\n${ONE}`).priority).toBe(5);
  });

  it('reports a priority that is not an integer, naming the rule', () => {
    for (const bad of ['1.5', 'high', '7x', 'x7']) {
      expect(() => parseRouterRuleMeta({ priority: bad }, 'tag rule'), bad).toThrow(
        new RouterRuleError(`tag rule: priority: expected an integer, found "${bad}"`),
      );
    }
  });
});

describe('the configVersion', () => {
  it('reads v3.1 in any case, and versions starting with it, as the multi-destination model', () => {
    for (const v of ['v3.1', 'V3.1', 'v3.1.0']) {
      expect(parseConditionRuleYaml(`configVersion: ${v}\nconditions:\n  - to: [{ match: a=b }]`).format, v).toBe('v3.1');
    }
  });

  it('reads v3.0, an older version or none as the v3.0 model', () => {
    for (const v of ['configVersion: v3.0\n', 'configVersion: v2.7\n', '']) {
      expect(parseConditionRuleYaml(`${v}${ONE}`).format, v).toBe('v3.0');
    }
  });

  it('refuses a version newer than v3.1, in any case', () => {
    expect(() => parseConditionRuleYaml(`configVersion: V3.2\n${ONE}`)).toThrow(
      'condition rule: configVersion V3.2 is not supported; Dubbo 3.3 ignores rules newer than v3.1',
    );
  });
});

describe('v3.0 conditions', () => {
  it('keeps each item as the condition text, a scalar as its text', () => {
    expect(parseConditionRuleYaml('conditions:\n  - => region = beijing\n  - 42').conditions).toEqual(['=> region = beijing', '42']);
  });

  it('reads null items as the text "null" and records where they are', () => {
    const parsed = parseConditionRuleYaml('conditions:\n  - => a = b\n  - ~\n  - null');
    expect(parsed).toMatchObject({ format: 'v3.0', conditions: ['=> a = b', 'null', 'null'], nullItems: [1, 2] });
  });

  it('records no null items when there are none', () => {
    expect(parseConditionRuleYaml(ONE)).not.toHaveProperty('nullItems');
  });

  it('refuses a list item, without the from/to hint', () => {
    expect(() => parseConditionRuleYaml('conditions:\n  - [a, b]')).toThrow(
      new RouterRuleError('condition rule: conditions[0]: expected a string like "method=sayHello => region=hangzhou", found ["a","b"]'),
    );
  });

  it('refuses a map item, hinting at v3.1 when it has from or to', () => {
    expect(() => parseConditionRuleYaml('conditions:\n  - => a = b\n  - { to: [] }')).toThrow(
      'condition rule: conditions[1]: expected a string like "method=sayHello => region=hangzhou", found {"to":[]} (from/to conditions need configVersion: v3.1)',
    );
    expect(() => parseConditionRuleYaml('conditions:\n  - { when: a }')).toThrow(/found \{"when":"a"\}$/);
  });
});

describe('the conditions list', () => {
  it('reports conditions that are not a list, or an empty one, with what was found', () => {
    expect(() => parseConditionRuleYaml('conditions: abc')).toThrow('condition rule: conditions: expected a non-empty list, found "abc"');
    expect(() => parseConditionRuleYaml('conditions: []')).toThrow('condition rule: conditions: expected a non-empty list, found []');
    expect(() => parseConditionRuleYaml('scope: service')).toThrow('condition rule: conditions: expected a non-empty list, found nothing');
  });

  it('reports a document that is not a map', () => {
    expect(() => parseConditionRuleYaml('just text')).toThrow(
      'condition rule: expected a YAML map (configVersion, scope, key, force, conditions, ...), found "just text"',
    );
  });

  it('reports an empty document (null) as not a map', () => {
    expect(() => parseConditionRuleYaml('~')).toThrow(
      new RouterRuleError('condition rule: expected a YAML map (configVersion, scope, key, force, conditions, ...), found null'),
    );
  });

  it('names the condition rule in YAML and field errors', () => {
    expect(() => parseConditionRuleYaml('conditions: [a\nforce: true')).toThrow(/^condition rule: invalid YAML: /);
    expect(() => parseConditionRuleYaml(`priority: high\n${ONE}`)).toThrow(
      new RouterRuleError('condition rule: priority: expected an integer, found "high"'),
    );
  });

  it('reads an already-parsed object like its YAML', () => {
    expect(parseConditionRuleYaml({ force: true, conditions: ['=> a = b'] })).toMatchObject({ format: 'v3.0', force: true, conditions: ['=> a = b'] });
  });
});

describe('v3.1 conditions', () => {
  const v31 = (conditions: string) => parseConditionRuleYaml(`configVersion: v3.1\nconditions:\n${conditions}`);

  it('reads from.match and each destination with its weight', () => {
    expect(v31('  - from: { match: env=gray }\n    to:\n      - { match: region=beijing, weight: 30 }\n      - { match: 7 }').conditions).toEqual([
      { from: { match: 'env=gray' }, to: [{ match: 'region=beijing', weight: 30 }, { match: '7', weight: undefined }] },
    ]);
  });

  it('keeps an empty from and no destination for null or missing from/to', () => {
    expect(v31('  - { from: ~, to: ~ }\n  - { from: { match: ~ } }').conditions).toEqual([
      { from: {}, to: [] },
      { from: { match: undefined }, to: [] },
    ]);
  });

  it('keeps no match text for a destination or from without one', () => {
    expect(v31('  - { from: { other: 1 }, to: [{ weight: 5 }] }').conditions).toEqual([{ from: { match: undefined }, to: [{ match: undefined, weight: 5 }] }]);
  });

  it('refuses a null v3.1 condition', () => {
    expect(() => v31('  - ~')).toThrow(new RouterRuleError('conditions[0]: expected a map with from/to (configVersion v3.1), found null'));
  });

  it('reads signed and padded weights, and none for a null weight', () => {
    expect(v31('  - to: [{ match: a=b, weight: -4 }, { match: c=d, weight: " 9 " }, { match: e=f, weight: ~ }]').conditions).toEqual([
      {
        from: {},
        to: [
          { match: 'a=b', weight: -4 },
          { match: 'c=d', weight: 9 },
          { match: 'e=f', weight: undefined },
        ],
      },
    ]);
  });

  it('names the field of each shape that is not a v3.1 condition', () => {
    expect(() => v31('  - => a = b')).toThrow('conditions[0]: expected a map with from/to (configVersion v3.1), found "=> a = b"');
    expect(() => v31('  - [a]')).toThrow('conditions[0]: expected a map with from/to (configVersion v3.1), found ["a"]');
    expect(() => v31('  - { to: [[a]] }')).toThrow('conditions[0].to[0]: expected a map with match/weight, found ["a"]');
    expect(() => v31('  - { from: [a] }')).toThrow('conditions[0].from: expected a map with \'match\', found ["a"]');
    expect(() => v31('  - { from: { match: [a] } }')).toThrow('conditions[0].from.match: expected a condition string, found ["a"]');
    expect(() => v31('  - { to: { match: a } }')).toThrow('conditions[0].to: expected a list of {match, weight}, found {"match":"a"}');
    expect(() => v31('  - { to: [a=b] }')).toThrow('conditions[0].to[0]: expected a map with match/weight, found "a=b"');
    expect(() => v31('  - { to: [{ match: a=b }, { match: { x: 1 } }] }')).toThrow('conditions[0].to[1].match: expected a condition string, found {"x":1}');
    expect(() => v31('  - { to: [{ match: a=b }] }\n  - { to: [{ weight: 1.5 }] }')).toThrow('conditions[1].to[0].weight: expected an integer, found "1.5"');
  });
});

describe('loadRuleYaml', () => {
  it('reads YAML 1.1 as SnakeYAML does: yes is true', () => {
    expect(loadRuleYaml('force: yes', 'rule')).toEqual({ force: true });
  });

  it('freezes what it returns all the way down, so that no reader changes what the others get', () => {
    const loaded = loadRuleYaml('configVersion: v3.1\nconditions:\n  - to: [{ match: a=b }]', 'rule') as {
      conditions: { to: { match: string }[] }[];
    };
    expect(Object.isFrozen(loaded)).toBe(true);
    expect(Object.isFrozen(loaded.conditions[0]!.to[0])).toBe(true);
  });

  it('reports only the first line of the YAML error, after what was read', () => {
    let message = '';
    try {
      loadRuleYaml('a: [1\nb: 2', 'tag rule');
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^tag rule: invalid YAML: \S/);
    expect(message).not.toContain('\n');
  });
});
