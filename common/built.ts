// Whether this code runs as the built server (dist/server, from scripts/build-server.mjs, which defines
// __AGENTMETER_BUILT__) or from its TypeScript sources through tsx (development and the tests). Only what
// starts code from a file needs to know: a worker thread's entry is a .mjs beside the bundle when built.
declare const __AGENTMETER_BUILT__: boolean | undefined;

export const RUNS_BUILT: boolean = typeof __AGENTMETER_BUILT__ === 'boolean' && __AGENTMETER_BUILT__;
