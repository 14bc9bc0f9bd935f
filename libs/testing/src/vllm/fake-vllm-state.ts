import type { ChatCompletionRequest } from '@echoloop/openai-compat';
import type { FakeVllmFaults, FakeVllmOptions, FaultSource, LoraAdapter } from './fake-vllm-types';
import { toReplyScript, type ReplyScript, type ReplySource } from './scripted-replies';

const echoLastUserMessage: ReplyScript = (request) =>
  request.messages.findLast((message) => message.role === 'user')?.content ?? '';

/** What the fake serves and how it misbehaves; tests change it while the server runs. */
export class FakeVllmState {
  readonly model: string;
  readonly modelRoot: string;
  readonly maxModelLen: number;
  readonly apiKey: string | undefined;
  readonly checkAdapterPaths: boolean;
  readonly startedAt = Math.floor(Date.now() / 1000);
  readonly adapters = new Map<string, LoraAdapter>();
  reply: ReplyScript;
  private faults: FaultSource | undefined;
  private readonly queuedFaults: FakeVllmFaults[] = [];

  constructor(options: FakeVllmOptions) {
    this.model = options.model ?? 'fake-base-model';
    this.modelRoot = options.modelRoot ?? this.model;
    this.maxModelLen = options.maxModelLen ?? 4096;
    this.apiKey = options.apiKey;
    this.checkAdapterPaths = options.checkAdapterPaths ?? false;
    this.reply = options.reply === undefined ? echoLastUserMessage : toReplyScript(options.reply);
    this.faults = options.faults;
    for (const adapter of options.loraAdapters ?? []) this.adapters.set(adapter.name, { ...adapter });
  }

  setReply(source: ReplySource): void {
    this.reply = toReplyScript(source);
  }

  setFaults(faults: FaultSource | undefined): void {
    this.faults = faults;
  }

  queueFaults(faults: FakeVllmFaults): void {
    this.queuedFaults.push(faults);
  }

  faultsFor(request: ChatCompletionRequest): FakeVllmFaults {
    const serverFaults = typeof this.faults === 'function' ? this.faults(request) : this.faults;
    return { ...serverFaults, ...this.queuedFaults.shift() };
  }

  servesModel(name: string): boolean {
    return name === this.model || this.adapters.has(name);
  }
}
