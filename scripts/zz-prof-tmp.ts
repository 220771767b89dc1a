import { distribution } from '../src/stats/distribution.js';
const req = { formula: process.argv[2]! } as { formula: string; versus?: { formula: string } };
if (process.argv[3]) req.versus = { formula: process.argv[3] };
for (let i = 0; i < 5; i++) distribution(req);
const t = performance.now();
for (let i = 0; i < 100; i++) distribution(req);
console.log('ms per', (performance.now() - t) / 100);
