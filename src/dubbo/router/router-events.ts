/**
 * Counting router events (what Dubbo only logs, e.g. "The route result is empty and force
 * execute") so that a cached route counts them again: routers count through `countRouterEvent`,
 * and the chain records what was counted while it computed a result and replays it on each cache
 * hit, since Dubbo logs once per call. Not the counters themselves (the runtime's EventSink).
 */
import type { EventSink } from '../runtime.js';
import type { RouterRuntime } from './router-runtime.js';

/** One counted event with the sink it went to. */
export type CountedEvent = readonly [sink: EventSink, name: string, by: number];

// Routing is synchronous, so the capture in progress is a plain variable, saved and restored around nesting.
let capturing: CountedEvent[] | null = null;

/** Counts `name` on the runtime's event sink (if any) and records it for the capture in progress. */
export function countRouterEvent(runtime: RouterRuntime | undefined, name: string, by = 1): void {
  const sink = runtime?.events;
  if (sink === undefined) return;
  sink.count(name, by);
  capturing?.push([sink, name, by]);
}

/** Runs `compute` and returns its value with the events counted meanwhile (null when none). */
export function captureRouterEvents<T>(compute: () => T): { value: T; events: readonly CountedEvent[] | null } {
  const outer = capturing;
  const mine: CountedEvent[] = [];
  capturing = mine;
  let value: T;
  try {
    value = compute();
  } finally {
    capturing = outer;
    if (outer !== null) outer.push(...mine);
  }
  return { value, events: mine.length > 0 ? mine : null };
}

/** Counts recorded events again (a cache hit stands for a full route). */
export function replayRouterEvents(events: readonly CountedEvent[]): void {
  for (const [sink, name, by] of events) {
    sink.count(name, by);
    capturing?.push([sink, name, by]);
  }
}
