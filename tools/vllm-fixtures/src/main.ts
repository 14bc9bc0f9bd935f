/**
 * Records vLLM's answers to the contract exchanges (libs/testing/src/vllm/contract) from a live engine, into the
 * fixture the test server's contract spec replays:
 *
 *   npm run vllm:record-fixtures -- --url http://127.0.0.1:18000 --model smollm2-135m-instruct \
 *     --adapter-path DIR [--out libs/testing/src/vllm/fixtures/vllm.json]
 *
 * The engine must run with `--enable-lora` and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True; DIR is any PEFT LoRA
 * adapter of its model (`bash tools/stack/model.sh blank-adapter DIR` makes a blank one). Each exchange is sent once, in order.
 */
import { askServer, CONTRACT_EXCHANGES, type Placeholders } from '@echoloop/testing';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://127.0.0.1:18000' },
    model: { type: 'string', default: 'smollm2-135m-instruct' },
    'adapter-path': { type: 'string' },
    out: { type: 'string', default: 'libs/testing/src/vllm/fixtures/vllm.json' },
  },
});

async function main(): Promise<void> {
  const adapterPath = values['adapter-path'];
  if (!adapterPath)
    throw new Error('--adapter-path DIR is required (a PEFT LoRA adapter of the served model)');
  const origin = values.url.replace(/\/v1\/?$/, '').replace(/\/$/, '');
  const placeholders: Placeholders = {
    model: values.model,
    adapter: 'contract-adapter',
    adapterPath: path.resolve(adapterPath),
    missingPath: '/nonexistent/echoloop-contract-adapter',
  };
  const version = (await (await fetch(`${origin}/version`)).json()) as { version: string };
  const exchanges = [];
  for (const exchange of CONTRACT_EXCHANGES) {
    const answer = await askServer(origin, exchange, placeholders);
    process.stderr.write(`${exchange.name}: ${answer.status} ${answer.mediaType}\n`);
    exchanges.push({ ...exchange, answer });
  }
  const fixture = {
    engine: { name: 'vllm', version: version.version },
    recordedAt: new Date().toISOString(),
    command: `npm run vllm:record-fixtures -- --url ${values.url} --model ${values.model} --adapter-path DIR`,
    exchanges,
  };
  await writeFile(values.out, `${JSON.stringify(fixture, null, 2)}\n`);
  process.stderr.write(`wrote ${values.out} (${exchanges.length} exchanges, vLLM ${version.version})\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
