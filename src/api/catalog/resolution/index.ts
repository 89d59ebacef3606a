// Resolution capabilities (docs/resolution.md): the actions on a market's resolution, its human votes, and the reads.
import { ACTION_CAPABILITIES } from './actions.ts';
import { READ_CAPABILITIES } from './reads.ts';
import { VOTE_CAPABILITIES } from './votes.ts';

export const RESOLUTION_CAPABILITIES = [...ACTION_CAPABILITIES, ...VOTE_CAPABILITIES, ...READ_CAPABILITIES];
