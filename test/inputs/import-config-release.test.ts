/**
 * `zonesim import config` reads the Dubbo release where the file names it (`dubbo.version` /
 * `dubbo.release`, as users keep the Maven property beside their settings) and writes the groups'
 * `dubbo:` profile (SPEC 2.11): 2.x is the 2.7 profile, 3.x the 3.3 one.
 */
import { describe, expect, it } from 'vitest';
import { importConfig } from '../../src/inputs/import-config.js';

describe('import config: the Dubbo release', () => {
  it("gives both groups dubbo: '2.7' for dubbo.version=2.7.23", () => {
    const r = importConfig('dubbo.version=2.7.23\ndubbo.application.name=web\ndubbo.consumer.timeout=800\ndubbo.provider.threads=100\n', 'dubbo.properties');
    expect(r.consumers?.[0]).toMatchObject({ application: 'web', dubbo: '2.7' });
    expect(r.providers?.[0]).toMatchObject({ application: 'web', dubbo: '2.7' });
    expect(r.ignored).toEqual([]);
  });

  it("reads dubbo.release in Spring Boot YAML as the 3.3 profile for 3.x", () => {
    const r = importConfig('dubbo:\n  release: 3.2.9\n  consumer:\n    timeout: 800\n', 'application.yml');
    expect(r.consumers?.[0]).toMatchObject({ dubbo: '3.3' });
  });

  it('writes no profile when the file names none, and lists a value that is no release as ignored', () => {
    expect(importConfig('dubbo.consumer.timeout=800\n', 'dubbo.properties').consumers?.[0]).not.toHaveProperty('dubbo');
    const r = importConfig('dubbo.version=latest\ndubbo.consumer.timeout=800\n', 'dubbo.properties');
    expect(r.consumers?.[0]).not.toHaveProperty('dubbo');
    expect(r.ignored).toEqual([{ line: 1, key: 'dubbo.version', value: 'latest', reason: 'expected a Dubbo release such as 2.7.23 or 3.3.2, found "latest"' }]);
  });
});
