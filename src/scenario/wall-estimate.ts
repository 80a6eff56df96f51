/**
 * The wall-time estimate of `--dry-run`: how long a command would take, from the cost estimate
 * alone (`estimate.ts`: attempts, the providers each looks at and those to refusing providers,
 * registry heartbeats and push deliveries, consumer references, provider instances, and the invokers
 * the attempts spread over), with constants calibrated on the shipped scenarios and the benchmark
 * deployments (`bench/wall-calibration.js`; the table is in docs/cli.md, "Cost estimate and
 * limits"). Deterministic: constants only, nothing is timed here. It owns the model and its
 * calibration, not the machine it runs on: the figures are for the calibration machine's cores
 * (Node 20, 2 cores), and a faster or busier machine moves them.
 */
import type { CostEstimate } from './estimate.js';

/**
 * The calibrated constants of the wall-time model (seconds), fitted by least squares on the
 * relative error to the CPU time of `zonesim run --jobs 1` (bench/wall-calibration.js: 41 cases,
 * every shipped scenario, the benchmark deployments, scaled and crashed variants, 0.5 to 150 s).
 * Refitted 2026-12-07 (one run each) with the heartbeat, further-record and cold-state constants held
 * at their values (measured, or fitted before): start, attempts, refused attempts, push deliveries,
 * references and providers.
 */
export const WALL_MODEL = {
  /** A command's start and end: the CLI and its supervised child process, loading the bundle, writing results. */
  startS: 0.74,
  /** One attempt sent: its messages, execution, timers and metrics (retried and timed-out calls cost more than this). */
  perAttemptS: 2.2e-6,
  /**
   * Wide estates. Where attempts spread over many invokers and many provider lists, each invoker and each
   * list is used a few times per run, so what an attempt touches (its list, weight table and router state,
   * the invoker, the provider and its pool) is cold in the CPU's caches. Each attempt then costs more, per
   * e-fold of invokers above `coldFromInvokers` and per e-fold of lists above `coldFromLists`. Not fitted
   * by the calibration (no calibration case reaches either threshold but bench/many-providers' invokers):
   * measured 2026-12-07 as the run's time beyond the rest of the model (then 1.6 µs an attempt), the build
   * apart, and held in the refit of that day. One list of
   * 100,000 invokers (bench/many-providers at 2,000 and 40,000 requests/s, 21 s): 3.4 µs more per attempt,
   * which sets the invokers' rate. The seed scale (10^5 providers, 20,000 requests/s, 60 s without faults)
   * with 1/10, 1/3 and all of its consumer applications (40,000 / 126,400 / 400,000 invokers in 200 / 632 /
   * 2,000 lists): 5.1, 10.2 and 17.8 µs more (the model: 5.0, 11.9, 18.8), and 20.5 µs as written (300 s).
   */
  perAttemptColdInvokersS: 2.1e-6,
  coldFromInvokers: 20_000,
  perAttemptColdListsS: 3.9e-6,
  coldFromLists: 80,
  /**
   * Each attempt to a service whose providers refuse connections (`crash` mode): the consumer
   * instances that set them aside route lists of their own (12 µs before the 2026-12-07 refit, when
   * bench/zone-crash-mixed took 3× the time it takes now).
   */
  perRefusedServiceAttemptS: 2.9e-6,
  /** One provider heartbeat or ZooKeeper ping (one tick of a process's liveness loop at one level). Held in the 2026-12-07 refit. */
  perHeartbeatS: 3.7e-6,
  /**
   * Each further record a tick hears (a process's other exports). Not fitted by the calibration: measured
   * on 20,000 ZooKeeper providers with registry servers for 300 s, eight exports against one (7.3 s
   * against 4.1 s CPU, 4.2 M more records heard), 2026-12-06.
   */
  perHeartbeatRecordS: 7.6e-7,
  /** One registry push delivered to one consumer instance (routing the new list included). */
  perPushDeliveryS: 1.3e-5,
  /** Building one consumer reference (directory, router chain, cluster, subscription). */
  perReferenceS: 4.9e-5,
  /** Building and registering one provider instance. */
  perProviderS: 3.2e-5,
  /**
   * Each export of a provider process beyond its first: its URL, record and registration. Not fitted by the
   * calibration (no calibration case has more than a few exports a process): measured 2026-12-08 on 10^5 ZooKeeper
   * providers of 400-provider applications, 11 simulated s without faults, forty exports against eight: 38.4 s
   * against 26.6 s CPU, 3.2·10^6 more exports, of which the further records heard account for 3 s.
   */
  perExtraExportS: 2.75e-6,
  /**
   * The range printed around the estimate: the calibration runs took 0.7 to 1.4 times the estimate
   * (0.72 to 1.45 in the 2026-12-07 refit; timed-out attempts cost more than the mean one and make runs
   * slower; small runs are mostly start-up), and an idle machine's wall time is about 0.8 times the CPU time.
   */
  low: 0.5,
  high: 1.5,
} as const;

/** Seconds one simulation takes on one core of the calibration machine (the command's start not included). */
export function simulationSeconds(e: CostEstimate): number {
  const m = WALL_MODEL;
  return (
    e.attempts * (m.perAttemptS + coldAttemptSeconds(e.invokers, e.lists)) +
    e.refusedServiceAttempts * m.perRefusedServiceAttemptS +
    e.heartbeats * m.perHeartbeatS +
    e.heartbeatRecords * m.perHeartbeatRecordS +
    e.pushDeliveries * m.perPushDeliveryS +
    e.references * m.perReferenceS +
    (e.providersAtStart + e.providersAddedByFaults) * m.perProviderS +
    e.extraExports * m.perExtraExportS
  );
}

/** What an attempt costs beyond `perAttemptS` when attempts spread over `invokers` in `lists` (see `perAttemptColdInvokersS`). */
export function coldAttemptSeconds(invokers: number, lists: number): number {
  const m = WALL_MODEL;
  const efolds = (n: number, from: number) => (n > from ? Math.log(n / from) : 0);
  return m.perAttemptColdInvokersS * efolds(invokers, m.coldFromInvokers) + m.perAttemptColdListsS * efolds(lists, m.coldFromLists);
}

/** A command's wall time in seconds: the estimate and the range around it. */
export interface WallEstimate {
  seconds: number;
  low: number;
  high: number;
}

/**
 * The wall time of a command that runs `count` simulations of each estimate on `threads` threads: its start,
 * then the simulations as the threads take them, in order, each the next one when it is free (parallel.ts):
 * the last thread's end. Three equal simulations on two threads take two of them, not one and a half.
 */
export function commandWallSeconds(planned: ReadonlyArray<{ estimate: CostEstimate; count: number }>, threads: number): WallEstimate {
  const ends = new Array<number>(Math.max(1, threads)).fill(0);
  for (const p of planned) {
    const each = simulationSeconds(p.estimate);
    for (let k = 0; k < p.count; k++) {
      let free = 0;
      for (let t = 1; t < ends.length; t++) if (ends[t]! < ends[free]!) free = t;
      ends[free]! += each;
    }
  }
  const seconds = WALL_MODEL.startS + Math.max(...ends);
  return { seconds, low: seconds * WALL_MODEL.low, high: seconds * WALL_MODEL.high };
}
