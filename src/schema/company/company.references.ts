// What a contact or deal body says about its company: the company_id it names, or (for a new
// contact) the company of its e-mail's domain. Free of the company's GraphQL types, so the
// contact and deal writes can use it.
import type { Prisma } from '../../db/generated/client/client.ts';
import { AppError } from '../../errors.ts';
import type { Context } from '../context.ts';

type Tx = Prisma.TransactionClient;

/**
 * The company a contact or deal body names, of the caller's workspace; 422 when it names none
 * (as for a deal's contact_id). Read through `db`: the transaction, or the client outside one.
 */
export async function linkedCompany(
  db: Pick<Tx, 'company'>,
  ctx: Context,
  companyId: string,
): Promise<{ id: string; name: string }> {
  const company = await db.company.findUnique({
    where: { id: companyId, workspaceId: ctx.caller.workspaceId },
    select: { id: true, name: true },
  });
  if (!company)
    throw new AppError('unprocessable_entity', 'company_id does not name a company of this workspace', {
      company_id: ['unknown company'],
    });
  return company;
}

/** The company whose domain is the e-mail's, when the workspace links contacts by domain. */
export async function companyOfEmail(
  db: Pick<Tx, 'company'>,
  ctx: Context,
  email: string,
): Promise<{ id: string; name: string } | null> {
  if (!ctx.caller.linkContactsByDomain) return null;
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  if (!domain) return null;
  return db.company.findUnique({
    where: { workspaceId_domain: { workspaceId: ctx.caller.workspaceId, domain } },
    select: { id: true, name: true },
  });
}
