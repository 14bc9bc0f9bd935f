import { gzipSync } from 'node:zlib';
import type { Plugin, Rollup } from 'vite';

/**
 * Measures, in every build, the JavaScript the chat page loads before it can render (the entry chunk and its
 * static imports; staff pages are lazy chunks, loaded only by those who open them), gzipped. Writes
 * `bundle-size.json` beside the build and fails the build past `budgetBytes`.
 */
export function bundleBudget(budgetBytes: number): Plugin {
  return {
    name: 'echoloop-bundle-budget',
    apply: 'build',
    generateBundle(_options, bundle: Rollup.OutputBundle) {
      const chunks = Object.values(bundle).filter(
        (item): item is Rollup.OutputChunk => item.type === 'chunk',
      );
      const entry = chunks.find((chunk) => chunk.isEntry);
      if (!entry) return;
      const initial = new Set<string>();
      const visit = (fileName: string) => {
        if (initial.has(fileName)) return;
        initial.add(fileName);
        const chunk = bundle[fileName];
        if (chunk?.type === 'chunk') chunk.imports.forEach(visit);
      };
      visit(entry.fileName);
      const gzipped = (code: string) => gzipSync(code, { level: 9 }).length;
      const initialBytes = [...initial].reduce((sum, name) => {
        const chunk = bundle[name];
        return sum + (chunk?.type === 'chunk' ? gzipped(chunk.code) : 0);
      }, 0);
      const lazy = chunks
        .filter((chunk) => !initial.has(chunk.fileName))
        .map((chunk) => ({ file: chunk.fileName, gzipBytes: gzipped(chunk.code) }));
      const report = { initialJsGzipBytes: initialBytes, budgetBytes, initialChunks: [...initial], lazy };
      this.emitFile({
        type: 'asset',
        fileName: 'bundle-size.json',
        source: `${JSON.stringify(report, null, 2)}\n`,
      });
      const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
      this.info(`chat page JavaScript: ${kB(initialBytes)} gzipped (budget ${kB(budgetBytes)})`);
      if (initialBytes > budgetBytes) {
        this.error(
          `the chat page's JavaScript is ${kB(initialBytes)} gzipped, over its ${kB(budgetBytes)} budget`,
        );
      }
    },
  };
}
