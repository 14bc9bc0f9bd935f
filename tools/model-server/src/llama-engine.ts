import type { ChatMessage, Finish } from '@echoloop/openai-compat';
import type { ChatHistoryItem, LlamaChat, LlamaChatResponse } from 'node-llama-cpp';
import type { ChatEngine, GenerationRequest, GenerationResult } from './chat-engine';
import { LlamaAdapterChats, type OpenedChat } from './llama-adapter-chats';
import { createResponseGrammars, type ResponseGrammars } from './response-grammars';

// node-llama-cpp is ESM with top-level await, so it cannot be require()d; the CommonJS output of
// swc would turn a plain import() into require(), which this indirection prevents.
const importEsm = new Function('specifier', 'return import(specifier)') as (
  specifier: string,
) => Promise<typeof import('node-llama-cpp')>;

export interface LlamaEngineOptions {
  modelPath: string;
  contextSize: number;
  threads: number;
}

/** CPU-only llama.cpp: one context sequence for the base model, and one per loaded LoRA adapter. */
export async function loadLlamaEngine(options: LlamaEngineOptions): Promise<ChatEngine> {
  const { getLlama, LlamaChat: LlamaChatClass } = await importEsm('node-llama-cpp');
  const llama = await getLlama({ gpu: false, build: 'never' });
  const model = await llama.loadModel({ modelPath: options.modelPath });
  const open = async (loraFile?: string): Promise<OpenedChat> => {
    const context = await model.createContext({
      contextSize: options.contextSize,
      threads: options.threads,
      sequences: 1,
      ...(loraFile === undefined ? {} : { lora: { adapters: [{ filePath: loraFile }] } }),
    });
    return { context, chat: new LlamaChatClass({ contextSequence: context.getSequence() }) };
  };
  const { context, chat } = await open();
  const adapters = new LlamaAdapterChats(model, open);
  const grammars = createResponseGrammars(llama);
  return {
    contextSize: context.contextSize,
    countPromptTokens: (messages) =>
      chat.chatWrapper
        .generateContextState({ chatHistory: toChatHistory(messages) })
        .contextText.tokenize(model.tokenizer).length,
    prepareResponseFormat: async (format) => {
      await grammars(format);
    },
    generate: (request) =>
      generate(request.adapter === undefined ? chat : adapters.chat(request.adapter), grammars, request),
    loadAdapter: (name, file) => adapters.load(name, file),
    unloadAdapter: (name) => adapters.unload(name),
  };
}

async function generate(
  chat: LlamaChat,
  grammars: ResponseGrammars,
  request: GenerationRequest,
): Promise<GenerationResult> {
  const grammar = await grammars(request.responseFormat);
  const meterBefore = chat.sequence.tokenMeter.getState();
  const response = await chat.generateResponse(toChatHistory(request.messages), {
    maxTokens: request.maxTokens,
    // vLLM's default for a model without generation defaults; node-llama-cpp's own default is greedy.
    temperature: request.temperature ?? 1,
    ...(request.topP === undefined ? {} : { topP: request.topP }),
    ...(request.seed === undefined ? {} : { seed: request.seed }),
    ...(grammar === undefined ? {} : { grammar }),
    customStopTriggers: request.stop,
    signal: request.signal,
    stopOnAbortSignal: true,
    onTextChunk: request.onText,
  });
  return {
    text: response.response,
    finish: finishOf(response),
    completionTokens: chat.sequence.tokenMeter.diff(meterBefore).usedOutputTokens,
    aborted: response.metadata.stopReason === 'abort',
  };
}

/** The history ends with an empty model turn: the one to generate. */
function toChatHistory(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  const history = messages.map((message): ChatHistoryItem => {
    if (message.role === 'assistant') return { type: 'model', response: [message.content] };
    return { type: message.role, text: message.content };
  });
  return [...history, { type: 'model', response: [] }];
}

function finishOf(response: LlamaChatResponse): Finish {
  const { metadata } = response;
  if (metadata.stopReason === 'maxTokens') return { reason: 'length' };
  if (metadata.stopReason === 'customStopTrigger') {
    const trigger = metadata.customStopTrigger.filter((part) => typeof part === 'string').join('');
    return { reason: 'stop', stopReason: trigger };
  }
  return { reason: 'stop', stopReason: null };
}
