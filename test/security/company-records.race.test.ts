// Notes, activities and tasks written on a company while it is merged away or deleted: each write
// either lands (and follows the company into the merge) or is refused with a client error; never a
// 500, never a 201 for a note the merge then deletes, never a task left naming a company merged away.
import { describe, expect } from 'vitest';
import type { Client } from '../helpers/app.ts';
import { it } from '../helpers/fixtures.ts';

async function company(api: Client, name: string): Promise<string> {
  const r = await api('POST', '/v1/companies', { name });
  if (r.status !== 201) throw new Error(`${r.status} ${r.text}`);
  return r.body.data.id;
}

const ROUNDS = Number(process.env.ROUNDS ?? 20);
const WRITES = 12;

describe('writes on a company racing its merge or deletion', () => {
  it('a note, activity or task written during a merge lands on the primary or is refused (no 500, no loss)', async ({
    app,
    ws,
  }) => {
    const statuses: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const primary = await company(ws.api, `Primary ${round}`);
      const secondary = await company(ws.api, `Secondary ${round}`);
      const writes = Array.from({ length: WRITES }, (_, i) =>
        i % 3 === 0
          ? ws.api('POST', `/v1/companies/${secondary}/notes`, { content: `note ${i}` })
          : i % 3 === 1
            ? ws.api('POST', '/v1/activities', { type: 'call', company_id: secondary })
            : ws.api('POST', '/v1/tasks', { title: `task ${i}`, related_to_type: 'company', related_to_id: secondary }),
      );
      const merge = ws.api('POST', '/v1/companies/merge', { primary_id: primary, secondary_id: secondary });
      const answers = await Promise.all([...writes, merge]);
      expect(answers.at(-1)!.status).toBe(200);
      for (const r of answers.slice(0, -1)) {
        statuses.push(r.status);
        expect(r.status, r.text).toBeLessThan(500);
      }
      const created = answers.slice(0, -1).filter((r) => r.status === 201);
      for (const r of created) {
        const id = r.body.data.id as string;
        if (id.startsWith('note_')) {
          const note = await app.db.prisma.note.findUnique({ where: { id } });
          expect(note, `note ${id} answered 201 and is gone`).toMatchObject({ companyId: primary });
        } else if (id.startsWith('act_')) {
          const act = await app.db.prisma.activity.findUnique({ where: { id } });
          expect(act?.companyId, `activity ${id} lost its company`).toBe(primary);
        } else {
          const task = await app.db.prisma.task.findUnique({ where: { id } });
          expect(task?.relatedToId, `task ${id} names the merged-away company`).toBe(primary);
        }
      }
    }
    expect(statuses.length).toBe(ROUNDS * WRITES);
  });

  it('a note or activity written while the company is deleted is refused with a client error, never a 500', async ({
    ws,
  }) => {
    for (let round = 0; round < ROUNDS; round++) {
      const doomed = await company(ws.api, `Doomed ${round}`);
      const writes = Array.from({ length: WRITES }, (_, i) =>
        i % 2 === 0
          ? ws.api('POST', `/v1/companies/${doomed}/notes`, { content: `note ${i}` })
          : ws.api('POST', '/v1/activities', { type: 'call', company_id: doomed }),
      );
      const answers = await Promise.all([...writes, ws.api('DELETE', `/v1/companies/${doomed}`)]);
      expect(answers.at(-1)!.status).toBe(200);
      for (const r of answers.slice(0, -1)) expect(r.status, r.text).toBeLessThan(500);
    }
  });

  it('two companies merged into each other at once: one merge wins, the other answers 404, never a 500', async ({
    ws,
  }) => {
    for (let round = 0; round < ROUNDS; round++) {
      const a = await company(ws.api, `A ${round}`);
      const b = await company(ws.api, `B ${round}`);
      const answers = await Promise.all([
        ws.api('POST', '/v1/companies/merge', { primary_id: a, secondary_id: b }),
        ws.api('POST', '/v1/companies/merge', { primary_id: b, secondary_id: a }),
      ]);
      expect(answers.map((r) => r.status).sort(), answers.map((r) => r.text).join('\n')).toEqual([200, 404]);
    }
  });
});
