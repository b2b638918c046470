/**
 * How the screen is divided, as numbers, so that nothing ever overflows the terminal. The frame is
 * one row shorter than the terminal: Ink redraws in place (changed lines only) while its output is
 * shorter than the screen, and clears the whole screen on every frame once it is not.
 *
 * Every panel is a title row, its content rows and a bottom border row (see panel.tsx).
 */

export interface Size {
  columns: number;
  rows: number;
}

/** Header, message line and help bar. */
export const CHROME_ROWS = 3;
/** A panel's title row and bottom border. */
export const PANEL_ROWS = 2;
/** A panel's side borders and padding. */
export const PANEL_COLS = 4;

/** The frame: the whole width, one row less than the terminal (smaller terminals are clipped, never overflowed). */
export function frameSize(size: Size): { width: number; height: number } {
  return { width: Math.max(1, Math.floor(size.columns)), height: Math.max(1, Math.floor(size.rows) - 1) };
}

export interface DashboardLayout {
  leftWidth: number;
  rightWidth: number;
  /** Content rows of the capture and memories panels. */
  topLines: number;
  pipelineLines: number;
  /** Content rows of the recent-captures panel; 0 hides it. */
  feedLines: number;
}

/** The four panels: capture and memories side by side, pipeline, then the live feed with what is left. */
export function dashboardLayout(size: Size, want: { sessionRows: number; pipelineLines: number }): DashboardLayout {
  const { width, height } = frameSize(size);
  const body = height - CHROME_ROWS;
  const leftWidth = Math.floor(width * 0.46);
  let pipelineLines = Math.max(1, want.pipelineLines);
  const topRoom = Math.floor((body - PANEL_ROWS - pipelineLines) / 2) - PANEL_ROWS;
  const topLines = Math.max(4, Math.min(want.sessionRows, topRoom));
  // What the top and pipeline panels leave, less the feed's own borders.
  let feedLines = body - (PANEL_ROWS + topLines) - (PANEL_ROWS + pipelineLines) - PANEL_ROWS;
  if (feedLines < 1) {
    feedLines = 0;
    pipelineLines = Math.max(1, Math.min(pipelineLines, body - (PANEL_ROWS + topLines) - PANEL_ROWS));
  }
  return { leftWidth, rightWidth: width - leftWidth, topLines, pipelineLines, feedLines };
}

/** Results shown at once on the search screen (each takes two rows). */
export function searchResultSlots(size: Size): number {
  const { height } = frameSize(size);
  const body = height - CHROME_ROWS;
  // The query panel (one content row) and the summary row.
  return Math.max(1, Math.floor((body - (PANEL_ROWS + 1) - 1) / 2));
}

export interface DetailLayout {
  contentLines: number;
  historyLines: number;
}

/** The memory panel (its content, then `fieldRows` fields) and the history panel below it. */
export function detailLayout(size: Size, wantContent: number, fieldRows: number): DetailLayout {
  const { height } = frameSize(size);
  const body = height - CHROME_ROWS;
  const room = body - PANEL_ROWS - fieldRows - PANEL_ROWS;
  const contentLines = Math.max(1, Math.min(wantContent, room - 3));
  return { contentLines, historyLines: Math.max(1, room - contentLines) };
}

/** The first index of a window of `slots` rows that keeps `selected` in view. */
export function windowStart(selected: number, total: number, slots: number): number {
  if (total <= slots) return 0;
  return Math.max(0, Math.min(selected - Math.floor(slots / 2), total - slots));
}
