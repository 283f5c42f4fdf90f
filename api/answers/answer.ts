// How a read route answers through the answer cache (api/answers/cache.ts): its key, and the bytes sent.
// The key is the organization, whose figures the answer is restricted to (a member's own, or everyone's),
// the UTC day of the server clock (the date rules and "today" move with it; the minute for an answer that
// counts back from now), the URL as sent and, for an answer restricted to or grouped by teams or reading
// them whatever its query, the organization's teams revision (which every change of its teams bumps,
// api/teams/store.ts). Nothing crosses organizations or viewers.
//
// Only an answer that was built is kept, so a URL whose query failed its checks never is: a hit needs no
// second check, and each new day checks afresh against its own date rules.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { answeringFromCache, checkCachedAnswer } from '../openapi/declare.ts';
import { acceptsGzip, type ResponseCache } from './cache.ts';
import type { Source } from './changes.ts';
import { Pieces } from './pieces.ts';

export interface AnswerOf {
  org: string;
  /** The person the answer is restricted to; null or absent: the whole organization. */
  viewer?: string | null | undefined;
  /** The server clock's now. */
  now: Date;
  /** What the answer is built from: a change of one of these drops it (api/answers/changes.ts). */
  reads: readonly Source[];
  /** The teams revision, asked when the query restricts to or groups by teams, or `roster` is set. */
  teams?: { revision(org: string): Promise<number> };
  /** The answer reads the teams whatever its query (the forecast's team budgets, adoption's teams). */
  roster?: boolean;
  /**
   * How long the clock may move before the answer is built anew: the UTC day (the default: the date rules
   * move with it), or the minute, for an answer whose windows end at now (adoption's last 7 and 28 days).
   */
  clock?: 'day' | 'minute';
}

/** Does the query restrict to a team or group by teams? Such an answer depends on memberships. */
export function teamScoped(query: unknown): boolean {
  const raw = (query ?? {}) as Record<string, unknown>;
  return raw['team'] !== undefined || raw['group_by'] === 'team';
}

export async function answerKey(request: FastifyRequest, of: AnswerOf): Promise<string> {
  const time = of.now.toISOString().slice(0, of.clock === 'minute' ? 16 : 10);
  const key = `${of.org}|${of.viewer ?? '*'}|${time}|${request.url}`;
  return of.teams && (of.roster || teamScoped(request.query)) ? `${key}|teams@${await of.teams.revision(of.org)}` : key;
}

/**
 * Sends the cached answer of the request, or the one `build` makes (serialized once, and kept until what
 * it reads changes; or already serialized, as Pieces). On a test server a built answer is checked against
 * its route's declared schema before it is serialized.
 */
export async function sendAnswer(
  cache: ResponseCache,
  request: FastifyRequest,
  reply: FastifyReply,
  of: AnswerOf,
  build: () => Promise<unknown>,
): Promise<FastifyReply> {
  answeringFromCache(request, reply);
  const body = await cache.getOrBuild(
    await answerKey(request, of),
    async () => {
      const answer = await build();
      checkCachedAnswer(request, answer);
      // An answer of pieces is sent as they are (api/answers/pieces.ts).
      return answer instanceof Pieces ? answer : JSON.stringify(answer);
    },
    { org: of.org, reads: of.reads },
  );
  void reply.type('application/json; charset=utf-8').header('vary', 'accept-encoding');
  const gzip = acceptsGzip(request.headers['accept-encoding']) ? body.gzip() : undefined;
  return gzip ? reply.header('content-encoding', 'gzip').send(gzip) : reply.send(body.raw);
}
