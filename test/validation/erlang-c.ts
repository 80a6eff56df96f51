/**
 * Closed-form M/M/c (FCFS) response-time figures: the Erlang-C probability of waiting, the mean
 * response time, and the response-time quantile solved numerically from its exact tail.
 */

/** Erlang-C: probability that an arrival waits, for c servers and offered load a = lambda/mu. */
export function erlangC(c: number, a: number): number {
  // Sum a^k/k! for k < c, computed iteratively to stay stable.
  let term = 1;
  let sum = 1;
  for (let k = 1; k < c; k++) {
    term *= a / k;
    sum += term;
  }
  const last = (term * a) / c; // a^c / c!
  const rho = a / c;
  const top = last / (1 - rho);
  return top / (sum + top);
}

/** Exact M/M/c response-time figures for arrival rate `lambda` and service rate `mu` (per ms). */
export function mmc(c: number, lambda: number, mu: number): { meanMs: number; tail(t: number): number; quantileMs(q: number): number } {
  const a = lambda / mu;
  const C = erlangC(c, a);
  const theta = c * mu - lambda;
  // T = Wq + S: Wq is 0 with probability 1-C, else Exp(theta); S ~ Exp(mu).
  const tail = (t: number): number => {
    const noWait = (1 - C) * Math.exp(-mu * t);
    const wait =
      Math.abs(theta - mu) < 1e-12
        ? C * (1 + mu * t) * Math.exp(-mu * t)
        : (C * (theta * Math.exp(-mu * t) - mu * Math.exp(-theta * t))) / (theta - mu);
    return noWait + wait;
  };
  const quantileMs = (q: number): number => {
    let lo = 0;
    let hi = 1;
    while (tail(hi) > 1 - q) hi *= 2;
    for (let i = 0; i < 200; i++) {
      const mid = (lo + hi) / 2;
      if (tail(mid) > 1 - q) lo = mid;
      else hi = mid;
    }
    return (lo + hi) / 2;
  };
  return { meanMs: C / theta + 1 / mu, tail, quantileMs };
}
