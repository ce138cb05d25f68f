/** Length in characters as a person counts them (code points, so an emoji counts once). */
export function characterCount(text: string): number {
  // Cheap exit: UTF-16 length is an upper bound of the code-point count.
  return text.length < 64 ? [...text].length : Array.from(text).length;
}

export function isBlank(text: string): boolean {
  return text.trim().length === 0;
}

/**
 * No unpaired UTF-16 surrogate (`"\ud800"` is valid JSON, but no Unicode text): disk and
 * MongoDB store UTF-8, which cannot hold one, so it would read back as something else.
 */
export function isWellFormed(text: string): boolean {
  // Native since Node 20 (ES2024), not yet in this project's lib.
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/** A non-blank string of 1..max characters. */
export function isBoundedText(text: string, max: number): boolean {
  return text.length > 0 && (text.length <= max || characterCount(text) <= max) && !isBlank(text);
}
