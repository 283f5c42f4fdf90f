// GET /api/v0/machines: every machine that shipped events, as the pipeline-health page shows it; GET
// /api/v0/machines/keys answers the collector keys (KeyList, the accounts' own schema of a key).
import { z } from 'zod';
import { IsoTime } from '../http/dates.ts';

export const MACHINES_PATH = '/api/v0/machines';
export const MACHINE_KEYS_PATH = '/api/v0/machines/keys';

export const Machine = z.strictObject({
  /** The machine id: the part of each event id before the first "." (`<machine id>.<spool file name>`). */
  machineId: z.string(),
  userId: z.string(),
  userEmail: z.string().nullable(),
  agents: z.array(z.string()),
  events: z.number(),
  /** The latest event time (when it happened on the machine), ISO-8601 UTC. */
  lastEventAt: IsoTime,
  /** The latest time the server received an event of the machine, ISO-8601 UTC. */
  lastDeliveryAt: IsoTime,
  /** From the collector's User-Agent on its latest delivery since the server started; null when not known. */
  collectorVersion: z.string().nullable(),
});
export type Machine = z.infer<typeof Machine>;
export const MachineList = z.strictObject({ machines: z.array(Machine) });
export type MachineList = z.infer<typeof MachineList>;
