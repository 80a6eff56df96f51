/**
 * Reads a text input file (a scenario, a rule or provider list named on the command line) without
 * ever reading unbounded input: the path is checked with `stat` first (a directory, a FIFO, a
 * device such as /dev/zero or a socket is refused without being opened), then at most
 * `maxBytes + 1` bytes are read, and a file holding NUL bytes is refused as not text. What a
 * caller does with a refusal (a scenario error, a usage error) is its own business.
 */
import { closeSync, openSync, readSync, statSync, type Stats } from 'node:fs';

/** Scenario files and other text inputs above this size are refused before parsing (10 MB). */
export const MAX_TEXT_FILE_BYTES = 10 * 1024 * 1024;

/**
 * Provider lists named on the command line (`route` / `select --providers-file`, `import providers`): 100 MB.
 * A ZooKeeper `ls` answer for the seed articles' one service of 10^5 providers is some 25 MB (about 250 bytes
 * a URL), over the 10 MB of other text inputs; the lines are kept as given, so memory stays a few times the file.
 */
export const MAX_PROVIDER_LIST_BYTES = 100 * 1024 * 1024;

/**
 * Result files zonesim wrote itself and reads back (`summary.json`, `compare.json`, `sweep.json`,
 * part files): 4 GB, beyond the longest string (about 512 MB), so the commands that read them
 * back parse them in pieces. zonesim writes them in pieces too and says so when one is larger.
 */
export const MAX_RESULT_FILE_BYTES = 4 * 1024 * 1024 * 1024 - 2;

/** Why a file cannot be read as text; `message` is the reason, without the path. */
export class TextFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TextFileError';
  }
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(bytes < 1024 * 1024 ? 2 : 1)} MB`;

/** The UTF-8 text of the regular file at `path`, at most `maxBytes` long; throws TextFileError otherwise. */
export function readTextFile(path: string, maxBytes = MAX_TEXT_FILE_BYTES): string {
  return readTextBytes(path, maxBytes).toString('utf8');
}

/**
 * The bytes of the regular text file at `path`, at most `maxBytes`, checked as `readTextFile` checks
 * them: for files too large for one string, and for inputs whose encoding is not UTF-8 (Java `.properties`).
 */
export function readTextBytes(path: string, maxBytes = MAX_TEXT_FILE_BYTES): Buffer {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new TextFileError(code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (e as Error).message);
  }
  if (!st.isFile()) throw new TextFileError(`${kindOf(st)}, not a file; expected a text file`);
  if (st.size > maxBytes) throw new TextFileError(`the file is ${mb(st.size)}; at most ${mb(maxBytes)} is read`);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new TextFileError(code === 'EACCES' ? 'permission denied' : (e as Error).message);
  }
  // The size can change between stat and read (a file being written, /proc files report 0): read
  // until the end, but never more than maxBytes + 1 bytes. The first buffer takes the size stat
  // gave (and one byte more, to see the end), so a large file is not copied again.
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for (;;) {
      const want = Math.min(chunks.length === 0 ? st.size + 1 : 64 * 1024, maxBytes + 1 - total);
      if (want <= 0) break;
      const buf = Buffer.allocUnsafe(want);
      let got = 0;
      while (got < want) {
        // One read() takes at most about 2 GB.
        const n = readSync(fd, buf, got, Math.min(want - got, 1 << 30), null);
        if (n === 0) break;
        got += n;
      }
      if (got > 0) chunks.push(got === want ? buf : buf.subarray(0, got));
      total += got;
      if (got < want) break;
    }
  } catch (e) {
    throw new TextFileError((e as Error).message);
  } finally {
    closeSync(fd);
  }
  if (total > maxBytes) throw new TextFileError(`the file is larger than ${mb(maxBytes)}; at most ${mb(maxBytes)} is read`);
  const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  const nul = bytes.indexOf(0);
  if (nul >= 0) throw new TextFileError(`not a text file (a NUL byte at offset ${nul})`);
  return bytes;
}
