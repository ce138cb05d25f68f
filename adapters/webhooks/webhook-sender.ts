import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Webhook } from 'standardwebhooks';
import { DEFAULT_SANDBOX, type PendingDelivery, type SentAttempt, type WebhookTransport } from '../../core/index.js';
import { guardedLookup, refusedLiteral } from './address-guard.js';

export interface WebhookSenderOptions {
  /** Standard Webhooks secret, `whsec_<base64>`. */
  readonly secret: string;
  readonly timeoutMs: number;
  /** Allow endpoints on loopback, private and other non-public addresses. */
  readonly allowPrivate: boolean;
  readonly userAgent: string;
}

/** The header naming the event; Standard Webhooks leaves it to each sender. */
export const EVENT_TYPE_HEADER = 'webhook-event-type';
/** The header naming the plant's sandbox (the body stays the public NewPlant). */
export const SANDBOX_HEADER = 'plant-store-sandbox';

/** One signed POST per attempt (Standard Webhooks 1.0), never following a redirect. */
export class WebhookSender implements WebhookTransport {
  private readonly signer: Webhook;
  // Connections are kept and reused: the address check runs when one is opened, and an open
  // connection stays with the address it was checked on (no rebinding possible).
  private readonly agents: { readonly http: HttpAgent; readonly https: HttpsAgent };

  constructor(private readonly options: WebhookSenderOptions) {
    this.signer = new Webhook(options.secret);
    const agentOptions = { keepAlive: true, maxSockets: 64, ...(!options.allowPrivate && { lookup: guardedLookup }) };
    this.agents = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) };
  }

  /** Closes the kept connections. */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** The body a receiver gets: the event's data, exactly the public contract's. */
  static bodyOf(delivery: PendingDelivery): string {
    return JSON.stringify(delivery.event.data);
  }

  async send(delivery: PendingDelivery, now = new Date()): Promise<SentAttempt> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let url: URL;
    try {
      url = new URL(delivery.endpoint);
    } catch {
      return { error: 'not a URL', durationMs: 0 };
    }
    const refused = this.options.allowPrivate ? undefined : refusedLiteral(url.hostname);
    if (refused) return { error: refused.message, durationMs: 0 };
    const body = WebhookSender.bodyOf(delivery);
    const headers = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': this.options.userAgent,
      'webhook-id': delivery.id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': this.signer.sign(delivery.id, now, body),
      [EVENT_TYPE_HEADER]: delivery.event.type,
      [SANDBOX_HEADER]: delivery.event.sandbox ?? DEFAULT_SANDBOX,
    };
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<SentAttempt>((resolve) => {
      let settled = false;
      const finish = (result: Omit<SentAttempt, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        resolve({ ...result, durationMs: elapsed() });
      };
      const req = request(url, {
        method: 'POST',
        headers,
        agent: url.protocol === 'https:' ? this.agents.https : this.agents.http,
      });
      // The whole attempt, answer included, gets timeoutMs: its status decides the outcome,
      // but a body still arriving then is cut off with its connection. Left to trickle in, such
      // bodies held the agent's connections to that host one by one, until none was left for
      // its other endpoints.
      const timer = setTimeout(() => {
        finish({ error: `no answer within ${this.options.timeoutMs} ms` });
        req.destroy();
      }, this.options.timeoutMs);
      // 'close' comes once the answer's body has ended, or the request failed or was cut off.
      req.on('close', () => clearTimeout(timer));
      req.on('response', (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        // The body is not read for anything; draining it lets the connection be reused.
        response.resume();
        const location = response.headers.location;
        finish(status >= 300 && status < 400 ? { status, error: `redirect${location ? ` to ${location}` : ''} not followed` } : { status });
        response.on('error', () => {});
      });
      req.on('error', (error) => finish({ error: error.message }));
      req.end(body);
    });
  }
}
