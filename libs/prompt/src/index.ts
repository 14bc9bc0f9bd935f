export {
  buildPrompt,
  DEFAULT_SYSTEM_PROMPT,
  estimateTokens,
  type Prompt,
  type PromptInput,
} from './prompt-builder';
export { TokenCalibration } from './token-calibration';
export { buildStopStrings, cutAtFirstStop, MAX_STOP_STRINGS, type StopStringInput } from './stop-strings';
export { StopTrimmer } from './stop-trimmer';
