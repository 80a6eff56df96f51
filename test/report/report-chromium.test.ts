/**
 * The run report in a real browser: headless Chromium renders the reports of the shipped
 * rolling-restart scenario (release-day-push-storm) and the zone-down scenario (zone-a-down). The
 * screenshot must be a real picture (decoded here: size, ink, colours), the DOM after the scripts
 * ran must hold every chart's canvas with the fault-marker labels it drew, and a chart's PNG
 * export must be a non-blank image. Chromium is found as `chromium`, `chromium-browser`,
 * `google-chrome` on the PATH or `CHROMIUM=path`; without one these tests skip.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateSync } from 'node:zlib';
import { main } from '../../src/cli/main.js';
import { browse, findChromium } from '../helpers/chromium.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

const chromium = findChromium();

/** Runs headless Chromium on `file` with `args` (a screenshot or a DOM dump); returns stdout. */
const browseReport = (file: string, args: string[]): Promise<string> => browse(chromium!, tempDir, file, ['--hide-scrollbars', ...args]);

interface Picture {
  width: number;
  height: number;
  /** Share of pixels that are not (near) white. */
  ink: number;
  /** Distinct colours among every 3rd pixel. */
  colours: number;
}

/** Decodes an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium and canvas.toDataURL write). */
function decodePng(png: Buffer): Picture {
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  let pos = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  while (pos < png.length) {
    const length = png.readUInt32BE(pos);
    const type = png.toString('latin1', pos + 4, pos + 8);
    const data = png.subarray(pos + 8, pos + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      expect([data[8], data[12]]).toEqual([8, 0]); // bit depth 8, not interlaced
      channels = data[9] === 6 ? 4 : data[9] === 2 ? 3 : 0;
      expect(channels).toBeGreaterThan(0);
    } else if (type === 'IDAT') idat.push(data);
    pos += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  let prev = new Uint8Array(stride);
  let ink = 0;
  const colours = new Set<number>();
  let at = 0;
  for (let y = 0; y < height; y++) {
    const filter = raw[at++]!;
    const cur = new Uint8Array(stride);
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? cur[x - channels]! : 0;
      const b = prev[x]!;
      const c = x >= channels ? prev[x - channels]! : 0;
      const v = raw[at + x]!;
      let p: number;
      if (filter === 0) p = v;
      else if (filter === 1) p = v + a;
      else if (filter === 2) p = v + b;
      else if (filter === 3) p = v + ((a + b) >> 1);
      else {
        const pa = Math.abs(b - c);
        const pb = Math.abs(a - c);
        const pc = Math.abs(a + b - 2 * c);
        p = v + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
      }
      cur[x] = p & 255;
    }
    at += stride;
    for (let x = 0; x < width; x++) {
      const i = x * channels;
      const [r, g, bl] = [cur[i]!, cur[i + 1]!, cur[i + 2]!];
      if (r < 240 || g < 240 || bl < 240) ink++;
      if ((x + y) % 3 === 0) colours.add((r << 16) | (g << 8) | bl);
    }
    prev = cur;
  }
  return { width, height, ink: ink / (width * height), colours: colours.size };
}

async function cli(args: string[]) {
  const err: string[] = [];
  const code = await main(args, { stdout: () => {}, stderr: (s) => err.push(s), cwd: root });
  return { code, err: err.join('') };
}

const reports = new Map<string, Promise<{ file: string; html: string }>>();

/** The scenario's run report (run once per file, shared by its tests). */
function report(scenario: string, name: string): Promise<{ file: string; html: string }> {
  if (!reports.has(scenario)) reports.set(scenario, writeReport(scenario, name));
  return reports.get(scenario)!;
}

async function writeReport(scenario: string, name: string): Promise<{ file: string; html: string }> {
  const out = tempDir('zs-report-chromium-');
  const r = await cli(['run', scenario, '--report', '--out', out, '--jobs', '1']);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  const [run] = readdirSync(join(out, name));
  const file = join(out, name, run!, 'report.html');
  return { file, html: readFileSync(file, 'utf8') };
}

const CASES = [
  {
    scenario: 'scenarios/release-day-push-storm.yaml',
    name: 'release-day-push-storm',
    labels: [
      '20 s rollingRestart com.example.OrderService (batch 2 every 5s): 20 instances in 10 batches',
      '65 s rollingRestart com.example.OrderService (batch 2 every 5s): 20 instances in 10 batches ends',
    ],
  },
  {
    scenario: 'scenarios/zone-a-down.yaml',
    name: 'zone-a-down',
    labels: ['60 s zoneDown zoneA (blackhole)', '120 s zoneDown zoneA (blackhole) ends'],
  },
];

describe.skipIf(!chromium)('run report in headless Chromium', () => {
  describe.each(CASES)('$name', ({ scenario, name, labels }) => {
    it('renders to a screenshot that is a real picture, not a blank page', async () => {
      const { file } = await report(scenario, name);
      const shot = join(tempDir('zs-shot-'), 'report.png');
      await browseReport(file, ['--window-size=1300,2400', `--screenshot=${shot}`]);
      expect(statSync(shot).size).toBeGreaterThan(40_000);
      const picture = decodePng(readFileSync(shot));
      expect([picture.width, picture.height]).toEqual([1300, 2400]);
      expect(picture.ink).toBeGreaterThan(0.03);
      expect(picture.colours).toBeGreaterThan(50);
    }, 180_000);

    it('draws every chart, each with its fault-marker labels, without a script error', async () => {
      const { file, html } = await report(scenario, name);
      const charts = html.match(/<div id="chart-\d+" class="chart"><\/div>/g)!.length;
      expect(charts).toBeGreaterThanOrEqual(5);
      const dom = await browseReport(file, ['--window-size=1300,900', '--dump-dom']);
      expect(dom).not.toMatch(/data-errors=/);
      expect(dom).toMatch(new RegExp(`<body[^>]* data-charts="${charts}"`));
      expect(dom.match(/<canvas /g)?.length).toBe(charts);
      expect(dom.match(/<button class="png"/g)?.length).toBe(charts);
      const drawn = [...dom.matchAll(/data-marker-labels="([^"]*)"/g)].map((m) => m[1]);
      expect(drawn).toEqual(Array(charts).fill(labels.join(' | ')));
      expect(dom).toContain(`Fault markers: ${labels.join('; ')}`);
    }, 180_000);

    it("exports a chart as a PNG with the chart's title, plot and legend", async () => {
      const { file, html } = await report(scenario, name);
      const probe = join(tempDir('zs-probe-'), 'probe.html');
      writeFileSync(
        probe,
        html.replace('</body>', "<script>setTimeout(function () { document.body.dataset.png = window.zonesimPng('chart-0'); }, 100);</script></body>"),
      );
      const dom = await browseReport(probe, ['--window-size=1300,900', '--dump-dom']);
      const url = /data-png="data:image\/png;base64,([^"]+)"/.exec(dom);
      expect(url).not.toBeNull();
      const picture = decodePng(Buffer.from(url![1]!, 'base64'));
      // The plot is min(1100, 1300 - 80) px wide and 240 high; a 28 px title above, one 18 px legend row and 10 px below.
      expect(picture.width).toBe(1100);
      expect(picture.height).toBe(28 + 240 + 18 + 10);
      expect(picture.ink).toBeGreaterThan(0.02);
      expect(picture.colours).toBeGreaterThan(10);
    }, 180_000);
  });
});
