#!/usr/bin/env node
// Entry point of the `agentmeter` command: registers tsx so the TypeScript sources run as they are.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
await main(process.argv.slice(2));
