// node bench/tmp-load.mjs <base> <case> <seconds> [connections]
import autocannon from 'autocannon';
import fs from 'node:fs';
const s = JSON.parse(fs.readFileSync('/tmp/tools/seeded.json', 'utf8'));
const [base, kase, secs, conns] = process.argv.slice(2);
let n = Math.floor(Math.random() * 45000), i = 0, w = Math.floor(Math.random() * 45000);
const key = () => `Bearer ${s.readKeys[Math.floor(n++ / 900) % s.readKeys.length]}`;
const wkey = () => `Bearer ${s.writeKeys[Math.floor(w++ / 900) % s.writeKeys.length]}`;
const cases = {
  get: () => ({ method: 'GET', path: `/v1/contacts/${s.contactIds[i++ % s.contactIds.length]}`, headers: { authorization: key() } }),
  list: () => ({ method: 'GET', path: '/v1/contacts?limit=100', headers: { authorization: key() } }),
  deals: () => ({ method: 'GET', path: '/v1/deals?limit=100', headers: { authorization: key() } }),
  gql: () => ({ method: 'POST', path: '/graphql', headers: { authorization: key(), 'content-type': 'application/json' }, body: JSON.stringify({ query: 'query GetContact($id: ID!) { contact(id: $id) { id first_name last_name email phone company job_title status source tags assigned_to engagement_score custom_fields address created_at updated_at } }', variables: { id: s.contactIds[i++ % s.contactIds.length] } }) }),
  create: () => ({ method: 'POST', path: '/v1/contacts', headers: { authorization: wkey(), 'content-type': 'application/json' }, body: JSON.stringify({ first_name: 'Bench', last_name: 'Writer', email: `p${process.pid}.${i++}@example.com`, company: 'Bench' }) }),
};
const r = await autocannon({ url: base, connections: Number(conns ?? 50), duration: Number(secs), requests: [{ setupRequest: (req) => ({ ...req, ...cases[kase]() }) }] });
console.log(JSON.stringify({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors }));
