import type { Stage } from '../../db/generated/client/client.ts';
import { builder } from '../builder.ts';
import { pageType } from '../common/page.ts';
import { versionDescription } from '../common/versions.ts';

export const StageType = builder.prismaObject('Stage', {
  description: 'A step of a pipeline that deals move through.',
  fields: (t) => ({
    id: t.exposeID('id'),
    pipeline_id: t.exposeString('pipelineId'),
    name: t.exposeString('name'),
    position: t.exposeInt('position', { description: '1 for the first stage' }),
    probability: t.exposeInt('probability', { description: 'Win probability in percent, 0 to 100' }),
    pipeline: t.relation('pipeline', { description: 'The pipeline the stage belongs to' }),
    version: t.exposeInt('version', { description: versionDescription }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

export const PipelineType = builder.prismaObject('Pipeline', {
  description: 'A sales process: the ordered stages its deals move through.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    is_default: t.exposeBoolean('isDefault', {
      description: "Whether this is the workspace's default pipeline; at most one is",
    }),
    stages: t.relation('stages', {
      description: 'Its stages in order',
      query: { orderBy: [{ position: 'asc' }, { id: 'asc' }] },
    }),
    version: t.exposeInt('version', { description: versionDescription }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

export const PipelinePage = pageType('PipelinePage', PipelineType);

/** A stage with the totals of the deals in it, as the stage listing of a pipeline shows it. */
export interface StageWithTotals extends Stage {
  dealCount: number;
  totalValue: number;
}

export const StageTotalsType = builder.objectRef<StageWithTotals>('StageWithTotals').implement({
  description: 'A stage with the number and summed value of the deals in it (any status).',
  fields: (t) => ({
    id: t.exposeID('id'),
    pipeline_id: t.exposeString('pipelineId'),
    name: t.exposeString('name'),
    position: t.exposeInt('position', { description: '1 for the first stage' }),
    probability: t.exposeInt('probability', { description: 'Win probability in percent, 0 to 100' }),
    // Deal data: null for keys that may not read deals.
    deal_count: t.exposeInt('dealCount', {
      nullable: true,
      description: 'Deals in the stage, any status; null when the key may not read deals',
    }),
    total_value: t.exposeFloat('totalValue', {
      nullable: true,
      description:
        'Sum of deal values as stored, whatever their currency; no value counts as 0. ' +
        'Null when the key may not read deals',
    }),
    version: t.exposeInt('version', { description: versionDescription }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

export const StageTotalsPage = pageType('StageWithTotalsPage', StageTotalsType);
