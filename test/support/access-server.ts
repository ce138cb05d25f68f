import { Writable } from 'node:stream';
import type { JwtSettings, StaticToken } from '../../composition/index.js';
import { createPlantStore, startServer, type PlantStore, type RunningServer, type ServerOptions } from '../../composition/index.js';
import { createLogger } from '../../composition/logger.js';
import { HttpClient } from './http-client.js';

/** A server with static tokens and/or an identity provider, whose log lines are kept. */
export interface AccessServer {
  readonly url: string;
  readonly store: PlantStore;
  readonly http: HttpClient;
  /** Every line the server logged, as written. */
  log(): string;
  close(): Promise<void>;
}

export async function startAccessServer(options: {
  tokens?: readonly (string | StaticToken)[];
  jwt?: JwtSettings;
  /** Tokens the server must never show (JWTs the test signs are also checked as presented). */
  secrets?: readonly string[];
  extra?: Partial<ServerOptions>;
}): Promise<AccessServer> {
  let captured = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      captured += chunk;
      done();
    },
  });
  const store = await createPlantStore();
  let running: RunningServer;
  try {
    running = await startServer({
      store,
      port: 0,
      host: '127.0.0.1',
      log: createLogger('info', sink),
      ...(options.tokens && { tokens: options.tokens }),
      ...(options.jwt && { jwt: options.jwt }),
      ...options.extra,
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  const openapi = (await (await fetch(`${running.url}/openapi.json`)).json()) as Record<string, unknown>;
  const secrets = [...(options.tokens ?? []).map((entry) => (typeof entry === 'string' ? entry : entry.token)), ...(options.secrets ?? [])];
  const http = new HttpClient({ url: running.url, basePath: '', token: secrets[0] ?? 'no-static-token', tokens: secrets, openapi });
  return {
    url: running.url,
    store,
    http,
    log: () => captured,
    close: async () => {
      await running.close(0);
      await store.close();
    },
  };
}
