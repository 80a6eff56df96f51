/**
 * What plugin code prints goes to stderr: `console.log` and `process.stdout.write` in a plugin
 * (which runs on a worker thread) must not mix into zonesim's stdout, where `--json` promises
 * exactly one JSON document (audit 3, defect 15). Runs the built CLI as users do, in a child
 * process, to see the real stdout and stderr.
 */
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/tmp.js';
import { bin, scenarioYaml, writeFixture } from '../helpers/plugin-fixtures.js';

const tempDir = useTempDirs();

// A balancer that prints on every pick, both ways a debugging plugin might.
const CHATTY_LB = `export function createLoadBalance() {
  return {
    select(invokers) {
      console.log('DEBUG pick', invokers.length);
      process.stdout.write('DEBUG raw\\n');
      return invokers[0] ?? null;
    },
  };
}
`;

describe('a plugin that prints', () => {
  it('run --json: stdout is one JSON document, the plugin output is on stderr', () => {
    const path = writeFixture(tempDir('zs-console-'), scenarioYaml({ reference: 'loadbalance: ./lb.js' }), { 'lb.js': CHATTY_LB });
    const r = bin(['run', path, '--json', '--out', tempDir('zs-console-out-')], tempDir('zs-console-cwd-'));
    expect(r.signal).toBeNull();
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.out) as { requests: number };
    expect(summary.requests).toBeGreaterThan(0);
    // Every pick printed, one pick per request (retries: 0): all of it on stderr.
    const lines = r.err.split('\n');
    expect(lines.filter((l) => l === 'DEBUG pick 2').length).toBe(summary.requests);
    expect(lines.filter((l) => l === 'DEBUG raw').length).toBe(summary.requests);
  });

  it('select: stdout holds only the picks', () => {
    const dir = tempDir('zs-console-');
    writeFixture(dir, scenarioYaml(), { 'lb.js': CHATTY_LB });
    const providers = ['--provider', 'dubbo://10.0.0.1:20880/com.example.S', '--provider', 'dubbo://10.0.0.2:20880/com.example.S'];
    const r = bin(['select', '--loadbalance', './lb.js', ...providers, '--json'], dir);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(0);
    expect(() => JSON.parse(r.out)).not.toThrow();
    expect(r.out).not.toContain('DEBUG');
    expect(r.err).toContain('DEBUG pick 2\n');
  });
});
