// Preload (`node --import`) that appends the URL of every module the process resolves to the file named
// by AGENTMETER_MODULE_TRACE, one per line: the start-up test reads which modules a command loaded.
// The hooks run after tsx's (registered later, so run first), so they see the .ts files it resolves too.
import { register } from 'node:module';

const out = process.env['AGENTMETER_MODULE_TRACE'];
if (out) register(new URL('./module-trace-hooks.mjs', import.meta.url), { data: { out } });
