// Whether this code runs as one of the builds or from its TypeScript sources through tsx (development and
// the tests): the built server (dist/server, from scripts/build-server.mjs, which defines
// __AGENTMETER_BUILT__) or the laptop bundle (dist/laptop, from scripts/build-laptop.mjs, which defines
// __AGENTMETER_LAPTOP__). Only what reads a file beside the code or starts code from a file needs to know:
// a worker thread's entry is a .mjs beside the server bundle, the hook script sits beside the laptop bundle.
declare const __AGENTMETER_BUILT__: boolean | undefined;
declare const __AGENTMETER_LAPTOP__: boolean | undefined;

export const RUNS_BUILT: boolean = typeof __AGENTMETER_BUILT__ === 'boolean' && __AGENTMETER_BUILT__;
export const RUNS_AS_LAPTOP_BUNDLE: boolean = typeof __AGENTMETER_LAPTOP__ === 'boolean' && __AGENTMETER_LAPTOP__;
