// Folders and files of one user: private whatever the umask, and never reached through a planted link.
import { chmodSync, chownSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensurePrivateDir, writePrivateFile } from '../../common/private-files.ts';
import { tempDir } from '../helpers/tmp.ts';

const mode = (path: string) => lstatSync(path).mode & 0o7777;

describe('private folders and files', () => {
  let umask: number;
  beforeEach(() => {
    umask = process.umask(0);
  });
  afterEach(() => {
    process.umask(umask);
  });

  it('creates folders 0700 under umask 000, and tightens a looser folder of ours', () => {
    const dir = join(tempDir(), 'a', 'b');
    ensurePrivateDir(dir);
    expect(mode(dir)).toBe(0o700);
    chmodSync(dir, 0o755);
    ensurePrivateDir(dir);
    expect(mode(dir)).toBe(0o700);
  });

  it('refuses a link, a file, a shared (sticky) folder and another user’s folder, and changes none of them', () => {
    const root = tempDir();
    const target = join(root, 'target');
    mkdirSync(target, { mode: 0o755 });
    symlinkSync(target, join(root, 'link'));
    expect(() => ensurePrivateDir(join(root, 'link'))).toThrow(/is a symbolic link/);
    expect(mode(target)).toBe(0o755);
    writeFileSync(join(root, 'file'), 'x');
    expect(() => ensurePrivateDir(join(root, 'file'))).toThrow(/is not a folder/);
    const shared = join(root, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    expect(() => ensurePrivateDir(shared)).toThrow(/shared folder/);
    expect(mode(shared)).toBe(0o1777);
    if (process.getuid?.() === 0) {
      const other = join(root, 'other');
      mkdirSync(other, { mode: 0o755 });
      chownSync(other, 12345, 12345);
      expect(() => ensurePrivateDir(other)).toThrow(/belongs to uid 12345/);
      expect(mode(other)).toBe(0o755);
    }
  });

  it('writes files 0600 under umask 000; a link planted at the name is replaced, never written through', () => {
    const root = tempDir();
    const victim = join(root, 'victim');
    writeFileSync(victim, 'keep');
    const path = join(root, 'state.json');
    symlinkSync(victim, path);
    writePrivateFile(path, '{"a":1}');
    expect(lstatSync(path).isFile()).toBe(true);
    expect(mode(path)).toBe(0o600);
    expect(readFileSync(victim, 'utf8')).toBe('keep');
    // A link planted at the temporary name: the write fails rather than follow it.
    symlinkSync(victim, `${path}.tmp-${process.pid}`);
    expect(() => writePrivateFile(path, 'x')).toThrow(/ELOOP/);
    expect(readFileSync(victim, 'utf8')).toBe('keep');
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}');
    expect(statSync(victim).mode & 0o777).not.toBe(0o600);
  });
});
