// Spanish (Mexico): the Latin American catalog (es-419.ts); what differs from the other regions is written by Intl.
import { es419 } from './es-419.ts';
import type { ThesisMessages } from './en-US.ts';

export const esMX: ThesisMessages = { ...es419 };
