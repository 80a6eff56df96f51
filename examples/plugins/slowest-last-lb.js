// A zonesim load-balancer plugin: avoid the provider whose last response was slowest.
//
// A plugin exports `createLoadBalance(runtime)` (or a default export) returning an object with
// Dubbo's LoadBalance method `select(invokers, url, invocation)`. `runtime` is the consumer
// instance's Dubbo runtime: `runtime.random` (seeded stream), `runtime.clock.now()`,
// `runtime.filters` (consumer filters, which see every attempt's result and elapsed time),
// `runtime.events.count(name)` (counters in the summary's `events`).
// Name it in a scenario with its path relative to the scenario file: `loadbalance: ./plugins/slowest-last-lb.js`.

export function createLoadBalance(runtime) {
  const lastElapsed = new Map(); // invoker -> ms of its last attempt
  runtime.filters.push({
    before() {},
    after(invoker, _invocation, _result, elapsedMs) {
      lastElapsed.set(invoker, elapsedMs);
    },
  });
  return {
    select(invokers) {
      if (invokers.length === 0) return null;
      if (invokers.length === 1) return invokers[0];
      // Pick two at random (power of two choices) and keep the one that answered faster last time.
      const a = invokers[runtime.random.nextInt(invokers.length)];
      const b = invokers[runtime.random.nextInt(invokers.length)];
      const ea = lastElapsed.get(a) ?? 0;
      const eb = lastElapsed.get(b) ?? 0;
      if (ea !== eb) runtime.events.count('slowestLast.compared');
      return eb < ea ? b : a;
    },
  };
}
