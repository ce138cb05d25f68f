/** `uri` with its database path replaced by `database`, options kept (multi-host URIs too). */
export function withDatabase(uri: string, database: string): string {
  return uri.replace(/^(mongodb(?:\+srv)?:\/\/[^/?#]*)(\/[^?#]*)?/, `$1/${database}`);
}
