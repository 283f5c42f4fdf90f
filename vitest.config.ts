import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds the dashboard, the laptop bundle and the server when missing or stale, once for the whole run.
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
    // AGENTMETER_FROM_SOURCES: the CLI the tests start runs the TypeScript through tsx, so a test sees the
    // sources as they are; test/e2e/fresh-clone.e2e.test.ts runs the built server as a plain install does.
    env: { TZ: 'UTC', NO_COLOR: '1', LOG_LEVEL: 'silent', AGENTMETER_FROM_SOURCES: '1' },
  },
});
