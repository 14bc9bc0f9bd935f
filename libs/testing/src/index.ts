// Deterministic vLLM-compatible test server
export * from './vllm/index';

// Local stack helpers (real PostgreSQL and Kafka started by tools/stack)
export { createTestDatabase, stackDatabaseUrl, type TestDatabase } from './stack/test-database';
export {
  findOnTopic,
  freshLabellerGroup,
  readTopic,
  stackKafkaBrokers,
  startGroupsAtEnd,
  testKafka,
} from './stack/kafka-probe';
export { uniqueName, waitFor, type WaitOptions } from './stack/wait-for';
export { runAppUntilExit, startApp, type AppExit, type AppProcess } from './stack/app-process';
export { type CollectedSpan, startTraceCollector, type TraceCollector } from './stack/trace-collector';
export { stackComponent, stackComponentAsync } from './stack/stack-control';
export { adapterNamesOf } from './stack/served-adapters';

// Character-card PNG files built chunk by chunk (CRCs from node:zlib), as other tools write them
export { cardTextChunk, IEND, rawChunk, rawPng, realWorldImageChunks } from './cards/png-fixtures';
export { writeResultFile } from './bench/result-file';
export {
  BENCHMARKS_PAGE,
  readCommittedResults,
  renderBenchmarksPage,
  writeBenchmarksPage,
} from './bench/benchmarks-page';
