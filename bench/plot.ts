// `npx tsx bench/plot.ts`: renders docs/benchmarks-growth.png again from bench/results/*.json
// (npm run bench does this after the growth benchmarks).
import { renderGrowthPlot } from './lib/plot.js';

const file = await renderGrowthPlot();
console.log(file ?? 'no results to plot');
