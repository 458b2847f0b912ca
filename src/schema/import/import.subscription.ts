// importProgress: an import job's progress as it runs, over graphql-ws. The job's row is read
// every half second (any instance's worker may be running it) and sent when it changed; the
// stream ends after the job completes or fails.
import { Repeater } from 'graphql-yoga';
import type { Import } from '../../db/generated/client/client.ts';
import { builder } from '../builder.ts';
import { findImport } from './import.queries.ts';
import { ImportType } from './import.type.ts';

const POLL_MS = 500;
const over = (i: Import) => i.status === 'completed' || i.status === 'failed';

builder.subscriptionField('importProgress', (t) =>
  t.field({
    type: ImportType,
    description:
      'The import job now, then again each time its progress changes, until it completes or fails. ' +
      'Needs read access to the kind of record it imports.',
    args: { id: t.arg.id({ required: true }) },
    subscribe: async (_root, { id }, ctx) => {
      const first = await findImport(ctx, String(id));
      return new Repeater<Import>(async (push, stop) => {
        let last = first;
        await push(first);
        if (over(first)) return stop();
        const timer = setInterval(() => {
          ctx.prisma.import
            .findUnique({ where: { id: first.id } })
            .then(async (now) => {
              if (!now) return stop();
              if (now.updatedAt.getTime() === last.updatedAt.getTime() && now.status === last.status) return;
              last = now;
              await push(now);
              if (over(now)) stop();
            })
            .catch((err: unknown) => stop(err));
        }, POLL_MS);
        await stop;
        clearInterval(timer);
      });
    },
    resolve: (i) => i,
  }),
);
