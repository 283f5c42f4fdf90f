// The claims a JWT bearer token must carry: the user (sub), the organization (org_id) and the role it asks
// for (never more than the user's current one; authenticator.ts checks).
import { z } from 'zod';
import { Role } from '../../common/roles.ts';

export const JwtClaims = z.object({ sub: z.string().min(1), org_id: z.string().min(1), role: Role });
