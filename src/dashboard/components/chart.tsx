// A chart drawn by Chart.js on a canvas. Only the parts the dashboard uses are registered, so the
// rest of the library stays out of the bundle. The canvas is an image to assistive technology,
// named by `label`; the numbers themselves are in the table each chart comes with.
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart as ChartJs,
  type ChartConfiguration,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';

ChartJs.register(
  BarController,
  BarElement,
  LineController,
  LineElement,
  PointElement,
  CategoryScale,
  LinearScale,
  Legend,
  Tooltip,
);

/** Series colours, distinguishable with the common colour-vision deficiencies (Okabe–Ito). */
export const SERIES_COLOURS = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00'];

export function Chart({ config, label }: { config: ChartConfiguration<'bar' | 'line'>; label: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new ChartJs(canvas.current, {
      ...config,
      options: { responsive: true, maintainAspectRatio: false, animation: false, ...config.options },
    });
    return () => chart.destroy();
  }, [config]);
  return (
    <div class="chart">
      <canvas ref={canvas} role="img" aria-label={label} />
    </div>
  );
}
