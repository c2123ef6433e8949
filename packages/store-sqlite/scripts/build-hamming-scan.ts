// Regenerates src/vector-index/hamming-scan.wasm.ts from hamming-scan.wat:
//   pnpm -s tsx packages/store-sqlite/scripts/build-hamming-scan.ts
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GENERATED_PATH, compileHammingScan, generatedSource } from './compile-hamming-scan.ts';

const bytes = await compileHammingScan();
writeFileSync(GENERATED_PATH, generatedSource(bytes));
console.log(`wrote ${fileURLToPath(GENERATED_PATH)} (${bytes.length} bytes of WebAssembly)`);
