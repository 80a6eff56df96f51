/**
 * Headless Chromium for the report tests: found as `CHROMIUM=path`, or `chromium`,
 * `chromium-browser`, `google-chrome`, `chrome-headless-shell` on the PATH; undefined when none
 * runs (the browser checks then skip).
 */
import { execFile, execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** The first Chromium that answers `--version`, or undefined. */
export function findChromium(): string | undefined {
  const candidates = [process.env.CHROMIUM, 'chromium', 'chromium-browser', 'google-chrome', 'chrome-headless-shell'].filter(
    (c): c is string => typeof c === 'string' && c !== '',
  );
  for (const c of candidates) {
    try {
      execFileSync(c, ['--version'], { stdio: 'ignore', timeout: 20_000 });
      return c;
    } catch {
      // not installed
    }
  }
  return undefined;
}

/**
 * Loads `file` in headless Chromium with a fresh profile (made by `tempDir`) and `args` (a
 * screenshot, `--dump-dom`, a window size); returns what Chromium printed on stdout.
 */
export async function browse(chromium: string, tempDir: (prefix: string) => string, file: string, args: string[], timeoutMs = 90_000): Promise<string> {
  const profile = tempDir('zs-chromium-');
  const { stdout } = await exec(
    chromium,
    ['--headless', '--no-sandbox', '--disable-gpu', `--user-data-dir=${profile}`, '--virtual-time-budget=10000', ...args, pathToFileURL(file).href],
    { timeout: timeoutMs, maxBuffer: 256 * 1024 * 1024 },
  );
  rmSync(profile, { recursive: true, force: true });
  return stdout;
}
