/**
 * The feed section's clients, in the runner's process: `GET /plants/changes` streams over
 * node:http read by a minimal Server-Sent Events parser (1,000 EventSource clients would
 * weigh on the runner more than on the server; the tests check the feed with a real
 * EventSource), and sockets that ask for a stream and then never read it.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { nowMs } from './child-protocol.js';

const FEED_PATH = '/plants/changes';
/** What starts a plant event's `event:` line: the count-only scan looks for it. */
const PLANT_EVENT = Buffer.from('\nevent: plant.');

export interface FeedStream {
  /** Plant events (plant.created, plant.deleted) received so far. */
  readonly events: number;
  /** The stream has ended: the server ended or cut it, or it was closed. */
  readonly ended: boolean;
  close(): void;
}

interface StreamOptions {
  /**
   * Hears each plant event, with when the chunk that carried it was read (nowMs). Without
   * it the stream only counts its events, with a scan cheap enough for a stream that
   * receives thousands a second.
   */
  readonly onEvent?: (type: string, data: string, atMs: number) => void;
}

/** Opens a stream from now; resolves once its opening message (`retry:` and the starting `id:`) has arrived. */
export function openStream(url: string, token: string, options: StreamOptions = {}): Promise<FeedStream> {
  return new Promise((resolve, reject) => {
    // One socket per stream, none pooled: each stream holds its connection for its whole life.
    const req = request(`${url}${FEED_PATH}`, { agent: false, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`GET ${FEED_PATH} answered ${res.statusCode}`));
        return;
      }
      const reader: Reader = options.onEvent === undefined ? new CountingReader() : new ParsingReader(options.onEvent);
      const stream = {
        get events() {
          return reader.events;
        },
        ended: false,
        close: () => req.destroy(),
      };
      res.on('data', (chunk: Buffer) => {
        const at = nowMs();
        const wasOpen = reader.opened;
        reader.read(chunk, at);
        if (!wasOpen && reader.opened) resolve(stream);
      });
      res.once('close', () => {
        stream.ended = true;
        if (!reader.opened) reject(new Error(`GET ${FEED_PATH} ended before its opening message`));
      });
      res.on('error', () => {});
    });
    req.on('error', (error) => reject(error));
    req.end();
  });
}

interface Reader {
  readonly events: number;
  /** The opening message has arrived. */
  readonly opened: boolean;
  read(chunk: Buffer, atMs: number): void;
}

/**
 * Messages as this server writes them: lines ended by LF alone, `field: value` with one
 * space, a blank line after each. Not a general parser: the tests' EventSource is.
 */
class ParsingReader implements Reader {
  events = 0;
  opened = false;
  private pending = '';

  constructor(private readonly onEvent: (type: string, data: string, atMs: number) => void) {}

  read(chunk: Buffer, at: number): void {
    const text = this.pending + chunk.toString('utf8');
    let start = 0;
    for (let end = text.indexOf('\n\n'); end !== -1; end = text.indexOf('\n\n', start)) {
      this.message(text.slice(start, end), at);
      start = end + 2;
    }
    this.pending = text.slice(start);
  }

  private message(message: string, at: number): void {
    // The first message is `retry:` and the starting `id:`; later ones events or keep-alive comments.
    if (!this.opened) {
      this.opened = true;
      return;
    }
    let type: string | undefined;
    let data = '';
    for (const line of message.split('\n')) {
      if (line.startsWith('event: ')) type = line.slice(7);
      else if (line.startsWith('data: ')) data = line.slice(6);
    }
    if (type === undefined || !type.startsWith('plant.')) return;
    this.events++;
    this.onEvent(type, data, at);
  }
}

/** Counts plant events without parsing: the `event: plant.` lines, found across chunk boundaries. */
class CountingReader implements Reader {
  events = 0;
  opened = false;
  private carry = Buffer.alloc(0);

  read(chunk: Buffer): void {
    const bytes = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk]);
    this.opened ||= bytes.includes('\n\n');
    for (let at = bytes.indexOf(PLANT_EVENT); at !== -1; at = bytes.indexOf(PLANT_EVENT, at + PLANT_EVENT.length)) this.events++;
    // A marker split by the chunk boundary is found with the next chunk.
    this.carry = Buffer.from(bytes.subarray(Math.max(0, bytes.length - (PLANT_EVENT.length - 1))));
  }
}

/** A client that asked for a stream and reads nothing more of it. */
export interface StalledStream {
  /** Reads what it left unread; whether the stream then ends within `timeoutMs` (it was ended by the server). */
  drain(timeoutMs: number): Promise<boolean>;
  destroy(): void;
}

/**
 * Sends `GET /plants/changes` on a raw socket and never reads: once Node's own read buffer
 * (16 KiB) and the kernel's are full, every byte the server writes stays in the server.
 */
export function stalledStream(url: string, token: string): Promise<StalledStream> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let closed = false;
    socket.once('close', () => (closed = true));
    // A reset after the start counts as an end, as a close does (reject is then a no-op).
    socket.on('error', reject);
    socket.once('connect', () => {
      socket.pause();
      socket.write(`GET ${FEED_PATH} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`);
      resolve({
        drain: async (timeoutMs) => {
          if (closed) return true;
          const ended = new Promise<boolean>((done) => {
            const timer = setTimeout(() => done(false), timeoutMs);
            socket.once('close', () => {
              clearTimeout(timer);
              done(true);
            });
          });
          socket.on('data', () => {});
          socket.resume();
          return ended;
        },
        destroy: () => socket.destroy(),
      });
    });
  });
}
