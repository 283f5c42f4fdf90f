// Branded identifiers: mixing an org id with a user id is a bug the compiler should catch.
import { randomBytes, randomUUID } from 'node:crypto';

export type Brand<T, B extends string> = T & { readonly __brand: B };
export type OrgId = Brand<string, 'OrgId'>;
export type UserId = Brand<string, 'UserId'>;
export type ApiKeyId = Brand<string, 'ApiKeyId'>;
export type SessionId = Brand<string, 'SessionId'>;

export const newOrgId = (): OrgId => `org_${randomBytes(8).toString('hex')}` as OrgId;
export const newUserId = (): UserId => `usr_${randomBytes(8).toString('hex')}` as UserId;
/** The form of every user id newUserId makes: a value of another form names no user. */
export const USER_ID_PATTERN = /^usr_[0-9a-f]{16}$/;
export const isUserId = (value: string): value is UserId => USER_ID_PATTERN.test(value);
export const newApiKeyId = (): ApiKeyId => `key_${randomBytes(8).toString('hex')}` as ApiKeyId;
export const newRequestId = (): string => randomUUID();
export type ComputerId = Brand<string, 'ComputerId'>;
export type MessageId = Brand<string, 'MessageId'>;
export const newSessionId = (): SessionId => `ses_${randomBytes(8).toString('hex')}` as SessionId;
export const newComputerId = (): ComputerId => `cmp_${randomBytes(8).toString('hex')}` as ComputerId;
export const newMessageId = (): MessageId => `msg_${randomBytes(8).toString('hex')}` as MessageId;
