import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../support/project-root.js';

/** A Markdown file of the documentation, read once: its headings' anchors, links and code blocks. */
export interface MarkdownFile {
  /** Relative to the repository root, with `/`: `README.md`, `docs/webhooks.md`. */
  readonly path: string;
  readonly text: string;
  /** The anchors of its headings, as GitHub makes them (a repeated heading gets `-1`, `-2` …). */
  readonly anchors: ReadonlySet<string>;
  readonly links: readonly Link[];
  readonly blocks: readonly CodeBlock[];
}

export interface Link {
  /** As written: `docs/storage.md#on-disk`, `#settings`, `https://…`. */
  readonly target: string;
  /** 1-based, for messages. */
  readonly line: number;
}

export interface CodeBlock {
  /** The fence's info string: `sh`, `ts`, or empty. */
  readonly lang: string;
  readonly code: string;
  /** The line of the opening fence, 1-based. */
  readonly line: number;
  /** The HTML comment on the line before the fence, without `<!--` and `-->`; empty when none. */
  readonly marker: string;
}

/** README.md and every docs/*.md, in that order. */
export function documentationFiles(): MarkdownFile[] {
  const docs = readdirSync(join(projectRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs].map(readMarkdown);
}

export function readMarkdown(path: string): MarkdownFile {
  const text = readFileSync(join(projectRoot, path), 'utf8');
  const lines = text.split('\n');
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const links: Link[] = [];
  const blocks: CodeBlock[] = [];
  let fence: { lang: string; line: number; marker: string; code: string[]; ticks: string } | undefined;
  lines.forEach((line, index) => {
    if (fence !== undefined) {
      if (line.trim() === fence.ticks) {
        blocks.push({ lang: fence.lang, code: fence.code.join('\n'), line: fence.line, marker: fence.marker });
        fence = undefined;
      } else fence.code.push(line);
      return;
    }
    const opening = /^(`{3,})\s*([\w-]*)\s*$/.exec(line);
    if (opening) {
      const previous = /^<!--\s*(.*?)\s*-->$/.exec(lines[index - 1]?.trim() ?? '');
      fence = { lang: opening[2]!, line: index + 1, marker: previous?.[1] ?? '', code: [], ticks: opening[1]! };
      return;
    }
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const slug = slugOf(heading[1]!);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const target of linkTargets(line)) links.push({ target, line: index + 1 });
  });
  if (fence !== undefined) throw new Error(`${path}:${fence.line}: a code block is never closed`);
  return { path, text, anchors, links, blocks };
}

/**
 * GitHub's anchor for a heading: its text as shown (code spans, links and emphasis reduced
 * to their text), lowercased, punctuation other than `-` and `_` dropped, each space a `-`.
 */
export function slugOf(heading: string): string {
  const shown = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .replace(/<[^>]+>/g, '');
  return shown
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The targets of the inline links and images of one line, outside code spans. */
function linkTargets(line: string): string[] {
  const outsideCode = line.replace(/(`+)[^`]*?\1/g, '');
  return [...outsideCode.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]!);
}
