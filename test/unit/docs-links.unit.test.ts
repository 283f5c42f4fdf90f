// The documentation holds together: in every Markdown file of the repository (README, ARCHITECTURE,
// CONTRIBUTING, docs/), each relative link and image points at a file that exists, each `#anchor` at a
// heading of its page, and each code fence is closed by a bare fence (a fence line with text after it
// once left 67 lines of the README rendered as code). markdownlint-cli2 checks the rest of the Markdown
// in `npm test`; it does not follow links.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

const SKIPPED = new Set(['node_modules', 'dist', 'fixtures', 'out', 'data', '.git']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIPPED.has(name) || name.startsWith('.')) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces made hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_[\]()]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

interface Parsed {
  /** Problems with the fences, as `line N: ...`. */
  fenceProblems: string[];
  /** Links and images outside code, with their line. */
  links: { line: number; target: string }[];
  anchors: Set<string>;
}

function parseMarkdown(text: string): Parsed {
  const fenceProblems: string[] = [];
  const links: Parsed['links'] = [];
  const anchors = new Set<string>();
  let fence: { marker: string; line: number } | undefined;
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    const opening = /^\s{0,3}(`{3,}|~{3,})(.*)$/.exec(raw);
    if (fence) {
      if (opening && opening[1]!.startsWith(fence.marker)) {
        if (opening[2]!.trim() === '') fence = undefined;
        else fenceProblems.push(`line ${line}: text after a closing fence (the fence of line ${fence.line} stays open)`);
      }
      return;
    }
    if (opening) {
      fence = { marker: opening[1]!, line };
      return;
    }
    const heading = /^#{1,6}\s+(.*?)\s*#*$/.exec(raw);
    if (heading) {
      const base = anchorOf(heading[1]!);
      let anchor = base;
      for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
      anchors.add(anchor);
    }
    const prose = raw.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line, target: match[1]! });
  });
  if (fence) fenceProblems.push(`line ${fence.line}: a fence that is never closed`);
  return { fenceProblems, links, anchors };
}

describe('documentation links and fences', () => {
  const files = markdownFiles(ROOT);
  const parsed = new Map(files.map((file) => [file, parseMarkdown(readFileSync(file, 'utf8'))]));

  it('finds the documentation', () => {
    const names = files.map((f) => relative(ROOT, f));
    for (const expected of ['README.md', 'ARCHITECTURE.md', 'CONTRIBUTING.md', 'docs/README.md', 'docs/metrics.md'])
      expect(names).toContain(expected);
  });

  it('the README stays a page a newcomer reads in five minutes: at most 150 lines', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(150);
  });

  it('the checks themselves: a fence with text after it, an unclosed fence, anchors', () => {
    expect(parseMarkdown('```sh\nls\n``` then prose\nmore\n```\n').fenceProblems).toEqual([
      'line 3: text after a closing fence (the fence of line 1 stays open)',
    ]);
    expect(parseMarkdown('```\nx\n').fenceProblems).toEqual(['line 1: a fence that is never closed']);
    const { anchors, links } = parseMarkdown('## Roll it out: one line\n\n## Roll it out: one line\n\nSee [a](b.md#c) and `[no](x.md)`.\n');
    expect([...anchors]).toEqual(['roll-it-out-one-line', 'roll-it-out-one-line-1']);
    expect(links).toEqual([{ line: 5, target: 'b.md#c' }]);
  });

  it('every fence is closed by a bare fence', () => {
    const problems = [...parsed].flatMap(([file, p]) => p.fenceProblems.map((problem) => `${relative(ROOT, file)} ${problem}`));
    expect(problems).toEqual([]);
  });

  it('every relative link and image resolves, anchors included', () => {
    const broken: string[] = [];
    for (const [file, { links, anchors }] of parsed) {
      for (const { line, target } of links) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const where = `${relative(ROOT, file)}:${line} → ${target}`;
        if (path === '') {
          if (anchor && !anchors.has(anchor)) broken.push(`${where} (no such heading)`);
          continue;
        }
        const resolved = resolve(dirname(file), decodeURIComponent(path));
        if (!resolved.startsWith(ROOT) || !existsSync(resolved)) {
          broken.push(`${where} (no such file)`);
          continue;
        }
        if (anchor && resolved.endsWith('.md')) {
          const other = parsed.get(resolved) ?? parseMarkdown(readFileSync(resolved, 'utf8'));
          if (!other.anchors.has(anchor)) broken.push(`${where} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
