// The TypeScript the documentation shows compiles: every ```ts block of the listed documents is
// type-checked on its own, as a module, with the project's compiler settings (tsconfig.json), and
// a block introduced as coming from a file of examples/ is checked to be an excerpt of that file
// (its lines, in order), so the page cannot drift from the code the test suite runs.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../src/project-root.ts';

/** Documents whose code blocks are meant to be complete, compiling modules. */
const DOCUMENTS = ['docs/webhooks.md'];

interface Block {
  doc: string;
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  /** The examples/ file the text just before the block names as its source, if any. */
  source: string | null;
}

function tsBlocks(doc: string, markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[i])) continue;
    const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
    if (end === -1) throw new Error(`${doc}:${i + 1}: a code block that never closes`);
    // "From [`examples/x.ts`](../examples/x.ts):" in the paragraph that leads to the block.
    const lead = lines.slice(Math.max(0, i - 4), i).join('\n');
    const named = [...lead.matchAll(/\]\((\.\.\/examples\/[\w./-]+\.ts)\)/g)].at(-1)?.[1];
    blocks.push({
      doc,
      line: i + 1,
      code: lines.slice(i + 1, end).join('\n'),
      source: named ? path.join(path.dirname(doc), named) : null,
    });
    i = end;
  }
  return blocks;
}

const blocks = DOCUMENTS.flatMap((doc) => tsBlocks(doc, fs.readFileSync(path.join(projectRoot, doc), 'utf8')));
// Under the project, so packages resolve from its node_modules as they do for the code itself.
const workDir = fs.mkdtempSync(path.join(projectRoot, 'node_modules', '.doc-code-'));
afterAll(() => fs.rmSync(workDir, { recursive: true, force: true }));

/**
 * Runs the project's tsc on `files` (name → text) with tsconfig.json's settings; returns its report.
 * The files sit under node_modules (to resolve the project's packages), which the project excludes.
 */
async function typeCheck(files: Record<string, string>): Promise<{ ok: boolean; report: string }> {
  const dir = fs.mkdtempSync(path.join(workDir, 'run-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ extends: path.join(projectRoot, 'tsconfig.json'), include: Object.keys(files), exclude: [] }),
  );
  const tsc = path.join(projectRoot, 'node_modules/.bin/tsc');
  try {
    await promisify(execFile)(tsc, ['-p', dir, '--noEmit', '--pretty', 'false'], { cwd: dir });
    return { ok: true, report: '' };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    return { ok: false, report: `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message };
  }
}

const fileName = (b: Block) => `${path.basename(b.doc, '.md')}-line-${b.line}.ts`;

describe('code in the documentation', () => {
  it('docs/webhooks.md shows TypeScript', () => {
    expect(blocks.filter((b) => b.doc === 'docs/webhooks.md').length).toBeGreaterThan(0);
  });

  it("every ```ts block compiles on its own with the project's settings", async () => {
    const { ok, report } = await typeCheck(Object.fromEntries(blocks.map((b) => [fileName(b), b.code])));
    // Errors name the file as <doc>-line-<fence line>.ts.
    expect(report).toBe('');
    expect(ok).toBe(true);
  }, 60_000);

  it('a block that names its file in examples/ is an excerpt of it, line for line and in order', () => {
    for (const b of blocks.filter((x) => x.source)) {
      const file = fs.readFileSync(path.join(projectRoot, b.source!), 'utf8').split('\n');
      let at = 0;
      for (const line of b.code.split('\n').filter((l) => l.trim() !== '')) {
        const found = file.indexOf(line, at);
        expect(found, `${b.doc}:${b.line}: "${line}" is not in ${b.source} (after line ${at})`).toBeGreaterThanOrEqual(
          0,
        );
        at = found + 1;
      }
    }
  });

  it('the check fails on code that does not compile', async () => {
    const { ok, report } = await typeCheck({
      'broken.ts': "import crypto from 'node:crypto';\nexport const n: number = crypto.randomUUID();\n",
    });
    expect(ok).toBe(false);
    expect(report).toMatch(/broken\.ts\(2,14\): error TS2322/);
  }, 60_000);
});
