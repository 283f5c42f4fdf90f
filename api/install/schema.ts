import { z } from 'zod';

/** The files GET /install/<version>/<file> serves. */
export const INSTALL_FILES = ['agentmeter.mjs', 'agentmeter-hook.sh'] as const;
export type InstallFile = (typeof INSTALL_FILES)[number];

/** Any file name is taken: one that is not served is a 404 that lists those that are, not a 400. */
export const InstallFileParams = z.strictObject({
  version: z.string().min(1).max(64).describe('The version the installer names (package.json of the server)'),
  file: z.string().min(1).max(64).describe(INSTALL_FILES.join(' or ')),
});
