/**
 * Checks the relative links of Markdown files the way GitHub resolves them: the target file must
 * exist, and a `#anchor` must be the slug of one of the target's headings (github-slugger's rules:
 * lowercase, punctuation dropped except `-` and `_`, each space a `-`, `-1`, `-2` … on repeated
 * headings) or an explicit `<a id>` / `<a name>`. Links in fenced code and code spans are not links.
 * External links (`https:`, `mailto:` …) are not checked. Pure functions: the caller supplies the
 * file system, so the checker is tested on in-memory pages too.
 */
import { posix } from 'node:path';

/** A link found in a Markdown file: its 1-based line and its target as written. */
export interface MarkdownLink {
  line: number;
  target: string;
}

/** A link whose file or anchor does not exist. */
export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  reason: string;
}

/** What the checker may ask of the file system; paths are POSIX, relative to the repository root. */
export interface LinkFileSystem {
  exists(path: string): boolean;
  /** The text of a Markdown file, or undefined when it cannot be read. */
  read(path: string): string | undefined;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;

/** The anchor GitHub gives a heading with this rendered text (before duplicate suffixes). */
export function githubSlug(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Splits a line into code spans and the text between them (CommonMark: equal runs of backticks). */
function splitCodeSpans(line: string): { code: boolean; text: string }[] {
  const parts: { code: boolean; text: string }[] = [];
  const span = /(`+)([\s\S]*?[^`])\1(?!`)/g;
  let last = 0;
  for (const m of line.matchAll(span)) {
    if (m.index > last) parts.push({ code: false, text: line.slice(last, m.index) });
    const content = m[2];
    // CommonMark strips one space from each side when both are there.
    const stripped = /^ .* $/.test(content) && content.trim() !== '' ? content.slice(1, -1) : content;
    parts.push({ code: true, text: stripped });
    last = m.index + m[0].length;
  }
  if (last < line.length) parts.push({ code: false, text: line.slice(last) });
  return parts;
}

/** The text GitHub renders for a heading's Markdown source (what its slug is made of). */
export function headingText(source: string): string {
  return splitCodeSpans(source)
    .map((p) =>
      p.code
        ? p.text
        : p.text
            .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
            .replace(/<[^>]+>/g, '')
            .replace(/\*\*|__|\*/g, ''),
    )
    .join('')
    .trim();
}

/** Lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(markdown: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | null = null;
  markdown.split(/\r?\n/).forEach((text, i) => {
    const m = FENCE.exec(text);
    if (fence !== null) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && text.trim() === m[1]) fence = null;
      return;
    }
    if (m) {
      fence = m[1];
      return;
    }
    out.push({ line: i + 1, text });
  });
  return out;
}

/** Every anchor a Markdown file offers: heading slugs with GitHub's duplicate suffixes, and `<a id|name>`. */
export function anchorsOf(markdown: string): Set<string> {
  const occurrences = new Map<string, number>();
  const anchors = new Set<string>();
  const add = (text: string): void => {
    const base = githubSlug(headingText(text));
    let slug = base;
    // github-slugger: bump the base's counter until the slug is unused.
    while (occurrences.has(slug)) {
      const n = occurrences.get(base)! + 1;
      occurrences.set(base, n);
      slug = `${base}-${n}`;
    }
    occurrences.set(slug, 0);
    anchors.add(slug);
  };
  const lines = proseLines(markdown);
  lines.forEach(({ line, text }, i) => {
    const atx = ATX.exec(text);
    if (atx) add(atx[2] ?? '');
    else if (SETEXT.test(text) && i > 0) {
      const prev = lines[i - 1];
      if (prev.line === line - 1 && prev.text.trim() !== '' && !ATX.exec(prev.text) && !/^\s*([-*+]|\d+[.)])\s/.test(prev.text) && !prev.text.includes('|')) {
        add(prev.text.trim());
      }
    }
    for (const m of text.matchAll(/<a\s+(?:[^>]*\s)?(?:id|name)\s*=\s*["']([^"']+)["']/gi)) anchors.add(m[1]);
  });
  return anchors;
}

/** Every inline link, image and link reference definition outside code. */
export function linksOf(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { line, text } of proseLines(markdown)) {
    const prose = splitCodeSpans(text)
      .map((p) => (p.code ? 'code' : p.text))
      .join('');
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/.exec(prose);
    if (definition) {
      links.push({ line, target: definition[1] });
      continue;
    }
    for (const m of prose.matchAll(/!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(?:<([^>]*)>|([^\s)]*))(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)) {
      links.push({ line, target: m[1] ?? m[2] });
    }
  }
  return links;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Checks every relative link of `files` (repository-relative Markdown paths); returns the broken ones. */
export function checkLinks(files: readonly string[], fs: LinkFileSystem): BrokenLink[] {
  const broken: BrokenLink[] = [];
  const anchorCache = new Map<string, Set<string> | undefined>();
  const anchorsIn = (path: string): Set<string> | undefined => {
    if (!anchorCache.has(path)) {
      const text = fs.read(path);
      anchorCache.set(path, text === undefined ? undefined : anchorsOf(text));
    }
    return anchorCache.get(path);
  };
  for (const file of files) {
    const text = fs.read(file);
    if (text === undefined) {
      broken.push({ file, line: 0, target: file, reason: 'cannot read the file' });
      continue;
    }
    for (const { line, target } of linksOf(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
      const hash = target.indexOf('#');
      const pathPart = hash < 0 ? target : target.slice(0, hash);
      const anchor = hash < 0 ? null : safeDecode(target.slice(hash + 1));
      let resolved: string;
      if (pathPart === '') resolved = file;
      else {
        const decoded = safeDecode(pathPart);
        resolved = decoded.startsWith('/')
          ? posix.normalize(decoded.slice(1))
          : posix.normalize(posix.join(posix.dirname(file), decoded));
      }
      const bad = (reason: string): void => {
        broken.push({ file, line, target, reason });
      };
      if (resolved === '..' || resolved.startsWith('../')) {
        bad('points outside the repository');
        continue;
      }
      resolved = resolved.replace(/\/$/, '') || '.';
      if (!fs.exists(resolved)) {
        bad(`no file ${resolved}`);
        continue;
      }
      if (anchor === null || anchor === '') continue;
      if (!/\.md$/i.test(resolved)) {
        bad(`#${anchor} in ${resolved}, which is not Markdown`);
        continue;
      }
      const anchors = anchorsIn(resolved);
      if (anchors === undefined) bad(`cannot read ${resolved}`);
      else if (!anchors.has(anchor)) bad(`no heading #${anchor} in ${resolved}`);
    }
  }
  return broken;
}
