// Lines, fingerprints and excluded files (docs/metrics.md §5), on hand-written cases.
import { describe, expect, it } from 'vitest';
import { isExcludedPath, looksBinary, parseLinguistRules } from '../../collector/code/exclude.ts';
import { countNonBlank, fingerprint, isBlank, splitLines } from '../../collector/code/lines.ts';

describe('lines and fingerprints', () => {
  it('a fingerprint trims the line and makes each inner run of whitespace one space, keeping case', () => {
    expect(fingerprint('\t  const  X =\t1;  ')).toBe('const X = 1;');
    expect(fingerprint('const X = 1;')).toBe(fingerprint('    const X\u00a0= 1;\r'));
    expect(fingerprint('Const x')).not.toBe(fingerprint('const x'));
  });

  it('blank lines never count', () => {
    expect(isBlank(' \t ')).toBe(true);
    expect(isBlank('}')).toBe(false);
    expect(countNonBlank(['a', '', '  ', 'b'])).toBe(2);
  });

  it('splits text as a file holds it', () => {
    expect(splitLines('')).toEqual([]);
    expect(splitLines('a\r\nb\n')).toEqual(['a', 'b']);
    expect(splitLines('a\n\n')).toEqual(['a', '']);
  });
});

describe('excluded files', () => {
  it.each([
    'package-lock.json',
    'web/yarn.lock',
    'go.sum',
    'Cargo.lock',
    'static/app.min.js',
    'a/b.MIN.css',
    'node_modules/x/index.js',
    'src/vendor/lib.c',
    'dist/app.js',
    'pkg/build/out.o',
  ])('%s is excluded', (path) => {
    expect(isExcludedPath(path)).toBe(true);
  });

  it.each(['src/app.ts', 'builder/a.ts', 'src/distance.ts', 'vendors.md', 'build.gradle', 'README.md'])('%s counts', (path) => {
    expect(isExcludedPath(path)).toBe(false);
  });

  it('honours linguist-generated and linguist-vendored, later lines winning', () => {
    const rules = parseLinguistRules(
      [
        '# generated code',
        '*.pb.go linguist-generated',
        'gen/** linguist-generated=true',
        'gen/keep.ts -linguist-generated',
        '/third_party/** linguist-vendored',
        'docs/*.md linguist-documentation',
        '*.snap text linguist-generated=false',
      ].join('\n'),
    );
    expect(isExcludedPath('api/v1/x.pb.go', rules)).toBe(true);
    expect(isExcludedPath('gen/a/b.ts', rules)).toBe(true);
    expect(isExcludedPath('gen/keep.ts', rules)).toBe(false);
    expect(isExcludedPath('third_party/z/y.c', rules)).toBe(true);
    expect(isExcludedPath('src/third_party/y.c', rules)).toBe(false);
    expect(isExcludedPath('docs/a.md', rules)).toBe(false);
    expect(isExcludedPath('a.snap', rules)).toBe(false);
  });

  it('binary text is what git calls binary: a NUL byte', () => {
    expect(looksBinary('a\0b')).toBe(true);
    expect(looksBinary('plain')).toBe(false);
  });
});
