// The sample users' project folders as real git repositories (docs/metrics.md §5), so that the sample's agent
// edits are written inside watched repositories, as a real team's are, and most of them land: each
// `~/src/<project>` is a clone of a bare origin of its own, named by a hosted URL (the folder is never
// shown). Each week, the person commits what the agents wrote in two files out of three (their lines as
// the edits left them) with one line of their own per file, and pushes it to the default branch; the real
// collector then credits the commit from its ledger. Deterministic.
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { adapterFor } from '../collector/agents/index.ts';
import type { PlannedEvent } from './generator.ts';
import { sampleGitLine } from './git-env.ts';

/** Pure: the projects (`~/src/<name>`) a user's events work in. */
export function projectsOf(events: readonly PlannedEvent[]): string[] {
  const out = new Set<string>();
  for (const e of events) {
    const cwd = e.payload['cwd'];
    if (typeof cwd === 'string' && cwd.startsWith('~/src/')) out.add(cwd.slice('~/src/'.length).split('/')[0]!);
  }
  return [...out].sort();
}

/**
 * Pure: what the person commits after a day: per project, file (relative to the project) → the lines to
 * append: the agents' lines of two successful writes out of three, and one line of the person's own.
 */
export function dayCommit(events: readonly PlannedEvent[]): Map<string, Map<string, string[]>> {
  const out = new Map<string, Map<string, string[]>>();
  let n = 0;
  for (const e of events) {
    if (e.payload['hook_event_name'] !== 'PostToolUse' || typeof e.payload['tool_name'] !== 'string') continue;
    const cwd = typeof e.payload['cwd'] === 'string' ? e.payload['cwd'] : '~';
    // The lines as the collector reads them from the payload (collector/code/edit-lines.ts).
    const writes = adapterFor(e.agent)?.tools.writes(e.payload['tool_name'], e.payload['tool_input'], e.payload['tool_response']) ?? [];
    for (const { edit } of writes) {
      const path = edit.path.startsWith('~/') ? edit.path : `${cwd}/${edit.path}`;
      if (!path.startsWith('~/src/') || edit.added.length === 0) continue;
      if (++n % 3 === 0) continue;
      const [project, ...rest] = path.slice('~/src/'.length).split('/');
      const files = out.get(project!) ?? new Map<string, string[]>();
      const file = rest.join('/');
      const lines = files.get(file) ?? [`// reviewed by the team (${file})`];
      lines.push(...edit.added);
      files.set(file, lines);
      out.set(project!, files);
    }
  }
  return out;
}

/**
 * The sample's git commands as sh lines, run by the replay's hook driver (replay.ts, HookDriver): a fork
 * of that small sh costs little, where each fork of the demo's Node process (its server and DuckDB
 * inside) cost ~25 ms and held the process's server and collectors while git ran. Run in the user's HOME.
 */
export class ProjectRepos {
  constructor(
    private readonly home: string,
    private readonly workDir: string,
    private readonly user: number,
    private readonly email: string,
  ) {}

  /** One git command in `cwd` as the person at `at`; a failure ends the driver (exit 6, replay.ts). */
  private git(cwd: string, args: string[], at: number): string {
    return sampleGitLine(cwd, args, this.email, new Date(at).toISOString());
  }

  /** The script that makes each project folder a clone of its own origin, before the first event `at`. */
  create(projects: readonly string[], at: number): string {
    let script = '';
    for (const project of projects) {
      const work = join(this.home, 'src', project);
      if (existsSync(join(work, '.git'))) continue;
      const origin = join(this.workDir, 'project-origins', `u${this.user}-${project}.git`);
      mkdirSync(join(this.workDir, 'project-origins'), { recursive: true });
      mkdirSync(work, { recursive: true });
      writeFileSync(join(work, 'README.md'), `# ${project}\n`);
      script += this.git(this.workDir, ['init', '--quiet', '--bare', '--initial-branch=main', origin], at);
      script += this.git(work, ['init', '--quiet', '--initial-branch=main'], at);
      script += this.git(work, ['config', 'user.email', this.email], at);
      // Shown under a hosted name, as a real team's repository is; git reads and writes the folder.
      const hosted = `https://git.example.com/sample/${project}.git`;
      script += this.git(work, ['remote', 'add', 'origin', hosted], at);
      script += this.git(work, ['config', `url.${origin}.insteadOf`, hosted], at);
      script += this.git(work, ['add', 'README.md'], at);
      script += this.git(work, ['commit', '--quiet', '-m', 'Start'], at);
      script += this.git(work, ['push', '--quiet', '-u', 'origin', 'main'], at);
    }
    return script;
  }

  private waiting: PlannedEvent[] = [];

  /**
   * Takes a replayed day's events; on a Friday (or when `last`), writes the lines of the days since the
   * last commit (dayCommit) and returns the script that commits and pushes them at `at`, and how many
   * commits it makes. Weekly, as a team merges: the sample loads in seconds, not minutes.
   */
  commitDay(events: readonly PlannedEvent[], at: number, last = false): { commits: number; script: string } {
    this.waiting.push(...events);
    if (!last && new Date(at).getUTCDay() !== 5) return { commits: 0, script: '' };
    const days = this.waiting;
    this.waiting = [];
    let commits = 0;
    let script = '';
    for (const [project, files] of dayCommit(days)) {
      const work = join(this.home, 'src', project);
      if (!existsSync(join(work, '.git'))) continue;
      for (const [file, lines] of files) {
        const path = join(work, file);
        if (relative(work, path).startsWith('..')) continue;
        mkdirSync(join(path, '..'), { recursive: true });
        appendFileSync(path, `${lines.join('\n')}\n`);
      }
      script += this.git(work, ['add', '-A'], at);
      script += this.git(work, ['commit', '--quiet', '-m', 'Day of work'], at);
      script += this.git(work, ['push', '--quiet', 'origin', 'main'], at);
      commits++;
    }
    return { commits, script };
  }
}
