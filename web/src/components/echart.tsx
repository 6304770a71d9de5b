import { BarChart, LineChart, ScatterChart } from 'echarts/charts';
import {
  DataZoomComponent,
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  MarkPointComponent,
  TooltipComponent,
} from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import { useEffect, useRef } from 'react';

echarts.use([
  BarChart,
  LineChart,
  ScatterChart,
  DataZoomComponent,
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  MarkPointComponent,
  TooltipComponent,
  SVGRenderer,
]);

export type ChartOption = echarts.EChartsCoreOption;

/**
 * One ECharts chart, SVG-rendered (crisp, and its marks are inspectable DOM). `data` attributes let
 * tests and people check what the chart holds without reading pixels.
 */
export function EChart({
  option,
  label,
  height = 280,
  theme,
  data,
  onClickIndex,
}: {
  option: ChartOption;
  label: string;
  height?: number;
  theme: 'light' | 'dark';
  data?: Record<string, string | number>;
  onClickIndex?: (dataIndex: number) => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);
  const clickHandler = useRef(onClickIndex);
  clickHandler.current = onClickIndex;

  useEffect(() => {
    if (!host.current) return;
    const instance = echarts.init(host.current, theme === 'dark' ? 'dark' : undefined, { renderer: 'svg' });
    chart.current = instance;
    instance.on('click', (params) => {
      if (typeof params.dataIndex === 'number') clickHandler.current?.(params.dataIndex);
    });
    const observer = new ResizeObserver(() => instance.resize());
    observer.observe(host.current);
    return () => {
      observer.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, [theme]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a theme change re-creates the chart, which needs the option again
  useEffect(() => {
    chart.current?.setOption({ backgroundColor: 'transparent', ...option }, { notMerge: true });
  }, [option, theme]);

  const attributes = Object.fromEntries(
    Object.entries(data ?? {}).map(([key, value]) => [`data-${key}`, String(value)]),
  );
  return (
    <div ref={host} className="chart" role="img" aria-label={label} style={{ height }} {...attributes} />
  );
}
