"""Peer benchmark: the bare M/M/c queue of scenarios/mmc-validation.yaml in SimPy (c = 10, 80% load,
exponential service with mean 10 ms, Poisson arrivals), for scale next to `npm run bench`.
Needs SimPy (Debian: apt-get install python3-simpy3; run with /usr/bin/python3).
Usage: python3 bench/simpy_mmc.py [simulated_seconds] [--json]
(--json prints one JSON line with requests and wall seconds, for bench/run.js)
"""
import json
import random
import sys
import time

import simpy

C, RATE_PER_MS, MEAN_SERVICE_MS = 10, 0.8, 10.0


def main(sim_seconds: float) -> None:
    rng = random.Random(1)
    env = simpy.Environment()
    server = simpy.Resource(env, capacity=C)
    done = [0]
    total_response = [0.0]

    def request(env):
        start = env.now
        with server.request() as req:
            yield req
            yield env.timeout(rng.expovariate(1.0 / MEAN_SERVICE_MS))
        done[0] += 1
        total_response[0] += env.now - start

    def arrivals(env):
        while True:
            yield env.timeout(rng.expovariate(RATE_PER_MS))
            env.process(request(env))

    env.process(arrivals(env))
    t0 = time.perf_counter()
    env.run(until=sim_seconds * 1000.0)
    wall = time.perf_counter() - t0
    if "--json" in sys.argv:
        print(json.dumps({"simpy": simpy.__version__, "requests": done[0], "wallS": wall}))
        return
    print(
        f"SimPy {simpy.__version__} M/M/c (c=10, 80% load): {done[0]:,} requests in {wall:.2f} s wall = "
        f"{done[0] / wall:,.0f} requests/s; mean response {total_response[0] / done[0]:.3f} ms"
    )


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(float(args[0]) if args else 600.0)
