// The Gemini CLI fixtures (collector/agents/gemini/fixtures, see its SOURCE.md) with their placeholders filled:
// payloads by name, and the chat files copied into a folder where Gemini would keep them.
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentFixtures } from './agent-fixtures.ts';

export const GEMINI_FIXTURES = agentFixtures('gemini');

const fill = (text: string, cwd: string, chats: string) => text.replaceAll('{{cwd}}', cwd).replaceAll('{{chats}}', chats);

/** Every payload fixture in name order (a01…, b01…), placeholders filled. */
export function geminiPayloads(cwd: string, chats: string): { name: string; payload: Record<string, unknown> }[] {
  const dir = join(GEMINI_FIXTURES, 'payloads');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ name: f.replace(/\.json$/, ''), payload: JSON.parse(fill(readFileSync(join(dir, f), 'utf8'), cwd, chats)) }));
}

/** Copies the chat files (and the subagent folder) into `chats`, placeholders filled. */
export function copyGeminiChats(chats: string, cwd: string): void {
  cpSync(join(GEMINI_FIXTURES, 'chats'), chats, { recursive: true });
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else writeFileSync(path, fill(readFileSync(path, 'utf8'), cwd, chats));
    }
  };
  walk(chats);
}
