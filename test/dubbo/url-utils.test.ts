import { describe, expect, it } from 'vitest';
import { isMatch } from '../../src/dubbo/url-utils.js';
import { URL } from '../../src/dubbo/url.js';

const consumer = (q: string) => URL.valueOf(`consumer://10.0.0.1/com.foo.Bar?${q}`);
const provider = (q: string) => URL.valueOf(`dubbo://10.0.0.2:20880/com.foo.Bar?${q}`);

describe('UrlUtils.isMatch (which providers a subscription accepts)', () => {
  it.each([
    ['no group on either side', '', '', true],
    ['the same group', 'group=a', 'group=a', true],
    ['another group', 'group=a', 'group=b', false],
    ['a grouped provider for an ungrouped consumer', '', 'group=a', false],
    ['any group (*)', 'group=*', 'group=b', true],
    ['a group in a comma list', 'group=a,b', 'group=b', true],
    ['a group outside a comma list', 'group=a,b', 'group=c', false],
    ['the same version', 'version=1.0', 'version=1.0', true],
    ['another version', 'version=1.0', 'version=2.0', false],
    ['any version (*)', 'version=*', 'version=2.0', true],
    ['a disabled provider', '', 'enabled=false', false],
  ])('%s: %s', (_label, c, p, expected) => {
    expect(isMatch(consumer(c), provider(p))).toBe(expected);
  });
});
