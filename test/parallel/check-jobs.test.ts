// `check --jobs`: the worlds it checks (the scenario as written, each strategy that changes something) run on
// several threads, each taking the next when free; the report is the same for any --jobs.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkJob, checkWithStrategies, planCheck } from '../../src/analysis/check.js';
import { claimCheckJobs, runCheckJobs } from '../../src/parallel/check-jobs.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { cli } from '../helpers/plugin-fixtures.js';

const load = (name: string) => loadScenarioFile(fileURLToPath(new URL(`../../scenarios/${name}`, import.meta.url)));

describe('check on several threads', () => {
  it('plans one job per world: a strategy that changes nothing shares the scenario as written', () => {
    // zone-router-fallback's `fallback` strategy is the scenario as written; `strict` changes the zone router.
    const plan = planCheck(load('zone-router-fallback.yaml'), ['fallback', 'strict']);
    expect(plan.jobs.map((j) => j.ruleKeys)).toEqual([true, false]);
    expect(plan.strategies.map((s) => [s.name, s.job])).toEqual([
      ['fallback', null],
      ['strict', 1],
    ]);
  });

  it('threads sharing a batch take each job once, and the reports are those of one thread', () => {
    const plan = planCheck(load('release-day-push-storm.yaml'), ['interface', 'application']);
    expect(plan.jobs).toHaveLength(2);
    const batch = { jobs: plan.jobs, claims: new SharedArrayBuffer(4) };
    // Two takers in turn: the first takes everything, the second finds nothing left.
    const first = claimCheckJobs(batch);
    expect(first.map(([i]) => i)).toEqual([0, 1]);
    expect(claimCheckJobs(batch)).toEqual([]);
    expect(first.map(([, r]) => r)).toEqual(plan.jobs.map((job) => checkJob(job)));
  });

  it('runs the jobs on a worker and this thread: the same reports as one thread', async () => {
    const plan = planCheck(load('release-day-push-storm.yaml'), ['interface', 'application']);
    const one = await runCheckJobs(plan.jobs, 1);
    const two = await runCheckJobs(plan.jobs, 2);
    expect(two).toEqual(one);
  });

  it('zonesim check --jobs 2 prints what --jobs 1 prints, text and JSON', async () => {
    for (const json of [[], ['--json']]) {
      const one = await cli(['check', 'scenarios/zone-router-fallback.yaml', '--jobs', '1', ...json]);
      const two = await cli(['check', 'scenarios/zone-router-fallback.yaml', '--jobs', '2', ...json]);
      expect(one.code).toBe(0);
      expect(two).toEqual(one);
    }
    const report = checkWithStrategies(load('zone-router-fallback.yaml'), ['fallback', 'strict']);
    const two = await cli(['check', 'scenarios/zone-router-fallback.yaml', '--jobs', '2', '--json']);
    expect(JSON.parse(two.out)).toEqual(JSON.parse(JSON.stringify(report)));
  });

  it('refuses a --jobs that is not a whole number >= 1 (exit 2)', async () => {
    const r = await cli(['check', 'scenarios/zone-router-fallback.yaml', '--jobs', '0']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--jobs: expected a whole number >= 1, found 0');
  });
});
