// The yardstick for API throughput: a bare Fastify route, run as its own process the same way the
// agentmeter server is. `/bare` answers a small JSON body. Given a file of recorded answers ({url: body}),
// it also answers each of those URLs with its body as stored bytes: the same bytes as the agentmeter
// server sends, with nothing of its work (credential, role, validation, cache key), so the bench can tell
// what the answers' size costs from what agentmeter's handling costs.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/bare', async () => ({
  data: [{ date: '2026-11-19', value: 1 }],
  meta: { org_id: 'org', start_date: '2026-11-19', end_date: '2026-11-19' },
}));
const recordedFile = process.argv[2];
if (recordedFile) {
  const recorded = new Map(
    Object.entries(JSON.parse(readFileSync(recordedFile, 'utf8')) as Record<string, string>).map(([url, body]) => [url, Buffer.from(body)]),
  );
  const paths = new Set([...recorded.keys()].map((url) => url.split('?')[0]!));
  for (const path of paths) {
    app.get(path, async (request, reply) => {
      const body = recorded.get(request.url);
      if (!body) return reply.code(404).send({ error: 'not recorded' });
      return reply.type('application/json; charset=utf-8').send(body);
    });
  }
}
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening on ${address}\n`);
