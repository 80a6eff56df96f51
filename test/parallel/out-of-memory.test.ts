import { describe, expect, it } from 'vitest';
import { CHILD_V8_FLAGS, childExecArgv, childHeapFlags, childOutcome, outOfMemoryMessage, StderrFilter } from '../../src/parallel/out-of-memory.js';

// What Node 20 prints when V8 reaches its heap limit (abridged).
const V8_OOM = [
  '',
  '<--- Last few GCs --->',
  '',
  '[123:0x5d1e0a0]    20414 ms: Mark-Compact 110.9 (113.7) -> 110.5 (114.2) MB, 200.1 / 0.0 ms  (average mu = 0.1)',
  '',
  '<--- JS stacktrace --->',
  '',
  'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory',
  '----- Native stack trace -----',
  '',
  ' 1: 0xb8d0a3 node::OOMErrorHandler(char const*, v8::OOMDetails const&) [node]',
  '',
].join('\n');

function filtered(chunks: string[]) {
  const passed: string[] = [];
  const f = new StderrFilter((t) => passed.push(t));
  for (const c of chunks) f.write(c);
  f.end();
  return { passed: passed.join(''), filter: f };
}

describe('StderrFilter', () => {
  it('passes ordinary stderr through unchanged, in chunks cut anywhere', () => {
    const text = 'zonesim: warning: running despite the estimate\n\nhint: x\nseed 1 |███░░| 50%';
    for (let cut = 0; cut <= text.length; cut++) {
      const { passed, filter } = filtered([text.slice(0, cut), text.slice(cut)]);
      expect(passed, `cut at ${cut}`).toBe(text);
      expect(filter.fatal).toBe(false);
    }
  });

  it('holds back V8\'s out-of-memory report, whatever the chunking, and passes what came before', () => {
    const text = `zonesim: warning: running despite the estimate (--force)\n${V8_OOM}`;
    for (const size of [1, 7, 64, text.length]) {
      const chunks = text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g'))!;
      const { passed, filter } = filtered(chunks);
      expect(passed, `chunks of ${size}`).toBe('zonesim: warning: running despite the estimate (--force)\n');
      expect(filter.fatal).toBe(true);
      expect(filter.held).toContain('JavaScript heap out of memory');
    }
  });

  it('holds back V8\'s "invalid size" report and a C++ bad_alloc', () => {
    expect(filtered(['\n\n#\n# Fatal error in , line 0\n# Fatal JavaScript invalid size error 169220804\n#\n']).filter.fatal).toBe(true);
    expect(filtered(["terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc\n"]).filter.fatal).toBe(true);
  });
});

describe('childOutcome', () => {
  it('turns an out-of-memory abort into one zonesim line and exit 1', () => {
    const { filter } = filtered([V8_OOM]);
    const o = childOutcome(null, 'SIGABRT', filter, 'run');
    expect(o.exitCode).toBe(1);
    expect(o.dump).toBeUndefined();
    expect(o.message).toMatch(/^out of memory \(Reached heap limit Allocation failed - JavaScript heap out of memory\): the run needed more than the \d+ MB this process may use; see what it needs with --dry-run/);
    expect(o.message).not.toContain('\n');
  });

  it('names --dry-run only for a command that has it', () => {
    const { filter } = filtered([V8_OOM]);
    expect(childOutcome(null, 'SIGABRT', filter, 'run').message).toContain('see what it needs with --dry-run');
    const merge = childOutcome(null, 'SIGABRT', filter, 'merge').message!;
    expect(merge).toMatch(/this process may use; NODE_OPTIONS=--max-old-space-size=MB raises the heap limit$/);
  });

  it('says that a length over V8\'s fixed limit is not helped by a larger heap', () => {
    const { filter } = filtered(['\n\n#\n# Fatal error in , line 0\n# Fatal JavaScript invalid size error 169220804\n#\n']);
    const o = childOutcome(null, 'SIGTRAP', filter, 'sweep');
    expect(o.exitCode).toBe(1);
    expect(o.message).toMatch(/^out of memory \(Fatal JavaScript invalid size error 169220804\): the results need a string or array longer than JavaScript allows/);
    expect(o.message).not.toContain('raises the heap limit');
  });

  it('keeps the child\'s exit code otherwise', () => {
    const { filter } = filtered(['zonesim: bad\n']);
    expect(childOutcome(2, null, filter)).toEqual({ exitCode: 2 });
    expect(childOutcome(0, null, filter)).toEqual({ exitCode: 0 });
  });

  it('says what SIGKILL usually means', () => {
    const { filter } = filtered([]);
    expect(childOutcome(null, 'SIGKILL', filter).message).toContain('out-of-memory killer');
  });

  it('passes on a fatal report that is not about memory', () => {
    const { filter } = filtered(['FATAL ERROR: something else\n']);
    expect(childOutcome(null, 'SIGABRT', filter)).toEqual({ exitCode: 1, dump: 'FATAL ERROR: something else\n' });
  });
});

describe('outOfMemoryMessage', () => {
  it.each([
    [new RangeError('Invalid array length')],
    [new RangeError('Invalid string length')],
    [new RangeError('Invalid typed array length: 1.1e+298')],
    [new RangeError('Array buffer allocation failed')],
    [Object.assign(new Error('Worker terminated due to reaching memory limit: JS heap out of memory'), { code: 'ERR_WORKER_OUT_OF_MEMORY' })],
  ])('recognizes %s as out of memory', (error) => {
    expect(outOfMemoryMessage(error)).toMatch(/^out of memory/);
  });

  it('names --dry-run only for the commands that have it, and a larger heap only where the heap ran out', () => {
    const worker = Object.assign(new Error('Worker terminated due to reaching memory limit: JS heap out of memory'), { code: 'ERR_WORKER_OUT_OF_MEMORY' });
    expect(outOfMemoryMessage(worker, 'sweep')).toContain('see what it needs with --dry-run; NODE_OPTIONS=--max-old-space-size=MB raises the heap limit');
    expect(outOfMemoryMessage(worker, 'merge')).not.toContain('--dry-run');
    expect(outOfMemoryMessage(worker, 'merge')).toContain('NODE_OPTIONS=--max-old-space-size=MB raises the heap limit');
    expect(outOfMemoryMessage(worker)).not.toContain('--dry-run');
    // A string's or array's length is capped by V8 whatever the heap (SW-lost300's hint was a larger heap).
    for (const error of [new RangeError('Invalid string length'), new RangeError('Invalid array length'), Object.assign(new Error('Cannot create a string longer than 0x1fffffe8 characters'), { code: 'ERR_STRING_TOO_LONG' })]) {
      const message = outOfMemoryMessage(error, 'sweep')!;
      expect(message).toMatch(/^out of memory \(.+\): the results need a string or array longer than JavaScript allows, a fixed V8 limit that --max-old-space-size does not raise; make them smaller/);
      expect(message).not.toContain('raises the heap limit');
      expect(message).not.toContain('--dry-run');
    }
  });

  it('leaves other errors alone', () => {
    expect(outOfMemoryMessage(new RangeError('Maximum call stack size exceeded'))).toBeUndefined();
    expect(outOfMemoryMessage(new Error('Invalid array length'))).toBeUndefined();
    expect(outOfMemoryMessage('x')).toBeUndefined();
  });
});

describe('childExecArgv', () => {
  const PRETENURE = '--no-allocation-site-pretenuring';
  const GC = '--expose-gc';

  it('adds the heap-growth, young-generation, pretenuring and expose-gc flags to the parent\'s own flags', () => {
    expect(CHILD_V8_FLAGS).toEqual(['--heap-growing-percent=25', '--max-semi-space-size=32', PRETENURE, GC]);
    expect(childExecArgv(['--enable-source-maps'])).toEqual(['--enable-source-maps', '--heap-growing-percent=25', '--max-semi-space-size=32', PRETENURE, GC]);
  });

  it('leaves a flag to the user when node\'s command line already sets it, in either spelling', () => {
    expect(childExecArgv(['--heap-growing-percent=0'])).toEqual(['--heap-growing-percent=0', '--max-semi-space-size=32', PRETENURE, GC]);
    expect(childExecArgv(['--heap_growing_percent=10'])).toEqual(['--heap_growing_percent=10', '--max-semi-space-size=32', PRETENURE, GC]);
    expect(childExecArgv(['--max_semi_space_size=16'])).toEqual(['--max_semi_space_size=16', '--heap-growing-percent=25', PRETENURE, GC]);
    expect(childExecArgv(['--max-old-space-size=4096'])).toEqual(['--max-old-space-size=4096', '--heap-growing-percent=25', '--max-semi-space-size=32', PRETENURE, GC]);
  });

  it('leaves a boolean flag to the user when node\'s command line sets it either way', () => {
    const rest = ['--heap-growing-percent=25', '--max-semi-space-size=32'];
    expect(childExecArgv(['--allocation-site-pretenuring'])).toEqual(['--allocation-site-pretenuring', ...rest, GC]);
    expect(childExecArgv(['--allocation_site_pretenuring'])).toEqual(['--allocation_site_pretenuring', ...rest, GC]);
    expect(childExecArgv([PRETENURE])).toEqual([PRETENURE, ...rest, GC]);
    expect(childExecArgv(['--no_allocation_site_pretenuring'])).toEqual(['--no_allocation_site_pretenuring', ...rest, GC]);
    // Another flag that merely starts with the same words is not the same flag.
    expect(childExecArgv(['--allocation-site-pretenuring-x'])).toEqual(['--allocation-site-pretenuring-x', ...rest, PRETENURE, GC]);
  });
});

describe('childHeapFlags', () => {
  // A 24 GB machine, where V8's own limit is about 4 GB.
  const MACHINE_MB = 24_105;
  const V8_DEFAULT_MB = 4_144;

  it('gives the child half the machine\'s memory where V8\'s own limit is less', () => {
    expect(childHeapFlags([], undefined, MACHINE_MB, V8_DEFAULT_MB)).toEqual(['--max-old-space-size=12052']);
    expect(childHeapFlags(['--enable-source-maps'], '--trace-warnings', MACHINE_MB, V8_DEFAULT_MB)).toEqual(['--max-old-space-size=12052']);
  });

  it('keeps V8\'s own limit where half the memory is no more (an 8 GB machine)', () => {
    expect(childHeapFlags([], undefined, 8_192, V8_DEFAULT_MB)).toEqual([]);
    expect(childHeapFlags([], undefined, 8_288, V8_DEFAULT_MB)).toEqual([]);
    expect(childHeapFlags([], undefined, 8_290, V8_DEFAULT_MB)).toEqual(['--max-old-space-size=4145']);
  });

  it('leaves the limit to the user who sets one on node\'s command line, in any spelling V8 reads', () => {
    for (const flag of ['--max-old-space-size=2048', '--max_old_space_size=2048', '--max-heap-size=3000', '--max_heap_size=3000', '--max-old-space-size']) {
      expect(childHeapFlags([flag], undefined, MACHINE_MB, V8_DEFAULT_MB)).toEqual([]);
    }
    // A flag that merely starts with the same words is another flag.
    expect(childHeapFlags(['--max-old-space-size-x=1'], undefined, MACHINE_MB, V8_DEFAULT_MB)).toEqual(['--max-old-space-size=12052']);
  });

  it('leaves the limit to the user who sets one in NODE_OPTIONS', () => {
    expect(childHeapFlags([], '--max-old-space-size=3000', MACHINE_MB, V8_DEFAULT_MB)).toEqual([]);
    expect(childHeapFlags([], '  --enable-source-maps   --max_old_space_size=3000 ', MACHINE_MB, V8_DEFAULT_MB)).toEqual([]);
  });
});
