/**
 * Provider URLs as users paste them into `route` and `select`: plain URLs, URL-encoded ones as
 * ZooKeeper stores them (`dubbo%3A%2F%2F10.0.2.10%3A20880%2F...`), and a whole zkCli `ls` answer
 * (`[url, url, ...]`, with the prompt, connection and log lines around it). Turns each entry of
 * `--provider` / `--providers-file` into the URLs it holds, keeping the text as given for echoing.
 * Owns the recognising and decoding; reading files is inputs.ts's job.
 */
import { UsageError } from './io.js';

/** One provider from the input: the text as given (echoed back) and the URL text to parse. */
export interface PastedProvider {
  given: string;
  url: string;
}

// zkCli chatter around an `ls` answer: prompts, connection and watcher lines, log lines, `ls -s` stat lines.
const NOISE = [
  /^\[zk: [^\]]*\]/, // [zk: localhost:2181(CONNECTED) 3] ls /dubbo/...
  /^Connecting to /,
  /^WATCHER::/,
  /^WatchedEvent /,
  /^Welcome to ZooKeeper/,
  /^JLine support/,
  /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d/, // log4j / logback lines
  /^(?:log4j|SLF4J):/,
  /^[a-zA-Z]+ = \S/, // cZxid = 0x..., numChildren = 2
];

const ENCODED_SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*%3A/i;

/** Whether a line is zkCli output around the answer rather than a provider. */
export function isZkCliNoise(line: string): boolean {
  return NOISE.some((re) => re.test(line));
}

/** A URL as ZooKeeper lists it (Java URLEncoder: `%XX` escapes, `+` for a space) decoded once; other text as is. */
export function decodeProviderUrl(text: string): string {
  if (!ENCODED_SCHEME.test(text)) return text;
  try {
    return decodeURIComponent(text.replaceAll('+', '%20'));
  } catch {
    throw new UsageError(`--provider: "${text}" looks URL-encoded but does not decode (a broken %XX escape?)`);
  }
}

/**
 * The providers in the given entries, in order: a `[a, b, ...]` entry (zkCli `ls`) gives each
 * element; URL-encoded URLs are decoded; zkCli prompt, log and stat lines, and an empty `[]`, give none.
 */
export function expandProviders(entries: readonly string[]): PastedProvider[] {
  const out: PastedProvider[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '' || isZkCliNoise(entry)) continue;
    if (!(entry.startsWith('[') && entry.endsWith(']'))) {
      out.push({ given: raw, url: decodeProviderUrl(entry) });
      continue;
    }
    for (const item of entry.slice(1, -1).split(/,\s+/)) {
      const given = item.trim();
      if (given !== '') out.push({ given, url: decodeProviderUrl(given) });
    }
  }
  if (out.length === 0) {
    throw new UsageError(
      'no provider URL in the input: give --provider URL or --providers-file F',
      'an `ls /dubbo/<service>/providers` answer of [] means no provider is registered',
    );
  }
  return out;
}
