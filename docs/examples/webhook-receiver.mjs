// A webhook receiver to try Plant Store's deliveries on your own machine. It checks each
// request's Standard Webhooks signature and prints what it verified, e.g.
//   verified plant.created {"id":7,"name":"Monstera","tag":"tropical"}
//
// Run it with the server's secret:
//   PLANT_STORE_WEBHOOK_SECRET=whsec_... node docs/examples/webhook-receiver.mjs
// It listens on 127.0.0.1, port RECEIVER_PORT (default 4000). Plain Node, no packages.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const secret = process.env.PLANT_STORE_WEBHOOK_SECRET ?? '';
if (!secret.startsWith('whsec_')) {
  console.error('set PLANT_STORE_WEBHOOK_SECRET to the secret the server signs with (whsec_<base64>)');
  process.exit(2);
}
// The key is the base64 after the whsec_ prefix.
const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
const port = Number(process.env.RECEIVER_PORT ?? 4000);
const toleranceSeconds = 5 * 60;
// At least once: a delivery may come again, always with the same webhook-id.
const seen = new Set();

/** Why the request is not a genuine delivery, or undefined when it is. */
function problemOf(headers, body) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) return 'missing webhook-id, webhook-timestamp or webhook-signature';
  // An old timestamp may be a replayed request.
  if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds) return 'timestamp too far from now';
  // The signed content is "<webhook-id>.<webhook-timestamp>.<raw body>", HMAC-SHA256.
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
  // The header holds one or more space-separated "v1,<base64>" signatures.
  const matches = signatures.split(' ').some((entry) => {
    const [version, value = ''] = entry.split(',');
    const given = Buffer.from(value, 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? undefined : 'no signature matches';
}

createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    // Verify the raw bytes, before any JSON parsing.
    const body = Buffer.concat(chunks);
    const problem = problemOf(request.headers, body);
    if (problem !== undefined) {
      console.log(`refused: ${problem}`);
      response.writeHead(401).end();
      return;
    }
    const id = request.headers['webhook-id'];
    console.log(`${seen.has(id) ? 'repeat' : 'verified'} ${request.headers['webhook-event-type']} ${body}`);
    seen.add(id);
    // Any 2xx marks the delivery done; anything else makes the server retry.
    response.writeHead(204).end();
  });
}).listen(port, '127.0.0.1', () => console.log(`receiver listening on http://127.0.0.1:${port}`));
