// The model of an edit (docs/metrics.md §5: landed agent lines by agent and model) when the session's model
// call was read by a drain that re-read the session's files with no event of it (collector/daemon.ts reads a
// session's transcript again after its last event): that call's model must be remembered for the session's
// next edits, as a model read with an event is. A real git repository, one collector in-process, a server
// that keeps every record it is sent.
//
// Worked: the prompt's batch sees claude-sonnet-4-5; the next call, claude-opus-4-1, is read by a drain
// with no event; then the agent writes a file of 3 lines, committed and pushed: the landed commit's agent
// lines are 3 of claude-opus-4-1 (the latest model before the edit), not of claude-sonnet-4-5.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Collector } from '../../collector/daemon.ts';
import { createLogger } from '../../common/logger.ts';
import type { WireRecord } from '../../common/wire.ts';
import { claudeAssistantLine, postToolUse, userPrompt } from '../helpers/payloads.ts';
import { recordingServerForTests } from '../helpers/recording-server.ts';
import { writeSpoolFile } from '../helpers/spool.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test-read-again-model', level: 'silent' });
const records: WireRecord[] = [];
const DEV = 'dev@example.com';

const ingest = recordingServerForTests(records);

describe('a model call read again after the last event', () => {
  it('is the model of the edits that follow it', async () => {
    const dir = tempDir();
    const home = join(dir, 'home');
    const agentmeterHome = join(dir, 'am');
    const git = (cwd: string, args: string[]) =>
      execFileSync('git', args, {
        cwd,
        encoding: 'utf8',
        env: {
          ...process.env,
          GIT_CONFIG_GLOBAL: '/dev/null',
          GIT_CONFIG_SYSTEM: '/dev/null',
          GIT_AUTHOR_EMAIL: DEV,
          GIT_COMMITTER_EMAIL: DEV,
        },
      });
    const origin = join(dir, 'origin.git');
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', origin]);
    const work = join(dir, 'work');
    git(dir, ['clone', '--quiet', origin, work]);
    git(work, ['config', 'user.email', DEV]);
    git(work, ['config', 'user.name', 'Dev']);
    writeFileSync(join(work, 'README.md'), 'seed\n');
    git(work, ['add', '-A']);
    git(work, ['commit', '--quiet', '-m', 'seed']);
    git(work, ['push', '--quiet', 'origin', 'HEAD:main']);

    const project = join(home, '.claude', 'projects', '-work');
    mkdirSync(project, { recursive: true });
    const transcript = join(project, 'sess-m.jsonl');
    const t0 = Date.now() - 60_000;
    const iso = (ms: number) => new Date(ms).toISOString();
    const session = { session_id: 'sess-m', transcript_path: transcript, cwd: work };
    writeFileSync(
      transcript,
      `${claudeAssistantLine({ id: 'msg_1', model: 'claude-sonnet-4-5', timestamp: iso(t0 + 1000), output: 10, sessionId: 'sess-m', requestId: 'req_1' })}\n`,
    );
    const collector = new Collector({ server: ingest.url, apiKey: 'am_test', agentmeterHome, home, log, maxAttempts: 1 });
    writeSpoolFile(agentmeterHome, userPrompt('add the helpers', session), {}, t0 + 2000);
    expect((await collector.drain()).error).toBeUndefined();

    // The next call, with the model switched; no event of the session reads it: the drain's re-reading does.
    appendFileSync(
      transcript,
      `${claudeAssistantLine({ id: 'msg_2', model: 'claude-opus-4-1', timestamp: iso(t0 + 3000), output: 20, sessionId: 'sess-m', requestId: 'req_2' })}\n`,
    );
    expect(await collector.drain()).toMatchObject({ shipped: 2 });
    expect(records.filter((r) => r.kind === 'usage').map((r) => (r as { model: string }).model)).toEqual([
      'claude-sonnet-4-5',
      'claude-opus-4-1',
    ]);

    // The agent writes a file; its PostToolUse comes with no new transcript line.
    const content = 'export const a = 1;\nexport const b = 2;\nexport const c = 3;\n';
    const file = join(work, 'helpers.ts');
    writeFileSync(file, content);
    writeSpoolFile(
      agentmeterHome,
      postToolUse('Write', { file_path: file, content }, { type: 'create', filePath: file }, session),
      {},
      t0 + 4000,
    );
    expect((await collector.drain()).error).toBeUndefined();

    git(work, ['add', '-A']);
    git(work, ['commit', '--quiet', '-m', 'helpers']);
    git(work, ['push', '--quiet', 'origin', 'HEAD:main']);
    collector.scanSoon();
    expect((await collector.drain()).error).toBeUndefined();
    // The seed commit lands too (its author is the user); the agent's is the one of helpers.ts's 3 lines.
    const landed = (records.filter((r) => r.kind === 'commit') as unknown as { lines_added: number }[]).filter((c) => c.lines_added === 3);
    expect(landed).toHaveLength(1);
    expect(landed[0]).toMatchObject({ agent_lines: 3, by_agent: [{ agent: 'claude', model: 'claude-opus-4-1', lines: 3 }] });
    await collector.close();
  });
});
