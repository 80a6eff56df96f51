/**
 * Provider URLs as users paste them into `route` and `select`: plain URLs, URL-encoded ones as
 * ZooKeeper stores them (`dubbo%3A%2F%2F10.0.2.10%3A20880%2F...`), and a whole zkCli `ls` answer
 * (`[url, url, ...]`, with the prompt, connection and log lines around it). Turns each entry of
 * `--provider` / `--providers-file` into the URLs it holds, keeping the text as given for echoing.
 * Owns the recognising and decoding, the check that a pasted URL's port is a port, parsing a URL
 * given on the command line, and the invoker `route` and `select` put over each URL; reading files
 * is cli/inputs.ts's job (it says which file and line each entry comes from).
 */
import { InvokerMemoSlots, OK, type Invoker, type Result } from '../dubbo/rpc.js';
import { URL } from '../dubbo/url.js';
import { clipText } from '../scenario/clip-text.js';
import { UsageError } from '../scenario/io.js';

/** One entry of the provider input and where it comes from (`--provider`, or `file:line`). */
export interface ProviderLine {
  text: string;
  origin: string;
}

/** One provider from the input: the text as given (echoed back), the URL text to parse and where it comes from. */
export interface PastedProvider {
  given: string;
  url: string;
  origin: string;
}

/**
 * Why the port of a URL is not a port, or undefined: the text after the host's last `:` (outside
 * IPv6 brackets) must be a whole number from 0 to 65535. Dubbo's URL.valueOf throws
 * NumberFormatException on `10.0.0.1:abc`; zonesim's URL parser, which must not throw on what a
 * registry holds, would read it as a host.
 */
export function portProblem(url: string): string | undefined {
  let rest = url.trim();
  const q = rest.indexOf('?');
  if (q >= 0) rest = rest.slice(0, q);
  const sep = rest.indexOf('://');
  if (sep >= 0) rest = rest.slice(sep + 3);
  const slash = rest.indexOf('/');
  if (slash >= 0) rest = rest.slice(0, slash);
  rest = rest.slice(rest.lastIndexOf('@') + 1);
  const colon = rest.lastIndexOf(':');
  if (colon < 0 || rest.includes(']', colon)) return undefined;
  const port = rest.slice(colon + 1);
  if (/^\d{1,5}$/.test(port) && Number(port) <= 65535) return undefined;
  return `expected a port from 0 to 65535 after the host, found "${clipText(port, 40)}" in "${clipText(url)}"`;
}

/** Parses a pasted URL; `where` names the option or the `file:line` in the error (exit 2). */
export function parsePastedUrl(text: string, where: string): URL {
  const problem = portProblem(text);
  if (problem !== undefined) throw new UsageError(`${where}: ${problem}`);
  return parseCliUrl(text, where);
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
 * A plain string entry comes from `--provider`.
 */
export function expandProviders(entries: ReadonlyArray<string | ProviderLine>): PastedProvider[] {
  const out: PastedProvider[] = [];
  for (const e of entries) {
    const raw = typeof e === 'string' ? e : e.text;
    const origin = typeof e === 'string' ? '--provider' : e.origin;
    const entry = raw.trim();
    if (entry === '' || isZkCliNoise(entry)) continue;
    if (!(entry.startsWith('[') && entry.endsWith(']'))) {
      out.push({ given: raw, url: decodeProviderUrl(entry), origin });
      continue;
    }
    for (const item of entry.slice(1, -1).split(/,\s+/)) {
      const given = item.trim();
      if (given !== '') out.push({ given, url: decodeProviderUrl(given), origin });
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

/**
 * An invoker over a pasted URL, for the what-if tools (`route`, `select`): always available, never called. It
 * keeps its memos on itself, as the simulation's protocol invokers do (`InvokerMemoSlots`).
 */
export class UrlInvoker extends InvokerMemoSlots implements Invoker {
  readonly #url: URL;
  constructor(url: URL) {
    super();
    this.#url = url;
  }
  getUrl(): URL {
    return this.#url;
  }
  isAvailable(): boolean {
    return true;
  }
  *invoke(): Generator<never, Result, unknown> {
    return OK;
  }
}

/** Parses a URL given on the command line (`what` names the option in the error). */
export function parseCliUrl(text: string, what: string): URL {
  let url: URL;
  try {
    url = URL.valueOf(text);
  } catch {
    throw new UsageError(`${what}: not a URL: "${text}"`);
  }
  if (url.protocol === '' || url.host === '') {
    throw new UsageError(`${what}: expected protocol://host[:port]/Service?k=v, found "${text}"`);
  }
  return url;
}
