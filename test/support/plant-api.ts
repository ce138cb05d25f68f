/** Tiny client for end-to-end tests against a server process: fetch, JSON, one token. */
export class PlantApi {
  constructor(
    readonly url: string,
    private readonly token: string,
  ) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Bearer ${this.token}`, ...extra };
  }

  async create(id: number, name = `plant ${id}`): Promise<{ status: number; body: { error?: number } }> {
    const response = await fetch(`${this.url}/plants`, {
      method: 'POST',
      headers: this.headers({ 'content-type': 'application/json' }),
      body: JSON.stringify({ id, name }),
    });
    return { status: response.status, body: (await response.json()) as { error?: number } };
  }

  async get(path: string): Promise<{ status: number; body: any; elapsedMs: number }> {
    const started = performance.now();
    const response = await fetch(`${this.url}${path}`, { headers: this.headers() });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text), elapsedMs: performance.now() - started };
  }

  async delete(id: number): Promise<number> {
    const response = await fetch(`${this.url}/plants/${id}`, { method: 'DELETE', headers: this.headers() });
    await response.arrayBuffer();
    return response.status;
  }

  /** Every id in the store, following Link headers page by page. */
  async allIds(): Promise<number[]> {
    const ids: number[] = [];
    let path: string | undefined = '/plants?limit=1000';
    while (path !== undefined) {
      const response: Response = await fetch(`${this.url}${path}`, { headers: this.headers() });
      if (response.status !== 200) throw new Error(`listing failed with ${response.status}`);
      ids.push(...((await response.json()) as { id: number }[]).map((plant) => plant.id));
      path = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];
    }
    return ids;
  }
}
