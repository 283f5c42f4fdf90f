// Run by bench/run.ts (`code` section) in a process of its own: the collector's memory while it credits
// a commit against the ledger in argv[2] (repository argv[3]) and compacts it, as CodeTracker.scan does.
// Prints {baselineRss, peakRss} in bytes as JSON.
import { creditCommit } from '../collector/code/credit.ts';
import { Ledger } from '../collector/code/ledger.ts';

const [stateDir, root, nowArg] = process.argv.slice(2) as [string, string, string];
const now = Number(nowArg);
global.gc?.();
const baselineRss = process.memoryUsage().rss;
const ledger = new Ledger(stateDir);
const keys = new Set<string>();
for (let i = 0; i < 1000; i++) keys.add(ledger.lineKey(`src/f${i % 100}.ts`, `line ${i}`));
const { index, credited } = ledger.lookup(root, keys);
creditCommit(new Map([...keys].map((k) => [k, 1])), index, now, (s) => credited.has(s));
ledger.compact(root, now + 1);
const peakRss = process.resourceUsage().maxRSS * 1024;
console.log(JSON.stringify({ baselineRss, peakRss }));
