// Runs before each test file (a setup file, unlike a module, is evaluated again for every file even when
// the worker keeps its modules between files, as `isolate: false` does): the file's temporary folders
// are removed when it ends. A module-level afterAll in tmp.ts was registered only for the first file a
// worker ran, and the folders of every later file were left in the temporary folder.
import { afterAll } from 'vitest';
import { removeTempDirs } from './tmp.ts';

afterAll(removeTempDirs);
