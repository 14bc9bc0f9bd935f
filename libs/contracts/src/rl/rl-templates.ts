import { RL_TEMPLATES } from '@echoloop/vocabulary';
import { z } from 'zod';

/** A template's name, as a request or an event carries it. */
export const rlTemplateName = z.enum(RL_TEMPLATES);
