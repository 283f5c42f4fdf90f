// File extension or file name → language, from GitHub Linguist's data (linguist-languages). Linguist
// resolves ambiguous extensions with content heuristics we do not have (the file never leaves the
// developer's machine), so ambiguity is settled by a fixed rule: the language for which the extension is
// its primary one wins, then programming over markup over data over prose, then a short list of the
// usual suspects, then the name. Deterministic, so history recomputes the same.
import * as linguist from 'linguist-languages';

interface LinguistLanguage {
  name: string;
  type?: string;
  extensions?: readonly string[];
  filenames?: readonly string[];
}

const TYPE_RANK: Record<string, number> = { programming: 0, markup: 1, data: 2, prose: 3 };

/** Where the usual ambiguities should land (extension without dot → language). */
const PREFERRED: Record<string, string> = {
  h: 'C',
  html: 'HTML',
  cfg: 'INI',
  htm: 'HTML',
  m: 'Objective-C',
  pl: 'Perl',
  pm: 'Perl',
  t: 'Perl',
  md: 'Markdown',
  ts: 'TypeScript',
  sql: 'SQL',
  v: 'Verilog',
  r: 'R',
  cs: 'C#',
  fs: 'F#',
  inc: 'PHP',
  cls: 'Apex',
  json: 'JSON',
  yml: 'YAML',
  yaml: 'YAML',
  xml: 'XML',
  toml: 'TOML',
  txt: 'Text',
  sh: 'Shell',
  rs: 'Rust',
  php: 'PHP',
  d: 'D',
  l: 'Lex',
  ms: 'Roff',
  nb: 'Mathematica',
  pro: 'Prolog',
  re: 'Reason',
  sc: 'Scala',
  b: 'Brainfuck',
};

export interface LanguageRow {
  kind: 'ext' | 'name';
  /** Lower-case extension without the dot, or the exact file name. */
  key: string;
  language: string;
}

/** Pure: the whole lookup table. */
export function languageTable(): LanguageRow[] {
  const best = new Map<string, { language: string; rank: [number, number, string] }>();
  const names = new Map<string, string>();
  for (const lang of Object.values(linguist as unknown as Record<string, LinguistLanguage>)) {
    (lang.extensions ?? []).forEach((ext, index) => {
      const key = ext.replace(/^\./, '').toLowerCase();
      if (!key || key.includes('.')) return;
      const rank: [number, number, string] = [index === 0 ? 0 : 1, TYPE_RANK[lang.type ?? 'prose'] ?? 4, lang.name];
      const current = best.get(key);
      if (!current || compare(rank, current.rank) < 0) best.set(key, { language: lang.name, rank });
    });
    for (const filename of lang.filenames ?? []) if (!names.has(filename)) names.set(filename, lang.name);
  }
  const rows: LanguageRow[] = [];
  for (const [key, { language }] of best) rows.push({ kind: 'ext', key, language: PREFERRED[key] ?? language });
  for (const [key, language] of names) rows.push({ kind: 'name', key, language });
  return rows;
}

function compare(a: [number, number, string], b: [number, number, string]): number {
  return a[0] - b[0] || a[1] - b[1] || a[2].localeCompare(b[2]);
}

/** Pure: the language of one file, as the pipeline resolves it (extension first, else file name). */
export function languageOf(table: Map<string, string>, file: { ext: string; name?: string }): string | undefined {
  if (file.ext) return table.get(`ext:${file.ext}`);
  return file.name ? table.get(`name:${file.name}`) : undefined;
}

export function languageMap(rows = languageTable()): Map<string, string> {
  return new Map(rows.map((r) => [`${r.kind}:${r.key}`, r.language]));
}
