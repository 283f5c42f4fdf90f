// What a developer's machine downloads to enrol: the installer at INSTALLER_PATH and the files it fetches.
import { z } from 'zod';

export const INSTALLER_PATH = '/install.sh';
export const INSTALL_FILE_PATH = '/install/:version/:file';

/** The files are downloaded, never run by a browser (and every answer carries nosniff): plain text, one type. */
export const FILE_CONTENT_TYPE = 'text/plain; charset=utf-8';
export const SCRIPT_CONTENT_TYPE = 'text/x-shellscript; charset=utf-8';

/** The files GET /install/<version>/<file> serves. */
export const INSTALL_FILES = ['agentmeter.mjs', 'agentmeter-hook.sh'] as const;
export type InstallFile = (typeof INSTALL_FILES)[number];

/** Any file name is taken: one that is not served is a 404 that lists those that are, not a 400. */
export const InstallFileParams = z.strictObject({
  version: z.string().min(1).max(64).describe('The version the installer names (package.json of the server)'),
  file: z.string().min(1).max(64).describe(INSTALL_FILES.join(' or ')),
});
