// The recordings of ccusage beside the oracle fixtures (collector/agents/<agent>/fixtures/oracle/ccusage-daily.json) are
// what the oracle tests compare with where ccusage cannot run. Here ccusage runs offline on the fixtures,
// laid out as the agents keep them, and its report must still equal the recording: a ccusage upgrade that
// reads these files differently, or a fixture changed without its recording, fails here.
// ORACLE_RECORD=1 writes the recordings instead (after a deliberate ccusage upgrade; then `biome format`).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CcusageAgent, claudeTranscripts, codexRollouts, geminiChats, layFile, recordingPath, runCcusage } from '../helpers/oracle.ts';
import { tempDir } from '../helpers/tmp.ts';

/** Lays the agent's fixtures whole into a fresh home; returns the environment ccusage reads them with. */
function laid(agent: CcusageAgent): Record<string, string> {
  const home = tempDir();
  if (agent === 'claude') {
    for (const file of claudeTranscripts(home)) layFile(file, 1, 1);
    return { HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude') };
  }
  if (agent === 'codex') {
    const codexHome = join(home, '.codex');
    for (const file of codexRollouts(codexHome)) layFile(file, 1, 1);
    return { HOME: home, CODEX_HOME: codexHome };
  }
  for (const file of geminiChats(home)) layFile(file, 1, 1);
  return { HOME: home, GEMINI_DATA_DIR: join(home, '.gemini', 'tmp') };
}

const runnable = runCcusage('codex', { HOME: tempDir() }) !== undefined;

describe.skipIf(!runnable)('ccusage recordings beside the oracle fixtures', () => {
  for (const agent of ['claude', 'codex', 'gemini'] as const) {
    it(`${agent}: a live offline run equals the recording`, { timeout: 60_000 }, () => {
      const live = runCcusage(agent, laid(agent));
      expect(live).toBeDefined();
      if (process.env['ORACLE_RECORD'] === '1') writeFileSync(recordingPath(agent), `${JSON.stringify(live, null, 2)}\n`);
      expect(live).toEqual(JSON.parse(readFileSync(recordingPath(agent), 'utf8')));
    });
  }
});
