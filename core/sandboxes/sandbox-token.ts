import { hash, randomBytes } from 'node:crypto';

/**
 * Self-service tokens carry a prefix, so a verifier asks the storage about no other token:
 * a stream of random tokens costs no storage call. 256 random bits follow it.
 */
export const SANDBOX_TOKEN_PREFIX = 'psb_';

export function newSandboxToken(): string {
  return `${SANDBOX_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** What the storage keeps of a token: its SHA-256, hex. */
export function sandboxTokenDigest(token: string): string {
  return hash('sha256', token, 'hex');
}

/** A fresh sandbox name: `sb-` and 16 random base-32 letters, within the name rule. */
export function newSandboxName(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  return `sb-${[...randomBytes(16)].map((byte) => alphabet[byte & 31]).join('')}`;
}
