// Edit line counting for every payload shape of the five agents (docs/metrics.md §5 "Edits"), on fixtures whose
// numbers were worked out by hand (test/fixtures/code/edits/SOURCE.md says where each shape comes from).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPatchEdits, textDiffLines, unifiedDiffLines } from '../../collector/code/edit-lines.ts';
import { fileFacts } from '../../collector/file-facts.ts';
import type { Agent } from '../../common/agents.ts';
import { agentFixtures } from '../helpers/agent-fixtures.ts';
import { callEditsOf, editLines, filesOf } from '../helpers/writes.ts';

const editCases = join(import.meta.dirname, '..', 'fixtures', 'code', 'edits');
const counts = (edits: ReturnType<typeof editLines>) => edits.map((e) => ({ path: e.path, added: e.added.length, deleted: e.deleted }));

interface Case {
  name: string;
  agent: string;
  tool_name: string;
  tool_input: unknown;
  tool_response: unknown;
  expected: { path: string; added: number; deleted: number }[];
}
const cases = JSON.parse(readFileSync(join(editCases, 'claude-droid-edits.json'), 'utf8')) as Case[];

/** A fixture payload of another agent (`<agent>/<path in its fixtures>`), with its {{placeholders}} filled as its own tests fill them. */
function payload(path: string): { tool_name: string; tool_input: unknown; tool_response: unknown } {
  const [agent, ...rest] = path.split('/');
  return JSON.parse(
    readFileSync(agentFixtures(agent as Agent, ...rest), 'utf8')
      .replaceAll('{{cwd}}', '/home/dev/app')
      .replaceAll('{{chats}}', '/home/dev/chats'),
  );
}

describe('edit lines: Claude Code and Droid', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(counts(editLines(c.agent, c.tool_name, c.tool_input, c.tool_response))).toEqual(c.expected);
  });

  it('keeps the added lines themselves, duplicates included, for the ledger', () => {
    const [edit] = editLines('claude', 'Write', { file_path: '/r/a.ts', content: 'x();\nx();\n\ny();' }, { type: 'create' });
    expect(edit!.added).toEqual(['x();', 'x();', 'y();']);
  });

  it('marks text with a NUL byte binary', () => {
    const [edit] = editLines('droid', 'Create', { file_path: '/r/a.bin', content: 'a\0b\n' }, {});
    expect(edit!.binary).toBe(true);
  });

  it('tools that write no file give nothing', () => {
    expect(editLines('claude', 'Read', { file_path: '/r/a.ts' }, {})).toEqual([]);
    expect(editLines('claude', 'Bash', { command: 'echo hi > a.ts' }, {})).toEqual([]);
    expect(editLines('unknown', 'Write', { file_path: '/r/a.ts', content: 'x' }, {})).toEqual([]);
  });
});

describe('edit lines: Codex apply_patch (real hook payload)', () => {
  const lines = readFileSync(agentFixtures('codex', 'hooks-interactive.jsonl'), 'utf8').trim().split('\n');
  const post = lines
    .map((l) => JSON.parse(l).payload)
    .find((p: { hook_event_name: string; tool_name: string }) => p.hook_event_name === 'PostToolUse' && p.tool_name === 'apply_patch');

  it('counts per file: an added file all added, an update its +/- lines, a move under its new name, a deletion nothing', () => {
    // By hand: greeting.ts adds 1 line; README.md swaps 1 for 1; report.py (moved from old_report.py) 1 for 1.
    expect(counts(editLines('codex', post.tool_name, post.tool_input, post.tool_response))).toEqual([
      { path: 'src/greeting.ts', added: 1, deleted: 0 },
      { path: 'README.md', added: 1, deleted: 1 },
      { path: 'scripts/report.py', added: 1, deleted: 1 },
    ]);
  });

  it('counts a patch sent through the shell as Codex runs it', () => {
    const command = ['bash', '-lc', "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.py\n+print(1)\n+print(2)\n*** End Patch\nEOF"];
    expect(counts(editLines('codex', 'Bash', { command }, {}))).toEqual([{ path: 'a.py', added: 2, deleted: 0 }]);
  });
});

describe('edit lines: Gemini CLI and Qwen Code (fixture payloads)', () => {
  it('Gemini write_file: the hunk of returnDisplay.fileDiff', () => {
    const p = payload('gemini/payloads/a04-after-tool-write-create.json');
    expect(counts(editLines('gemini', p.tool_name, p.tool_input, p.tool_response))).toEqual([
      { path: '/home/dev/app/src/app.ts', added: 1, deleted: 0 },
    ]);
  });

  it('Gemini replace without a hunk: original and new content diffed (the blank line does not count)', () => {
    const p = payload('gemini/payloads/a05-after-tool-replace-edit.json');
    // "# App\n" → "# App\n\nStart with src/app.ts.\n": adds "" and "Start with src/app.ts.", 1 non-blank.
    expect(counts(editLines('gemini', p.tool_name, p.tool_input, p.tool_response))).toEqual([
      { path: '/home/dev/app/README.md', added: 1, deleted: 0 },
    ]);
  });

  it('Qwen write_file and edit', () => {
    const write = payload('qwen/payloads/q1/07-post-tool-use-write-file.json');
    expect(counts(editLines('qwen', write.tool_name, write.tool_input, write.tool_response))).toEqual([
      { path: '/home/dev/repo/src/login.ts', added: 1, deleted: 0 },
    ]);
    const edit = payload('qwen/payloads/q1/08-post-tool-use-edit.json');
    expect(counts(editLines('qwen', edit.tool_name, edit.tool_input, edit.tool_response))).toEqual([
      { path: '/home/dev/repo/README.md', added: 1, deleted: 1 },
    ]);
  });

  it('Gemini replace with only old_string/new_string', () => {
    const edits = editLines('gemini', 'replace', { file_path: '/r/a.go', old_string: 'a\nb\nc', new_string: 'a\nB\nc\nd' }, {});
    expect(counts(edits)).toEqual([{ path: '/r/a.go', added: 2, deleted: 1 }]);
  });
});

describe('one reading of a call: the files it touched and their edit lines agree, for every agent', () => {
  // By hand: src/new.ts is added (2 lines), lib/a.py updated (1 for 1), old.txt moved to docs/new.txt and
  // updated (1 for 0), gone.py deleted: §3 counts a deleted file neither created nor edited, §5 counts it 0
  // lines, so it is in neither.
  const patch =
    '*** Begin Patch\n*** Add File: src/new.ts\n+a();\n+b();\n*** Update File: lib/a.py\n@@\n-x = 1\n+x = 2\n*** Delete File: gone.py\n' +
    '*** Update File: old.txt\n*** Move to: docs/new.txt\n@@\n+more\n*** End Patch\n';
  const expected = [
    { path: 'src/new.ts', added: 2, deleted: 0 },
    { path: 'lib/a.py', added: 1, deleted: 1 },
    { path: 'docs/new.txt', added: 1, deleted: 0 },
  ];

  it.each([
    ['droid', 'ApplyPatch', { patch }],
    ['droid', 'ApplyPatch', { input: patch }],
    ['claude', 'apply_patch', { input: patch }],
    ['codex', 'apply_patch', { command: patch }],
    ['codex', 'Bash', { command: ['bash', '-lc', `apply_patch <<'EOF'\n${patch}EOF`] }],
  ] as const)('%s %s', (agent, tool, input) => {
    expect(counts(editLines(agent, tool, input, 'Success.'))).toEqual(expected);
    expect(filesOf(agent, tool, input, 'Success.')).toEqual([
      { ext: 'ts', op: 'create' },
      { ext: 'py', op: 'edit' },
      { ext: 'txt', op: 'edit' },
    ]);
  });

  it('every other file tool names the same files in both', () => {
    const calls: [string, string, unknown, unknown][] = [
      ['claude', 'Write', { file_path: '/r/a.ts', content: 'x\n' }, { type: 'create' }],
      ['claude', 'Edit', { file_path: '/r/a.ts', old_string: 'x', new_string: 'y' }, {}],
      ['droid', 'Create', { file_path: '/r/b.ts', content: 'x\n' }, {}],
      ['droid', 'MultiEdit', { file_path: '/r/b.ts', edits: [{ old_str: 'x', new_str: 'y' }] }, {}],
      ['gemini', 'write_file', { file_path: '/r/c.go', content: 'x\n' }, { returnDisplay: { isNewFile: true } }],
      ['gemini', 'replace', { file_path: '/r/c.go', old_string: 'x', new_string: 'y' }, {}],
      ['qwen', 'write_file', { file_path: '/r/d.py', content: 'x\n' }, { llmContent: 'Successfully overwrote file: /r/d.py.' }],
      ['qwen', 'edit', { file_path: '/r/d.py', old_string: '', new_string: 'y' }, {}],
    ];
    for (const [agent, tool, input, response] of calls) {
      const files = filesOf(agent, tool, input, response);
      const edits = editLines(agent, tool, input, response);
      expect(files, `${agent} ${tool}`).toHaveLength(1);
      expect(
        edits.map((e) => fileFacts(e.path, files[0]!.op)),
        `${agent} ${tool}`,
      ).toEqual(files);
    }
  });
});

describe('the line diff helpers', () => {
  it('a unified diff counts only lines inside hunks', () => {
    expect(unifiedDiffLines('--- a\n+++ b\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n')).toEqual({ added: ['new'], removed: ['old'] });
    expect(unifiedDiffLines('Index: x\n...')).toBeUndefined();
  });

  it('Myers keeps lines in both unchanged, with multiplicity', () => {
    expect(textDiffLines('a\na\nb\n', 'a\nb\na\na\n')).toEqual({ added: ['a', 'a'], removed: ['a'] });
  });

  it('an empty patch body gives nothing', () => {
    expect(applyPatchEdits('*** Begin Patch\n*** End Patch\n')).toEqual([]);
  });
});

describe('what ships of a call (callEdits)', () => {
  it('counts per file by extension or name, leaves out excluded and binary files, and ships no line', () => {
    const patch =
      '*** Begin Patch\n*** Add File: src/a.ts\n+const a = 1;\n*** Add File: package-lock.json\n+{}\n*** Add File: Makefile\n+all:\n*** Add File: dist/x.js\n+x\n*** End Patch\n';
    const edits = callEditsOf('codex', 'apply_patch', { command: patch }, 'Success.');
    expect(edits.wire).toEqual([
      { ext: 'ts', lines_added: 1, lines_deleted: 0 },
      { ext: '', name: 'Makefile', lines_added: 1, lines_deleted: 0 },
    ]);
    expect(JSON.stringify(edits.wire)).not.toContain('const a');
    expect(edits.files.map((f) => f.path)).toEqual(['src/a.ts', 'Makefile']);
    expect(callEditsOf('droid', 'Create', { file_path: '/r/img.png', content: '\0PNG' }, {}).wire).toEqual([]);
  });
});
