// A subagent transcript the collector found by listing its session's folder is read only as the regular
// file it listed: one swapped for a link before it is opened is not followed (collector/agents/claude/usage.ts).
// readTranscripts is given the link as listed, as a swap between the listing and the open would leave it.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAUDE_USAGE, readTranscripts } from '../../collector/agents/claude/usage.ts';
import { claudeAssistantLine } from '../helpers/payloads.ts';
import { tempDir } from '../helpers/tmp.ts';

describe('a subagent transcript swapped for a link after the listing', () => {
  it('is not read; the same link named by an event (SubagentStop) is', () => {
    const root = tempDir();
    const project = join(root, '.claude', 'projects', '-home-dev-repo');
    const sid = '3f1c9a2e-5b7d-4e8f-9a0b-1c2d3e4f5a6d';
    const main = join(project, `${sid}.jsonl`);
    mkdirSync(join(project, sid, 'subagents'), { recursive: true });
    writeFileSync(
      main,
      `${claudeAssistantLine({ id: 'msg_main', requestId: 'req_main', timestamp: '2026-03-01T10:00:00Z', output: 7 })}\n`,
    );
    const far = join(root, 'elsewhere.jsonl');
    writeFileSync(far, `${claudeAssistantLine({ id: 'msg_far', requestId: 'req_far', timestamp: '2026-03-01T10:00:30Z', output: 100 })}\n`);
    const link = join(project, sid, 'subagents', 'agent-a1.jsonl');
    symlinkSync(far, link);

    const listed = readTranscripts(sid, new Set([main]), new Set([link]), CLAUDE_USAGE.empty());
    expect(listed.records.filter((r) => r.kind === 'usage').map((r) => r.id)).toEqual(['cc:msg_main:req_main']);
    expect(listed.problems).toEqual([`transcript ${link} is not readable`]);

    const named = readTranscripts(sid, new Set([main, link]), new Set(), CLAUDE_USAGE.empty());
    expect(named.records.filter((r) => r.kind === 'usage').map((r) => r.id)).toEqual(['cc:msg_main:req_main', 'cc:msg_far:req_far']);
  });
});
