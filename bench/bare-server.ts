// The yardstick for API throughput: a bare Fastify route answering a small JSON body, run as its own
// process the same way the agentmeter server is.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/bare', async () => ({ data: [{ date: '2026-11-19', value: 1 }], meta: { org_id: 'org', start_date: '2026-11-19', end_date: '2026-11-19' } }));
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening on ${address}\n`);
