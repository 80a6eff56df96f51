import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTextFile } from '../../src/scenario/read-text-file.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

describe('readTextFile', () => {
  it('returns the UTF-8 text of a regular file', () => {
    const f = join(tempDir('zs-read-'), 'a.yaml');
    writeFileSync(f, 'name: ä\n');
    expect(readTextFile(f)).toBe('name: ä\n');
  });

  it('refuses a directory without reading it', () => {
    const d = join(tempDir('zs-read-'), 'dir');
    mkdirSync(d);
    expect(() => readTextFile(d)).toThrow('a directory, not a file; expected a text file');
  });

  it('refuses a device such as /dev/zero without reading it', () => {
    expect(() => readTextFile('/dev/zero')).toThrow('a character device, not a file; expected a text file');
  });

  it('refuses a FIFO without opening it (opening would wait for a writer)', () => {
    const fifo = join(tempDir('zs-read-'), 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(() => readTextFile(fifo)).toThrow('a FIFO (named pipe), not a file; expected a text file');
  });

  it('refuses a file above the limit before reading it', () => {
    const f = join(tempDir('zs-read-'), 'big.yaml');
    writeFileSync(f, 'a'.repeat(2 * 1024 * 1024 + 1));
    expect(() => readTextFile(f, 2 * 1024 * 1024)).toThrow('the file is 2.0 MB; at most 2.0 MB is read');
  });

  it('refuses a file with NUL bytes as not text', () => {
    const f = join(tempDir('zs-read-'), 'bin.yaml');
    writeFileSync(f, Buffer.from([0x6e, 0x3a, 0x00, 0x01]));
    expect(() => readTextFile(f)).toThrow('not a text file (a NUL byte at offset 2)');
  });

  it('says so when the file does not exist', () => {
    expect(() => readTextFile(join(tempDir('zs-read-'), 'missing.yaml'))).toThrow('no such file');
  });
});
