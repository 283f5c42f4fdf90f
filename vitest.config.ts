import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds the dashboard (web/dist) when it is missing or stale, once for the whole run.
    globalSetup: ['test/helpers/web-build.setup.ts'],
    // Removes each file's temporary folders when the file ends.
    setupFiles: ['test/helpers/tmp.setup.ts'],
    // Integration and end-to-end suites start real servers and processes: give them room, run files in
    // parallel on the two cores, never tests within a file.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // Each worker process runs its files one after another without loading every module again: a fresh
    // process per file spent about 40 s of the suite's CPU importing DuckDB, Fastify and the sources. Tests
    // therefore restore what they change of the process (umask, environment) in finally blocks.
    isolate: false,
    env: { TZ: 'UTC', NO_COLOR: '1', LOG_LEVEL: 'silent' },
  },
});
