// Who may sign in with the provider's claims: the verified e-mail is the person's identity; a person not
// yet a user is added as a member only when the organization provisions at sign-in; a person the
// directory deactivated is refused.
import { HttpError } from '../../common/errors.ts';
import type { OrgId } from '../../common/ids.ts';
import type { AccountStore } from '../accounts/store.ts';
import type { User } from '../users/store.ts';
import type { Provider } from './store.ts';

export interface Refusal {
  status: number;
  title: string;
  detail: string;
  next?: string;
}

export type Admission = { user: User; added: boolean } | { refused: Refusal };

export async function admit(accounts: AccountStore, provider: Provider, claims: Record<string, unknown>): Promise<Admission> {
  // The e-mail is the person's identity: it must be there, and verified when the provider says whether it is.
  const email = typeof claims['email'] === 'string' ? claims['email'].toLowerCase() : undefined;
  if (!email) return refused(403, 'Sign-in refused', 'The identity provider did not give an e-mail address (ask for the "email" scope).');
  const verified = claims['email_verified'];
  if (verified === false || verified === 'false')
    return refused(403, 'Sign-in refused', `The identity provider says ${email} is not verified.`);

  const orgId = provider.orgId as OrgId;
  let user = await accounts.findUserByEmail(orgId, email);
  let added = false;
  if (!user) {
    if (provider.provision !== 'member')
      return refused(
        403,
        'Not a member of this organization',
        `${email} is not a user of this organization, and it does not add people at sign-in.`,
        'Ask an owner to add you (agentmeter users add), or to provision you from the directory.',
      );
    try {
      user = await accounts.createUser({
        orgId,
        email,
        role: 'member',
        ...(typeof claims['given_name'] === 'string' ? { firstName: claims['given_name'].slice(0, 200) } : {}),
        ...(typeof claims['family_name'] === 'string' ? { lastName: claims['family_name'].slice(0, 200) } : {}),
      });
    } catch (error) {
      // The address is another user's alias (their commits carry it): a new user of it would own it too.
      if (error instanceof HttpError && error.status === 409)
        return refused(403, 'Sign-in refused', error.message, 'Ask an owner to remove the address from the user who has it.');
      throw error;
    }
    added = true;
  }
  if (await accounts.deactivated(orgId, user.id))
    return refused(403, 'Sign-in refused', `${email} is deactivated in the directory.`, 'Ask your administrator.');
  return { user, added };
}

const refused = (status: number, title: string, detail: string, next?: string): Admission => ({
  refused: { status, title, detail, ...(next === undefined ? {} : { next }) },
});
