/**
 * Forking: calls `forks` providers in parallel (all of them when `forks <= 0 || forks >= size`),
 * returns the first success, and fails only when every fork failed. The caller waits at most the
 * consumer URL's `timeout`; on expiry Dubbo's `poll` gives null, `doInvoke` returns that null as the
 * Result, and the consumer's cluster filter chain fails the call with a NullPointerException (see
 * `FORKING_POLL_TIMEOUT_MESSAGE`), counted as `forking.pollTimeout`. Losing forks are never
 * cancelled: they run to their end and their results are dropped. Follows dubbo-cluster
 * `support/ForkingClusterInvoker.java`.
 */
import type { Proc } from '../../engine/simulation.js';
import { DEFAULT_FORKS, DEFAULT_TIMEOUT, FORKS_KEY, RpcCode, TIMEOUT_KEY } from '../constants.js';
import type { LoadBalance } from '../loadbalance/load-balance.js';
import type { Invoker, Result, RpcInvocation } from '../rpc.js';
import { AbstractClusterInvoker } from './abstract-cluster-invoker.js';
import { describeInvokers } from './describe-invokers.js';

// Marks a poll that timed out in the one-slot "queue" event.
const POLL_TIMEOUT = Symbol('forking.pollTimeout');

/**
 * What the caller gets when the forks' timeout expires. `ForkingClusterInvoker.doInvoke` returns the
 * null that `poll(timeout)` gave (ForkingClusterInvoker.java lines 115 and 126); the innermost
 * `FilterChainBuilder.CopyOfFilterChainNode.invoke` of the consumer's cluster filter chain
 * (ConsumerContextFilter, FutureFilter, RouterSnapshotFilter, ...) checks `asyncResult instanceof
 * AsyncRpcResult` and builds its error text with `asyncResult.getClass()` (FilterChainBuilder.java
 * lines 349-354), which throws; every outer node rethrows it, and MockClusterInvoker only catches
 * RpcException, so the proxy throws it to the caller. The text is the JDK 15+ helpful message (Dubbo
 * is compiled with local variable names); on JDK 8 or 11 the message is null.
 */
export const FORKING_POLL_TIMEOUT_MESSAGE =
  'java.lang.NullPointerException: Cannot invoke "Object.getClass()" because "asyncResult" is null';

// Select rounds per fork before giving up on finding `forks` distinct invokers.
const MAX_SELECT_ROUNDS_PER_FORK = 100;

/** Dubbo's `forking` cluster: parallel attempts, first success wins (for latency-critical reads). */
export class ForkingClusterInvoker extends AbstractClusterInvoker {
  static readonly NAME = 'forking';

  protected *doInvoke(invocation: RpcInvocation, invokers: Invoker[], loadbalance: LoadBalance): Proc<Result> {
    const url = this.getUrl();
    // Interface level, as Dubbo reads them (`getUrl().getParameter(...)`, no method override).
    const forks = Math.trunc(url.getNumber(FORKS_KEY, DEFAULT_FORKS));
    const timeoutMs = url.getNumber(TIMEOUT_KEY, DEFAULT_TIMEOUT);
    const selected = this.#selectForks(forks, invocation, invokers, loadbalance);

    const sim = this.runtime.sim;
    // Dubbo's LinkedBlockingQueue(1): the first offer wins, later offers are dropped.
    const ref = sim.event<Result | typeof POLL_TIMEOUT>();
    let failures = 0;
    for (const invoker of selected) {
      const fork = sim.process(this.invokeWithContext(invoker, invocation));
      fork.addCallback((ev) => {
        if (!ev.ok) throw ev.value; // a bug in an invoker, not an RPC outcome
        const result = ev.value as Result;
        if (ref.triggered) return;
        if (result.kind === 'ok') ref.succeed(result);
        else if (++failures >= selected.length) {
          ref.succeed(
            this.error(
              result.error.code,
              `Failed to forking invoke provider ${describeInvokers(selected)}, but no luck to perform the invocation. ` +
                `Last error is: ${result.error.message}`,
              result.error.cause,
            ),
          );
        }
      });
    }
    const deadline = sim.schedule(timeoutMs, () => {
      if (!ref.triggered) ref.succeed(POLL_TIMEOUT);
    });
    const polled = (yield ref) as Result | typeof POLL_TIMEOUT;
    sim.cancel(deadline);
    if (polled === POLL_TIMEOUT) {
      this.runtime.events.count('forking.pollTimeout');
      // Not an RpcException: code 0 (UNKNOWN) stands for "some other Throwable"; failover and mock do not apply.
      return this.error(RpcCode.UNKNOWN_EXCEPTION, FORKING_POLL_TIMEOUT_MESSAGE, 'forking:pollTimeout');
    }
    return polled;
  }

  #selectForks(forks: number, invocation: RpcInvocation, invokers: Invoker[], loadbalance: LoadBalance): Invoker[] {
    if (forks <= 0 || forks >= invokers.length) return invokers;
    const selected: Invoker[] = [];
    // DIVERGENCE: Dubbo loops until it has `forks` distinct invokers, which never ends when every
    // unselected invoker is unavailable (reselect keeps returning a selected one); zonesim stops
    // after a bounded number of rounds and forks to what it found, counted as `forking.selectCapped`.
    const maxRounds = forks * MAX_SELECT_ROUNDS_PER_FORK;
    for (let round = 0; selected.length < forks; round++) {
      if (round >= maxRounds) {
        this.runtime.events.count('forking.selectCapped');
        break;
      }
      const invoker = this.select(loadbalance, invocation, invokers, selected);
      if (invoker !== null && !selected.includes(invoker)) selected.push(invoker);
    }
    return selected;
  }
}
