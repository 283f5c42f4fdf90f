// The oldest Node.js the laptop bundle (cli/laptop.ts, checked first by cli/laptop-guard.ts) and the
// installer (api/install/install.sh) accept: package.json's engines (yargs 18 and the
// rest of the CLI are tested there). Written in plain old JavaScript syntax so that it still runs, and
// says so in one line, on a Node.js too old for the rest of the bundle.

export const MIN_NODE = '20.19.0';

const parts = (version: string) =>
  version
    .replace(/^v/, '')
    .split('.')
    .map((n) => Number.parseInt(n, 10) || 0);

/** The one line to print when `version` (process.versions.node) is older than `min`; undefined when it is recent enough. */
export function nodeTooOld(version: string, min: string = MIN_NODE): string | undefined {
  const have = parts(version);
  const need = parts(min);
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) > (need[i] ?? 0)) return undefined;
    if ((have[i] ?? 0) < (need[i] ?? 0))
      return `agentmeter: needs Node.js ${min} or newer, and this is Node.js ${version}; install a current Node.js LTS (https://nodejs.org) and run it again`;
  }
  return undefined;
}
