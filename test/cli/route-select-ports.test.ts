// Issue 10: a provider or consumer URL whose port is not a number from 0 to 65535 is bad input
// (exit 2) naming where it came from (the option, or the file and line), for `route` and `select`.
// Dubbo's URL.valueOf would throw NumberFormatException; zonesim used to take "10.0.0.1:abc" as the host.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

async function cli(args: string[], cwd = process.cwd()) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s), cwd });
  return { code, out: out.join(''), err: err.join('') };
}

const CONSUMER = 'consumer://10.0.0.9/S';
const GOOD = 'dubbo://10.0.0.1:20880/S';
const expected = (what: string, port: string, url: string) =>
  `zonesim: ${what}: expected a port from 0 to 65535 after the host, found "${port}" in "${url}"\n`;

const commands = {
  route: (providers: string[]) => ['route', '--consumer', CONSUMER, ...providers],
  select: (providers: string[]) => ['select', '--loadbalance', 'roundrobin', '--count', '2', ...providers],
};

describe.each(Object.entries(commands))('%s refuses a bad port', (_name, command) => {
  for (const [url, port] of [
    ['dubbo://10.0.0.1:abc/S', 'abc'],
    ['dubbo://10.0.0.1:70000/S', '70000'],
    ['dubbo://10.0.0.1:-1/S', '-1'],
    ['dubbo://10.0.0.1:/S', ''],
    ['dubbo://10.0.0.1:20880x?side=provider', '20880x'],
  ]) {
    it(`--provider ${url}`, async () => {
      const r = await cli(command(['--provider', GOOD, '--provider', url!]));
      expect(r.err).toBe(expected('--provider', port!, url!));
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
    });
  }

  it('names the file and line of --providers-file (a URL-encoded one, inside a zkCli ls answer)', async () => {
    const dir = tempDir('zs-ports-');
    const encoded = encodeURIComponent('dubbo://10.0.0.2:2O880/S?side=provider');
    writeFileSync(join(dir, 'providers.txt'), `# pasted\n${GOOD}\n[${encodeURIComponent(GOOD)}, ${encoded}]\n`);
    const r = await cli(command(['--providers-file', 'providers.txt']), dir);
    expect(r.err).toBe(expected('providers.txt:3', '2O880', 'dubbo://10.0.0.2:2O880/S?side=provider'));
    expect(r.code).toBe(2);
  });

  it('accepts ports 0 to 65535, no port, and bracketed IPv6 addresses', async () => {
    const r = await cli(command(['--provider', 'dubbo://10.0.0.1:65535/S', '--provider', 'dubbo://10.0.0.2/S', '--provider', 'dubbo://[fe80::1]:20880/S']));
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
  });
});

describe('--consumer', () => {
  it('route --consumer with a bad port exits 2', async () => {
    const r = await cli(['route', '--consumer', 'consumer://10.0.0.9:x1/S', '--provider', GOOD]);
    expect(r.err).toBe(expected('--consumer', 'x1', 'consumer://10.0.0.9:x1/S'));
    expect(r.code).toBe(2);
  });
  it('select --consumer with a bad port exits 2', async () => {
    const r = await cli(['select', '--loadbalance', 'zoneAware', '--consumer', 'consumer://10.0.0.9:99999/S?zone=a', '--provider', GOOD]);
    expect(r.err).toBe(expected('--consumer', '99999', 'consumer://10.0.0.9:99999/S?zone=a'));
    expect(r.code).toBe(2);
  });
});
