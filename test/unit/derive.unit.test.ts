import { describe, expect, it } from 'vitest';
import {
  autonomyLevel,
  clientType,
  mcpParts,
  runsGitCommit,
  runsPrCreate,
  shellCommands,
  skillName,
  slashCommand,
  toolSucceeded,
} from '../../collector/derive.ts';
import { fileFacts } from '../../collector/file-facts.ts';
import { filesOf } from '../helpers/writes.ts';

describe('clientType (METRICS §1)', () => {
  it('AGENTMETER_CLIENT wins over every hint', () => {
    expect(clientType('web', true)).toBe('web');
    expect(clientType('terminal-ui', true)).toBe('terminal-ui');
  });
  it('ignores an unknown AGENTMETER_CLIENT value', () => {
    expect(clientType('desktop', false)).toBe('terminal-ui');
    expect(clientType('desktop', true)).toBe('non-interactive-cli');
  });
  it('headless → non-interactive-cli, else terminal-ui', () => {
    expect(clientType(undefined, true)).toBe('non-interactive-cli');
    expect(clientType('', false)).toBe('terminal-ui');
  });
});

describe('autonomyLevel (METRICS §1)', () => {
  it.each([
    ['bypassPermissions', 'auto-high'],
    ['auto', 'auto-medium'],
    ['dontAsk', 'auto-medium'],
    ['acceptEdits', 'auto-low'],
    ['plan', 'spec'],
    ['default', 'manual'],
    ['auto-high', 'manual'],
    [undefined, 'manual'],
    ['__proto__', 'manual'],
  ])('Claude Code %s → %s', (mode, level) => expect(autonomyLevel('claude', mode)).toBe(level));
  it.each([
    ['auto-high', 'auto-high'],
    ['auto-medium', 'auto-medium'],
    ['auto-low', 'auto-low'],
    ['spec', 'spec'],
    ['off', 'manual'],
    ['bypassPermissions', 'manual'],
    [42, 'manual'],
  ])('Droid %s → %s', (mode, level) => expect(autonomyLevel('droid', mode)).toBe(level));
});

describe('tool facts', () => {
  it('recognises MCP tools and keeps the server as written (the pipeline folds case)', () => {
    expect(mcpParts('mcp__GitHub__create_pull_request')).toEqual({ server: 'GitHub', tool: 'create_pull_request' });
    expect(mcpParts('mcp__my_server__do__thing')).toEqual({ server: 'my_server', tool: 'do__thing' });
    expect(mcpParts('Bash')).toBeUndefined();
    expect(mcpParts('mcp__only')).toBeUndefined();
  });
  it('names a skill by skill, then command, then name', () => {
    expect(skillName({ skill: 'pdf', command: 'x' })).toBe('pdf');
    expect(skillName({ command: 'xlsx' })).toBe('xlsx');
    expect(skillName({ name: 'docx' })).toBe('docx');
    expect(skillName({ skill: '  ' })).toBeUndefined();
    expect(skillName('pdf')).toBeUndefined();
  });
  it('detects slash commands: "/" then a name, lower-cased', () => {
    expect(slashCommand('/Review the diff')).toBe('review');
    expect(slashCommand('/compact')).toBe('compact');
    expect(slashCommand('/my-plugin:deploy now')).toBe('my-plugin:deploy');
    expect(slashCommand('please /review')).toBeUndefined();
    expect(slashCommand('/ review')).toBeUndefined();
    expect(slashCommand('/usr/bin/env is broken')).toBeUndefined();
    expect(slashCommand(undefined)).toBeUndefined();
  });
  it('success: PostToolUse whose response does not say success: false', () => {
    expect(toolSucceeded('PostToolUse', { stdout: '' })).toBe(true);
    expect(toolSucceeded('PostToolUse', 'text response')).toBe(true);
    expect(toolSucceeded('PostToolUse', { success: false })).toBe(false);
    expect(toolSucceeded('PostToolUseFailure', {})).toBe(false);
  });
});

describe('git and PR detection from shell commands', () => {
  it.each([
    ['git commit -m "fix"', true],
    ['git add -A && git commit -m "x; y"', true],
    ['cd repo; git -C sub commit --amend --no-edit', true],
    ['GIT_AUTHOR_NAME=x git -c user.name=y commit -am wip', true],
    ['/usr/bin/git commit -m x', true],
    ['git commit --dry-run', false],
    ['git commit-tree abc', false],
    ['echo "git commit -m x"', false],
    ['git log --grep commit', false],
    ['git status', false],
  ])('%s → %s', (command, expected) => expect(runsGitCommit(command)).toBe(expected));
  it.each([
    ['gh pr create --title x --body y', true],
    ['git push && gh pr create --fill', true],
    ['gh --repo o/r pr create', true],
    ['gh pr list', false],
    ['echo gh pr create', false],
  ])('%s → %s', (command, expected) => expect(runsPrCreate(command)).toBe(expected));
  it('splits on operators and honours quotes', () => {
    expect(shellCommands(`a 'b; c' && d "e|f" | g`)).toEqual([['a', 'b; c'], ['d', 'e|f'], ['g']]);
  });
});

describe('files', () => {
  it('keeps the lower-case extension, or the name of an extension-less file', () => {
    expect(fileFacts('/src/App.TSX', 'edit')).toEqual({ ext: 'tsx', op: 'edit' });
    expect(fileFacts('/repo/Makefile', 'create')).toEqual({ ext: '', name: 'Makefile', op: 'create' });
    expect(fileFacts('/home/u/.bashrc', 'edit')).toEqual({ ext: '', name: '.bashrc', op: 'edit' });
  });
  it('maps each tool of both agents to create or edit', () => {
    expect(filesOf('claude', 'Write', { file_path: '/a/x.ts', content: 'secret' }, { type: 'create' })).toEqual([
      { ext: 'ts', op: 'create' },
    ]);
    expect(filesOf('claude', 'Write', { file_path: '/a/x.ts' }, { type: 'update' })).toEqual([{ ext: 'ts', op: 'edit' }]);
    expect(filesOf('claude', 'Edit', { file_path: '/a/x.go' }, {})).toEqual([{ ext: 'go', op: 'edit' }]);
    expect(filesOf('claude', 'MultiEdit', { file_path: '/a/x.md' }, {})).toEqual([{ ext: 'md', op: 'edit' }]);
    expect(filesOf('claude', 'Create', { file_path: '/a/Dockerfile' }, {})).toEqual([{ ext: '', name: 'Dockerfile', op: 'create' }]);
    expect(filesOf('droid', 'ApplyPatch', { patch: '*** Update File: x.py\n*** Add File: y.ts\n' }, {})).toEqual([
      { ext: 'py', op: 'edit' },
      { ext: 'ts', op: 'create' },
    ]);
    expect(filesOf('claude', 'Read', { file_path: '/a/x.ts' }, {})).toEqual([]);
    expect(filesOf('claude', 'Edit', {}, {})).toEqual([]);
  });
});
