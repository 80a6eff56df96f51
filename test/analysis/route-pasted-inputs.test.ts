/**
 * `zonesim route` with inputs as users paste them (issue 9 items 8 and 12): provider URLs as
 * ZooKeeper stores them (URL-encoded, Dubbo's ZookeeperRegistry writes `URL.encode(url.toFullString())`)
 * and a whole zkCli `ls` answer in `--providers-file`; and rules whose `key` names another
 * service or application, which Dubbo never applies to this consumer (ServiceStateRouter.java:28-29,
 * AppStateRouter.java:27-28, ProviderAppStateRouter.java:48-84, TagStateRouter.java:285-325).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readProviders } from '../../src/cli/inputs.js';
import { UsageError, type Io } from '../../src/scenario/io.js';
import { decodeProviderUrl, expandProviders } from '../../src/analysis/provider-list.js';
import { evaluateRoute, type RouteOptions } from '../../src/analysis/route.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const A =
  'dubbo://10.0.2.10:20880/com.example.UserService?anyhost=true&application=user-provider&deprecated=false&dubbo=2.0.2' +
  '&dynamic=true&generic=false&interface=com.example.UserService&methods=getUserById,updateUser&pid=4242&release=3.3.2' +
  '&side=provider&timestamp=1717394400000&zone=zoneA';
const A_ENCODED =
  'dubbo%3A%2F%2F10.0.2.10%3A20880%2Fcom.example.UserService%3Fanyhost%3Dtrue%26application%3Duser-provider%26deprecated%3Dfalse' +
  '%26dubbo%3D2.0.2%26dynamic%3Dtrue%26generic%3Dfalse%26interface%3Dcom.example.UserService%26methods%3DgetUserById%2CupdateUser' +
  '%26pid%3D4242%26release%3D3.3.2%26side%3Dprovider%26timestamp%3D1717394400000%26zone%3DzoneA';
const B_ENCODED = A_ENCODED.replace('10.0.2.10', '10.0.2.11').replace('pid%3D4242', 'pid%3D4310').replace('zone%3DzoneA', 'zone%3DzoneB');

// What `zkCli.sh -server 10.0.0.5:2181` prints for an interactive `ls` (ZooKeeper 3.6).
const ZKCLI_SESSION = `Connecting to 10.0.0.5:2181
2024-06-03 14:02:11,415 [myid:] - INFO  [main:Environment@98] - Client environment:zookeeper.version=3.6.3--6401e4ad2087061bc6b9f80dec2d69f2e3c8660a, built on 04/08/2021 16:35 GMT
2024-06-03 14:02:11,512 [myid:] - INFO  [main:ZooKeeper@1006] - Initiating client connection, connectString=10.0.0.5:2181 sessionTimeout=30000
Welcome to ZooKeeper!
JLine support is enabled

WATCHER::

WatchedEvent state:SyncConnected type:None path:null
[zk: 10.0.0.5:2181(CONNECTED) 0] ls /dubbo/com.example.UserService/providers
[${A_ENCODED}, ${B_ENCODED}]
[zk: 10.0.0.5:2181(CONNECTED) 1] `;

const CONSUMER = 'consumer://10.20.1.7/com.example.UserService?application=web';
const io: Io = { cwd: '/', stdout: () => {}, stderr: () => {} };

function route(over: Partial<RouteOptions>) {
  return evaluateRoute({ consumer: CONSUMER, providers: [], force: false, args: [], attachments: {}, json: true, ...over });
}

describe('pasted provider lists', () => {
  it('decodes a URL as ZooKeeper lists it, once', () => {
    expect(decodeProviderUrl(A_ENCODED)).toBe(A);
    expect(decodeProviderUrl(A)).toBe(A);
  });

  it('takes a whole zkCli session from --providers-file: the ls answer, without prompts and log lines', () => {
    const dir = tempDir('zs-zk-');
    writeFileSync(join(dir, 'providers.txt'), ZKCLI_SESSION);
    const lines = readProviders({ ...io, cwd: dir }, [], 'providers.txt');
    expect(expandProviders(lines).map((p) => p.url)).toEqual([A, decodeProviderUrl(B_ENCODED)]);
    const report = route({ providers: lines, condition: '=> zone = zoneB' });
    // Echoed as given: the encoded text.
    expect(report.providers).toEqual([B_ENCODED]);
  });

  it('accepts an ls answer and encoded URLs as --provider values', () => {
    expect(route({ providers: [`[${A_ENCODED}, ${B_ENCODED}]`] }).providers).toEqual([A_ENCODED, B_ENCODED]);
    expect(route({ providers: [A_ENCODED, A.replace('10.0.2.10', '10.0.2.12')], condition: '=> host = 10.0.2.12' }).providers).toHaveLength(1);
  });

  it('reads the decoded parameters (zone, application) for routing', () => {
    const report = route({
      providers: [A_ENCODED, B_ENCODED],
      tagRule: 'key: user-provider\nforce: true\ntags:\n  - name: gray\n    addresses: ["10.0.2.11:20880"]',
      attachments: { 'dubbo.tag': 'gray' },
    });
    expect(report.providers).toEqual([B_ENCODED]);
  });

  it('says an empty ls answer means no provider is registered', () => {
    expect(() => route({ providers: ['[zk: 10.0.0.5:2181(CONNECTED) 2] ls /dubbo/com.example.UserService/providers', '[]'] })).toThrow(UsageError);
    try {
      expandProviders(['[]']);
    } catch (e) {
      expect((e as UsageError).hint).toContain('[] means no provider is registered');
    }
  });

  it('reports a broken escape as bad input', () => {
    expect(() => route({ providers: ['dubbo%3A%2F%2F10.0.2.10%3A20880%2FS%3Fzone%3DzoneA%2'] })).toThrow(/does not decode/);
  });
});

describe('route follows the rule key', () => {
  const PROVIDERS = [
    'dubbo://10.0.2.1:20880/com.example.UserService?application=users&zone=zoneA',
    'dubbo://10.0.2.2:20880/com.example.UserService?application=users&zone=zoneB',
  ];

  it('skips a condition rule keyed by another service and says so', () => {
    const report = route({
      providers: PROVIDERS,
      condition: 'scope: service\nkey: com.example.OrderService\nforce: true\nconditions:\n  - "=> host = 10.9.9.9"',
    });
    expect(report.providers).toEqual(PROVIDERS);
    expect(report.error).toBeNull();
    expect(report.trace.at(-1)).toEqual({
      router: 'condition',
      rule: '=> host = 10.9.9.9',
      matchedWhen: false,
      before: 2,
      after: 2,
      note:
        "ServiceStateRouter: skipped: scope: service, key com.example.OrderService does not name this consumer's service " +
        'com.example.UserService (Dubbo reads its rule at com.example.UserService::.condition-router), nor an application whose rules it reads (web, users)',
    });
  });

  it('applies a rule keyed by the providers\' application', () => {
    const report = route({ providers: PROVIDERS, condition: 'scope: application\nkey: users\nconditions:\n  - "=> zone = zoneB"' });
    expect(report.providers).toEqual([PROVIDERS[1]]);
  });

  it('skips a tag rule keyed by another provider application', () => {
    const report = route({
      providers: PROVIDERS,
      tagRule: 'key: orders\nforce: true\ntags:\n  - name: gray\n    addresses: ["10.9.9.9:20880"]',
      attachments: { 'dubbo.tag': 'gray' },
    });
    expect(report.providers).toEqual(PROVIDERS);
    expect(report.trace[1]!.note).toContain("no dynamic tag rule for the providers' application users");
  });
});
