import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A signing secret for tests (24 bytes, base64). */
export const TEST_WEBHOOK_SECRET = `whsec_${Buffer.from('plant-store-test-secret!').toString('base64')}`;

export interface ReceivedWebhook {
  readonly id: string;
  readonly type: string;
  readonly body: unknown;
  readonly headers: IncomingHttpHeaders;
  /** Whether standardwebhooks accepted the signature. */
  readonly verified: boolean;
}

/** How the receiver answers one request: a status (default 200), after a delay, with headers. */
export interface Answer {
  readonly status?: number;
  readonly delayMs?: number;
  readonly headers?: Record<string, string>;
  /** Held until this settles (then `delayMs`): the test says when the answer goes. */
  readonly until?: Promise<unknown>;
}

/**
 * A webhook endpoint on loopback that verifies every request with the standardwebhooks
 * library, keeps what it got, and answers from a script (then 200).
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** Requests whose headers arrived, answered or not yet. */
  requestsArrived = 0;
  private script: Answer[] = [];
  private readonly verifier: Webhook;

  private constructor(
    private readonly server: Server,
    secret: string,
  ) {
    this.verifier = new Webhook(secret);
    server.on('request', (request, response) => {
      this.requestsArrived++;
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let verified = true;
        try {
          this.verifier.verify(raw, request.headers as Record<string, string>);
        } catch {
          verified = false;
        }
        this.received.push({
          id: String(request.headers['webhook-id']),
          type: String(request.headers['webhook-event-type']),
          body: JSON.parse(raw),
          headers: request.headers,
          verified,
        });
        this.answer(response, this.script.shift() ?? {});
      });
    });
  }

  /** Listens on 127.0.0.1 (`port` 0: any free one). */
  static async start(secret = TEST_WEBHOOK_SECRET, port = 0): Promise<WebhookReceiver> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    return new WebhookReceiver(server, secret);
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  /** The next requests are answered so, in order. */
  answerWith(...answers: Answer[]): void {
    this.script.push(...answers);
  }

  /** Ids of the created plants received, in arrival order. */
  createdIds(): number[] {
    return this.received.filter((hook) => hook.type === 'plant.created').map((hook) => (hook.body as { id: number }).id);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(response: ServerResponse, { status = 200, delayMs = 0, headers = {}, until }: Answer): void {
    const send = () => {
      if (response.destroyed) return;
      response.writeHead(status, headers).end();
    };
    const later = () => (delayMs > 0 ? void setTimeout(send, delayMs).unref() : send());
    if (until === undefined) later();
    else void until.then(later, later);
  }
}
