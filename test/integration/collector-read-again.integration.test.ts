// The lines an agent writes after a turn's last hook (Claude Code runs its Stop hook before the turn's final
// assistant line is written): the running collector reads the session's transcript again on the drains
// that find the spool empty, for ten minutes after its last event, so the last call of a session that has
// no later event is counted too. One collector in-process, a server that keeps every record it is sent.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Collector } from '../../collector/daemon.ts';
import { createLogger } from '../../common/logger.ts';
import type { WireRecord } from '../../common/wire.ts';
import { claudeAssistantLine, stop } from '../helpers/payloads.ts';
import { recordingServerForTests } from '../helpers/recording-server.ts';
import { writeSpoolFile } from '../helpers/spool.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test-read-again', level: 'silent' });
const records: WireRecord[] = [];

const ingest = recordingServerForTests(records);

describe('the collector reads a session again after its last event', () => {
  it("counts the turn's last call, written after the Stop hook ran, with no later event of the session", async () => {
    const dir = tempDir();
    const home = join(dir, 'home');
    const agentmeterHome = join(dir, 'am');
    const project = join(home, '.claude', 'projects', '-home-dev-app');
    mkdirSync(project, { recursive: true });
    const transcript = join(project, 'sess-late.jsonl');
    writeFileSync(
      transcript,
      `${claudeAssistantLine({ id: 'msg_a', timestamp: '2026-11-20T10:00:01Z', input: 10, output: 100, sessionId: 'sess-late' })}\n`,
    );
    const collector = new Collector({ server: ingest.url, apiKey: 'am_test', agentmeterHome, home, log, maxAttempts: 1 });
    writeSpoolFile(agentmeterHome, stop({ session_id: 'sess-late', transcript_path: transcript }), {}, Date.UTC(2026, 10, 20, 10, 0, 2));
    expect((await collector.drain()).error).toBeUndefined();
    const usage = () => records.filter((r) => r.kind === 'usage').map((r) => [r.id, (r as { output_tokens: number }).output_tokens]);
    expect(usage()).toEqual([[expect.stringContaining('msg_a'), 100]]);
    // The final line comes after the Stop hook; no event of the session follows. The next drain (the poll's) reads it.
    appendFileSync(
      transcript,
      `${claudeAssistantLine({ id: 'msg_b', timestamp: '2026-11-20T10:00:03Z', input: 20, output: 200, sessionId: 'sess-late' })}\n`,
    );
    const again = await collector.drain();
    expect(again).toMatchObject({ shipped: 2 });
    expect(usage()).toEqual([
      [expect.stringContaining('msg_a'), 100],
      [expect.stringContaining('msg_b'), 200],
    ]);
    // Read again with nothing new: nothing is sent.
    const sent = records.length;
    expect(await collector.drain()).toMatchObject({ shipped: 0 });
    expect(records.length).toBe(sent);
    await collector.close();
  });
});
