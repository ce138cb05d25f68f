import { isUtf8 } from 'node:buffer';
import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { ErrorCode, PLANT_ID_RULE, PlantStoreError } from '../../../core/index.js';
import { idRoundedByParsing } from './id-literal.js';

export interface JsonBodyState {
  /** The parsed JSON value; the core decides whether it is a valid plant. */
  json: unknown;
}

/**
 * Reads a JSON request body in the contract's order: media type (415), size (413), then
 * syntax (400 40002). koa-body reads the bytes within the limit; JSON.parse runs here so
 * that any JSON value, `__proto__` keys included, reaches the core to be judged there.
 */
export function jsonBody(limitBytes: number): Middleware<JsonBodyState> {
  const readText = koaBody({
    json: false,
    urlencoded: false,
    multipart: false,
    text: true,
    textTypes: ['application/json'],
    textLimit: limitBytes,
    // Bytes as they came (one character each: iconv-lite's 'binary' is Node's latin1, where its
    // 'latin1' is a table read byte by byte), so that bytes which are not UTF-8 are refused
    // below, where a UTF-8 decoder would replace them and the plant be stored changed.
    encoding: 'binary',
    onError: (error) => {
      throw readFailure(error, limitBytes);
    },
  }) as unknown as Middleware<JsonBodyState>;
  // One step of Koa's chain for the three: koa-body reads, then calls what it is given.
  return async (ctx, next) => {
    // Judge the declared type: ctx.is() answers null for a request with no body at all,
    // which would turn an empty JSON POST into a media-type error instead of 40002.
    if (ctx.request.type.trim().toLowerCase() !== 'application/json') {
      throw new PlantStoreError(ErrorCode.UnsupportedMediaType, 'the body must be sent as Content-Type: application/json');
    }
    await readText(ctx, nothingAfterReading);
    const read = (ctx.request as { body?: unknown }).body;
    const text = typeof read !== 'string' ? '' : ASCII.test(read) ? read : utf8Text(read);
    // A byte order mark before the JSON is tolerated, as it was when the reader decoded it.
    const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    try {
      ctx.state.json = JSON.parse(json);
    } catch {
      throw new PlantStoreError(ErrorCode.MalformedBody, 'the body is not valid JSON');
    }
    if (idRoundedByParsing(json, ctx.state.json)) throw new PlantStoreError(ErrorCode.InvalidPlant, PLANT_ID_RULE);
    await next();
  };
}

/** Bytes below 0x80 read the same in latin1 and UTF-8: the usual body needs no decoding. */
const ASCII = /^[\x00-\x7f]*$/;

/** The body's bytes (one latin1 character each) as UTF-8 text; 40002 when they are not UTF-8. */
function utf8Text(bytesAsLatin1: string): string {
  const bytes = Buffer.from(bytesAsLatin1, 'latin1');
  if (!isUtf8(bytes)) throw new PlantStoreError(ErrorCode.MalformedBody, 'the body is not valid UTF-8');
  return bytes.toString('utf8');
}

// koa-body's `next`: the parse and the route come after it, in this middleware.
const nothingAfterReading = (): Promise<void> => Promise.resolve();

/**
 * raw-body reports its failures with a `type`; translate the ones a client can cause and
 * pass anything else on as unexpected, to be logged.
 */
function readFailure(error: Error & { type?: string; status?: number }, limitBytes: number): Error {
  switch (error.type) {
    case 'entity.too.large':
      return new PlantStoreError(ErrorCode.BodyTooLarge, `the body is larger than ${limitBytes} bytes`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new PlantStoreError(ErrorCode.UnsupportedMediaType, 'the body encoding is not supported; send plain UTF-8 JSON');
    default:
      // zlib reports a corrupt, truncated or badly checksummed Content-Encoding: the client's bytes.
      if (isCorruptEncoding(error)) {
        return new PlantStoreError(ErrorCode.MalformedBody, 'the body could not be decoded: its Content-Encoding data is corrupt or truncated');
      }
      // inflation throws a bare 415 for a Content-Encoding it cannot undo.
      if (error.status === 415) {
        return new PlantStoreError(ErrorCode.UnsupportedMediaType, 'the Content-Encoding is not supported; send identity, gzip, deflate or br');
      }
      if (error.status !== undefined && error.status < 500) {
        return new PlantStoreError(ErrorCode.MalformedBody, 'the body could not be read completely');
      }
      return error;
  }
}

/** zlib's decoding errors: a numeric errno and a Z_* code (gzip, deflate) or a brotli one. */
function isCorruptEncoding(error: Error & { errno?: unknown; code?: unknown }): boolean {
  return typeof error.errno === 'number' && typeof error.code === 'string' && /^(Z_|ERR__ERROR_)/.test(error.code);
}
