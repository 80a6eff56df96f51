import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadScenarioWithRaw } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

const file = fileURLToPath(new URL('../../scenarios/canary-tag.yaml', import.meta.url));
const run = (sets: string[]) =>
  runScenario(loadScenarioWithRaw(file, ['duration=5s', 'warmup=1s', ...sets]).scenario, { version: 'test' }).summary;

describe('group and version of a reference', () => {
  it('sees no provider when the consumer asks for a group no provider registered: forbidden (empty://)', () => {
    const s = run(['consumers[0].reference={"com.example.PriceService": {parameters: {group: blue}}}']);
    expect(s.outcomes.forbidden).toBe(s.requests);
    expect(s.noProviderCauses).toEqual({ 'registry:forbidden': s.requests });
  });

  it('calls only the providers of its group', () => {
    const s = run([
      'consumers[0].reference={"com.example.PriceService": {parameters: {group: blue}}}',
      'providers[1].params={group: blue}',
    ]);
    expect(s.ok).toBe(s.requests);
    expect(s.byProviderGroup['price-stable']!.executions).toBe(0);
  });
});
