await import('./dist/server/main.js');
const mb = (n) => Math.round(n / 1048576);
setTimeout(async () => { global.gc?.(); const m = process.memoryUsage(); console.error('MEM rss', mb(m.rss), 'heapTotal', mb(m.heapTotal), 'heapUsed', mb(m.heapUsed), 'external', mb(m.external), 'ab', mb(m.arrayBuffers));
const v8 = await import('node:v8'); for (const s of v8.getHeapSpaceStatistics()) console.error(s.space_name, mb(s.space_size), mb(s.space_used_size)); process.exit(0); }, 6000);
