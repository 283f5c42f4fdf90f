// Real git activity for the sample organization (the Code page, docs/metrics.md §5): for a few sample users, a
// bare origin and a clone made with real `git`, Claude Code writing files through the real hook, the person
// changing one line of each, commits on a branch, a squash merge onto the origin's default branch by the
// hosting side (authored by the developer), a fetch; then the real collector ships the events, credits the
// landed commits from its ledger and ships them. Deterministic: the same plan gives the same figures.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GitRunner } from '../collector/code/git.ts';
import { Collector } from '../collector/daemon.ts';
import { install, installedScriptPath } from '../collector/install/installer.ts';
import type { Logger } from '../common/logger.ts';
import { sampleGitLine } from './git-env.ts';
import { HookDriver, hookLines, type ShippingSlots } from './replay.ts';

export interface GitActivityOptions {
  server: string;
  /** The users who write code this way: their email and collector key. */
  users: { email: string; key: string }[];
  workDir: string;
  /** The last day of the sample (YYYY-MM-DD); the activity is on the days before it. */
  lastDay: string;
  log: Logger;
  /** How the collectors run git (default: their own, a fork of this process per command). */
  git?: GitRunner;
  /** The load's shipments at once, when the replay runs beside (replay.ts). */
  shipping?: ShippingSlots;
}

/** Days (counted back from lastDay) with a landed feature, per user. */
export const GIT_DAYS = [6, 4, 2, 0];
const MODEL = 'claude-sonnet-4-5';

/** Pure: the file the agent writes on a day: `n` lines of a small module (no blank line). */
export function featureFile(day: number, n: number): string {
  const lines = [`export function feature${day}(input: number[]): number {`];
  for (let i = 0; i < n - 2; i++) lines.push(`  const step${i} = input.length * ${day + i};`);
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

export async function replayGitActivity(options: GitActivityOptions): Promise<{ commits: number }> {
  const last = Date.parse(`${options.lastDay}T00:00:00Z`);
  const dayAt = (back: number, time: string) => `${new Date(last - back * 86_400_000).toISOString().slice(0, 10)}T${time}Z`;
  let commits = 0;
  // The git commands and hooks run in a small sh, as the replay's do (replay.ts, HookDriver): each fork of
  // the demo's process (its server and DuckDB inside) costs ~25 ms. The files the agent and the person
  // write are written here, between the driver's runs, in the order they happen.
  const driver = new HookDriver(options.workDir);
  try {
    for (const [u, user] of options.users.entries()) {
      const home = join(options.workDir, `git-user-${u}`);
      const agentmeterHome = join(home, '.agentmeter');
      const origin = join(options.workDir, `git-origin-${u}.git`);
      const work = join(home, 'src', 'app');
      const host = join(options.workDir, `git-host-${u}`);
      mkdirSync(join(home, 'src'), { recursive: true });
      install({ agent: 'claude', home, agentmeterHome, defaultAgentmeterHome: true });
      const script = installedScriptPath(agentmeterHome);
      await driver.useHome(home);
      let lines = '';
      const git = (cwd: string, args: string[], when: string) => {
        lines += sampleGitLine(cwd, args, user.email, when);
      };
      /** Runs the lines written so far: before a file is written here, and at the end. */
      const run = async () => {
        const text = lines;
        lines = '';
        if (text) await driver.run(text);
      };
      const first = dayAt(GIT_DAYS[0]!, '08:00:00');
      git(options.workDir, ['init', '--quiet', '--bare', '--initial-branch=main', origin], first);
      git(options.workDir, ['clone', '--quiet', origin, work], first);
      git(work, ['config', 'user.email', user.email], first);
      // The origin is a local folder; the Code page shows it under a hosted name, as a real team's would
      // be (a folder remote would show as local:<id>). git rewrites the name to the folder when it fetches
      // and pushes; agentmeter reads the remote's name only.
      const hosted = `https://git.example.com/sample/app-${u + 1}.git`;
      git(work, ['remote', 'set-url', 'origin', hosted], first);
      git(work, ['config', `url.${origin}.insteadOf`, hosted], first);
      await run();
      writeFileSync(join(work, 'README.md'), '# App\n');
      git(work, ['add', 'README.md'], first);
      git(work, ['commit', '--quiet', '-m', 'Start'], first);
      git(work, ['push', '--quiet', 'origin', 'main'], first);
      git(options.workDir, ['clone', '--quiet', origin, host], first);
      git(host, ['config', 'user.email', user.email], first);
      const transcript = join(home, '.claude', 'projects', 'app', `git-${u}.jsonl`);
      mkdirSync(join(home, '.claude', 'projects', 'app'), { recursive: true });
      const fire = (payload: Record<string, unknown>, when: string) => {
        const env = { AGENTMETER_HOME: agentmeterHome, AGENTMETER_EVENT_TIME: when };
        lines += `${hookLines(env, script, 'claude', JSON.stringify(payload))}\n`;
      };
      const session = `git-session-${u}`;
      const base = { session_id: session, transcript_path: transcript, cwd: work, permission_mode: 'acceptEdits' };
      let transcriptText = '';
      for (const [i, back] of GIT_DAYS.entries()) {
        const n = 8 + ((u * 5 + i * 3) % 9);
        transcriptText += `${JSON.stringify({
          type: 'assistant',
          sessionId: session,
          requestId: `req-git-${u}-${i}`,
          timestamp: dayAt(back, '09:00:00'),
          message: { id: `msg-git-${u}-${i}`, role: 'assistant', model: MODEL, usage: { input_tokens: 900, output_tokens: 300 } },
        })}\n`;
        await run();
        writeFileSync(transcript, transcriptText);
        fire({ ...base, hook_event_name: 'UserPromptSubmit', prompt: 'add the feature' }, dayAt(back, '09:00:30'));
        await run();
        const path = join(work, 'src', `feature${back}.ts`);
        mkdirSync(join(work, 'src'), { recursive: true });
        const content = featureFile(back, n);
        writeFileSync(path, content);
        fire(
          {
            ...base,
            hook_event_name: 'PostToolUse',
            tool_name: 'Write',
            tool_input: { file_path: path, content },
            tool_response: { type: 'create', filePath: path, content, structuredPatch: [] },
          },
          dayAt(back, '09:01:00'),
        );
        await run();
        // The person renames the function (one agent line becomes theirs) and adds a line of their own.
        writeFileSync(path, `// Feature of day ${back}\n${content.replace(`feature${back}(`, `computeFeature${back}(`)}`);
        const branch = `feature-${back}`;
        git(work, ['checkout', '--quiet', '-b', branch], dayAt(back, '10:00:00'));
        git(work, ['add', '.'], dayAt(back, '10:00:00'));
        git(work, ['commit', '--quiet', '-m', `Feature ${back}`], dayAt(back, '10:00:00'));
        git(work, ['push', '--quiet', 'origin', branch], dayAt(back, '10:00:00'));
        git(host, ['fetch', '--quiet', 'origin'], dayAt(back, '11:00:00'));
        git(host, ['merge', '--quiet', '--squash', `origin/${branch}`], dayAt(back, '11:00:00'));
        git(host, ['commit', '--quiet', '-m', `Feature ${back} (#${i + 1})`], dayAt(back, '11:00:00'));
        git(host, ['push', '--quiet', 'origin', 'main'], dayAt(back, '11:00:00'));
        git(work, ['fetch', '--quiet', 'origin'], dayAt(back, '11:30:00'));
        git(work, ['checkout', '--quiet', 'main'], dayAt(back, '11:30:00'));
        git(work, ['merge', '--quiet', '--ff-only', 'origin/main'], dayAt(back, '11:30:00'));
        commits++;
      }
      await run();
      const collector = new Collector({
        server: options.server,
        apiKey: user.key,
        agentmeterHome,
        home,
        log: options.log,
        maxAttempts: 5,
        ...(options.git ? { git: options.git } : {}),
      });
      try {
        const result = await (options.shipping ? options.shipping.run(() => collector.drain()) : collector.drain());
        if (result.error) throw new Error(`sample git activity: shipping ${user.email}'s events failed: ${result.error}`);
      } finally {
        await collector.close();
      }
    }
    await driver.close();
  } finally {
    driver.kill();
  }
  return { commits };
}
