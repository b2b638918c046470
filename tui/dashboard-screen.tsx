/** The status screen: capture and memories side by side, the pipeline, then the live feed. */
import { Box } from 'ink';
import { CapturePanel } from './capture-panel.js';
import type { DashboardModel } from './dashboard-model.js';
import { dashboardLayout, type Size } from './layout.js';
import { MemoriesPanel } from './memories-panel.js';
import { PipelinePanel } from './pipeline-panel.js';
import { RecentPanel } from './recent-panel.js';

export interface DashboardScreenProps {
  model: DashboardModel;
  selected: number;
  size: Size;
}

export function DashboardScreen({ model, selected, size }: DashboardScreenProps) {
  const l = dashboardLayout(size, { sessionRows: model.capture.rows.length, pipelineLines: model.pipeline.length });
  const width = l.leftWidth + l.rightWidth;
  return (
    <Box flexDirection="column" width={width}>
      <Box>
        <CapturePanel rows={model.capture.rows} selected={selected} globalPaused={model.capture.globalPaused} pause={model.capture.pause} width={l.leftWidth} lines={l.topLines} />
        <MemoriesPanel memories={model.memories} width={l.rightWidth} lines={l.topLines} />
      </Box>
      <PipelinePanel lines={model.pipeline} width={width} rows={l.pipelineLines} />
      {l.feedLines > 0 ? <RecentPanel recent={model.recent} width={width} rows={l.feedLines} /> : null}
    </Box>
  );
}
