import { createPlantStore, startServer, type PlantStore, type RunningServer, type ServerOptions } from '../../composition/index.js';

export const openApiTestToken = 'openapi-test-token-0123456789abcdef';

/** A real server on a free loopback port, with the document it serves. */
export interface ServedApi {
  readonly server: RunningServer;
  readonly store: PlantStore;
  readonly document: Record<string, any>;
  /** fetch relative to the server, with the test token unless `headers` says otherwise. */
  request(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export async function serveApi(options: Partial<ServerOptions> = {}): Promise<ServedApi> {
  const store = options.store ?? (await createPlantStore());
  const server = await startServer({ tokens: [openApiTestToken], port: 0, ...options, store });
  const document = await (await fetch(`${server.url}/openapi.json`)).json();
  return {
    server,
    store,
    document,
    request: (path, init = {}) =>
      fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${openApiTestToken}`, ...(init.headers as Record<string, string>) } }),
    close: async () => {
      await server.close(0);
      await store.close();
    },
  };
}
