/**
 * The tag router of a Dubbo 2.7 consumer (`release` DUBBO_2_7) against 3.3's on the same input,
 * 2.7.23 `router/tag/TagRouter.java`: the request tag looked up exactly (no `a|b` levels, :103),
 * a tag without addresses is no dynamic tag (TagRouterRule.init :46-55 leaves it out), an untagged
 * request keeps a provider whose static tag the rule does not name (:140-143), and `dubbo.force.tag`
 * comes from an attachment only: RpcInvocation.getAttachment(key, default) (:387-401) answers the
 * default for an empty attachment and null for an absent one.
 */
import { describe, expect, it } from 'vitest';
import { TagStateRouter } from '../../../../src/dubbo/router/tag/tag-state-router.js';
import { DUBBO_2_7, DUBBO_3_3, type DubboRelease } from '../../../../src/dubbo/release.js';
import { RpcInvocation } from '../../../../src/dubbo/rpc.js';
import { URL } from '../../../../src/dubbo/url.js';
import { indicesIn, invokersOf } from '../fixtures.js';

const CONSUMER = URL.valueOf('consumer://10.20.1.5/com.example.UserService?application=web');
// 0: static gray, 1: untagged, 2: untagged, 3: static canary
const PROVIDERS = [
  'dubbo://10.0.0.1:20880/com.example.UserService?dubbo.tag=gray',
  'dubbo://10.0.0.2:20880/com.example.UserService',
  'dubbo://10.0.0.3:20880/com.example.UserService',
  'dubbo://10.0.0.4:20880/com.example.UserService?dubbo.tag=canary',
];

function routeIdx(release: DubboRelease, rule: string | null, attachments: Record<string, string> = {}, consumer = CONSUMER): number[] {
  const invokers = invokersOf(PROVIDERS);
  const router = new TagStateRouter(rule, { release });
  router.notify(invokers);
  return indicesIn(invokers, router.route(invokers, consumer, new RpcInvocation({ methodName: 'getUser', attachments })).invokers);
}

describe('dubbo.force.tag under 2.7.23 (RpcInvocation.getAttachment returns null for an absent attachment)', () => {
  const forcing = URL.valueOf('consumer://10.20.1.5/com.example.UserService?application=web&dubbo.tag=blue&dubbo.force.tag=true');

  it("ignores the consumer URL's dubbo.force.tag=true when the call has no such attachment: no tagged provider, so the untagged ones", () => {
    expect(routeIdx(DUBBO_3_3, null, {}, forcing)).toEqual([]);
    expect(routeIdx(DUBBO_2_7, null, {}, forcing)).toEqual([1, 2]);
  });

  it("reads the consumer URL's value beside an empty attachment, and an attachment's own value", () => {
    expect(routeIdx(DUBBO_2_7, null, { 'dubbo.force.tag': '' }, forcing)).toEqual([]);
    expect(routeIdx(DUBBO_2_7, null, { 'dubbo.tag': 'blue', 'dubbo.force.tag': 'true' })).toEqual([]);
  });
});

describe('dynamic rules under 2.7.23', () => {
  const rule = (tags: string) => `force: false\ntags:\n${tags}`;

  it('keeps, for an untagged request, a provider whose static tag the rule does not name (3.3 keeps only untagged ones)', () => {
    const r = rule('  - name: gray\n    addresses: ["10.0.0.2:20880"]\n');
    // 10.0.0.2 is in the rule: out. 3.3 drops the static gray and canary; 2.7 keeps canary (not named), drops gray.
    expect(routeIdx(DUBBO_3_3, r)).toEqual([2]);
    expect(routeIdx(DUBBO_2_7, r)).toEqual([2, 3]);
  });

  it('looks a tag up exactly: gray|team1 does not fall back to gray in 2.7', () => {
    const r = rule('  - name: gray\n    addresses: ["10.0.0.3:20880"]\n');
    expect(routeIdx(DUBBO_3_3, r, { 'dubbo.tag': 'gray|team1' })).toEqual([2]);
    // No dynamic gray|team1 and no static one: the untagged providers outside the rule's addresses.
    expect(routeIdx(DUBBO_2_7, r, { 'dubbo.tag': 'gray|team1' })).toEqual([1]);
  });

  it('routes a tag of the rule to its addresses, as 3.3 does', () => {
    const r = rule('  - name: blue\n    addresses: ["10.0.0.2:20880"]\n');
    expect(routeIdx(DUBBO_2_7, r, { 'dubbo.tag': 'blue' })).toEqual([1]);
    expect(routeIdx(DUBBO_3_3, r, { 'dubbo.tag': 'blue' })).toEqual([1]);
  });

  it('reads a tag without addresses as no dynamic tag, so the static tag decides', () => {
    const r = rule('  - name: gray\n    addresses: []\n  - name: blue\n    addresses: ["10.0.0.2:20880"]\n');
    expect(routeIdx(DUBBO_2_7, r, { 'dubbo.tag': 'gray' })).toEqual([0]);
  });
});
