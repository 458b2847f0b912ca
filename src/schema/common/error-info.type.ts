// An error as data: what one row of a bulk request answers when it fails, shaped like the error
// envelope's `error` (code, message, details).
import type { ErrorCode as ErrorCodeValue, DetailsWithFacts } from '../../errors.ts';
import { builder } from '../builder.ts';
import { ErrorCode } from './enums.ts';

export interface ErrorInfo {
  code: ErrorCodeValue;
  message: string;
  details?: DetailsWithFacts;
}

export const ErrorInfoType = builder.objectRef<ErrorInfo>('ErrorInfo').implement({
  description: 'An error: the code, message and details an error envelope carries.',
  fields: (t) => ({
    code: t.expose('code', { type: ErrorCode }),
    message: t.exposeString('message', { description: 'For people; may change between versions, unlike code' }),
    details: t.field({
      type: 'ErrorDetails',
      nullable: true,
      description: 'Null when the error is about no field in particular',
      resolve: (e) => e.details ?? null,
    }),
  }),
});
