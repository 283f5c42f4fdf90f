// The version of agentmeter, from package.json, the one file that says it. Imported (not read from disk
// beside the module) so that the laptop bundle (scripts/build-laptop.mjs), which has no package.json
// beside it, carries the version inside itself.
import packageJson from '../package.json' with { type: 'json' };

export const VERSION: string = packageJson.version;
