import { describe, expect, it } from 'vitest';
import { RandomStreams } from '../../src/engine/random.js';
import { NORMAL, Simulation, URGENT, type Proc, type SimEvent } from '../../src/engine/simulation.js';

type Log = Array<[string, number]>;

describe('Simulation agenda', () => {
  it('runs callbacks in time order and advances the clock to each', () => {
    const sim = new Simulation();
    const log: Log = [];
    for (const [name, t] of [['c', 3], ['a', 1], ['b', 2]] as const) sim.schedule(t, () => log.push([name, sim.now]));
    sim.run();
    expect(log).toEqual([['a', 1], ['b', 2], ['c', 3]]);
  });

  it('is building until it takes its first agenda entry, also one at time 0', () => {
    const sim = new Simulation();
    const seen: boolean[] = [];
    sim.schedule(0, () => seen.push(sim.building));
    sim.schedule(5, () => seen.push(sim.building));
    expect(sim.building).toBe(true);
    sim.run();
    expect(seen).toEqual([false, false]);
    expect(sim.building).toBe(false);
  });

  it('runs urgent entries before normal ones at the same time, and equal ones first come first served', () => {
    const sim = new Simulation();
    const log: string[] = [];
    sim.schedule(1, () => log.push('normal-1'), NORMAL);
    sim.schedule(1, () => log.push('urgent-1'), URGENT);
    sim.schedule(1, () => log.push('normal-2'), NORMAL);
    sim.schedule(1, () => log.push('urgent-2'), URGENT);
    sim.run();
    expect(log).toEqual(['urgent-1', 'urgent-2', 'normal-1', 'normal-2']);
  });

  it('stops before entries later than until and leaves the clock at until', () => {
    const sim = new Simulation();
    const log: Log = [];
    sim.schedule(5, () => log.push(['at-until', sim.now]));
    sim.schedule(5.001, () => log.push(['after', sim.now]));
    sim.run({ until: 5 });
    expect(log).toEqual([['at-until', 5]]);
    sim.run({ until: 7 });
    expect(log).toEqual([['at-until', 5], ['after', 5.001]]);
    expect(sim.now).toBe(7);
  });

  it('does nothing for a cancelled entry', () => {
    const sim = new Simulation();
    const log: string[] = [];
    const entry = sim.schedule(1, () => log.push('cancelled'));
    sim.schedule(2, () => log.push('kept'));
    sim.cancel(entry);
    sim.run();
    expect(log).toEqual(['kept']);
  });

  it('refuses negative and NaN delays', () => {
    const sim = new Simulation();
    expect(() => sim.schedule(-1, () => {})).toThrow(RangeError);
    expect(() => sim.timeout(Number.NaN)).toThrow(RangeError);
  });

  it('runs each entry once when a callback steps the kernel itself, or throws', () => {
    const sim = new Simulation();
    const log: string[] = [];
    sim.schedule(1, () => {
      log.push('outer');
      // A nested step (a plugin driving runtime.sim, say) processes the next entry, not this one again.
      sim.step();
      sim.schedule(5, () => log.push('scheduled by outer'));
    });
    sim.schedule(2, () => log.push('next'));
    sim.schedule(3, () => {
      log.push('throws');
      throw new Error('boom');
    });
    sim.schedule(4, () => log.push('after the throw'));
    expect(() => sim.run()).toThrow('boom');
    sim.run();
    expect(log).toEqual(['outer', 'next', 'throws', 'after the throw', 'scheduled by outer']);
    expect(sim.eventsProcessed).toBe(5);
  });

  it('counts the agenda entries it processed', () => {
    const sim = new Simulation();
    sim.schedule(1, () => {});
    sim.schedule(2, () => {});
    sim.run();
    expect(sim.eventsProcessed).toBe(2);
    expect(sim.step()).toBe(false);
  });
});

describe('processes', () => {
  it('resume after each timeout at the right time, the timer set first winning a tie', () => {
    const sim = new Simulation();
    const log: Log = [];
    function* walker(name: string, stepMs: number): Proc<void> {
      for (let i = 0; i < 3; i++) {
        yield sim.timeout(stepMs);
        log.push([name, sim.now]);
      }
    }
    sim.process(walker('slow', 3));
    sim.process(walker('fast', 2));
    sim.run();
    // At t=6 the slow walker's timer (set at t=3) fires before the fast one's (set at t=4).
    expect(log).toEqual([['fast', 2], ['slow', 3], ['fast', 4], ['slow', 6], ['fast', 6], ['slow', 9]]);
  });

  it('run sub-processes with yield* and get their return values', () => {
    const sim = new Simulation();
    const log: Log = [];
    function* call(name: string, ms: number): Proc<string> {
      yield sim.timeout(ms);
      log.push([name, sim.now]);
      return `${name}-done`;
    }
    function* main(): Proc<void> {
      const a = yield* call('a', 1);
      const b = yield* call('b', 2);
      log.push([`${a},${b}`, sim.now]);
    }
    sim.process(main());
    sim.run();
    expect(log).toEqual([['a', 1], ['b', 3], ['a-done,b-done', 3]]);
  });

  it('wait for another process and receive its result', () => {
    const sim = new Simulation();
    const log: Log = [];
    const child = sim.process(
      (function* (): Proc<number> {
        yield sim.timeout(4);
        return 42;
      })(),
    );
    sim.process(
      (function* (): Proc<void> {
        const v: number = yield child;
        log.push([`got ${v}`, sim.now]);
      })(),
    );
    sim.run();
    expect(log).toEqual([['got 42', 4]]);
  });

  it('receive the value of an event that succeeds', () => {
    const sim = new Simulation();
    const log: Log = [];
    const ev = sim.event<string>();
    sim.process(
      (function* (): Proc<void> {
        const v: string = yield ev;
        log.push([v, sim.now]);
      })(),
    );
    sim.schedule(2.5, () => ev.succeed('response'));
    sim.run();
    expect(log).toEqual([['response', 2.5]]);
  });

  it('receive the value of an event that was already processed', () => {
    const sim = new Simulation();
    const log: Log = [];
    const ev = sim.event<string>().succeed('early');
    sim.run();
    sim.process(
      (function* (): Proc<void> {
        const v: string = yield ev;
        log.push([v, sim.now]);
      })(),
    );
    sim.run();
    expect(log).toEqual([['early', 0]]);
  });

  it('get a failed event thrown at their yield', () => {
    const sim = new Simulation();
    const log: Log = [];
    const ev = sim.event<string>();
    sim.process(
      (function* (): Proc<void> {
        try {
          yield ev;
          log.push(['not reached', sim.now]);
        } catch (error) {
          log.push([`caught ${(error as Error).message}`, sim.now]);
        }
      })(),
    );
    sim.schedule(1, () => ev.fail(new Error('refused')));
    sim.run();
    expect(log).toEqual([['caught refused', 1]]);
  });

  it('fail when their generator throws, and pass the error to a waiting process', () => {
    const sim = new Simulation();
    const log: Log = [];
    const child = sim.process(
      (function* (): Proc<void> {
        yield sim.timeout(1);
        throw new Error('boom');
      })(),
    );
    sim.process(
      (function* (): Proc<void> {
        try {
          yield child;
        } catch (error) {
          log.push([(error as Error).message, sim.now]);
        }
      })(),
    );
    sim.run();
    expect(log).toEqual([['boom', 1]]);
    expect(child.ok).toBe(false);
  });

  it('make the run raise a failure that nobody handles', () => {
    const sim = new Simulation();
    sim.process(
      (function* (): Proc<void> {
        yield sim.timeout(1);
        throw new Error('unhandled');
      })(),
    );
    expect(() => sim.run()).toThrow('unhandled');
  });

  it('fail when they yield something that is not an event', () => {
    const sim = new Simulation();
    const proc = sim.process(
      (function* (): Proc<void> {
        yield 5 as unknown as SimEvent;
      })(),
    );
    proc.addCallback(() => {});
    sim.run();
    expect([proc.ok, (proc.value as unknown as Error).name]).toEqual([false, 'TypeError']);
  });

  it('see an event triggered now before a timer due at the same time', () => {
    const sim = new Simulation();
    const log: string[] = [];
    const ev = sim.event();
    sim.process(
      (function* (): Proc<void> {
        yield sim.timeout(1);
        log.push('timer');
      })(),
    );
    sim.process(
      (function* (): Proc<void> {
        yield ev;
        log.push('event');
      })(),
    );
    // The event is triggered by a timer at t=1 scheduled before the process's timer, and its waiter is urgent.
    sim.schedule(1, () => ev.succeed());
    sim.run();
    expect(log).toEqual(['event', 'timer']);
  });
});

describe('events', () => {
  it('cannot be triggered twice', () => {
    const sim = new Simulation();
    const ev = sim.event().succeed(1);
    expect(() => ev.succeed(2)).toThrow('already triggered');
    expect(() => ev.fail(new Error('x'))).toThrow('already triggered');
  });

  it('call every callback once processed', () => {
    const sim = new Simulation();
    const log: string[] = [];
    const ev = sim.event<string>();
    for (const name of ['a', 'b', 'c']) ev.addCallback((e) => log.push(`${name}:${e.value}`));
    ev.succeed('v');
    sim.run();
    expect(log).toEqual(['a:v', 'b:v', 'c:v']);
  });

  it('wake callbacks and waiting processes in the order they began to wait, also once processed', () => {
    // Processes wait as themselves, callbacks as functions, in the same list: the order is the order of waiting.
    const sim = new Simulation();
    const log: string[] = [];
    const ev = sim.event<string>();
    const waitFor = (name: string) =>
      sim.process(
        (function* (): Proc<void> {
          log.push(`${name} got ${(yield ev) as string} @${sim.now}`);
        })(),
      );
    // A process begins to wait at its first step, through the agenda after the call that starts it.
    waitFor('p1');
    sim.schedule(0.5, () => {
      ev.addCallback((e) => log.push(`c1 got ${e.value} @${sim.now}`));
      waitFor('p2');
    });
    sim.schedule(1, () => ev.succeed('v'));
    // Waiting once the event is processed: through the agenda, at that time.
    sim.schedule(2, () => {
      waitFor('p3');
      ev.addCallback((e) => log.push(`c2 got ${e.value} @${sim.now}`));
    });
    sim.run();
    expect(log).toEqual(['p1 got v @1', 'c1 got v @1', 'p2 got v @1', 'c2 got v @2', 'p3 got v @2']);
  });
});

describe('anyOf', () => {
  /** A consumer waits for a response or its timeout, whichever comes first. */
  function race(responseMs: number, timeoutMs: number): Log {
    const sim = new Simulation();
    const log: Log = [];
    const response = sim.event<string>();
    sim.schedule(responseMs, () => response.succeed('response'));
    sim.process(
      (function* (): Proc<void> {
        const timer = sim.timeout(timeoutMs, 'timeout');
        const first: SimEvent<string> = yield sim.anyOf([response, timer]);
        log.push([first.value!, sim.now]);
      })(),
    );
    sim.run();
    return log;
  }

  it('resumes with the response when it comes before the timeout', () => {
    expect(race(3, 10)).toEqual([['response', 3]]);
  });

  it('resumes with the timeout when the response is late', () => {
    expect(race(12, 10)).toEqual([['timeout', 10]]);
  });

  it('resumes with a failed event as a value instead of throwing', () => {
    const sim = new Simulation();
    const log: Log = [];
    const response = sim.event<string>();
    sim.schedule(2, () => response.fail(new Error('network')));
    sim.process(
      (function* (): Proc<void> {
        const first: SimEvent<unknown> = yield sim.anyOf([response, sim.timeout(10)]);
        log.push([`${first.ok}:${(first.value as Error).message}`, sim.now]);
      })(),
    );
    sim.run();
    expect(log).toEqual([['false:network', 2]]);
  });

  it('ignores a loser that fails after the winner', () => {
    const sim = new Simulation();
    const late = sim.event();
    sim.schedule(5, () => late.fail(new Error('late failure')));
    const cond = sim.anyOf([sim.timeout(1, 'first'), late]);
    sim.run();
    expect([cond.value!.value, late.defused]).toEqual(['first', true]);
  });
});

describe('a model that loops at one instant', () => {
  it('fails with a clear error instead of hanging', () => {
    const sim = new Simulation();
    const again = (): void => {
      sim.schedule(0, again);
    };
    sim.schedule(5, again);
    expect(() => sim.run()).toThrow(/simulation stuck: more than 10000000 events at t=5 ms/);
  });
});

describe('the tail of an agenda callback (succeedLast, processLast)', () => {
  // A model with many ties: integer times, urgent and normal timers, urgent entries queued before the
  // tail call. `tail` switches between the plain calls and the tail ones; the order must not change.
  function model(tail: boolean, seed: number): { log: string[]; entries: number } {
    const sim = new Simulation();
    const rng = new RandomStreams(seed).stream('model');
    const log: string[] = [];
    const priority = () => (rng.nextInt(3) === 0 ? URGENT : NORMAL);
    for (let p = 0; p < 60; p++) {
      sim.schedule(
        rng.nextInt(20),
        () => {
          if (rng.nextInt(4) === 0) sim.schedule(0, () => log.push(`urgent ${p} @${sim.now}`), URGENT);
          const gen = (function* (): Proc<void> {
            log.push(`start ${p} @${sim.now}`);
            const ev = sim.event<number>();
            sim.schedule(
              rng.nextInt(4),
              () => {
                log.push(`trigger ${p} @${sim.now}`);
                if (tail) ev.succeedLast(p);
                else ev.succeed(p);
              },
              priority(),
            );
            const v: number = yield ev;
            log.push(`resumed ${p}=${v} @${sim.now}`);
            yield sim.timeout(rng.nextInt(3));
            log.push(`end ${p} @${sim.now}`);
          })();
          if (tail) sim.processLast(gen);
          else sim.process(gen);
        },
        priority(),
      );
    }
    sim.run();
    return { log, entries: sim.eventsProcessed };
  }

  it.each([1, 2, 3, 4, 5])('keep the order of the plain calls over a random model with ties (seed %i)', (seed) => {
    const plain = model(false, seed);
    const tail = model(true, seed);
    expect(tail.log).toEqual(plain.log);
    expect(tail.log.length).toBe(60 * 4 + plain.log.filter((l) => l.startsWith('urgent')).length);
    // Normal timers' tails skipped the agenda: fewer entries processed for the same work.
    expect(tail.entries).toBeLessThan(plain.entries);
  });

  it('go through the agenda when an urgent entry of this instant was queued first', () => {
    const sim = new Simulation();
    const log: string[] = [];
    sim.schedule(1, () => {
      sim.schedule(0, () => log.push('urgent'), URGENT);
      sim.processLast(
        (function* (): Proc<void> {
          log.push('process');
        })(),
      );
    });
    sim.run();
    expect(log).toEqual(['urgent', 'process']);
    expect(sim.eventsProcessed).toBe(3);
  });

  it('start the process at once from a normal timer, one agenda entry less', () => {
    const sim = new Simulation();
    const log: string[] = [];
    sim.schedule(1, () => {
      log.push('timer');
      sim.processLast(
        (function* (): Proc<void> {
          log.push(`process @${sim.now}`);
        })(),
      );
    });
    sim.schedule(1, () => log.push('next timer'));
    sim.run();
    expect(log).toEqual(['timer', 'process @1', 'next timer']);
    expect(sim.eventsProcessed).toBe(2);
  });

  it('run onDone in the step in which the process returns, as code after a yield* in a wrapper would', () => {
    // Two identical models: one wraps the process in a generator that logs after `yield*`, one passes
    // onDone. Same-instant timers around the end show that both run at the same place in the order.
    const run = (hook: boolean): string[] => {
      const sim = new Simulation();
      const log: string[] = [];
      const body = function* (n: number): Proc<number> {
        const ev = sim.event<number>();
        sim.schedule(2, () => {
          sim.schedule(0, () => log.push(`urgent after ${n} @${sim.now}`), URGENT);
          ev.succeed(n * 10);
        });
        sim.schedule(2, () => log.push(`timer after ${n} @${sim.now}`));
        return (yield ev) as number;
      };
      for (let n = 1; n <= 3; n++) {
        sim.schedule(n, () => {
          if (hook) sim.processLast(body(n), (v, arg) => log.push(`done ${String(arg)} = ${v} @${sim.now}`), n);
          else
            sim.processLast(
              (function* (): Proc<void> {
                const v = yield* body(n);
                log.push(`done ${n} = ${v} @${sim.now}`);
              })(),
            );
        });
      }
      sim.run();
      return log;
    };
    expect(run(true)).toEqual(run(false));
    expect(run(true).filter((l) => l.startsWith('done'))).toEqual(['done 1 = 10 @3', 'done 2 = 20 @4', 'done 3 = 30 @5']);
  });

  // processLastFrom: the code before a process's first `yield` as a plain function returning the generator
  // it hands on to, called by the first step. Compared with the same code as the head of a generator that
  // `yield*`s, over the random model with ties above: the same log, with the head's reads of shared state.
  it.each([1, 2, 3])('processLastFrom runs the start as the first step would, at once or through the agenda (seed %i)', (seed) => {
    const run = (from: boolean): string[] => {
      const sim = new Simulation();
      const rng = new RandomStreams(seed).stream('model');
      const log: string[] = [];
      let shared = 0;
      const tail = function* (p: number): Proc<number> {
        log.push(`tail ${p} sees ${shared} @${sim.now}`);
        yield sim.timeout(rng.nextInt(3));
        return p;
      };
      // The head reads and writes what urgent entries of the same instant also write.
      const head = (p: number): Proc<number> => {
        log.push(`head ${p} sees ${shared} @${sim.now}`);
        shared++;
        return tail(p);
      };
      for (let p = 0; p < 60; p++) {
        sim.schedule(
          rng.nextInt(20),
          () => {
            if (rng.nextInt(3) === 0) sim.schedule(0, () => (shared += 100), URGENT);
            const done = (v: number, arg: unknown) => log.push(`done ${String(arg)}=${v} @${sim.now}`);
            if (from) sim.processLastFrom(head, done, p);
            else
              sim.processLast(
                (function* (): Proc<number> {
                  return yield* head(p);
                })(),
                done,
                p,
              );
          },
          rng.nextInt(3) === 0 ? URGENT : NORMAL,
        );
      }
      sim.run();
      return log;
    };
    const plain = run(false);
    expect(run(true)).toEqual(plain);
    // Some heads ran after an urgent entry of their instant: the start waited for the first step.
    expect(plain.some((l) => / sees \d*1\d\d /.test(l))).toBe(true);
  });

  it('processLastFrom calls the start only when the first step runs; a start that throws fails the process', () => {
    // The same as a generator that throws in its first step: the failure nobody waits for stops the run.
    const run = (from: boolean): { log: string[]; error: unknown } => {
      const sim = new Simulation();
      const log: string[] = [];
      const start = (arg: string): Proc<void> => {
        log.push(`start ${arg} @${sim.now}`);
        throw new Error('broken start');
      };
      sim.schedule(1, () => {
        sim.schedule(0, () => log.push('urgent'), URGENT);
        if (from) sim.processLastFrom(start, null, 'a');
        else
          sim.processLast(
            (function* (): Proc<void> {
              yield* start('a');
            })(),
          );
        log.push('after the call');
      });
      let error: unknown;
      try {
        sim.run();
      } catch (e) {
        error = e;
      }
      return { log, error };
    };
    const from = run(true);
    expect(from.log).toEqual(['after the call', 'urgent', 'start a @1']);
    expect((from.error as Error).message).toBe('broken start');
    expect(run(false).log).toEqual(from.log);
  });

  // A request/response model at zero delay: a process sends (zero-delay timer) and waits; the receiver
  // answers with a zero-delay timer that triggers the waiting event. Around it: ties at integer times,
  // urgent entries, events with several waiters, timers at the same instant. `tail` uses scheduleLast
  // for the sends and answers (and processLast, succeedLast); the order must be the plain one.
  function exchanges(tail: boolean, seed: number): { log: string[]; entries: number } {
    const sim = new Simulation();
    const rng = new RandomStreams(seed).stream('exchanges');
    const log: string[] = [];
    const send = (delay: number, fire: (arg: unknown) => void, arg: unknown): void => {
      if (tail) sim.scheduleLast(delay, fire, arg);
      else sim.schedule(delay, fire, NORMAL, arg);
    };
    const answer = (arg: unknown): void => {
      const ev = arg as SimEvent<number>;
      log.push(`received @${sim.now}`);
      if (rng.nextInt(5) === 0) sim.schedule(0, () => log.push(`receiver urgent @${sim.now}`), URGENT);
      if (rng.nextInt(5) === 0) sim.schedule(0, () => log.push(`receiver normal @${sim.now}`));
      send(rng.nextInt(3) === 0 ? 1 : 0, (e) => {
        log.push(`answered @${sim.now}`);
        if (tail) (e as SimEvent<number>).succeedLast(sim.now);
        else (e as SimEvent<number>).succeed(sim.now);
      }, ev);
    };
    const shared = new Map<number, SimEvent<void>>();
    for (let p = 0; p < 40; p++) {
      const at = rng.nextInt(15);
      sim.schedule(
        at,
        () => {
          if (rng.nextInt(4) === 0) sim.schedule(0, () => log.push(`urgent ${p} @${sim.now}`), URGENT);
          const gen = (function* (): Proc<void> {
            for (let round = 0; round < 3; round++) {
              const ev = sim.event<number>();
              if (rng.nextInt(2) === 0) {
                // Several processes wait on one timeout: only the last waiter's step is a tail.
                let t = shared.get(sim.now);
                if (t === undefined) shared.set(sim.now, (t = sim.timeout(1)));
                yield t;
                log.push(`shared wait ${p} @${sim.now}`);
              }
              send(rng.nextInt(4) === 0 ? 1 : 0, answer, ev);
              const v: number = yield ev;
              log.push(`process ${p} round ${round} got ${v} @${sim.now}`);
            }
          })();
          if (tail) sim.processLast(gen);
          else sim.process(gen);
        },
        rng.nextInt(3) === 0 ? URGENT : NORMAL,
      );
    }
    sim.run();
    return { log, entries: sim.eventsProcessed };
  }

  it.each(Array.from({ length: 16 }, (_, i) => i + 1))('keep the plain order when zero-delay sends and answers run at once (seed %i)', (seed) => {
    const plain = exchanges(false, seed);
    const tail = exchanges(true, seed);
    expect(plain.log.filter((l) => l.includes(' got ')).length).toBe(40 * 3);
    expect(tail.log).toEqual(plain.log);
  });

  it('run a zero-delay scheduleLast at once only when nothing else is due at this instant', () => {
    const sim = new Simulation();
    const log: string[] = [];
    let returned: unknown;
    sim.schedule(1, () => {
      returned = sim.scheduleLast(0, () => log.push(`inline, agenda ${sim.agendaSize}`));
    });
    sim.schedule(2, () => {
      sim.schedule(0, () => log.push('queued first'));
      sim.scheduleLast(0, () => log.push('after it'));
    });
    sim.schedule(3, () => {
      sim.schedule(0, () => log.push('urgent first'), URGENT);
      sim.scheduleLast(0, () => log.push('after the urgent one'));
    });
    sim.schedule(4, () => sim.scheduleLast(0.5, () => log.push('later')));
    sim.run();
    // The first ran within its caller's entry (which still holds the agenda's root until it settles).
    expect(returned).toBeNull();
    expect(log).toEqual(['inline, agenda 4', 'queued first', 'after it', 'urgent first', 'after the urgent one', 'later']);
    // Run at once or queued, each callback counts as one processed entry.
    expect(sim.eventsProcessed).toBe(4 + 6);
  });

  it('never run inline from inside an urgent entry or outside the agenda', () => {
    const sim = new Simulation();
    expect(sim.takeTail()).toBe(false);
    const seen: boolean[] = [];
    sim.schedule(0, () => seen.push(sim.takeTail()), URGENT);
    sim.schedule(0, () => seen.push(sim.takeTail(), sim.takeTail()), NORMAL);
    sim.run();
    expect(seen).toEqual([false, true, false]);
    expect(sim.takeTail()).toBe(false);
  });
});

describe('hasFired: whether the kernel would have fired an entry by now', () => {
  it('compares with the greatest entry fired at this instant, not with the one being fired', () => {
    const sim = new Simulation();
    // A NORMAL entry at t = 10 whose agenda place was reserved first.
    const early = sim.reserveSeq();
    const seen: Record<string, boolean> = {};
    sim.schedule(10, () => {
      const late = sim.reserveSeq();
      seen.earlyInTimer = sim.hasFired(10, early);
      seen.lateInTimer = sim.hasFired(10, late);
      seen.earlier = sim.hasFired(9.5, late);
      seen.later = sim.hasFired(10.5, early);
      // An URGENT entry added now sorts before every NORMAL entry, yet runs after the ones fired so far.
      sim.schedule(0, () => (seen.earlyInUrgent = sim.hasFired(10, early)), URGENT);
      seen.urgentReservedEarly = sim.hasFired(10, early, URGENT);
    });
    sim.run();
    expect(seen).toEqual({
      earlyInTimer: true,
      lateInTimer: false,
      earlier: true,
      later: false,
      earlyInUrgent: true,
      urgentReservedEarly: true,
    });
  });

  it('says no for an instant at which nothing has fired yet, and counts what runs at once as added then', () => {
    const sim = new Simulation();
    const seen: Record<string, boolean> = {};
    sim.schedule(5, () => {
      const reserved = sim.reserveSeq();
      // Run at once in place of an entry added now: after every place reserved so far.
      sim.scheduleLast(0, () => (seen.inLast = sim.hasFired(5, reserved, NORMAL)));
    });
    sim.run({ until: 8 });
    // The clock moved to 8 with nothing fired there.
    expect(sim.hasFired(8, 0)).toBe(false);
    expect(seen).toEqual({ inLast: true });
  });
});
