/** One sample of the Prometheus text format: `name{label="value",…} value`. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?$/;
const escapes: Record<string, string> = { '\\': '\\', '"': '"', n: '\n' };

/** Every sample of an exposition (text format 0.0.4); throws on a line it cannot read. */
export function samplesOf(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = sampleLine.exec(line);
      if (match === null) throw new Error(`not a sample line: ${line}`);
      return { name: match[1]!, labels: labelsOf(match[2] ?? '', line), value: Number(match[3] === '+Inf' ? Infinity : match[3]) };
    });
}

function labelsOf(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let at = 0;
  while (at < text.length) {
    const name = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(text.slice(at));
    if (name === null) throw new Error(`bad labels in: ${line}`);
    at += name[0].length;
    let value = '';
    while (text[at] !== '"') {
      if (at >= text.length) throw new Error(`unterminated label value in: ${line}`);
      if (text[at] === '\\') {
        value += escapes[text[at + 1]!] ?? `\\${text[at + 1]}`;
        at += 2;
      } else value += text[at++];
    }
    labels[name[1]!] = value;
    at += 1;
    if (text[at] === ',') at += 1;
  }
  return labels;
}

/** The value of the one sample with this name and (at least) these labels; undefined when there is none. */
export function valueOf(samples: readonly Sample[], name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  const found = samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

/** The lines of an exposition that belong to metric families whose names start with `prefix` (their HELP, TYPE and samples). */
export function familiesStartingWith(text: string, prefix: string): string {
  const kept = text.split('\n').filter((line) => {
    const name = line.startsWith('# ') ? line.split(' ')[2] : line;
    return name !== undefined && name.startsWith(prefix);
  });
  return `${kept.join('\n')}\n`;
}
