/**
 * System protection (`SystemRule`), checked for inbound entries only against the node of all
 * inbound traffic (Sentinel's `Constants.ENTRY_NODE`): total pass QPS, concurrent threads, average
 * RT, and load/CPU, each rule field combined as the minimum over the rules. Follows sentinel-core
 * `slots/system/SystemRuleManager.java` (`loadSystemConf`, `checkSystem`, `checkBbr`).
 */
// DIVERGENCE: a simulated provider has no OS. `highestCpuUsage` is compared with the utilisation of the
// provider's thread pool (busy threads / threads, 0..1), and `highestSystemLoad` with the busy thread
// count (a load average counts runnable threads); both come in as `usage` from the caller.
import type { StatisticNode } from './statistic-node.js';
import type { SystemRule } from './rules.js';

/** What the caller measures for the load and CPU checks. */
export interface SystemUsage {
  /** Stands for the 1-minute load average: busy threads of the process. */
  load: number;
  /** Stands for CPU usage: busy threads / pool size. */
  cpu: number;
}

/** The thresholds of all system rules combined (`SystemRuleManager`'s statics, per JVM). */
export class SystemRuleManager {
  highestSystemLoad = Number.MAX_VALUE;
  highestCpuUsage = Number.MAX_VALUE;
  qps = Number.MAX_VALUE;
  maxRt = Number.MAX_VALUE;
  maxThread = Number.MAX_VALUE;
  #loadSet = false;
  #cpuSet = false;
  checkSystemStatus = false;

  constructor(rules: readonly SystemRule[]) {
    for (const r of rules) this.#loadSystemConf(r);
  }

  #loadSystemConf(rule: SystemRule): void {
    let check = this.checkSystemStatus;
    if (rule.highestSystemLoad >= 0) {
      this.highestSystemLoad = Math.min(this.highestSystemLoad, rule.highestSystemLoad);
      this.#loadSet = check = true;
    }
    // Java ignores (with a warning) a highestCpuUsage above 1.
    if (rule.highestCpuUsage >= 0 && rule.highestCpuUsage <= 1) {
      this.highestCpuUsage = Math.min(this.highestCpuUsage, rule.highestCpuUsage);
      this.#cpuSet = check = true;
    }
    if (rule.avgRt >= 0) {
      this.maxRt = Math.min(this.maxRt, rule.avgRt);
      check = true;
    }
    if (rule.maxThread >= 0) {
      this.maxThread = Math.min(this.maxThread, rule.maxThread);
      check = true;
    }
    if (rule.qps >= 0) {
      this.qps = Math.min(this.qps, rule.qps);
      check = true;
    }
    this.checkSystemStatus = check;
  }

  /** `checkSystem` for an inbound entry: the limit type that blocks (`qps`, `thread`, `rt`, `load`, `cpu`), or null. */
  checkSystem(entryNode: StatisticNode, count: number, nowMs: number, usage: SystemUsage): string | null {
    if (!this.checkSystemStatus) return null;
    if (entryNode.passQps(nowMs) + count > this.qps) return 'qps';
    const currentThread = entryNode.curThreadNum();
    if (currentThread > this.maxThread) return 'thread';
    if (entryNode.avgRt(nowMs) > this.maxRt) return 'rt';
    if (this.#loadSet && usage.load > this.highestSystemLoad) {
      // checkBbr: block only while the threads exceed what the best throughput at the best RT needs.
      if (currentThread > 1 && currentThread > (entryNode.maxSuccessQps(nowMs) * entryNode.minRt(nowMs)) / 1000) return 'load';
    }
    if (this.#cpuSet && usage.cpu > this.highestCpuUsage) return 'cpu';
    return null;
  }
}
