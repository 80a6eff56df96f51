/**
 * The fragment `zonesim import config` prints: the mapped sections as YAML, with a header saying how
 * to merge them and the ignored properties as trailing comments. What is mapped is map-dubbo-config.ts's.
 */
import { Document } from 'yaml';
import { escapeControl } from '../scenario/clip-text.js';
import type { ImportedConfig } from './map-dubbo-config.js';

type Attrs = Record<string, unknown>;

/** The fragment as YAML, with a header saying how to merge it and the ignored properties as trailing comments. */
export function formatConfigYaml(result: ImportedConfig, source: string): string {
  const body: Attrs = {};
  if (result.registry) body.registry = result.registry;
  if (result.registries) body.registries = result.registries;
  if (result.consumers) body.consumers = result.consumers;
  if (result.providers) body.providers = result.providers;
  const mapped = Object.keys(body).length;
  const doc = new Document(mapped > 0 ? body : {});
  const head = [
    `zonesim import config ${source}: ${mapped === 0 ? 'nothing to map' : Object.keys(body).join(', ')}` +
      (result.ignored.length > 0 ? `; ${result.ignored.length} Dubbo propert${result.ignored.length === 1 ? 'y' : 'ies'} ignored (listed at the end)` : ''),
  ];
  if (result.consumers) head.push('merge consumers[0] into your consumer group (it still needs zone, instances, rate and calls)');
  if (result.providers) head.push('merge providers[0] into your provider group (it still needs zone and count, and service/services if absent)');
  head.push('durations are in ms, as Dubbo writes them');
  for (const w of result.warnings) head.push(`warning: ${w}`);
  for (const n of result.notes) head.push(`note: ${n}`);
  // Comments repeat the file's keys and values: control characters in them are shown, not sent to the terminal.
  doc.commentBefore = head.map((l) => ` ${escapeControl(l)}`).join('\n');
  if (result.ignored.length > 0) {
    doc.comment = ['ignored:', ...result.ignored.map((i) => `  line ${i.line}: ${i.key}=${i.value}: ${i.reason}`)].map((l) => ` ${escapeControl(l)}`).join('\n');
  }
  return doc.toString({ lineWidth: 0 });
}
