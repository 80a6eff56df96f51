/**
 * The provider thread pools zonesim models, by Dubbo's ThreadPool SPI name, with the defaults each
 * gives `threads` and what each makes of `queues`: FixedThreadPool (`fixed`, Dubbo's default) and
 * EagerThreadPool (`eager`). The pool itself is the world's (world/provider.ts).
 */

/** Dubbo `threadpool` values zonesim models. */
export type ThreadPoolName = 'fixed' | 'eager';

/** FixedThreadPool's `threads` when unset (CommonConstants.DEFAULT_THREADS, FixedThreadPool.java:50). */
export const DEFAULT_FIXED_THREADS = 200;

/** EagerThreadPool's `threads` when unset: Integer.MAX_VALUE (3.3 EagerThreadPool.java:49, 2.7.23 EagerThreadPool.java:51). */
export const DEFAULT_EAGER_THREADS = 2_147_483_647;

/** The pool size (fixed) or maximum (eager) when `threads` is not written. */
export function defaultThreads(pool: ThreadPoolName | undefined): number {
  return pool === 'eager' ? DEFAULT_EAGER_THREADS : DEFAULT_FIXED_THREADS;
}

/**
 * The queue a pool puts behind its threads, as `Resource`'s queue limit (0 none, < 0 unbounded):
 * fixed takes `queues` as is (SynchronousQueue for 0, unbounded below 0); eager always has a
 * bounded TaskQueue, of 1 when `queues` <= 0 (3.3 EagerThreadPool.java:54, 2.7.23 EagerThreadPool.java:56).
 */
export function queueLimit(pool: ThreadPoolName | undefined, queues: number): number {
  return pool === 'eager' ? (queues > 0 ? queues : 1) : queues;
}
