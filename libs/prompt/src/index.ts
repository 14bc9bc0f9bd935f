export {
  buildPrompt,
  DEFAULT_SYSTEM_PROMPT,
  estimateTokens,
  type Prompt,
  type PromptInput,
} from './prompt-builder';
export { TokenCalibration } from './token-calibration';
