/**
 * The tag rule model (dubbo-cluster `router/tag/model/TagRouterRule.java`, `Tag.java`, `ParamMatch.java`,
 * `StringMatch.java`): the StringMatch kinds and their precedence, the tag → addresses map `init` builds from
 * static addresses and v3.0 `match` conditions, and the errors parsing reports for a malformed rule.
 */
import { describe, expect, it } from 'vitest';
import { isParamMatch, isStringMatch, parseTagRule, TagRouterRule, type StringMatch } from '../../../../src/dubbo/router/tag/tag-router-rule.js';
import { RouterRuleError } from '../../../../src/dubbo/router/router-rule-error.js';
import { invokersOf } from '../fixtures.js';

// dubbo-cluster StringMatchTest, copied as data: [matcher, input (undefined = Java null), expected].
const DUBBO_STRING_MATCH_CASES: readonly (readonly [StringMatch, string | undefined, boolean])[] = [
  [{ exact: 'qinliujie' }, 'qinliujie', true],
  [{ exact: 'qinliujie' }, 'other', false],
  [{ exact: 'qinliujie' }, undefined, false],
  [{ prefix: 'org.apache.dubbo.rpc.cluster.router.mesh' }, 'org.apache.dubbo.rpc.cluster.router.mesh.test', true],
  [{ prefix: 'org.apache.dubbo.rpc.cluster.router.mesh' }, 'com.alibaba.hsf', false],
  [{ prefix: 'org.apache.dubbo.rpc.cluster.router.mesh' }, undefined, false],
  [{ regex: 'org.apache.dubbo.rpc.cluster.router.mesh.*' }, 'org.apache.dubbo.rpc.cluster.router.mesh', true],
  [{ regex: 'org.apache.dubbo.rpc.cluster.router.mesh.*' }, 'org.apache.dubbo.rpc.cluster.router.mesh.test', true],
  [{ regex: 'org.apache.dubbo.rpc.cluster.router.mesh.*' }, 'com.alibaba.hsf', false],
  [{ regex: 'org.apache.dubbo.rpc.cluster.router.mesh.*' }, 'com.taobao', false],
  [{ empty: 'empty' }, 'com.alibaba.hsf', false],
  [{ empty: 'empty' }, '', true],
  [{ empty: 'empty' }, undefined, true],
  [{ noempty: 'noempty' }, 'com.alibaba.hsf', true],
  [{ noempty: 'noempty' }, '', false],
  [{ noempty: 'noempty' }, undefined, false],
];

describe('StringMatch.isMatch', () => {
  it.each(DUBBO_STRING_MATCH_CASES)("Dubbo's case %j against %j is %s", (m, input, expected) => {
    expect(isStringMatch(m, input)).toBe(expected);
  });

  it('matches a wildcard by its exact text, or any present value when it is "*"', () => {
    expect(isStringMatch({ wildcard: 'gr*' }, 'gr*')).toBe(true);
    expect(isStringMatch({ wildcard: 'gr*' }, 'gray')).toBe(false);
    expect(isStringMatch({ wildcard: '*' }, 'gray')).toBe(true);
    expect(isStringMatch({ wildcard: '*' }, '')).toBe(true);
    expect(isStringMatch({ wildcard: '*' }, undefined)).toBe(false);
  });

  it('matches a regex against the whole value, as Java String.matches does', () => {
    expect(isStringMatch({ regex: 'gr.y' }, 'gray')).toBe(true);
    expect(isStringMatch({ regex: 'gr.y' }, 'grays')).toBe(false);
    expect(isStringMatch({ regex: 'gr.y' }, undefined)).toBe(false);
  });

  it('decides by the first field set (exact, prefix, regex, wildcard, empty, noempty), not by any of them', () => {
    expect(isStringMatch({ exact: 'a', prefix: 'b' }, 'bb')).toBe(false);
    expect(isStringMatch({ prefix: 'a', regex: 'b.*' }, 'bb')).toBe(false);
    expect(isStringMatch({ regex: 'a', wildcard: '*' }, 'bb')).toBe(false);
    expect(isStringMatch({ wildcard: 'a', noempty: 'x' }, 'bb')).toBe(false);
    expect(isStringMatch({ empty: 'x', noempty: 'x' }, 'bb')).toBe(false);
    expect(isStringMatch({ prefix: 'b', exact: 'a' }, 'bb')).toBe(false);
  });

  it('skips the value kinds for a missing parameter, so that empty or noempty decides', () => {
    expect(isStringMatch({ exact: 'a', empty: 'x' }, undefined)).toBe(true);
    expect(isStringMatch({ prefix: 'a', empty: 'x' }, undefined)).toBe(true);
    expect(isStringMatch({ regex: 'a', empty: 'x' }, undefined)).toBe(true);
    expect(isStringMatch({ wildcard: '*', empty: 'x' }, undefined)).toBe(true);
    expect(isStringMatch({ exact: 'a', noempty: 'x' }, undefined)).toBe(false);
  });

  it('matches nothing when no field is set', () => {
    expect(isStringMatch({}, 'gray')).toBe(false);
    expect(isStringMatch({}, undefined)).toBe(false);
    expect(isStringMatch({}, '')).toBe(false);
  });
});

describe('ParamMatch.isMatch', () => {
  it('applies its value matcher, and matches nothing without one (even a missing parameter)', () => {
    expect(isParamMatch({ key: 'env', value: { exact: 'gray' } }, 'gray')).toBe(true);
    expect(isParamMatch({ key: 'env', value: { exact: 'gray' } }, 'blue')).toBe(false);
    expect(isParamMatch({ key: 'env' }, 'gray')).toBe(false);
    expect(isParamMatch({ key: 'env' }, undefined)).toBe(false);
  });
});

// dubbo-cluster TagStateRouterTest.tagRouterRuleParseTestV3 and its getInvokers(), copied as data.
const DUBBO_V3_RULE = `---
configVersion: v3.0
force: false
runtime: true
enabled: true
priority: 1
key: demo-provider
tags:
  - name: tag1
    match:
    - key: match_key1
      value:
       exact: value1
  - name: tag2
    addresses:
     - "10.20.3.3:20880"
     - "10.20.3.4:20880"
    match:
    - key: match_key2
      value:
       exact: value2
  - name: tag3
    match:
    - key: match_key2
      value:
       exact: value2
  - name: tag4
    match:
    - key: not_exist
      value:
       exact: not_exist
  - name: tag5
    match:
    - key: match_key2
      value:
       wildcard: "*"
...`;
const DUBBO_V3_PROVIDERS = [
  'dubbo://10.20.3.3:20880/com.foo.BarService?match_key1=value1&match_key2=value2',
  'dubbo://10.20.3.4:20880/com.foo.BarService?match_key1=value1',
];

/** The rule's tag → addresses map as plain sorted lists. */
function addressMap(rule: TagRouterRule): Record<string, string[]> {
  return Object.fromEntries([...rule.getTagnameToAddresses()].map(([name, set]) => [name, [...set].sort()]));
}

describe('TagRouterRule.init', () => {
  it("builds Dubbo's tagRouterRuleParseTestV3 map: addresses win over match, a match nobody meets gives no entry", () => {
    const rule = parseTagRule(DUBBO_V3_RULE);
    rule.init(invokersOf(DUBBO_V3_PROVIDERS));
    expect(rule.meta.key).toBe('demo-provider');
    expect(rule.meta.priority).toBe(1);
    expect(rule.getTagNames()).toEqual(['tag1', 'tag2', 'tag3', 'tag4', 'tag5']);
    expect(addressMap(rule)).toEqual({
      tag1: ['10.20.3.3:20880', '10.20.3.4:20880'],
      tag2: ['10.20.3.3:20880', '10.20.3.4:20880'],
      tag3: ['10.20.3.3:20880'],
      tag5: ['10.20.3.3:20880'],
    });
    expect([...rule.getAddresses()].sort()).toEqual(['10.20.3.3:20880', '10.20.3.4:20880']);
  });

  it('keeps a provider in a match tag only when every condition of the tag holds', () => {
    const rule = parseTagRule(`configVersion: v3.0
tags:
  - name: both
    match:
      - key: match_key1
        value: { exact: value1 }
      - key: match_key2
        value: { exact: value2 }`);
    rule.init(invokersOf(DUBBO_V3_PROVIDERS));
    expect(addressMap(rule)).toEqual({ both: ['10.20.3.3:20880'] });
  });

  it('reads match tags from any v3.0.x configVersion, and from none before it', () => {
    const match = 'tags:\n  - name: t\n    match:\n      - key: match_key2\n        value: { noempty: x }';
    for (const [version, expected] of [
      ['v3.0.1', { t: ['10.20.3.3:20880'] }],
      ['v3.0', { t: ['10.20.3.3:20880'] }],
      ['v2.7', {}],
      ['v1.v3.0', {}],
    ] as const) {
      const rule = parseTagRule(`configVersion: ${version}\n${match}`);
      rule.init(invokersOf(DUBBO_V3_PROVIDERS));
      expect(addressMap(rule), version).toEqual(expected);
    }
    // Without configVersion a match list is not even read.
    expect(parseTagRule(match).tags[0]!.match).toBeUndefined();
  });

  it('builds a v3.0 tag with an empty address list from its match, as Dubbo reads an empty list as none', () => {
    const rule = parseTagRule('configVersion: v3.0\ntags:\n  - name: t\n    addresses: []\n    match:\n      - key: match_key2\n        value: { exact: value2 }');
    rule.init(invokersOf(DUBBO_V3_PROVIDERS));
    expect(addressMap(rule)).toEqual({ t: ['10.20.3.3:20880'] });
  });

  it('reads no match tag of a rule built without configVersion v3.0', () => {
    const tags = [{ name: 't', match: [{ key: 'match_key2', value: { exact: 'value2' } }] }];
    for (const configVersion of [undefined, 'v2.7']) {
      const meta = { ...parseTagRule('tags:\n  - name: t').meta, configVersion };
      const rule = new TagRouterRule(meta, tags, '');
      rule.init(invokersOf(DUBBO_V3_PROVIDERS));
      expect(addressMap(rule), String(configVersion)).toEqual({});
    }
  });

  it('gives a v3.0 tag with neither addresses nor match no addresses (Dubbo would drop the whole rule)', () => {
    const rule = parseTagRule('configVersion: v3.0\ntags:\n  - name: bare\n  - name: listed\n    addresses: ["10.0.0.9:20880"]');
    rule.init(invokersOf(DUBBO_V3_PROVIDERS));
    expect(addressMap(rule)).toEqual({ listed: ['10.0.0.9:20880'] });
  });

  it('gives a match tag no addresses while there are no providers, and static addresses still', () => {
    const rule = parseTagRule(DUBBO_V3_RULE);
    rule.init([]);
    expect(addressMap(rule)).toEqual({ tag2: ['10.20.3.3:20880', '10.20.3.4:20880'] });
  });

  it('rebuilds the map on every init: a provider gone from the list leaves its match tags', () => {
    const rule = parseTagRule(DUBBO_V3_RULE);
    rule.init(invokersOf(DUBBO_V3_PROVIDERS));
    rule.init(invokersOf(DUBBO_V3_PROVIDERS.slice(1)));
    expect(addressMap(rule)).toEqual({
      tag1: ['10.20.3.4:20880'],
      tag2: ['10.20.3.3:20880', '10.20.3.4:20880'],
    });
    expect([...rule.getAddresses()].sort()).toEqual(['10.20.3.3:20880', '10.20.3.4:20880']);
  });

  it('gives a rule marked valid: false no addresses at all', () => {
    const rule = parseTagRule('valid: false\ntags:\n  - name: t\n    addresses: ["10.0.0.9:20880"]');
    rule.init(invokersOf(DUBBO_V3_PROVIDERS));
    expect(rule.valid).toBe(false);
    expect(addressMap(rule)).toEqual({});
    expect(rule.getAddresses().size).toBe(0);
  });

  it('is not valid without tags, even when its meta says valid', () => {
    const meta = parseTagRule('tags:\n  - name: t').meta;
    expect(new TagRouterRule(meta, [], '').valid).toBe(false);
    expect(new TagRouterRule(meta, [{ name: 't' }], '').valid).toBe(true);
  });

  it('leaves the rule it was copied from uninitialised (each router initialises its own copy)', () => {
    const rule = parseTagRule(DUBBO_V3_RULE);
    const copy = rule.copy();
    copy.init(invokersOf(DUBBO_V3_PROVIDERS));
    expect(copy.getTagNames()).toEqual(rule.getTagNames());
    expect(copy.valid).toBe(true);
    expect(Object.keys(addressMap(copy))).toEqual(['tag2', 'tag1', 'tag3', 'tag5']);
    expect(addressMap(rule)).toEqual({});
  });
});

describe('parseTagRule', () => {
  it('reads force, enabled and the raw text of a YAML rule', () => {
    const text = 'force: true\nenabled: false\ntags:\n  - name: t\n    addresses: ["10.0.0.9:20880"]';
    const rule = parseTagRule(text);
    expect(rule.force).toBe(true);
    expect(rule.enabled).toBe(false);
    expect(rule.rawRule).toBe(text);
    const defaults = parseTagRule('tags:\n  - name: t');
    expect(defaults.force).toBe(false);
    expect(defaults.enabled).toBe(true);
  });

  it('takes a parsed object, keeping its JSON as the raw rule', () => {
    const object = { configVersion: 'v3.0', tags: [{ name: 't', addresses: ['10.0.0.9:20880', 20881], match: [{ key: 'k', value: { exact: 1 } }] }] };
    const rule = parseTagRule(object);
    expect(rule.rawRule).toBe(JSON.stringify(object));
    expect(rule.tags).toEqual([{ name: 't', addresses: ['10.0.0.9:20880', '20881'], match: [{ key: 'k', value: { exact: '1' } }] }]);
  });

  it('reads every StringMatch field as text and leaves out the null ones', () => {
    const rule = parseTagRule(`configVersion: v3.0
tags:
  - name: t
    match:
      - key: k
        value: { exact: 1, prefix: p, regex: "r.*", wildcard: "*", empty: e, noempty: ne }
      - key: j
        value: { exact: ~, prefix: q }
      - key: i
        value: ~`);
    expect(rule.tags[0]!.match).toEqual([
      { key: 'k', value: { exact: '1', prefix: 'p', regex: 'r.*', wildcard: '*', empty: 'e', noempty: 'ne' } },
      { key: 'j', value: { prefix: 'q' } },
      { key: 'i', value: undefined },
    ]);
  });

  it('treats null addresses and a null match as absent', () => {
    const rule = parseTagRule('configVersion: v3.0\ntags:\n  - name: t\n    addresses: ~\n    match: ~');
    expect(rule.tags).toEqual([{ name: 't' }]);
  });

  it.each([
    ['- a\n- b', /^tag rule: expected a YAML map \(force, enabled, key, tags, \.\.\.\), found \["a","b"\]$/],
    ['42', /^tag rule: expected a YAML map .*, found 42$/],
    ['~', /^tag rule: expected a YAML map .*, found null$/],
    ['priority: high\ntags:\n  - name: a', /^tag rule: priority: expected an integer, found "high"$/],
    ['tags:\n  - ~', /^tag rule: tags\[0\]: expected a map with name and addresses or match, found null$/],
    ['configVersion: v3.0\ntags:\n  - name: a\n    match:\n      - ~', /^tag rule: tags\[0\]\.match\[0\]: expected \{key, value: .*, found null$/],
    ['force: true', /^tag rule: tags: expected a non-empty list of \{name, addresses \| match\}, found nothing$/],
    ['tags: []', /^tag rule: tags: expected a non-empty list .*, found \[\]$/],
    ['tags: gray', /^tag rule: tags: expected a non-empty list .*, found "gray"$/],
    ['tags:\n  - name: a\n  - gray', /^tag rule: tags\[1\]: expected a map with name and addresses or match, found "gray"$/],
    ['tags:\n  - name: a\n  - [x]', /^tag rule: tags\[1\]: expected a map .*, found \["x"\]$/],
    ['tags:\n  - name: 7', /^tag rule: tags\[0\]\.name: expected a tag name, found 7$/],
    ['tags:\n  - name: ""', /^tag rule: tags\[0\]\.name: expected a tag name, found ""$/],
    ['tags:\n  - addresses: []', /^tag rule: tags\[0\]\.name: expected a tag name, found undefined$/],
    ['tags:\n  - name: a\n    addresses: "10.0.0.1"', /^tag rule: tags\[0\]\.addresses: expected a list of "ip:port" patterns, found "10\.0\.0\.1"$/],
    ['configVersion: v3.0\ntags:\n  - name: a\n    match: {key: k}', /^tag rule: tags\[0\]\.match: expected a list of \{key, value\}, found \{"key":"k"\}$/],
    [
      'configVersion: v3.0\ntags:\n  - name: a\n    match:\n      - key: k\n      - value: {exact: x}',
      /^tag rule: tags\[0\]\.match\[1\]: expected \{key, value: \{exact\|prefix\|regex\|wildcard\|empty\|noempty\}\}, found \{"value":\{"exact":"x"\}\}$/,
    ],
    ['configVersion: v3.0\ntags:\n  - name: a\n    match:\n      - gray', /^tag rule: tags\[0\]\.match\[0\]: expected \{key, value: .*, found "gray"$/],
    [
      'configVersion: v3.0\ntags:\n  - name: a\n    match:\n      - key: k\n        value: gray',
      /^tag rule: tags\[0\]\.match\[0\]\.value: expected a StringMatch map \(exact, prefix, regex, wildcard, empty, noempty\), found "gray"$/,
    ],
    [
      'configVersion: v3.0\ntags:\n  - name: a\n    match:\n      - key: k\n        value: [x]',
      /^tag rule: tags\[0\]\.match\[0\]\.value: expected a StringMatch map .*, found \["x"\]$/,
    ],
    [
      'configVersion: v3.0\ntags:\n  - name: a\n  - name: b\n    match:\n      - key: k\n        value: { regex: "(" }',
      /^tag rule: tags\[1\]\.match\[0\]\.value\.regex \(tag "b"\): "\(" /,
    ],
  ])('reports %j', (text, message) => {
    let error: unknown;
    try {
      parseTagRule(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RouterRuleError);
    expect((error as Error).message).toMatch(message);
  });

  it('does not read a match list outside v3.0, so a malformed one there is no error', () => {
    expect(parseTagRule('tags:\n  - name: a\n    match: gray').tags).toEqual([{ name: 'a' }]);
    expect(parseTagRule('configVersion: v2.7\ntags:\n  - name: a\n    match: gray').tags).toEqual([{ name: 'a' }]);
    expect(parseTagRule('configVersion: v2.7\ntags:\n  - name: a\n    match:\n      - key: k\n        value: { exact: x }').tags).toEqual([{ name: 'a' }]);
  });
});
