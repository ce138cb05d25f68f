import { createServer } from 'node:net';

/**
 * A loopback TCP port that was free a moment ago: the system picks it, we release it.
 * Another process could take it before the caller binds it; on a test machine that is rare.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address for a loopback listener');
  return address.port;
}
