/**
 * The `dubbo:` setting (SPEC 2.11) at top level, per consumer group, per provider group and in a
 * strategy: a release (`'3.3'`, `'2.7'`; `2.7.23` and `3.3.1` name the same profiles; YAML's
 * unquoted `2.7` is a number and is accepted) or a map with `version` and any of the profile's
 * named switches. Parsing yields the settings in model units (`DubboProfileSettings`);
 * scenario/dubbo-profiles.ts resolves them into each group's profile.
 */
import { z } from 'zod';
import type { DubboProfileSettings, DubboVersionName } from '../model/dubbo-profile.js';
import { durationSchema } from './units.js';

const EXPECTED_VERSION = "expected a Dubbo release: '3.3' or '2.7' (zonesim models Dubbo 3.3 and 2.7.23)";

/** A release name: `3.3`, `3.3.N`, `2.7`, `2.7.N` (string or number). */
const versionSchema = z
  .union([z.string(), z.number()], { error: EXPECTED_VERSION })
  .transform((v, ctx): DubboVersionName => {
    const text = typeof v === 'number' ? String(v) : v.trim();
    const m = /^(2\.7|3\.3)(\.\d+)?$/.exec(text);
    if (m === null) {
      ctx.addIssue({ code: 'custom', message: `${EXPECTED_VERSION}, found "${text}"` });
      return z.NEVER;
    }
    return m[1] as DubboVersionName;
  });

const en = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `expected ${values.join(' or ')}` });

/** The named switches, each with what it selects (file key names; durations in any unit). */
const settingsSchema = z.strictObject(
  {
    version: versionSchema.optional().describe("'3.3' (default) or '2.7'."),
    delayNotification: durationSchema
      .optional()
      .describe('Registry `delay-notification` (3.x RegistryNotifier throttling; 3.3: 5s, 2.7: 0 = none).'),
    nacosClient: en(['1.x', '2.x'] as const).optional().describe('Nacos client: 1.x heartbeats (2.7) or 2.x connection-bound gRPC (3.3).'),
    registerMode: en(['interface', 'instance', 'all'] as const)
      .optional()
      .describe('Provider `register-mode`: interface, instance (application level) or all (3.3 default).'),
    migrationStep: en(['FORCE_INTERFACE', 'APPLICATION_FIRST', 'FORCE_APPLICATION'] as const)
      .optional()
      .describe("Consumer MigrationInvoker step (3.3 default APPLICATION_FIRST; 2.7 is interface level)."),
    conditionMissingKey: en(['fail', 'pass'] as const)
      .optional()
      .describe('Condition rule on a key the URL lacks: fail (3.3) or pass when the condition has only mismatch values (2.7).'),
    reselect: en(['sample', 'all'] as const).optional().describe('Cluster reselect: sample 10 indexes (3.3) or scan all (2.7).'),
    shortestResponseWindow: z
      .union([z.literal('lifetime'), durationSchema], { error: "expected a duration or 'lifetime'" })
      .optional()
      .describe('shortestresponse reset period (3.3: 30s) or lifetime (2.7).'),
    rpcExceptionFilter: z.boolean({ error: 'expected true or false' }).optional().describe('RpcExceptionFilter (3.3: on; 2.7: absent).'),
    retryTimeout: en(['first', 'each'] as const)
      .optional()
      .describe("A failover retry's timeout: the first attempt's (3.3, via the timeout attachment) or each attempt's own (2.7)."),
    timeoutDetection: en(['exact', 'timer'] as const)
      .optional()
      .describe('Sync timeouts: exact (3.3) or the 30 ms HashedWheelTimer scan (2.7).'),
    tpsLimit: en(['returned', 'thrown'] as const).optional().describe('TpsLimitFilter refusal: returned (3.3, not retried) or thrown (2.7, retried).'),
    consistentHash: en(['ring', 'bounded'] as const)
      .optional()
      .describe("consistenthash: the ring's node (3.3) or bounded loads, a node past 1.5x the average passing the key on (2.7.15+)."),
  },
  { error: (iss) => (iss.code === 'invalid_type' ? `${EXPECTED_VERSION}, or a map { version, <switch>: ... }` : undefined) },
);

/** `dubbo:`: a release or a map of settings; yields the settings in model units. */
export const dubboSchema = z
  .union([versionSchema.transform((version) => ({ version })), settingsSchema], {
    error: `${EXPECTED_VERSION}, or a map { version, <switch>: ... }`,
  })
  .transform((raw): DubboProfileSettings => {
    const out: DubboProfileSettings = {};
    const r = raw as z.output<typeof settingsSchema>;
    if (r.version !== undefined) out.version = r.version;
    if (r.delayNotification !== undefined) out.delayNotificationMs = r.delayNotification;
    if (r.nacosClient !== undefined) out.nacosClient = r.nacosClient;
    if (r.registerMode !== undefined) out.registerMode = r.registerMode;
    if (r.migrationStep !== undefined) out.migrationStep = r.migrationStep;
    if (r.conditionMissingKey !== undefined) out.conditionMissingKey = r.conditionMissingKey;
    if (r.reselect !== undefined) out.reselect = r.reselect;
    if (r.shortestResponseWindow !== undefined) {
      out.shortestResponseWindowMs = r.shortestResponseWindow === 'lifetime' ? Infinity : r.shortestResponseWindow;
    }
    if (r.rpcExceptionFilter !== undefined) out.rpcExceptionFilter = r.rpcExceptionFilter;
    if (r.retryTimeout !== undefined) out.retryTimeout = r.retryTimeout;
    if (r.timeoutDetection !== undefined) out.timeoutDetection = r.timeoutDetection;
    if (r.tpsLimit !== undefined) out.tpsLimit = r.tpsLimit;
    if (r.consistentHash !== undefined) out.consistentHash = r.consistentHash;
    return out;
  })
  .meta({
    id: 'Dubbo',
    description:
      "Dubbo release profile (SPEC 2.11): '3.3' (default) or '2.7', or { version, <switch>: ... } with any of the profile's named switches.",
  });

/** Settings back in the file's key names (scenario dumps; loads back to the same settings). */
export function dubboSettingsToRaw(s: DubboProfileSettings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.version !== undefined) out.version = s.version;
  if (s.delayNotificationMs !== undefined) out.delayNotification = s.delayNotificationMs;
  if (s.nacosClient !== undefined) out.nacosClient = s.nacosClient;
  if (s.registerMode !== undefined) out.registerMode = s.registerMode;
  if (s.migrationStep !== undefined) out.migrationStep = s.migrationStep;
  if (s.conditionMissingKey !== undefined) out.conditionMissingKey = s.conditionMissingKey;
  if (s.reselect !== undefined) out.reselect = s.reselect;
  if (s.shortestResponseWindowMs !== undefined) {
    out.shortestResponseWindow = s.shortestResponseWindowMs === Infinity ? 'lifetime' : s.shortestResponseWindowMs;
  }
  if (s.rpcExceptionFilter !== undefined) out.rpcExceptionFilter = s.rpcExceptionFilter;
  if (s.retryTimeout !== undefined) out.retryTimeout = s.retryTimeout;
  if (s.timeoutDetection !== undefined) out.timeoutDetection = s.timeoutDetection;
  if (s.tpsLimit !== undefined) out.tpsLimit = s.tpsLimit;
  if (s.consistentHash !== undefined) out.consistentHash = s.consistentHash;
  return out;
}
