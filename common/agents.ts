// The one table of the agents agentmeter reads. Adding an agent is a row here and its folder,
// collector/agents/<agent>/, which holds everything about it; every other per-agent table is read from
// the folders by name (`eachAgent` below), never written out again:
//   index.ts   default export: its adapter (payload parsing, tools, usage reader and state, hooks)
//   hooks.ts   default export: where its settings are and how its hooks are installed (the light part
//              the CLI reads at start without the parsers)
//   otel.ts    default export: its OpenTelemetry names, or null when it exports none (data only: the
//              server's receiver reads it too, so it imports nothing but common/)
//   sample.ts  default export: its sessions in the demo organization, and who uses it there
//   fixtures/  real files of the agent, each with its SOURCE.md
// test/unit/agents.unit.test.ts walks this table: a folder missing a part, or a folder without a row,
// fails it, as does a part whose export is not what its loader takes.
// The order is the one `hooks`, `doctor` and `uninstall` go through them in.
export const AGENTS = ['claude', 'droid', 'codex', 'gemini', 'qwen', 'cursor', 'copilot'] as const;
export type Agent = (typeof AGENTS)[number];

/**
 * Every agent's part `file`, from its folder: `load` imports it (an `import()` whose path is a template
 * over the agent's name, which esbuild turns into a table of every matching file, so the built server and
 * the laptop bundle hold them all) and `accepts` vets its default export. A part that is missing or of the
 * wrong shape stops the module that asks for it, naming the file.
 */
export async function eachAgent<T>(
  file: string,
  load: (agent: Agent) => Promise<{ default?: unknown }>,
  accepts: (part: unknown, agent: Agent) => part is T,
): Promise<Readonly<Record<Agent, T>>> {
  const parts = await Promise.all(
    AGENTS.map(async (agent) => {
      const where = `collector/agents/${agent}/${file}`;
      let module: { default?: unknown };
      try {
        module = await load(agent);
      } catch (error) {
        throw new Error(`${where} does not load (every agent in common/agents.ts has one): ${(error as Error).message}`);
      }
      if (!accepts(module.default, agent)) throw new Error(`${where}: its default export is not the agent's ${file} part`);
      return [agent, module.default] as const;
    }),
  );
  return Object.fromEntries(parts) as Record<Agent, T>;
}

/** A plain object (not null, not an array): the first check of every part's shape. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
