/** A WorldObserver that records nothing, for tests that build a World and read it directly; `over` replaces hooks. */
import type { WorldObserver } from '../../src/metrics/observer.js';

export function quietObserver(over: Partial<WorldObserver> = {}): WorldObserver {
  return {
    startRequest: () => ({ ended: false }),
    attempt() {},
    execution() {},
    rejected() {},
    orphaned() {},
    endRequest() {},
    push() {},
    count() {},
    marker() {},
    ...over,
  };
}
