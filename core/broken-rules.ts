import { ValidationError } from 'yup';
import type { ErrorCode } from './error-codes.js';
import { PlantStoreError } from './plant-store-error.js';

/** What is needed of a yup schema. */
interface Rule<T> {
  validateSync(value: unknown, options: { abortEarly: boolean }): T;
}

/**
 * Runs one yup schema per field and keeps every broken rule, so that one answer names them
 * all, as an object schema would. One small schema per field given is far cheaper than an
 * object schema over every field, and validation runs on every request.
 */
export class BrokenRules {
  private readonly messages: string[] = [];

  /** The value as the schema returns it, or undefined (noted) when it breaks a rule. */
  check<T>(rule: Rule<T>, value: unknown): T | undefined {
    try {
      return rule.validateSync(value, { abortEarly: false });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      this.messages.push(...error.errors);
      return undefined;
    }
  }

  /** Throws `code` naming each broken rule once, if any was broken. */
  throwIfAny(code: ErrorCode): void {
    if (this.messages.length > 0) throw new PlantStoreError(code, [...new Set(this.messages)].join('; '));
  }
}
